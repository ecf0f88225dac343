"""The accuracy-versus-cost scatter's axes: whole decades around its points, never auto-fitted out to the floor of
a double (one integrator alone once showed 1e-300 … 1)."""

import numpy as np

from ui.cost_plots import decades


def test_decades_hold_the_values_with_a_decade_to_spare_on_an_exact_power():
    assert decades([56.3]) == (10.0, 100.0)
    assert decades([10.0, 100.0]) == (1.0, 1000.0)
    low, high = decades([3e-17, 1e-2])
    assert np.isclose(low, 1e-17) and np.isclose(high, 0.1)
    for values in ([1.5e-9, 2.0e-3], [7.0], [0.3, 0.31]):
        low, high = decades(values)
        assert low < min(values) and max(values) < high
        assert np.isclose(np.log10(low), round(np.log10(low))) and np.isclose(np.log10(high), round(np.log10(high)))


def test_decades_of_a_blown_up_error_stay_finite_and_quiet():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        low, high = decades([1e-17, np.finfo(float).max])
    assert np.isfinite(high) and high >= 1e300 and low <= 1e-17
