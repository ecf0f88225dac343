"""Runs as the window and the video make them (scene/model/run_model.py), without a window: layouts, the side-by-side
copies, and what the plots measure."""

import dataclasses

import numpy as np
import pytest

from spinlab.scene.files.kick_table import KickSpec
from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.model.measures import orientation_error, reference_solution
from spinlab.scene.model.run_model import (
    Session,
    Setup,
    _clamped,
    check_scene_runs,
    default_integrators,
    run_layout,
    stand_ins,
)
from spinlab.scene.model.samples import plane_axes, polhode_axes
from spinlab.sim.errors import NumericalError
from spinlab.sim.exact import TorqueFreeSolution
from spinlab.sim.integrators import METHODS
from spinlab.sim.lagrange_top import LagrangeTopSolution
from spinlab.sim.quaternion import quat_conj, quat_rotate
from spinlab.ui.plot_series import PlotSeries

EPS = np.finfo(float).eps

ATOL_RAD_PER_S = 1e-9


def setup(name, **options):
    scene = load_scene(name)
    return Setup(scene, options.pop("integrators", default_integrators(scene)), **options)


def test_side_by_side_copies_every_body_once_per_integrator_with_renamed_parents():
    scene, groups = run_layout(setup("hierarchy", side_by_side=True))
    base = load_scene("hierarchy")
    assert len(scene.bodies) == len(base.bodies) * len(METHODS)
    assert [group.label for group in groups] == list(METHODS)
    for group in groups:
        copies = [scene.bodies[i] for i in group.bodies]
        assert [body.name for body in copies] == [f"{body.name} [{group.label}]" for body in base.bodies]
        assert all(body.parent is None or body.parent.endswith(f"[{group.label}]") for body in copies)
        assert all(body.integrator in (None, group.label) for body in copies)


def test_the_compare_preset_gets_a_view_per_integrator_and_one_scene_a_single_view():
    _, groups = run_layout(setup("compare"))
    assert len(groups) == len(load_scene("compare").bodies)
    _, groups = run_layout(setup("hierarchy"))
    assert len(groups) == 1


def test_the_compare_preset_side_by_side_shows_one_body_per_integrator():
    """Its eight handles differ only in name, integrator, colour and place: under one integrator they move alike,
    so each integrator's view holds one of them, not eight (14 views × 8 handles before)."""
    base = load_scene("compare")
    session = Session(setup("compare", side_by_side=True))
    assert [group.label for group in session.groups] == list(METHODS)
    assert [len(group.bodies) for group in session.groups] == [1] * len(METHODS)
    assert [body.name for body in session.scene.bodies] == [f"{base.bodies[0].name} [{name}]" for name in METHODS]
    assert session.names == list(METHODS)
    # Every handle of the scene is the one body each view shows: selected, followed, struck, picked.
    second = session.groups[1].bodies[0]
    assert [session.place(i) for i in range(len(base.bodies))] == [0] * len(base.bodies)
    assert session.row(5) == 0 and session.scene_body(second) == 0
    assert stand_ins(base) == (0,) * len(base.bodies)


def test_side_by_side_strikes_a_kick_on_a_handle_copied_once_on_the_copy():
    base = load_scene("compare")
    kicked = dataclasses.replace(base, kicks=(KickSpec("magnus", 0.5, np.array([0.0, 0.0, 1.0])),))
    scene, groups = run_layout(Setup(kicked, default_integrators(kicked), side_by_side=True))
    assert [kick.body for kick in scene.kicks] == [f"euler [{group.label}]" for group in groups]


def test_bodies_that_move_differently_are_each_copied():
    base = load_scene("compare")
    spun = tuple(dataclasses.replace(body, omega_parent=2.0 * body.omega_parent) if k == 3 else body
                 for k, body in enumerate(base.bodies))  # fmt: skip
    assert stand_ins(dataclasses.replace(base, bodies=spun)) == (0, 0, 0, 3, 0, 0, 0, 0)
    assert stand_ins(load_scene("hierarchy")) == tuple(range(len(load_scene("hierarchy").bodies)))


