"""The splitting integrators under an orientation-dependent torque (split2, split4, split6; sim.integrators.splitting;
and axes2 … axes8, sim.integrators.axes_splitting).

References: scipy's DOP853 (rtol 1e-13) on ``q̇ = ½ [0, ω] ⊗ q``, ``L̇ = (O c) × m g``, ``ω = O I⁻¹ Oᵀ L`` for the
heavy tops; the midpoint compositions (implicit_midpoint, im4, im6) for the torque-free case, bit for bit; the
world's own torque for the world's use of them. The contract every integrator meets is in test_integrators.py.
"""

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from spinlab.scene.files.scene_file import load_scene
from spinlab.sim.errors import NumericalError
from spinlab.sim.integrators import CLAIMS, ENGINE_STEPS, INTEGRATORS, ORIENTATION_TORQUE
from spinlab.sim.integrators.composition import KAHAN_LI_9, KAHAN_LI_17, TRIPLE_JUMP
from spinlab.sim.integrators.newton import NewtonOptions
from spinlab.sim.integrators.splitting import kick_lengths
from spinlab.sim.integrators.state import BodyParams, BodyState, energy, omega_world_from_momentum
from spinlab.sim.integrators.torque import LeverTorque
from spinlab.sim.quaternion import quat_conj, quat_log, quat_midpoint, quat_mul, quat_normalize
from spinlab.sim.world import World
from tests.sim.test_integrators import _random_bodies, _run, _t_handle
from tests.sim.world_reference import assert_same_bits

TOLERANCE_ORDER = 0.15
# The splittings, which claim to keep their order under τ(q), with the order each claims (their modules' CLAIMS);
# the engines' steps, which take τ(q) as their engine does, are measured in test_engine_torque.py.
ORDER = {name: CLAIMS[name].order for name in INTEGRATORS if name in ORIENTATION_TORQUE - ENGINE_STEPS}
# h (s) for each order in its asymptotic range over 1 s and well above the reference's error (~1e-12): measured
# ratios (split2, split4, split6) on heavy_top 4.01, 16.5 and 61.5 (63.2 from 1/30 to 1/60); on the asymmetric top
# 4.0, 16.3 and 63.6.
ORDER_H = {2: 1.0 / 60.0, 4: 1.0 / 30.0, 6: 1.0 / 15.0}
# The rotations about the principal axes (axes2 … axes8) have larger error constants on the tops spun fast about
# their symmetry axis (25 rad/s: at h = 1/30 axes4's ratio is 14.2, axes6's at 1/15 is 166), so their asymptotic
# range starts at smaller h. Measured log2 ratios on heavy_top and the asymmetric top: axes4 3.96 and 4.04 (1/60),
# axes6 5.99 and 5.99 (1/30).
ORDER_H_NAMED = {"axes4": 1.0 / 60.0, "axes6": 1.0 / 30.0}
# Eighth order meets the reference's floor (2.2e-11 rad on heavy_top, as split6 and axes6 do at small h) before
# its asymptotic range, so it is measured against itself: log2 of |x(h) − x(h/2)| / |x(h/2) − x(h/4)| at h = 1/32,
# measured 8.06 (heavy_top) and 8.01 (asymmetric top); |x(h/2) − x(h/4)| is 2.3e-12, far above rounding.
SELF_CONVERGENCE_H = {8: 1.0 / 32.0}
# Without the gyroscopic term (exact spins and kicks, the asymmetric top): eighth order measured 7.93 at 1/16.
ORDER_H_WITHOUT_GYROSCOPIC = {**ORDER_H, 8: 1.0 / 16.0}
DURATION_S = 1.0
RTOL_BACKENDS = 1e-13


