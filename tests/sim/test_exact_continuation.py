"""The exact stepper's continuation (sim/integrators/exact.py): a step that starts where the last one ended goes on
along the same closed form instead of solving the motion again.

Reference: one :class:`sim.exact.TorqueFreeSolution` built from the first step's start state exactly as the stepper
builds it (``Ω = I⁻¹ Oᵀ L``), evaluated at ``k h``. The closed-form solutions the stepper builds are counted by
wrapping each body's case analysis (``sim.torque_free_solve._start``).
"""

import numpy as np
import pytest

from spinlab.sim import torque_free_solve
from spinlab.sim.errors import NumericalError
from spinlab.sim.exact import TorqueFreeSolution
from spinlab.sim.integrators import INTEGRATORS
from spinlab.sim.integrators import exact as exact_stepper
from spinlab.sim.integrators.state import BodyParams, BodyState, matvec, omega_world_from_momentum, to_body
from spinlab.sim.quaternion import quat_normalize
from tests.sim.test_integrators import _random_bodies, _t_handle

H = 1.0 / 60.0
STEPS = 3600
# A run of steps samples one solution at k h: only the last evaluation's rounding (rad, and rad/s on ~5 rad/s);
# measured 0, the same arithmetic as the reference. Solved afresh every step, the T-handle is 1.7e-11 off after
# 3600 steps (a minute): the flip amplifies each step's rounding.
ATOL_CONTINUED = 1e-14

step = INTEGRATORS["exact"]
_solve = TorqueFreeSolution.from_body_state  # the reference: one solution per body, alone


@pytest.fixture
def builds(monkeypatch):
    """An empty continuation store, and the list of start states (q) the stepper solves the motion from (each
    body's case analysis, sim/torque_free_solve.py's ``_start``)."""
    monkeypatch.setattr(exact_stepper, "_CONTINUATIONS", exact_stepper._Continuations(exact_stepper.CACHE_SIZE))
    built = []
    original = torque_free_solve._start

    def counted(inertia_body, q0, omega_body0):
        built.append(np.array(q0))
        return original(inertia_body, q0, omega_body0)

    monkeypatch.setattr(torque_free_solve, "_start", counted)
    return built


def _solution_from(state: BodyState, params: BodyParams, n: int = 0) -> TorqueFreeSolution:
    """The closed form the stepper solves from body ``n`` of ``state``."""
    omega_body = matvec(params.inertia_body_inv, to_body(state.q, state.L_world))
    return _solve(params.inertia_body[n], state.q[n], omega_body[n])


def _expected(solution: TorqueFreeSolution, params: BodyParams, t: float, L_world: np.ndarray, n: int = 0):
    q = quat_normalize(solution.orientation(np.array(t)))
    return q, omega_world_from_momentum(q, L_world[n], params.inertia_body_inv[n])


def _run_recording(state, params, h, n_steps):
    states = []
    for _ in range(n_steps):
        state, _ = step(state, params, h)
        states.append(state)
    return states