def test_the_exact_integrator_follows_the_exact_reference():
    session = Session(setup("t_handle", side_by_side=True, compared=("exact", "euler")))
    session.step(120)
    sample = session.sample()
    exact_row = session.names.index("exact")
    np.testing.assert_allclose(sample.herpolhode[exact_row], sample.herpolhode_exact[exact_row], atol=ATOL_RAD_PER_S)
    np.testing.assert_allclose(sample.polhode[exact_row], sample.polhode_exact[exact_row], atol=ATOL_RAD_PER_S)
    assert session.exact_rows == [0], "copies with one initial state share one exact solution"
    assert sample.energy_error[session.names.index("euler")] > 1e-5


def test_a_body_under_torque_has_no_invariable_plane_but_a_polhode():
    session = Session(setup("heavy_top"))
    session.step(10)
    sample = session.sample()
    assert np.isnan(sample.momentum_error).all() and np.isnan(sample.herpolhode).all()
    assert np.isfinite(sample.polhode).all() and np.isfinite(sample.energy_error).all()


@pytest.mark.filterwarnings("error::RuntimeWarning")  # a blow-up is a report, never a numpy warning
def test_errors_start_at_zero_and_a_failure_is_reported_not_raised():
    session = Session(setup("t_handle", h=1.0, integrators=("euler",)))
    sample = session.sample()
    assert sample.energy_error[0] == 0.0 and sample.momentum_error[0] == 0.0  # exact zeros are kept
    report = session.step(100)
    assert report.error is not None and "'handle' (euler)" in report.error
    assert 0 < report.steps < 100 and np.isfinite(session.snapshot.omega_world).all()
    sample = session.sample()  # the last good state's energy overflows: the largest double, not an infinity
    for values in (sample.energy_error, sample.momentum_error, sample.herpolhode, sample.polhode):
        assert np.isfinite(values).all()
    assert np.isfinite(session.drawable().energy).all()


def test_an_arithmetic_error_in_a_step_is_a_report(monkeypatch):
    session = Session(setup("t_handle"))

    def overflowing_step():
        raise FloatingPointError("overflow encountered in multiply")

    monkeypatch.setattr(session.simulation, "step", overflowing_step)
    report = session.step(5)
    assert report.steps == 0 and "FloatingPointError: overflow" in report.error


def test_a_scene_that_fails_on_its_first_step_is_refused_before_it_runs(tmp_path):
    path = tmp_path / "fast.toml"
    path.write_text(
        '[scene]\ndt = 1.0\n[[body]]\nshape = "box"\ninertia = [1, 2, 2.9]\nangular_velocity = [1e10, 1, 1]\n'
        'integrator = "implicit_midpoint"\n'  # Newton cannot turn by 1e10 rad in one step
    )
    scene = load_scene(path)
    with pytest.raises(NumericalError, match="fast.toml: cannot run this scene: at t = 0 s"):
        check_scene_runs(scene)
    check_scene_runs(load_scene("compare"))


@pytest.mark.parametrize("gyroscopic", [True, False])
def test_the_gyroscopic_switch_reaches_the_world(gyroscopic):
    session = Session(setup("t_handle"))
    session.set_gyroscopic(gyroscopic)
    assert session.simulation.world.gyroscopic is gyroscopic