def _heavy_top() -> tuple[BodyState, BodyParams, LeverTorque]:
    """The preset ``heavy_top``: a symmetric top spun at 25 rad/s, tilted 30°, its tip at a fixed pivot."""
    spec = load_scene("heavy_top")
    body = spec.bodies[0]
    inertia = body.inertia_body[None]
    state = BodyState.from_omega_world(body.orientation[None], body.omega_parent[None], inertia)
    return state, BodyParams.from_inertia(inertia), LeverTorque(-body.pivot[None], body.mass * spec.gravity[None])


def _asymmetric_top() -> tuple[BodyState, BodyParams, LeverTorque]:
    """An asymmetric heavy top: moments (0.5, 0.35, 0.2) kg m² about the pivot, the centre of mass off every axis."""
    inertia = np.diag([0.5, 0.35, 0.2])[None]
    q = quat_normalize(np.array([[0.95, 0.25, -0.1, 0.05]]))
    state = BodyState.from_omega_body(q, np.array([[1.0, -0.5, 20.0]]), inertia)
    lever = LeverTorque(np.array([[0.05, 0.02, 0.4]]), np.array([[0.0, 0.0, -2.0 * 9.81]]))
    return state, BodyParams.from_inertia(inertia), lever


TOPS = {"heavy_top": _heavy_top, "asymmetric_top": _asymmetric_top}


def _reference(state: BodyState, params: BodyParams, lever: LeverTorque, duration: float):
    """DOP853 on the heavy top's equations for body 0: ``(q, L)`` at ``duration``."""

    def rate(t, y):
        q, L = y[:4] / np.linalg.norm(y[:4]), y[4:]
        omega = omega_world_from_momentum(q[None], L[None], params.inertia_body_inv)[0]
        return np.concatenate([0.5 * quat_mul(np.concatenate([[0.0], omega]), q), lever(q[None])[0]])

    y0 = np.concatenate([state.q[0], state.L_world[0]])
    y = solve_ivp(rate, (0.0, duration), y0, method="DOP853", rtol=1e-13, atol=1e-13).y[:, -1]
    return quat_normalize(y[:4]), y[4:]


def _error(name, h, state, params, lever, reference) -> float:
    """Orientation error (rad) plus relative momentum error after ``DURATION_S``; ``reference`` (q, L), or the
    state another ``h`` ends in."""
    q_reference, L_reference = reference
    options = {"orientation_torque": lever} if name in ORIENTATION_TORQUE else {}
    held = params if name in ORIENTATION_TORQUE else None
    end = state
    for _ in range(round(DURATION_S / h)):
        if held is None:  # the midpoint torque, as the world gives it to a method that holds it over the step
            predicted, _ = INTEGRATORS[name](end, BodyParams.from_inertia(params.inertia_body, lever(end.q)), h)
            midpoint = quat_midpoint(end.q, predicted.q)
            end, _ = INTEGRATORS[name](end, BodyParams.from_inertia(params.inertia_body, lever(midpoint)), h)
        else:
            end, _ = INTEGRATORS[name](end, held, h, **options)
    angle = np.linalg.norm(quat_log(quat_mul(quat_conj(q_reference), end.q[0])))
    return angle + np.linalg.norm(end.L_world[0] - L_reference) / np.linalg.norm(L_reference)


@pytest.mark.parametrize("top", TOPS)
def test_the_splittings_keep_their_order_under_gravity_where_held_torque_is_second_order(top):
    state, params, lever = TOPS[top]()
    reference = _reference(state, params, lever, DURATION_S)
    for name, order in ORDER.items():
        if order in SELF_CONVERGENCE_H:
            ratio = _self_convergence_ratio(name, SELF_CONVERGENCE_H[order], state, params, lever)
        else:
            h = ORDER_H_NAMED.get(name, ORDER_H[order])
            ratio = _error(name, h, state, params, lever, reference) / _error(
                name, h / 2, state, params, lever, reference
            )
        assert abs(np.log2(ratio) - order) <= TOLERANCE_ORDER, (name, ratio)
    # im4 with the torque held at the step's midpoint (the world's way): second order, not fourth.
    ratio = _error("im4", 1.0 / 30.0, state, params, lever, reference) / _error(
        "im4", 1.0 / 60.0, state, params, lever, reference
    )
    assert abs(np.log2(ratio) - 2) <= 0.3, ratio


