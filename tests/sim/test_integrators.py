"""sim/integrators: one contract over INTEGRATORS, each module's CLAIMS measured, then each method's own tests.

References: the closed-form torque-free motion (sim.exact) for the T-handle, scipy's DOP853 for a driven sphere,
and the numpy backend for the compiled kernels.
"""

import hashlib

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from spinlab.sim.errors import NumericalError
from spinlab.sim.exact import TorqueFreeSolution
from spinlab.sim.integrators import CLAIMS, INTEGRATORS, implicit_midpoint
from spinlab.sim.integrators._kernels import rodrigues_coefficients as rodrigues_coefficients_numba
from spinlab.sim.integrators.newton import NewtonOptions
from spinlab.sim.integrators.state import BodyParams, BodyState, angular_acceleration, energy, omega_body, to_body
from spinlab.sim.integrators.torque import LeverTorque
from spinlab.sim.quaternion import quat_conj, quat_exp, quat_identity, quat_log, quat_mul, quat_to_matrix
from spinlab.sim.taylor import rodrigues_coefficients
from tests.sim.conftest import ANGLE_SWEEP, coefficient_rtol

T_HANDLE_MOMENTS = (2.5, 1.4, 1.3)  # kg m², seed 003's body
T_HANDLE_OMEGA_BODY = (0.05, 5.0, 0.05)  # rad/s, near the intermediate axis
IMPLICIT = ("implicit_midpoint", "trapezoidal", "object_trapezoidal")
# h (s) at which each order is asymptotic on the T-handle over 2 s and still above rounding (first-order methods
# reach their rate later; sixth order reaches rounding, ~1e-12, below h = 0.03; axes8, eighth order, torque-free
# the reduced splitting about L (sim/integrators/axes_splitting.py), measured log2 ratios 7.98, 8.00, 8.00 at
# h = 1, 2/3, 0.5 and errors 3.4e-12 at h = 0.25, where rounding takes over).
ORDER_TEST_H = {1: 0.005, 2: 0.02, 4: 0.02, 6: 0.1, 8: 0.5}
ATOL_EXACT_RAD = 1e-12
TOLERANCE_ORDER = 0.15
RTOL_MOMENTUM = 1e-12
RTOL_BACKENDS = 1e-14
ATOL_UNIT_QUATERNION = 4e-16
# A claim "to rounding" in the claimed precision: an engine's float32 twin rounds ~5e8 times more coarsely.
ROUNDING = {"float64": 1.0, "float32": float(np.finfo(np.float32).eps / np.finfo(np.float64).eps)}


def _rounding(name: str) -> float:
    """How much coarser ``name``'s arithmetic rounds than float64 (its ``Claims.precision``)."""
    return ROUNDING[CLAIMS[name].precision]


def _as_stored(name: str, values: np.ndarray) -> np.ndarray:
    """``values`` as ``name`` stores them between steps: a float32 twin's rounded to float32."""
    return values.astype(np.float32).astype(np.float64) if CLAIMS[name].precision == "float32" else values


def _t_handle(n_bodies: int = 1, *, gyroscopic: bool = True) -> tuple[BodyState, BodyParams]:
    inertia = np.broadcast_to(np.diag(T_HANDLE_MOMENTS), (n_bodies, 3, 3))
    omega = np.broadcast_to(T_HANDLE_OMEGA_BODY, (n_bodies, 3))
    state = BodyState.from_omega_body(quat_identity((n_bodies,)), omega, inertia)
    return state, BodyParams.from_inertia(inertia, gyroscopic=gyroscopic)


def _random_bodies(n_bodies: int, seed: int, *, torque: bool = True) -> tuple[BodyState, BodyParams]:
    """Random orientations, rotated body inertia tensors (moments in [1, 3]), ω ~ 3 rad/s and torques ~ 1 N m."""
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(n_bodies, 4))
    q /= np.linalg.norm(q, axis=-1, keepdims=True)
    principal = rng.normal(size=(n_bodies, 4))
    axes = quat_to_matrix(principal / np.linalg.norm(principal, axis=-1, keepdims=True))
    inertia = axes @ (rng.uniform(1.0, 3.0, size=(n_bodies, 3))[:, :, None] * np.swapaxes(axes, -1, -2))
    inertia = 0.5 * (inertia + np.swapaxes(inertia, -1, -2))
    torque_world = rng.normal(size=(n_bodies, 3)) if torque else None
    state = BodyState.from_omega_world(q, 3.0 * rng.normal(size=(n_bodies, 3)), inertia)
    return state, BodyParams.from_inertia(inertia, torque_world)