@pytest.mark.parametrize(
    "name, options", [("compare", {}), ("heavy_top", {}), ("stable_major", {"side_by_side": True})]
)
def test_a_sample_measures_every_body_against_its_own_references(name, options):
    session = Session(setup(name, **options))
    session.step(45)
    sample, snapshot, t = session.sample(), session.snapshot, session.t
    for row, index in enumerate(session.plotted):
        body, q0, omega0 = session.scene.bodies[index], session.initial.q[index], session.initial.omega_world[index]
        solution, _ = reference_solution(session.scene, index, q0, omega0)
        plane, axes = plane_axes(session.initial.L_world[index], omega0), polhode_axes(body.inertia_body, q0, omega0)
        omega_world, q = snapshot.omega_world[index], snapshot.q[index]
        polhode = axes.T @ quat_rotate(quat_conj(q), omega_world)
        np.testing.assert_allclose(sample.polhode[row], polhode, rtol=1e-14, atol=1e-14)
        if not isinstance(solution, TorqueFreeSolution):  # no reference, or a heavy top's: orientation only
            assert np.isnan(sample.herpolhode[row]).all() and np.isnan(sample.herpolhode_exact[row]).all()
            assert np.isnan(sample.momentum_error[row]) and np.isnan(sample.polhode_exact[row]).all()
            continue
        np.testing.assert_allclose(sample.herpolhode[row], plane.T @ omega_world, rtol=1e-14, atol=1e-14)
        exact_world = solution.omega_world(np.array(t))
        exact_body = solution.omega_body(np.array(t))
        np.testing.assert_allclose(sample.herpolhode_exact[row], plane.T @ exact_world, rtol=1e-14, atol=1e-14)
        np.testing.assert_allclose(sample.polhode_exact[row], axes.T @ exact_body, rtol=1e-14, atol=1e-14)
        L0 = session.initial.L_world[index]
        drift = np.linalg.norm(snapshot.L_world[index] - L0) / np.linalg.norm(L0)
        # measures.momentum_error scales by L₀'s largest component first (no overflow): two norms and a quotient on
        # each side, scaled or not, about eight roundings of eps/2 apart at most.
        assert sample.momentum_error[row] == pytest.approx(drift, rel=4 * EPS, abs=0.0)


RAD_SPLIT6_AFTER_2S = 1e-8  # heavy_top, h = 1/120: split6 is 6th order under the torque
RAD_MIDPOINT_AFTER_2S = 1e-5  # implicit midpoint is 2nd order: far above it


def test_the_heavy_top_is_measured_against_the_lagrange_top():
    scene = load_scene("heavy_top")
    session = Session(setup("heavy_top", side_by_side=True, compared=("split6", "implicit_midpoint"), h=scene.h))
    references = session.references
    assert list(references.owner) == [0, 0], "copies with one initial state share one closed form"
    ((_, top),) = references.closed_forms.singles
    assert isinstance(top, LagrangeTopSolution)
    assert session.exact_rows == [], "no exact curves under a torque"
    session.step(round(2.0 / scene.h))
    sample, t = session.sample(), session.t
    assert t == pytest.approx(2.0, abs=1e-12)
    body = scene.bodies[0]
    direct = LagrangeTopSolution.from_state(
        body.inertia_body, body.mass, -body.pivot, scene.gravity, session.initial.q[0], session.initial.omega_world[0]
    )
    q_reference = direct.orientation(np.array([t, t]))
    # The session evaluates the closed form at one time, this test at two: numpy's scalar and vector paths may round
    # q apart by an ulp or two, which moves the angle between two quaternions by about twice as much.
    np.testing.assert_allclose(
        sample.orientation_error, orientation_error(session.snapshot.q, q_reference), rtol=0.0, atol=8 * EPS
    )
    split6, midpoint = sample.orientation_error[
        [session.names.index("split6"), session.names.index("implicit_midpoint")]
    ]
    assert split6 < RAD_SPLIT6_AFTER_2S
    assert midpoint > RAD_MIDPOINT_AFTER_2S
    assert np.isnan(sample.momentum_error).all() and np.isnan(sample.herpolhode_exact).all()


def test_the_torque_free_reference_is_the_exact_solution_as_before():
    session = Session(setup("t_handle", side_by_side=True, compared=("implicit_midpoint", "euler")))
    start = session.sample()
    assert np.array_equal(start.orientation_error, [0.0, 0.0]), "q(0) = q0 exactly"
    session.step(120)
    sample, snapshot, t = session.sample(), session.snapshot, session.t
    body = session.scene.bodies[0]
    solution = reference_solution(session.scene, 0, session.initial.q[0], session.initial.omega_world[0])[0]
    assert isinstance(solution, TorqueFreeSolution) and session.exact_rows == [0]
    again = TorqueFreeSolution.from_state(body.inertia_body, session.initial.q[0], session.initial.omega_world[0])
    q_exact, omega_body_exact = again.orientation_and_omega_body(np.array(t))
    axes = session.references.polhode_axes[0]
    # The session's closed form is the batched one (sim/exact_batch.py), this test's the single body's: equal to
    # rounding of phases that grow as |ω| t, 8 eps (1 + |ω| t) in q (tests/sim/test_exact_batch.py says why).
    speed = np.linalg.norm(session.initial.omega_world[0])
    bound_q = 8 * EPS * (1.0 + speed * t)
    polhode_exact = np.einsum("ij,i->j", axes, omega_body_exact)[None].repeat(2, 0)
    np.testing.assert_allclose(sample.polhode_exact, polhode_exact, rtol=0.0, atol=speed * bound_q)
    expected = orientation_error(snapshot.q, np.stack([q_exact, q_exact]))
    np.testing.assert_allclose(sample.orientation_error, expected, rtol=0.0, atol=2 * bound_q)
    assert 0.0 < expected[0] < expected[1], "implicit midpoint closer than euler"


