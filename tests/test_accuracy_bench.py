"""Tests of benchmarks/accuracy.py and benchmarks/heavy_top_*.py: the heavy top's rows, MuJoCo's ball joint
starting in spinlab's state, and the quick run's result feeding the table and the docs."""

import json

import numpy as np
import pytest

from spinlab.benchmarks import accuracy, heavy_top_accuracy, heavy_top_body, heavy_top_mujoco
from spinlab.benchmarks.figures import pyplot
from spinlab.scene.model.measures import orientation_error
from spinlab.sim.integrators import AXES, METHODS

ATOL_RAD = 1e-12
RTOL_ENERGY = 1e-13
H_TINY = 1e-4  # s: both 4th-order-or-better methods agree to ~1e-16 per step here


def _one_call(advance, repeats: int, clock=None) -> float:
    """A stand-in for the benchmark's timer: calls ``advance`` once, reports one microsecond."""
    advance()
    return 1e-6


def _mujoco():
    try:
        import mujoco
    except ImportError:
        pytest.skip("mujoco is not installed (pip install -e '.[peers]'): MuJoCo's heavy top cannot be built")
    return mujoco


def test_mujoco_heavy_top_starts_in_spinlab_state():
    mujoco = _mujoco()
    top = heavy_top_body.HeavyTop.load()
    model = heavy_top_mujoco.mujoco_model(mujoco, top, "RK4", H_TINY)
    data = mujoco.MjData(model)
    heavy_top_mujoco.set_mujoco_state(data, top.q0[None], top.omega_body0[None])
    mujoco.mj_forward(model, data)
    # MuJoCo's own reading of the state: the body's world angular velocity and its energy (potential with the
    # pivot, at the world origin, as reference height: the same as ours).
    velocity = np.zeros(6)
    mujoco.mj_objectVelocity(model, data, mujoco.mjtObj.mjOBJ_BODY, 1, velocity, 0)
    np.testing.assert_allclose(velocity[:3], top.omega_world0, rtol=0, atol=1e-12)
    energy0 = top.energy(top.q0[None], top.omega_body0[None])[0]
    assert abs(data.energy.sum() / energy0 - 1.0) < RTOL_ENERGY
    # The first steps agree with spinlab's split6 through the world: same body, same gravity, same frames.
    n_steps = 20
    q_ours, omega_ours, _ = heavy_top_body.spinlab_run(top, "split6", H_TINY, n_steps)
    for k in range(1, n_steps + 1):
        mujoco.mj_step(model, data)
        q_theirs, omega_theirs = heavy_top_mujoco.mujoco_state(data)
        assert orientation_error(q_theirs, q_ours[k : k + 1])[0] < ATOL_RAD
        np.testing.assert_allclose(omega_theirs[0], omega_ours[k], rtol=0, atol=1e-10)
    assert orientation_error(q_theirs, top.q0[None])[0] > 1e-3  # it has moved: the comparison means something


def test_heavy_top_errors_are_measured_against_the_closed_form():
    result = heavy_top_accuracy.run(False, time_call=_one_call, repeats=1, steps=(1.0 / 120.0, 1.0 / 240.0),
                                    duration=5.0, integrators=("implicit_midpoint", "split6"),
                                    mujoco_integrators=())  # fmt: skip
    rows = {(r["integrator"], r["h"]): r for r in result["rows"]}
    split6, midpoint = rows[("split6", 1.0 / 120.0)], rows[("implicit_midpoint", 1.0 / 120.0)]
    assert split6["orientation_error"] < 1e-8 and split6["energy_error"] < 1e-11
    assert midpoint["orientation_error"] > 1e-4  # a second-order method is visibly off: the measure is not zero
    # The same numbers by hand: the final orientation against the Lagrange top's closed form, and E = T + V.
    top = heavy_top_body.HeavyTop.load()
    q, omega_body, _ = heavy_top_body.spinlab_run(top, "implicit_midpoint", 1.0 / 120.0, 600)
    q_exact = top.solution().orientation(np.array([5.0]))
    assert midpoint["orientation_error"] == pytest.approx(orientation_error(q[-1:], q_exact)[0], rel=1e-12)
    kinetic = 0.5 * np.einsum("ti,ij,tj->t", omega_body, top.inertia_body, omega_body)
    # The centre of mass is 0.6 m up the body z axis; the world z of the body z axis is 1 − 2 (x² + y²).
    height = 0.6 * (1.0 - 2.0 * (q[:, 1] ** 2 + q[:, 2] ** 2))
    energy = kinetic + top.mass * 9.81 * height
    assert midpoint["energy_error"] == pytest.approx(np.abs(energy / energy[0] - 1.0).max(), rel=1e-9)
    # split6 halves h at 6th order (64) in orientation until it nears the closed form's own accuracy.
    assert rows[("split6", 1.0 / 240.0)]["orientation_ratio"] > 40.0
    assert rows[("implicit_midpoint", 1.0 / 240.0)]["orientation_ratio"] == pytest.approx(4.0, rel=0.1)


