"""benchmarks/work_precision.py: the work at equal error, interpolated in log–log, on curves made by hand."""

import math

import pytest

from spinlab.benchmarks import work_precision


def _rows(source, name, order, constant, us_per_step, steps=(1 / 30, 1 / 60, 1 / 120, 1 / 240), floor=0.0):
    """Rows of a method of error ``constant hᵒʳᵈᵉʳ + floor`` costing ``us_per_step`` a body-step."""
    return [{"source": source, "integrator": name, "h": h, "orientation_error": constant * h**order + floor,
             "us_per_body_step": us_per_step} for h in steps]  # fmt: skip


def test_the_work_at_an_error_between_two_steps_is_exact_for_a_power_law():
    points = work_precision.curves(_rows("spinlab", "a", 4, 1.0, 2.0))[("spinlab", "a")]
    target = 1e-8  # h = 1e-2 exactly: work 2 µs / 1e-2 s
    work, bound = work_precision.work_at_error(points, target)
    assert not bound and work == pytest.approx(200.0, rel=1e-12)


def test_a_target_beaten_at_the_coarsest_step_is_an_upper_bound_and_a_floor_is_never_crossed():
    points = work_precision.curves(_rows("spinlab", "a", 2, 1.0, 1.0, floor=1e-6))[("spinlab", "a")]
    assert work_precision.work_at_error(points, 1.0) == (30.0, True)
    assert work_precision.work_at_error(points, 1e-7) == (None, False)  # below the floor: not reached
    rising = points[:2] + [(points[2][0], points[2][1], 10 * points[1][2])] + points[3:]
    assert work_precision.work_at_error(rising, points[3][2]) == (None, False)


def test_equal_error_picks_the_cheapest_method_and_compares_it_with_the_reference():
    rows = (_rows("spinlab", "cheap", 4, 1.0, 1.0) + _rows("spinlab", "dear", 4, 1.0, 3.0)
            + _rows("mujoco", "RK4", 4, 10.0, 5.0))  # fmt: skip
    table = work_precision.equal_error(rows, targets=(1e-8,))
    assert table[0]["best"] == "cheap"
    # RK4 needs h = (1e-9)^(1/4) for 1e-8 at 5 µs a step; "cheap" h = 1e-2 at 1 µs.
    assert table[0]["ratio"] == pytest.approx(5.0 / 1e-9**0.25 / 100.0, rel=1e-12)
    assert math.isclose(table[0]["reference_work"], 5.0 / 1e-9**0.25, rel_tol=1e-12)


def test_an_error_that_rises_as_h_shrinks_is_named():
    rows = _rows("spinlab", "a", 2, 1.0, 1.0)
    rows[2]["orientation_error"] = 10 * rows[1]["orientation_error"]
    assert work_precision.error_rises(rows) == {"spinlab a": [rows[2]["h"]]}
    assert work_precision.error_rises(_rows("spinlab", "b", 2, 1.0, 1.0)) == {}
    saturated = _rows("spinlab", "c", 2, 1.0, 1.0)  # 1 rad, then 3 rad: not converging yet, not a rise
    saturated[0]["orientation_error"], saturated[1]["orientation_error"] = 1.0, 3.0
    assert work_precision.error_rises(saturated) == {}