def test_a_run_samples_one_solution_at_multiples_of_h(builds):
    start, params = _t_handle()
    states = _run_recording(start, params, H, STEPS)
    assert len(builds) == 1, "solved once, then continued"
    solution = _solution_from(start, params)
    for k in range(STEPS // 60, STEPS + 1, STEPS // 60):
        state = states[k - 1]
        q, omega_world = _expected(solution, params, k * H, start.L_world)
        np.testing.assert_allclose(state.q[0], q, rtol=0.0, atol=ATOL_CONTINUED)
        np.testing.assert_allclose(state.omega_world[0], omega_world, rtol=0.0, atol=ATOL_CONTINUED)
        np.testing.assert_array_equal(state.L_world, start.L_world)


def test_a_state_off_by_one_ulp_is_solved_afresh(builds):
    start, params = _t_handle()
    state = _run_recording(start, params, H, 10)[-1]
    nudged_q = state.q.copy()
    nudged_q[0, 1] = np.nextafter(nudged_q[0, 1], 1.0)
    nudged = BodyState(nudged_q, state.omega_world, state.L_world)
    new, _ = step(nudged, params, H)
    assert len(builds) == 2
    np.testing.assert_array_equal(builds[-1], nudged_q[0])
    q, omega_world = _expected(_solution_from(nudged, params), params, H, nudged.L_world)
    np.testing.assert_array_equal(new.q[0], q)
    np.testing.assert_array_equal(new.omega_world[0], omega_world)


def test_a_reset_solves_again_and_repeats_the_run_bit_for_bit(builds):
    start, params = _t_handle()
    first = _run_recording(start, params, H, 30)
    again = _run_recording(start, params, H, 30)
    assert len(builds) == 2, "the start state is no step's end: solved again, then continued"
    for a, b in zip(first, again, strict=True):
        for x, y in ((a.q, b.q), (a.omega_world, b.omega_world), (a.L_world, b.L_world)):
            np.testing.assert_array_equal(x, y)


def test_a_change_of_h_continues_from_where_the_body_is(builds):
    start, params = _t_handle()
    state = _run_recording(start, params, H, 7)[-1]
    state = _run_recording(state, params, 0.05, 5)[-1]
    state, _ = step(state, params, 0.3)
    assert len(builds) == 1
    q, omega_world = _expected(_solution_from(start, params), params, 7 * H + 5 * 0.05 + 0.3, start.L_world)
    np.testing.assert_allclose(state.q[0], q, rtol=0.0, atol=ATOL_CONTINUED)
    np.testing.assert_allclose(state.omega_world[0], omega_world, rtol=0.0, atol=ATOL_CONTINUED)


def test_each_body_of_a_batch_follows_its_own_solution(builds):
    start, params = _random_bodies(5, seed=41, torque=False)
    states = _run_recording(start, params, 0.02, 50)
    assert len(builds) == 5
    for n in range(5):
        q, omega_world = _expected(_solution_from(start, params, n), params, 50 * 0.02, start.L_world, n)
        np.testing.assert_allclose(states[-1].q[n], q, rtol=0.0, atol=ATOL_CONTINUED)
        np.testing.assert_allclose(states[-1].omega_world[n], omega_world, rtol=0.0, atol=ATOL_CONTINUED)


def test_the_same_state_with_another_inertia_is_another_body(builds):
    start, params = _t_handle()
    state = _run_recording(start, params, H, 3)[-1]
    other = BodyParams.from_inertia(params.inertia_body * 1.5)
    new, _ = step(state, other, H)
    assert len(builds) == 2
    q, _ = _expected(_solution_from(state, other), other, H, state.L_world)
    np.testing.assert_array_equal(new.q[0], q)


def test_a_step_without_the_gyroscopic_term_ends_the_continuation(builds):
    start, params = _t_handle()
    state = _run_recording(start, params, H, 3)[-1]
    off = BodyParams(params.inertia_body, params.inertia_body_inv, params.torque_world, gyroscopic=False)
    spun, _ = step(state, off, H)
    assert len(builds) == 1
    new, _ = step(spun, params, H)
    assert len(builds) == 2
    np.testing.assert_array_equal(builds[-1], spun.q[0])
    q, _ = _expected(_solution_from(spun, params), params, H, spun.L_world)
    np.testing.assert_array_equal(new.q[0], q)


def test_a_failed_step_stores_nothing_and_the_good_bodies_continue_after(builds):
    start, params = _random_bodies(3, seed=42, torque=False)
    state = _run_recording(start, params, 0.02, 4)[-1]
    stored = len(exact_stepper._CONTINUATIONS)
    broken_q = state.q.copy()
    broken_q[1] = np.nan
    with pytest.raises(NumericalError, match="body 1"):
        step(BodyState(broken_q, state.omega_world, state.L_world), params, 0.02)
    assert len(exact_stepper._CONTINUATIONS) == stored
    torque = np.zeros((3, 3))
    torque[2, 0] = 1.0
    with pytest.raises(NumericalError, match="refused for body 2"):
        step(state, BodyParams(params.inertia_body, params.inertia_body_inv, torque), 0.02)
    assert len(exact_stepper._CONTINUATIONS) == stored
    new, _ = step(state, params, 0.02)
    assert len(builds) == 3, "the last good state continues"
    q, _ = _expected(_solution_from(start, params, 2), params, 5 * 0.02, start.L_world, 2)
    np.testing.assert_allclose(new.q[2], q, rtol=0.0, atol=ATOL_CONTINUED)


def test_the_store_is_bounded_and_a_batch_beyond_it_is_solved_every_step(builds, monkeypatch):
    monkeypatch.setattr(exact_stepper, "_CONTINUATIONS", exact_stepper._Continuations(4))
    start, params = _random_bodies(6, seed=43, torque=False)
    states = _run_recording(start, params, 0.02, 3)
    assert len(exact_stepper._CONTINUATIONS) == 4
    assert len(builds) == 6 + 2 + 2, "the two oldest entries of each step are gone by the next"
    for n in range(6):
        q, _ = _expected(_solution_from(start, params, n), params, 3 * 0.02, start.L_world, n)
        np.testing.assert_allclose(states[-1].q[n], q, rtol=0.0, atol=ATOL_CONTINUED)


def test_every_body_of_a_batch_is_its_own_closed_form_bit_for_bit(builds):
    """The batch (sim/torque_free_rows.py) against one TorqueFreeSolution per body evaluated alone, as the stepper
    did body by body: every kind, near-symmetric, near-axis and near-separatrix bodies, from 1e-160 to 1e160 rad/s,
    through changes of h, a reset of some bodies and an edit of others, at each step, bit for bit."""
    from tests.sim.test_torque_free_rows import _states

    inertia, q, omega_body = (np.array(column) for column in zip(*_states(31), strict=True))
    with np.errstate(all="ignore"):
        start = BodyState.from_omega_body(q, omega_body, inertia)
    params = BodyParams.from_inertia(inertia)
    bodies = np.arange(len(start))
    with np.errstate(all="ignore"):  # each body's closed form, solved from the state it started from
        solutions = [_solution_from(start, params, n) for n in bodies]
    L_origin = start.L_world.copy()
    # Where each body is on it, counted as the stepper counts: t = t_origin + steps h, t_origin moved on a new h.
    t_origin, steps, h_last = np.zeros(len(bodies)), np.zeros(len(bodies), dtype=np.int64), np.zeros(len(bodies))
    state = start
    for k, h in enumerate([H] * 5 + [0.05, 0.05, 1.0 / 240.0, H, H, 0.3, H]):
        restart = (bodies % 5 == 0) if k == 7 else (bodies % 7 == 3) if k == 9 else np.zeros(len(bodies), bool)
        chosen = restart[:, None]
        if k == 9:  # an edit: q's components rotated, a state no step returned
            state = BodyState(np.where(chosen, np.roll(state.q, 1, axis=-1), state.q), state.omega_world, state.L_world)
        if k == 7:  # a reset: back to the start state
            state = BodyState(
                np.where(chosen, start.q, state.q),
                np.where(chosen, start.omega_world, state.omega_world),
                np.where(chosen, start.L_world, state.L_world),
            )
        for n in np.flatnonzero(restart):
            with np.errstate(all="ignore"):
                solutions[n] = _solution_from(state, params, n)
            L_origin[n], t_origin[n], steps[n], h_last[n] = state.L_world[n], 0.0, 0, 0.0
        moved = (h_last != h) & (steps > 0)
        t_origin = np.where(moved, t_origin + steps * h_last, t_origin)
        steps = np.where(h_last == h, steps + 1, 1)
        h_last = np.full(len(bodies), h)
        t = t_origin + steps * h
        state, _ = step(state, params, h)
        for n in bodies:
            with np.errstate(all="ignore"):
                expected = _expected(solutions[n], params, t[n], L_origin, n)
            np.testing.assert_array_equal(state.q[n], expected[0], err_msg=f"body {n}, step {k}")
            np.testing.assert_array_equal(state.omega_world[n], expected[1], err_msg=f"body {n}, step {k}")


def test_bodies_continued_from_several_steps_and_in_another_order(builds):
    """Two batches stepped apart, then together in a shuffled order: each body goes on along its own solution."""
    start, params = _random_bodies(9, seed=44, torque=False)
    parts = (np.arange(0, 4), np.arange(4, 9))
    stepped = [step(_take_state(start, part), _take_params(params, part), 0.02)[0] for part in parts]
    order = np.random.default_rng(44).permutation(9)
    joined = np.concatenate(parts)[order]
    names = ("q", "omega_world", "L_world")
    state = BodyState(*(np.concatenate([getattr(part, name) for part in stepped])[order] for name in names))
    new, _ = step(state, _take_params(params, joined), 0.02)
    assert len(builds) == 9, "every body continued"
    for k, n in enumerate(joined):
        q, omega_world = _expected(_solution_from(start, params, n), params, 2 * 0.02, start.L_world, n)
        np.testing.assert_array_equal(new.q[k], q)
        np.testing.assert_array_equal(new.omega_world[k], omega_world)


def _take_state(state: BodyState, rows: np.ndarray) -> BodyState:
    return BodyState(state.q[rows], state.omega_world[rows], state.L_world[rows])


def _take_params(params: BodyParams, rows: np.ndarray) -> BodyParams:
    return BodyParams(params.inertia_body[rows], params.inertia_body_inv[rows], params.torque_world[rows])