def _contract_bodies(name: str, n_bodies: int, seed: int) -> tuple[BodyState, BodyParams]:
    """:func:`_random_bodies`, torque-free for the steppers that claim to refuse a torque."""
    return _random_bodies(n_bodies, seed, torque=CLAIMS[name].accepts_torque)


def _run(name, state, params, h, n_steps, **options):
    for _ in range(n_steps):
        state, _ = INTEGRATORS[name](state, params, h, **options)
    return state


def _states_close(a: BodyState, b: BodyState, rtol: float) -> None:
    for x, y in ((a.q, b.q), (a.omega_world, b.omega_world), (a.L_world, b.L_world)):
        np.testing.assert_allclose(x, y, rtol=0.0, atol=rtol * max(1.0, np.abs(y).max()))


# ---------------------------------------------------------------------------------------------------- contract


@pytest.mark.parametrize("name", INTEGRATORS)
def test_step_gives_unit_finite_consistent_states_of_the_right_shapes(name):
    state, params = _contract_bodies(name, 9, seed=1)
    before = [a.copy() for a in (state.q, state.omega_world, state.L_world)]
    new, cost = INTEGRATORS[name](state, params, 0.02)
    assert new.q.shape == (9, 4) and new.omega_world.shape == (9, 3) and new.L_world.shape == (9, 3)
    assert cost.newton_iterations.shape == cost.substeps.shape == (9,)
    assert cost.newton_iterations.dtype == cost.substeps.dtype == np.int64
    assert np.all(cost.substeps >= 1)
    assert np.all(np.isfinite(new.q)) and np.all(np.isfinite(new.omega_world)) and np.all(np.isfinite(new.L_world))
    np.testing.assert_allclose(
        np.linalg.norm(new.q, axis=-1), 1.0, rtol=0.0, atol=ATOL_UNIT_QUATERNION * _rounding(name)
    )
    # ω = O I⁻¹ Oᵀ L
    O = quat_to_matrix(new.q)
    expected = O @ params.inertia_body_inv @ np.swapaxes(O, -1, -2) @ new.L_world[..., None]
    np.testing.assert_allclose(new.omega_world, expected[..., 0], rtol=1e-13, atol=1e-13)
    for a, b in zip(before, (state.q, state.omega_world, state.L_world), strict=True):
        np.testing.assert_array_equal(a, b)  # the input state is not touched


@pytest.mark.parametrize("backend", ["numba", "numpy"])
@pytest.mark.parametrize("name", INTEGRATORS)
def test_a_batch_gives_each_body_exactly_what_it_gets_alone(name, backend):
    state, params = _contract_bodies(name, 6, seed=2)
    batch, batch_cost = INTEGRATORS[name](state, params, 0.05, backend=backend)
    for n in range(6):
        alone, alone_cost = INTEGRATORS[name](state[n : n + 1], params[n : n + 1], 0.05, backend=backend)
        np.testing.assert_array_equal(alone.q, batch.q[n : n + 1])
        np.testing.assert_array_equal(alone.omega_world, batch.omega_world[n : n + 1])
        np.testing.assert_array_equal(alone.L_world, batch.L_world[n : n + 1])
        assert alone_cost.newton_iterations[0] == batch_cost.newton_iterations[n]


@pytest.mark.parametrize("name", INTEGRATORS)
def test_a_body_at_rest_stays_put(name):
    state, params = _random_bodies(4, seed=3, torque=False)
    rest = BodyState(state.q, np.zeros((4, 3)), np.zeros((4, 3)))
    new = _run(name, rest, params, 0.1, 10)
    np.testing.assert_allclose(new.q, rest.q, rtol=0.0, atol=ATOL_UNIT_QUATERNION * _rounding(name))
    np.testing.assert_array_equal(new.omega_world, 0.0)
    np.testing.assert_array_equal(new.L_world, 0.0)