def _self_convergence_ratio(name, h, state, params, lever) -> float:
    """``|x(h) − x(h/2)| / |x(h/2) − x(h/4)|`` after ``DURATION_S``, in :func:`_error`'s measure: ``2^order`` where
    the error is asymptotic, with no reference to reach."""
    ends = []
    for step in (h, h / 2, h / 4):
        end = state
        for _ in range(round(DURATION_S / step)):
            end, _ = INTEGRATORS[name](end, params, step, orientation_torque=lever)
        ends.append((end.q[0], end.L_world[0]))
    first = _error(name, h, state, params, lever, ends[1])
    return first / _error(name, h / 2, state, params, lever, ends[2])


# Relative error of the total energy E + V over 5 s of heavy_top in the world at h = 1/120 (measured: 3.1e-4 for
# implicit_midpoint, 2.4e-4 for im4 and im6, 1.8e-5, 1.3e-7 and 1.6e-13 for split2, split4 and split6).
ENERGY_BOUND_5S = {"implicit_midpoint": 5e-4, "split2": 3e-5, "split4": 3e-7, "split6": 1e-11}


def _heavy_top_world(integrators: tuple[str, ...]) -> World:
    spec = load_scene("heavy_top")
    body = spec.bodies[0]
    world = World(gravity=spec.gravity)
    for name in integrators:
        world.add_body(
            q=body.orientation, omega_world=body.omega_parent, inertia_body=body.inertia_body, integrator=name,
            mass=body.mass, position=body.position, pivot_body=body.pivot,
        )  # fmt: skip
    return world


def _total_energy(world: World) -> np.ndarray:
    """Kinetic plus potential energy (J) of every body of a world whose bodies all hang from pivots."""
    values = world.values
    kinetic = 0.5 * np.sum(values("omega_world") * values("L_world"), axis=-1)
    lever = LeverTorque(values("com_from_pivot_body"), values("mass")[:, None] * world.gravity)
    return kinetic + lever.potential_energy(values("q"))


def test_on_heavy_top_the_splittings_beat_the_midpoint_rule_on_energy_over_five_seconds():
    names = tuple(ENERGY_BOUND_5S)
    world = _heavy_top_world(names)
    start = _total_energy(world)
    worst = np.zeros(len(names))
    for _ in range(600):
        world.step(1.0 / 120.0)
        worst = np.maximum(worst, np.abs(_total_energy(world) / start - 1.0))
    for name, error in zip(names, worst, strict=True):
        assert error < ENERGY_BOUND_5S[name], (name, error)
    assert worst[0] > 1e-4  # the midpoint torque's error is there to beat


def test_the_energy_of_a_split_heavy_top_does_not_drift():
    """Symplectic: the energy error oscillates, bounded; over 60 s at h = 1/60 the mean over the last quarter is
    the mean over the first."""
    world = _heavy_top_world(("split2",))
    start = _total_energy(world)[0]
    relative = np.empty(3600)
    for k in range(relative.size):
        world.step(1.0 / 60.0)
        relative[k] = _total_energy(world)[0] / start - 1.0
    assert np.abs(relative).max() < 2e-4
    assert abs(relative[-900:].mean() - relative[:900].mean()) < 0.05 * np.abs(relative).max()


# ------------------------------------------------------------------------------------------------- torque-free

SAME_WHEN_TORQUE_FREE = {"split2": "implicit_midpoint", "split4": "im4", "split6": "im6"}