def test_a_pivoted_body_that_is_not_a_symmetric_top_has_no_reference(tmp_path):
    path = tmp_path / "lopsided.toml"
    path.write_text(
        '[scene]\ngravity = [0.0, 0.0, -9.81]\n[[body]]\nname = "lopsided"\nshape = "box"\nsize = [0.2, 0.4, 0.6]\n'
        "pivot = [0.0, 0.0, -0.5]\norientation = [0.9659258262890683, 0.25881904510252074, 0.0, 0.0]\n"
        'body_angular_velocity = [0.0, 0.0, 20.0]\nintegrator = "implicit_midpoint"\n'
        '[[body]]\nname = "free"\nshape = "t_handle"\nposition = [3.0, 0.0, 0.0]\n'
        'angular_velocity = [0.05, 5.0, 0.05]\nintegrator = "implicit_midpoint"\n'
    )
    scene = load_scene(path)
    session = Session(Setup(scene, default_integrators(scene)))
    assert reference_solution(session.scene, 0, session.initial.q[0], session.initial.omega_world[0])[0] is None
    session.step(30)
    sample = session.sample()
    assert np.isnan(sample.orientation_error[0]) and 0.0 < sample.orientation_error[1] < 1.0
    history = PlotSeries(session.names, np.ones((2, 3)), session.exact_rows)
    history.append(sample, np.zeros(2), 1.0)
    assert history.prepared("orientation", 20.0).drawn == [1], "no line where there is no reference"


def test_side_by_side_under_torque_leaves_exact_out():
    scene = load_scene("heavy_top")
    setup = Setup(
        scene, default_integrators(scene), side_by_side=True, compared=("implicit_midpoint", "exact"), h=scene.h
    )
    session = Session(setup)
    assert [group.label for group in session.groups] == ["implicit_midpoint"]
    assert session.step(3).error is None


def test_drawn_vectors_are_clamped_without_a_warning():
    # A body at rest beside one past the draw limit: its zero vector is kept as it is, with no overflow (a fuzzed
    # scene printed numpy's RuntimeWarning from the limit over a zero length).
    vectors = np.array([[0.0, 0.0, 0.0], [1e3, 0.0, 0.0], [np.nan, 1.0, 0.0], [3.0, 4.0, 0.0]])
    clamped = _clamped(vectors, 50.0)
    np.testing.assert_array_equal(clamped, [[0.0, 0.0, 0.0], [50.0, 0.0, 0.0], [0.0, 1.0, 0.0], [3.0, 4.0, 0.0]])


@pytest.mark.parametrize("h", [1e-30, 1e-50])
def test_a_window_run_at_a_tiny_step_schedules_its_kicks_at_once(h):
    # The kick preset's kicks at 2 s and 5 s lie 2e30 steps away at h = 1e-30 s: scheduling them searched by ones
    # for ever, and the window froze when such a file was loaded or the step typed.
    session = Session(setup("kick", h=h))
    report = session.step(5)
    assert report.steps == 5 and session.t == 5 * h


