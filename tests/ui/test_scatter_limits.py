"""The accuracy-versus-cost scatter's axes: whole decades around its points, never auto-fitted out to the floor of
a double (one integrator alone once showed 1e-300 … 1)."""

import numpy as np
import pytest

from spinlab.ui.cost_plots import EDGE_DECADES, EDGE_PX, decade_ticks, decades


def test_decades_hold_the_values_with_a_decade_to_spare_on_an_exact_power():
    assert decades([56.3]) == (10.0, 100.0)
    assert decades([10.0, 100.0]) == (1.0, 1000.0)
    low, high = decades([3e-17, 1e-2])
    assert np.isclose(low, 1e-17) and np.isclose(high, 0.1)
    for values in ([1.5e-9, 2.0e-3], [7.0], [0.3, 0.31]):
        low, high = decades(values)
        assert low < min(values) and max(values) < high
        assert np.isclose(np.log10(low), round(np.log10(low))) and np.isclose(np.log10(high), round(np.log10(high)))


@pytest.mark.parametrize("values", [[9.41], [0.0105, 9.9e-7], [101.0, 99.0], [1e-16], [0.065, 3e-17], [2e-16, 0.5]])
@pytest.mark.parametrize("length_px", [0.0, 60.0, 110.0, 230.0])
def test_decades_leave_room_for_a_point_near_a_power_of_ten(values, length_px):
    low, high = decades(values, length_px)
    span = np.log10(high) - np.log10(low)
    room = max(EDGE_DECADES, EDGE_PX * span / length_px if length_px else 0.0)
    assert np.log10(min(values)) - np.log10(low) >= room - 1e-12
    assert np.log10(high) - np.log10(max(values)) >= room - 1e-12


def test_decades_of_a_blown_up_error_stay_finite_and_quiet():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for length_px in (0.0, 110.0):
            low, high = decades([1e-17, np.finfo(float).max], length_px)
            assert np.isfinite(high) and high >= 1e300 and 0.0 < low <= 1e-17


def test_decade_ticks_label_every_decade_that_fits_and_never_run_together():
    char = 7.0
    values, labels = decade_ticks(0.1, 1e3, 400.0, char)
    assert labels == ["1e-1", "1", "10", "100", "1e3"] and np.allclose(values, [0.1, 1.0, 10.0, 100.0, 1e3])
    rng = np.random.default_rng(2)
    for _ in range(200):
        first = int(rng.integers(-300, 299))
        last = int(rng.integers(first + 1, 301))
        width = float(rng.uniform(20.0, 600.0))
        values, labels = decade_ticks(10.0**first, 10.0**last, width, char)
        assert values and len(values) == len(labels)
        exponents = np.round(np.log10(values)).astype(int)
        assert first <= exponents.min() and exponents.max() <= last
        # Neighbouring labels' centres at least the widest label and a digit apart on the axis.
        per_decade = width / (last - first)
        widest = (max(len(label) for label in labels) + 1) * char
        assert np.all(np.diff(exponents) * per_decade >= widest) or np.diff(exponents).min() >= 600


_FAILED = {"us": 3.0, "energy_error": float("nan"), "failed": True, "name": "euler", "rgb": (1.0, 0.0, 0.0)}


@pytest.mark.parametrize("rows", [[], [_FAILED]], ids=["no step yet", "every integrator failed"])
def test_the_scatter_without_a_point_spans_a_typical_runs_decades(imgui_window, monkeypatch, rows):
    """Not ImPlot's fit of nothing on log axes, 1e-300 … 1, whose labels ran together."""
    from types import SimpleNamespace

    from imgui_bundle import implot

    from spinlab.ui import cost_plots

    limits, ticks = [], []
    monkeypatch.setattr(implot, "setup_axes_limits", lambda *args: limits.append(args[:4]))
    monkeypatch.setattr(implot, "setup_axis_ticks", lambda axis, values, labels: ticks.append(labels))
    table = [SimpleNamespace(**row) for row in rows]
    cost_plots.integrators_plot(
        SimpleNamespace(integrator_table=SimpleNamespace(table=lambda: table)), None, (300.0, 200.0)
    )
    assert limits == [(*cost_plots.EMPTY_US, *cost_plots.EMPTY_ERROR)]
    assert ticks and all(ticks)