@pytest.mark.parametrize("backend", ["numba", "numpy"])
@pytest.mark.parametrize("name", SAME_WHEN_TORQUE_FREE)
def test_torque_free_a_splitting_is_its_midpoint_composition_bit_for_bit(name, backend):
    state, params = _random_bodies(7, seed=21, torque=False)
    split = _run(name, state, params, 0.05, 20, backend=backend)
    composed = _run(SAME_WHEN_TORQUE_FREE[name], state, params, 0.05, 20, backend=backend)
    for a, b in ((split.q, composed.q), (split.omega_world, composed.omega_world), (split.L_world, composed.L_world)):
        assert_same_bits(a, b)
    t_handle, t_params = _t_handle()
    assert_same_bits(_run(name, t_handle, t_params, 0.01, 500).L_world, t_handle.L_world)


# ------------------------------------------------------------------------------------------------ the machinery


def test_kicks_merge_half_kicks_and_add_up_to_the_step():
    for coefficients in ((1.0,), TRIPLE_JUMP, KAHAN_LI_9, KAHAN_LI_17):
        kicks = kick_lengths(coefficients)
        assert kicks.size == len(coefficients) + 1
        assert kicks[0] == kicks[-1] == 0.5 * coefficients[0]
        assert abs(kicks.sum() - 1.0) < 1e-15 and abs(sum(coefficients) - 1.0) < 1e-15


def _levered_bodies(n_bodies: int, seed: int) -> tuple[BodyState, BodyParams, LeverTorque]:
    """:func:`_random_bodies` (with constant torques) and random levers and forces."""
    state, params = _random_bodies(n_bodies, seed)
    rng = np.random.default_rng(seed + 100)
    return state, params, LeverTorque(rng.normal(size=(n_bodies, 3)), 5.0 * rng.normal(size=(n_bodies, 3)))


@pytest.mark.parametrize("gyroscopic", [True, False])
@pytest.mark.parametrize("name", ORDER)
def test_the_kernel_agrees_with_the_stages_one_by_one_and_with_any_callable_torque(name, gyroscopic):
    state, params, lever = _levered_bodies(8, seed=22)
    params = BodyParams(params.inertia_body, params.inertia_body_inv, params.torque_world, gyroscopic)
    kernel = _run(name, state, params, 0.04, 5, orientation_torque=lever)
    stages = _run(name, state, params, 0.04, 5, orientation_torque=lever, backend="numpy")
    callable_torque = _run(name, state, params, 0.04, 5, orientation_torque=lambda q: lever(q))
    for other in (stages, callable_torque):
        for a, b in ((kernel.q, other.q), (kernel.omega_world, other.omega_world), (kernel.L_world, other.L_world)):
            np.testing.assert_allclose(a, b, rtol=0.0, atol=RTOL_BACKENDS * max(1.0, np.abs(b).max()))
    # A batch gives each body what it gets alone.
    for n in (0, 5):
        alone = _run(name, state[n : n + 1], params[n : n + 1], 0.04, 5, orientation_torque=lever[n : n + 1])
        assert_same_bits(alone.q, kernel.q[n : n + 1])
        assert_same_bits(alone.L_world, kernel.L_world[n : n + 1])


def test_without_the_gyroscopic_term_the_splittings_keep_their_order_for_that_model():
    """ω̇ = I_w⁻¹ τ(q), q̇ = ω: every flow of the splitting is exact, so the compositions have their order."""
    state, params, lever = _asymmetric_top()
    params = BodyParams(params.inertia_body, params.inertia_body_inv, params.torque_world, False)

    def rate(t, y):
        q, omega = y[:4] / np.linalg.norm(y[:4]), y[4:]
        alpha = omega_world_from_momentum(q[None], lever(q[None]), params.inertia_body_inv)[0]
        return np.concatenate([0.5 * quat_mul(np.concatenate([[0.0], omega]), q), alpha])

    y0 = np.concatenate([state.q[0], state.omega_world[0]])
    y = solve_ivp(rate, (0.0, DURATION_S), y0, method="DOP853", rtol=1e-13, atol=1e-13).y[:, -1]
    q_reference, omega_reference = quat_normalize(y[:4]), y[4:]

    def error(name, h):
        end = _run(name, state, params, h, round(DURATION_S / h), orientation_torque=lever)
        angle = np.linalg.norm(quat_log(quat_mul(quat_conj(q_reference), end.q[0])))
        return angle + np.linalg.norm(end.omega_world[0] - omega_reference) / np.linalg.norm(omega_reference)

    for name, order in ORDER.items():
        h = ORDER_H_WITHOUT_GYROSCOPIC[order]
        assert abs(np.log2(error(name, h) / error(name, h / 2)) - order) <= TOLERANCE_ORDER, name