def test_a_step_that_would_end_past_the_budget_is_not_begun(monkeypatch):
    # A clock that a step moves on by 10 ms (and measuring by nothing): with a budget of 25 ms the first call,
    # knowing no step's cost yet, takes steps until it is spent (3, ending at 30 ms); the next ones, knowing a step
    # costs 10 ms, stop before the step that would end past 25 ms (2, ending at 20 ms).
    from spinlab.scene.model import run_model

    clock = [0.0]
    monkeypatch.setattr(run_model, "time", type("Clock", (), {"perf_counter": staticmethod(lambda: clock[0])}))
    scene = load_scene("t_handle")
    session = Session(Setup(scene, default_integrators(scene)))
    real_step = session.simulation.step

    def ten_ms_step():
        clock[0] += 0.010
        return real_step()

    monkeypatch.setattr(session.simulation, "step", ten_ms_step)
    assert [session.step(100, budget_s=0.025).steps for _ in range(3)] == [3, 2, 2]
    assert session.step(100).steps == 100  # no budget, no limit


def test_many_references_are_solved_in_parts_on_the_cores_with_the_bits_of_one_batch(monkeypatch):
    import spinlab.scene.model.measures as measures
    import spinlab.sim.cores as cores

    rng = np.random.default_rng(5)
    count = 600
    moments = np.sort(rng.uniform(0.5, 3.0, (count, 3)), axis=-1)
    moments[: count // 2] = (1.3, 1.4, 2.5)  # half of them one inertia (its frame found once), half each its own
    inertia = np.zeros((count, 3, 3))
    inertia[:, [0, 1, 2], [0, 1, 2]] = moments
    q0 = rng.standard_normal((count, 4))
    q0 /= np.linalg.norm(q0, axis=-1, keepdims=True)
    omega_world0 = 3.0 * rng.standard_normal((count, 3))
    omega_world0[7] = 0.0  # at rest: no reference to solve
    scene, rows, free = load_scene("t_handle"), np.zeros(count, dtype=np.intp), np.ones(count, dtype=bool)
    whole = measures.reference_solutions(scene, rows, q0, omega_world0, free, inertia)
    monkeypatch.setattr(measures, "PART_BODIES", 64)
    monkeypatch.setattr(cores, "WORKERS", 2)
    parted = measures.reference_solutions(scene, rows, q0, omega_world0, free, inertia)
    assert len(whole.parts) == 1 and len(parted.parts) == 10
    assert parted.has_reference.tolist() == whole.has_reference.tolist() and not whole.has_reference[7]
    times = np.array([0.0, 0.37, 5.0])
    ours, one_batch = parted.orientation_and_omega_body(times), whole.orientation_and_omega_body(times)
    assert [array.tobytes() for array in ours] == [array.tobytes() for array in one_batch]


def test_bodies_that_start_alike_have_one_closed_form_solved_and_evaluated_for_all(monkeypatch):
    import spinlab.scene.model.measures as measures

    scene = load_scene("compare")  # eight integrators from one start
    count = len(scene.bodies)
    inertia = np.tile(np.diag([1.3, 1.4, 2.5]), (count, 1, 1))
    q0, omega_world0 = np.tile([1.0, 0.0, 0.0, 0.0], (count, 1)), np.tile([0.05, 5.0, 0.05], (count, 1))
    rows, free = np.arange(count), np.ones(count, dtype=bool)
    alike = measures.reference_solutions(scene, rows, q0, omega_world0, free, inertia)
    monkeypatch.setattr(measures, "all_alike", lambda array: False)
    apart = measures.reference_solutions(scene, rows, q0, omega_world0, free, inertia)
    ((batch, solved, which),) = alike.parts
    assert batch.count == 1 and solved.tolist() == rows.tolist() and which.tolist() == [0] * count
    assert apart.parts[0][0].count == count and alike.has_reference.all()
    times = np.array([0.0, 0.37, 5.0, 40.0])
    q, omega = alike.orientation_and_omega_body(times)
    q_apart, omega_apart = apart.orientation_and_omega_body(times)
    assert np.all(q == q[:, :1]) and np.all(omega == omega[:, :1])  # every body the one row's values
    # Each body solved apart: the same closed form, its values to a few ulps (numpy's SIMD loops of sin, cos and the
    # like round their last bit their own way on some CPUs, for arrays of several elements).
    np.testing.assert_allclose(q, q_apart, rtol=0.0, atol=1e-14)
    np.testing.assert_allclose(omega, omega_apart, rtol=1e-14, atol=0.0)
