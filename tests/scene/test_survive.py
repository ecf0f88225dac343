"""Comparisons that survive (scene/model/failures.py, scene/model/run_model.py): a view that fails or diverges is frozen
with its failure on its label; the others go on exactly as if it had never been there."""

import math

import numpy as np
import pytest

import spinlab.sim.world as world
from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.model.run_model import Session, Setup, default_integrators, view_labels
from spinlab.sim.errors import NumericalError


def session(name, compared, **options):
    scene = load_scene(name)
    return Session(Setup(scene, default_integrators(scene), True, tuple(compared), scene.h, **options))


def newton_fails_after(monkeypatch, name, steps):
    """Make integrator ``name`` fail on its first body from its ``steps``-th step on, as Newton not converging. A
    step is counted once however often it is tried: the world steps its groups in turns, so a step another group
    failed in may already have called this one (the session then tries the step again from the same state)."""
    real, count, last = world.INTEGRATORS[name], [0], [b""]

    def failing(state, params, h, **options):
        start = state.q.tobytes()
        if start != last[0]:
            count[0], last[0] = count[0] + 1, start
        if count[0] > steps:
            raise NumericalError("Newton did not converge in 8 iterations", bodies=np.array([0]))
        return real(state, params, h, **options)

    monkeypatch.setitem(world.INTEGRATORS, name, failing)


def labels_of(run):
    """Each view's label lines under its name, by name."""
    return {lines[0]: lines[1:] for lines in view_labels(run, run.groups)}


def survivors(run, label):
    """The snapshot rows of every view but ``label``'s, in order."""
    return [i for group in run.groups if group.label != label for i in group.bodies]


def assert_same_states(a, rows_a, b, rows_b):
    for name in ("q", "omega_world", "L_world", "position"):
        np.testing.assert_array_equal(getattr(a.snapshot, name)[rows_a], getattr(b.snapshot, name)[rows_b])


def test_a_view_whose_newton_fails_is_frozen_and_the_others_go_on_bit_for_bit(monkeypatch):
    compared = ("rkmk4", "implicit_midpoint", "euler", "split4")
    without = session("t_handle", [name for name in compared if name != "implicit_midpoint"])
    newton_fails_after(monkeypatch, "implicit_midpoint", 30)
    run = session("t_handle", compared)
    report = run.step(120)
    assert report.error is None and report.steps == 120
    failed = [group.label for group in run.groups].index("implicit_midpoint")
    assert report.failed == (failed,)
    failure = run.failures[failed]
    assert failure.t == pytest.approx(30 * run.h) and "Newton did not converge" in failure.reason
    label = labels_of(run)["implicit_midpoint"]
    assert label == (f"diverged at t = {30 * run.h:.2f} s", "Newton did not converge in 8 iterations")
    without.step(120)
    assert_same_states(run, survivors(run, "implicit_midpoint"), without, list(range(len(without.scene.bodies))))
    # The frozen view keeps the state of its last good step and its plot lines end there.
    row = run.rows[run.groups[failed].bodies[0]]
    energy = run.latest.sample.energy_error[:, row]
    assert np.isfinite(energy[:30]).all() and np.isnan(energy[30:]).all()  # steps 1..30 kept, then none
    assert np.isfinite(np.delete(run.latest.sample.energy_error, row, axis=1)).all()
    frozen_q = run.snapshot.q[run.groups[failed].bodies[0]].copy()
    run.step(10)
    np.testing.assert_array_equal(run.snapshot.q[run.groups[failed].bodies[0]], frozen_q)


def test_a_diverging_view_is_frozen_at_the_threshold_and_the_others_match_a_run_without_it():
    compared = ("euler_body", "rkmk4", "split2")
    run = session("heavy_top", compared)
    without = session("heavy_top", compared[1:])
    for _ in range(10):
        report = run.step(30)
        without.step(30)
        assert report.error is None
    (failure,) = run.failures.values()
    assert failure.diverged and failure.reason == "ΔE/E passed +0.5 (energy gained)"
    assert 0 < failure.t < run.t
    assert_same_states(run, survivors(run, "euler_body"), without, list(range(len(without.scene.bodies))))
    assert set(report.integrator_cost) == {"rkmk4", "split2"}  # the frozen view costs nothing now
    labels = labels_of(run)
    assert labels["euler_body"] == (f"diverged at t = {failure.t:.2f} s", failure.reason)
    assert labels["rkmk4"][0].startswith(f"t = {run.t:.2f} s")


def test_the_threshold_is_the_setups_and_infinity_turns_it_off():
    compared = ("euler_body", "rkmk4")
    strict = session("heavy_top", compared, divergence=1e-6)
    off = session("heavy_top", compared, divergence=math.inf)
    strict.step(20)
    off.step(120)
    assert 0 in strict.failures  # euler_body's error passes 1e-6 at once
    assert not off.failures


def test_the_run_stops_only_when_every_view_has_failed(monkeypatch):
    newton_fails_after(monkeypatch, "implicit_midpoint", 5)
    newton_fails_after(monkeypatch, "rkmk4", 10)
    run = session("t_handle", ("implicit_midpoint", "rkmk4"))
    report = run.step(100)
    assert report.steps == 10 and report.error is not None and "Newton did not converge" in report.error
    assert sorted(failure.t for failure in run.failures.values()) == pytest.approx([5 * run.h, 10 * run.h])


def test_a_single_view_stops_on_a_failure_as_before(monkeypatch):
    newton_fails_after(monkeypatch, "implicit_midpoint", 5)
    scene = load_scene("t_handle")
    run = Session(Setup(scene, ("implicit_midpoint",) * len(scene.bodies), h=scene.h))
    report = run.step(100)
    assert report.steps == 5 and "Newton did not converge" in report.error and not run.failures


def test_cost_per_integrator_counts_body_steps_newton_and_substeps():
    run = session("hierarchy", ("implicit_midpoint", "rkmk4"))
    report = run.step(12)
    dynamic = sum(not body.kinematic for body in load_scene("hierarchy").bodies)
    for cost in report.integrator_cost.values():
        assert cost.body_steps == 12 * dynamic and cost.us_per_body_step > 0 and cost.substeps_per_body_step == 1
    assert report.integrator_cost["rkmk4"].newton_per_body_step == 0
    assert report.integrator_cost["implicit_midpoint"].newton_per_body_step >= 1


def test_the_cost_column_is_each_integrators_step_timed_alone(monkeypatch):
    # Every RETIME_CALLS calls the integrators' steps are timed alone on warm caches (World.time_groups); the cost
    # per body-step is that, not the call's own (which pays for whatever ran before the step).
    from spinlab.scene.model import run_model

    run = session("t_handle", ("euler", "rkmk4"))
    run.retime_costs = True  # as the window asks (a video does not)
    timed = []
    monkeypatch.setattr(type(run.simulation.world), "time_groups", lambda self, h: timed.append(h) or {"euler": 7e-6})
    for _ in range(run_model.RETIME_CALLS + 1):
        report = run.step(1)
    assert timed == [run.h, run.h]  # the first call and the RETIME_CALLS-th after it
    assert report.integrator_cost["euler"].us_per_body_step == pytest.approx(7.0)
    assert report.integrator_cost["rkmk4"].us_per_body_step > 0.0  # not timed alone: the call's own