def test_a_failing_free_flow_names_the_splitting_and_the_body():
    state, params = _t_handle(3)
    omega = state.omega_world.copy()
    omega[1] *= 60.0  # 30 rad in a step of 0.1 s: the midpoint's Newton needs sub-steps
    state = BodyState.from_omega_world(state.q, omega, params.inertia_body)
    for backend in ("numba", "numpy"):
        with pytest.raises(NumericalError, match=r"split4.*body 1: Newton"):
            INTEGRATORS["split4"](state, params, 0.1, backend=backend, newton=NewtonOptions(max_substep_depth=0))
    new, cost = INTEGRATORS["split4"](state, params, 0.1)
    assert cost.substeps[1] > 1 and cost.substeps[0] == 1
    np.testing.assert_array_equal(new.L_world, state.L_world)
    assert abs(energy(new)[1] / energy(state)[1] - 1.0) < 2e-2


# ---------------------------------------------------------------------------------------------------- the world


def test_the_world_gives_a_splitting_its_gravity_torque_as_a_function_of_the_orientation():
    world = _heavy_top_world(("split4", "split4"))
    values = world.values
    values("q")[1] = quat_normalize(np.array([0.9, -0.3, 0.2, 0.1]))
    lever = LeverTorque(values("com_from_pivot_body").copy(), values("mass")[:, None] * world.gravity)
    assert_same_bits(lever(values("q")), world.torque_world())
    params = BodyParams(values("inertia_body").copy(), values("inertia_body_inv").copy(), np.zeros((2, 3)))
    state = BodyState(values("q").copy(), values("omega_world").copy(), values("L_world").copy())
    for _ in range(5):
        cost = world.step(1.0 / 120.0)
        state, expected_cost = INTEGRATORS["split4"](state, params, 1.0 / 120.0, orientation_torque=lever)
        assert_same_bits(values("q"), state.q)
        assert_same_bits(values("L_world"), state.L_world)
        assert_same_bits(cost.newton_iterations, expected_cost.newton_iterations)  # no predictor step


def test_in_a_mixed_world_each_group_steps_as_it_would_alone():
    """A splitting's bodies step once with τ(q); the others twice (the midpoint torque), as in a world of their own."""
    mixed = _heavy_top_world(("split2", "im4", "split6", "implicit_midpoint"))
    splits = _heavy_top_world(("split2", "split6"))
    held = _heavy_top_world(("im4", "implicit_midpoint"))
    for _ in range(10):
        mixed_cost, split_cost, held_cost = mixed.step(1.0 / 120.0), splits.step(1.0 / 120.0), held.step(1.0 / 120.0)
        for name in ("q", "omega_world", "L_world", "position"):
            assert_same_bits(mixed.values(name)[[0, 2]], splits.values(name))
            assert_same_bits(mixed.values(name)[[1, 3]], held.values(name))
        assert_same_bits(mixed_cost.newton_iterations[[0, 2]], split_cost.newton_iterations)
        assert_same_bits(mixed_cost.newton_iterations[[1, 3]], held_cost.newton_iterations)
        assert_same_bits(mixed_cost.substeps[[1, 3]], held_cost.substeps)