@pytest.mark.parametrize("name", INTEGRATORS)
def test_torque_free_world_momentum_is_conserved_where_the_method_claims_it(name):
    state, params = _t_handle()
    new = _run(name, state, params, 0.01, 1000)
    drift = np.linalg.norm(new.L_world - state.L_world) / np.linalg.norm(state.L_world)
    if CLAIMS[name].conserves_momentum:
        assert drift <= RTOL_MOMENTUM
    else:
        # No such claim, and indeed it drifts, clearly past the bound of those that claim it (mujoco_rk4, fourth
        # order in Ω, drifts least: 1.3e-10).
        assert drift > 10 * RTOL_MOMENTUM


def _t_handle_error(name: str, h: float, duration: float) -> float:
    """Orientation error (rad) plus relative ω error at ``duration`` s, against the closed form; for a step that
    claims to leave the gyroscopic term out, against its own model's motion, the spin ``q(t) = exp(t ω) q₀``."""
    state, params = _t_handle()
    end = _run(name, state, params, h, round(duration / h))
    if CLAIMS[name].gyroscopic:
        exact = TorqueFreeSolution.from_body_state(np.diag(T_HANDLE_MOMENTS), quat_identity(), T_HANDLE_OMEGA_BODY)
        q_exact = exact.orientation(np.array([duration]))[0]
        omega_exact = exact.omega_world(np.array([duration]))[0]
    else:
        omega_exact = state.omega_world[0]
        q_exact = quat_mul(quat_exp(duration * omega_exact), state.q[0])
    angle = np.linalg.norm(quat_log(quat_mul(quat_conj(q_exact), end.q[0])))
    return angle + np.linalg.norm(end.omega_world[0] - omega_exact) / np.linalg.norm(T_HANDLE_OMEGA_BODY)


@pytest.mark.parametrize("name", INTEGRATORS)
def test_order_of_convergence_on_the_t_handle(name):
    order = CLAIMS[name].order
    if order is None:  # no truncation error to converge
        assert max(_t_handle_error(name, h, 2.0) for h in (0.02, 0.5)) <= ATOL_EXACT_RAD * _rounding(name)
        return
    h = ORDER_TEST_H[order]
    ratio = _t_handle_error(name, h, 2.0) / _t_handle_error(name, h / 2, 2.0)
    assert abs(np.log2(ratio) - order) <= TOLERANCE_ORDER


@pytest.mark.parametrize("name", INTEGRATORS)
def test_a_constant_torque_is_taken_or_refused_as_claimed(name):
    """Taken: over a short step the torque adds ``h τ`` to ``L`` beside the torque-free step, to O(h²)."""
    state, params = _random_bodies(5, seed=13)
    free_params = BodyParams(params.inertia_body, params.inertia_body_inv, np.zeros((5, 3)))
    h = 1e-4
    if not CLAIMS[name].accepts_torque:
        with pytest.raises(NumericalError, match=r"refused for bodies 0, 1, 2, 3, 4: a non-zero torque"):
            INTEGRATORS[name](state, params, h)
        return
    driven, _ = INTEGRATORS[name](state, params, h)
    free, _ = INTEGRATORS[name](state, free_params, h)
    # In float32 the two L's each round by ~6e-8 |L|, beside the O(h²) of the step.
    atol = 1e-2 * h + 4.0 * _rounding(name) * np.finfo(float).eps * np.abs(state.L_world).max()
    np.testing.assert_allclose(driven.L_world - free.L_world, h * params.torque_world, rtol=0.0, atol=atol)