def test_quick_run_feeds_the_table_and_the_docs(monkeypatch, tmp_path):
    # The quick path as the runner takes it, with shorter runs and a stand-in timer so it fits a test.
    monkeypatch.setattr(accuracy, "_best_seconds", _one_call)
    monkeypatch.setattr(accuracy, "DURATION_QUICK", 0.5)
    monkeypatch.setattr(heavy_top_accuracy, "DURATION_QUICK", 0.25)
    monkeypatch.setattr(heavy_top_accuracy, "COST_BODIES", 4)
    result = json.loads(json.dumps(accuracy.run(True)))  # what bench.json holds
    heavy_top = result["heavy_top"]
    integrators = {r["integrator"] for r in heavy_top["rows"] if r["source"] == "spinlab"}
    assert integrators == set(accuracy.MEASURED) - {"exact"}  # the engines' steps are benchmarks/engines.py's
    assert set(accuracy.MEASURED) == set(METHODS) | set(AXES)
    assert heavy_top["steps"] == list(heavy_top_accuracy.STEPS_QUICK)
    table = accuracy.format_table(result)
    assert "Heavy symmetric top" in table and "| split6 | 1/240 |" in table
    assert table.count("\n| ") >= 2 * len(integrators) + 2 * len(accuracy.MEASURED)
    assert "at equal orientation error" in table and len(result["equal_error"]["t_handle"]["table"]) == 11
    if heavy_top["mujoco"] is not None:
        assert "| MuJoCo RK4 | 1/120 |" in table and "Beat MuJoCo RK4" in table
    accuracy.write_docs(result, tmp_path)
    text = (tmp_path / "docs" / "accuracy.md").read_text(encoding="utf-8")
    assert "## Under torque: the heavy top" in text and table.splitlines()[-1] in text
    if pyplot() is None:
        pytest.skip("matplotlib is not installed: the tables were checked, the plots cannot be")
    for image in ("accuracy.png", "accuracy_heavy_top.png"):
        assert (tmp_path / "docs" / "images" / image).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_rounding_floor_is_the_closed_form_re_solved_from_every_step():
    """No truncation error: over 2 s (16 steps of 1/8 s, no flip yet) it stays within rounding of the closed form
    from the start; and the equal-error table quotes it when the result has it."""
    exact = accuracy.TorqueFreeSolution.from_body_state(
        np.diag(accuracy.MOMENTS), np.array([1.0, 0.0, 0.0, 0.0]), accuracy.OMEGA_BODY
    )
    error = accuracy._rounding_floor(1.0 / 8.0, 16, exact)
    assert error < ATOL_RAD
    entry = {"table": [], "rises": {}}
    result = {"equal_error": {"t_handle": entry, "heavy_top": entry},
              "rounding_floor": [{"h": 1.0 / 8.0, "orientation_error": 3.5e-12}]}  # fmt: skip
    text = accuracy.format_equal_error(result)
    assert "the float64 floor" in text and "3.5e-12 at 1/8" in text