@pytest.mark.parametrize("name", INTEGRATORS)
def test_an_orientation_dependent_torque_is_taken_as_claimed(name):
    """Claimed: ``orientation_torque=τ(q)`` is evaluated where the method needs it (its order under it is measured
    in test_torque_splitting.py); here a lever torque equals the constant torque it gives over a short step, to
    O(h²). Not claimed: the keyword is refused."""
    state, params = _random_bodies(5, seed=14, torque=False)
    lever = LeverTorque(np.random.default_rng(14).normal(size=(5, 3)), np.tile([0.0, 0.0, -9.81], (5, 1)))
    h = 1e-4
    if not CLAIMS[name].orientation_torque:
        with pytest.raises(TypeError, match="orientation_torque"):
            INTEGRATORS[name](state, params, h, orientation_torque=lever)
        return
    with_lever, _ = INTEGRATORS[name](state, params, h, orientation_torque=lever)
    held, _ = INTEGRATORS[name](state, BodyParams.from_inertia(params.inertia_body, lever(state.q)), h)
    free, _ = INTEGRATORS[name](state, params, h)
    # Against the torque-free step: without the gyroscopic term (an engine's default) L moves torque-free too.
    atol = 1e-2 * h + 4.0 * _rounding(name) * np.finfo(float).eps * np.abs(state.L_world).max()
    np.testing.assert_allclose(with_lever.L_world - free.L_world, h * lever(state.q), rtol=0.0, atol=atol)
    np.testing.assert_allclose(with_lever.L_world, held.L_world, rtol=0.0, atol=atol)


@pytest.mark.parametrize("name", INTEGRATORS)
def test_numba_and_numpy_backends_agree(name):
    state, params = _contract_bodies(name, 12, seed=4)
    numba_state = _run(name, state, params, 0.03, 3, backend="numba")
    numpy_state = _run(name, state, params, 0.03, 3, backend="numpy")
    _states_close(numba_state, numpy_state, 3 * RTOL_BACKENDS)


@pytest.mark.parametrize("name", INTEGRATORS)
def test_without_the_gyroscopic_term_a_torque_free_t_handle_keeps_its_omega_and_never_flips(name):
    state, params = _t_handle(gyroscopic=False)
    new, cost = state, None
    for _ in range(720):  # 12 s, past the half flip period (9.7 s) of the gyroscopic motion
        new, cost = INTEGRATORS[name](new, params, 1.0 / 60.0)
    np.testing.assert_allclose(new.omega_world, _as_stored(name, state.omega_world), rtol=1e-12)
    np.testing.assert_allclose(omega_body(new), omega_body(state), rtol=1e-11 * _rounding(name))
    assert cost.newton_iterations[0] == 0 and cost.substeps[0] == 1


@pytest.mark.parametrize("backend", ["numba", "numpy"])
@pytest.mark.parametrize("name", INTEGRATORS)
def test_without_the_gyroscopic_term_a_torque_free_omega_is_kept_bit_for_bit(name, backend):
    """ω̇ = 0 is the model: no rounding may move ω (euler_body once drifted by 2e-13 in 500 steps)."""
    state, params = _random_bodies(6, seed=12, torque=False)
    params = BodyParams(params.inertia_body, params.inertia_body_inv, params.torque_world, gyroscopic=False)
    kept = _run(name, state, params, 0.02, 500, backend=backend).omega_world
    np.testing.assert_array_equal(kept, _as_stored(name, state.omega_world))  # a float32 twin's: rounded once


@pytest.mark.parametrize("name", INTEGRATORS)
def test_a_run_is_deterministic(name):
    state, params = _contract_bodies(name, 5, seed=5)

    def digest() -> str:
        end = _run(name, state, params, 0.02, 50)
        return hashlib.sha256(b"".join(a.tobytes() for a in (end.q, end.omega_world, end.L_world))).hexdigest()

    assert digest() == digest()


@pytest.mark.parametrize("backend", ["numba", "numpy"])
@pytest.mark.parametrize("name", INTEGRATORS)
def test_a_non_finite_state_raises_and_names_the_body(name, backend):
    state, params = _contract_bodies(name, 4, seed=6)
    omega, L = state.omega_world.copy(), state.L_world.copy()
    omega[2, 1] = L[2, 1] = np.inf  # the explicit methods advance ω, the implicit ones L
    with pytest.raises(NumericalError, match=r"\bbody 2\b: the state is not finite"):
        INTEGRATORS[name](BodyState(state.q, omega, L), params, 0.01, backend=backend)


# ------------------------------------------------------------------------------------------------- the methods


def test_explicit_euler_with_the_gyroscopic_term_loses_energy_at_second_order():
    """math.md says explicit Euler *gains* energy; that is the body-frame update ``Ω' = Ω + h I⁻¹ (IΩ × Ω)``.
    The world-frame update math.md specifies also turns the frame by ``h ω`` before ``L'`` is formed, and then
    ``Ω' = Ω + h α_b − h² Ω × α_b + O(h³)`` (``α_b = Oᵀ α``), so ``ΔE = −½ h² α_bᵀ I α_b + O(h³) < 0``."""
    state, params = _random_bodies(200, seed=7, torque=False)
    h = 1e-3
    new, _ = INTEGRATORS["euler"](state, params, h)
    alpha_body = to_body(state.q, angular_acceleration(state, params))
    predicted = -0.5 * h * h * np.einsum("ni,nij,nj->n", alpha_body, params.inertia_body, alpha_body)
    np.testing.assert_allclose(energy(new) - energy(state), predicted, rtol=1e-2)
    assert np.all(energy(new) < energy(state))
    # Over 10 s the T-handle's energy changes by percents.
    t_handle, t_params = _t_handle()
    assert energy(_run("euler", t_handle, t_params, 1.0 / 60.0, 600))[0] < 0.99 * energy(t_handle)[0]


def test_body_frame_euler_with_the_gyroscopic_term_gains_energy_at_second_order():
    """The textbook explicit Euler, in the body frame: ``ΔE = +½ h² α_bᵀ I α_b`` exactly when torque-free."""
    state, params = _random_bodies(200, seed=8, torque=False)
    h = 1e-3
    new, _ = INTEGRATORS["euler_body"](state, params, h)
    alpha_body = to_body(state.q, angular_acceleration(state, params))
    predicted = 0.5 * h * h * np.einsum("ni,nij,nj->n", alpha_body, params.inertia_body, alpha_body)
    # Exact up to the rounding of E itself (the change is ~1e-6 of E).
    np.testing.assert_allclose(energy(new) - energy(state), predicted, rtol=1e-6, atol=1e-14 * energy(state).max())
    assert np.all(energy(new) > energy(state))
    t_handle, t_params = _t_handle()
    assert energy(_run("euler_body", t_handle, t_params, 1.0 / 60.0, 600))[0] > 1.01 * energy(t_handle)[0]


def test_body_frame_euler_without_the_gyroscopic_term_is_world_frame_euler():
    state, params = _random_bodies(50, seed=9, torque=True)
    params = BodyParams(params.inertia_body, params.inertia_body_inv, params.torque_world, gyroscopic=False)
    world, _ = INTEGRATORS["euler"](state, params, 1e-2)
    body, _ = INTEGRATORS["euler_body"](state, params, 1e-2)
    np.testing.assert_allclose(body.q, world.q, atol=1e-15)
    # The same new body rate Ω', carried to the world by O' instead of O.
    np.testing.assert_allclose(to_body(body.q, body.omega_world), to_body(state.q, world.omega_world), atol=1e-12)


@pytest.mark.parametrize("name", IMPLICIT)
def test_with_the_gyroscopic_term_the_t_handle_flips(name):
    state, params = _t_handle()
    omega_y = []
    for _ in range(720):
        state, _ = INTEGRATORS[name](state, params, 1.0 / 60.0)
        omega_y.append(omega_body(state)[0, 1])
    assert min(omega_y) < -4.99  # a full flip to -Ω_y, as the closed form does at t ≈ 9.7 s


def test_implicit_midpoint_energy_error_stays_bounded_over_ten_thousand_steps():
    state, params = _t_handle()
    energy_0 = energy(state)[0]
    relative = np.empty(10_000)
    for k in range(relative.size):
        state, _ = implicit_midpoint.step(state, params, 1.0 / 60.0)
        relative[k] = energy(state)[0] / energy_0 - 1.0
    # It oscillates with the flips (measured: within [−3e-9, 2.9e-5]) and does not drift: the means over the
    # first and the last quarter (each ~2 flip periods) agree to a fraction of the oscillation.
    assert np.abs(relative).max() < 5e-5
    assert abs(relative[-2500:].mean() - relative[:2500].mean()) < 2e-6


def test_magnus_orders_for_a_driven_sphere_without_the_gyroscopic_term():
    """Constant α: ω is exact, and the series gives order 2 with Ω₁, order 4 with Ω₁ + Ω₂ (Ω₃ only shrinks the
    constant); the third-order exponential's O(|v|⁵) error keeps order 4."""
    inertia = 2.0 * np.eye(3)[None]
    omega_0, torque = np.array([0.3, 2.0, -1.0]), np.array([1.5, -0.5, 2.0])
    alpha = torque / 2.0

    def rate(t, q):
        return 0.5 * quat_mul(np.concatenate([[0.0], omega_0 + alpha * t]), q)

    reference = solve_ivp(rate, (0.0, 2.0), quat_identity(), method="DOP853", rtol=1e-13, atol=1e-13).y[:, -1]
    reference /= np.linalg.norm(reference)
    params = BodyParams.from_inertia(inertia, torque[None], gyroscopic=False)
    start = BodyState.from_omega_world(quat_identity((1,)), omega_0[None], inertia)

    def error(h, **options):
        end = _run("magnus", start, params, h, round(2.0 / h), **options)
        return np.linalg.norm(quat_log(quat_mul(quat_conj(reference), end.q[0])))

    for terms, order in ((1, 2), (2, 4), (3, 4)):
        for exponential in ("exact", "third_order"):
            ratio = error(0.1, terms=terms, exponential=exponential) / error(0.05, terms=terms, exponential=exponential)
            assert abs(np.log2(ratio) - order) <= TOLERANCE_ORDER, (terms, exponential)
    end = _run("magnus", start, params, 0.1, 20)
    np.testing.assert_allclose(end.omega_world[0], omega_0 + 2.0 * alpha, rtol=1e-14)


@pytest.mark.parametrize("terms", [1, 2, 3])
@pytest.mark.parametrize("exponential", ["exact", "third_order"])
def test_magnus_options_agree_between_backends(terms, exponential):
    state, params = _random_bodies(7, seed=8)
    a = _run("magnus", state, params, 0.05, 3, terms=terms, exponential=exponential, backend="numba")
    b = _run("magnus", state, params, 0.05, 3, terms=terms, exponential=exponential, backend="numpy")
    _states_close(a, b, RTOL_BACKENDS)


def test_options_are_checked():
    state, params = _t_handle()
    bad = [("euler", {"backend": "fortran"}), ("magnus", {"terms": 4}), ("magnus", {"exponential": "pade"}),
           ("implicit_midpoint", {"jacobian": "dual"}), ("trapezoidal", {"jacobian": "numeric"}),
           ("split2", {"backend": "fortran"})]  # fmt: skip
    for name, options in bad:
        with pytest.raises(ValueError):
            INTEGRATORS[name](state, params, 0.01, **options)
    bad_newton = [{"max_iterations": 0}, {"max_iterations": 2.5}, {"max_substep_depth": -1}, {"max_substep_depth": 41},
                  {"tolerance": 0.0}, {"tolerance": np.nan}, {"max_step_angle": 0.0}]  # fmt: skip
    for options in bad_newton:
        with pytest.raises(ValueError, match=next(iter(options))):
            NewtonOptions(**options)
    with pytest.raises(TypeError):  # the loose keywords went into NewtonOptions
        INTEGRATORS["implicit_midpoint"](state, params, 0.01, tolerance=1e-12)


def test_the_kernels_rodrigues_coefficients_match_sim_taylor():
    angle_sq = np.concatenate([ANGLE_SWEEP**2, [1e-3, 1e-2, 1e-1], np.nextafter([1e-3, 1e-2, 1e-1, 1.0], 0.0)])
    # The same formulas, compiled and in numpy: each within its bound of the truth (tests/sim/conftest.py).
    for a2 in angle_sq:
        for kernel, reference, name in zip(
            rodrigues_coefficients_numba(a2), rodrigues_coefficients(a2), ("s1", "s2", "s3"), strict=True
        ):
            np.testing.assert_allclose(kernel, reference, rtol=2 * coefficient_rtol(a2, name), atol=0.0)
