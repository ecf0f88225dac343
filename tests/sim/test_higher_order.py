"""The higher-order and exact integrators: im4, im6, ot4 (compositions), rkmk4 and exact.

References: the closed-form torque-free motion (sim.exact) for the T-handle, scipy's DOP853 for driven bodies and for
the exact stepper itself. The contract every integrator meets is in test_integrators.py.
"""

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from spinlab.sim.errors import NumericalError
from spinlab.sim.exact import TorqueFreeSolution
from spinlab.sim.integrators import CLAIMS, INTEGRATORS, implicit_midpoint, object_trapezoidal
from spinlab.sim.integrators._kernels import left_jacobian_inv_coefficient as left_jacobian_inv_coefficient_numba
from spinlab.sim.integrators._kernels import rodrigues_coefficients as rodrigues_coefficients_numba
from spinlab.sim.integrators.composition import KAHAN_LI_9, TRIPLE_JUMP, step_composed
from spinlab.sim.integrators.newton import NewtonOptions
from spinlab.sim.integrators.state import BodyParams, BodyState, omega_world_from_momentum
from spinlab.sim.quaternion import quat_conj, quat_exp, quat_identity, quat_log, quat_mul, quat_normalize, quat_rotate
from spinlab.sim.taylor import left_jacobian_inv_coefficient
from tests.sim.conftest import ANGLE_SWEEP, coefficient_rtol
from tests.sim.test_integrators import T_HANDLE_MOMENTS, T_HANDLE_OMEGA_BODY, _random_bodies, _run, _t_handle

TOLERANCE_ORDER = 0.15
RTOL_MOMENTUM = 1e-12
# rad for the orientation, rad/s for ω. Measured: 8.9e-12 and 7.2e-12 at h = 1/60, 8.6e-12 and 5.9e-12 at h = 1. The
# stepper continues one closed form from step to step (sampled at k h), so this is the closed form's distance from
# DOP853. Solved afresh at every step it drifted instead: the T-handle near its unstable axis amplifies a
# perturbation between flips, and 3600 steps ended 1.7e-11 from the closed form (7.9e-11 from DOP853).
ATOL_EXACT_VS_DOP853 = 3e-11
COMPOSITIONS = ("im4", "im6", "ot4")


def _angle(q_a: np.ndarray, q_b: np.ndarray) -> np.ndarray:
    """Rotation angle (rad) between orientations ``(..., 4)``."""
    return np.linalg.norm(quat_log(quat_mul(quat_conj(q_a), q_b)), axis=-1)


def _fitted_order(errors, steps) -> float:
    """Slope of log(error) against log(h), least squares."""
    return float(np.polyfit(np.log(steps), np.log(errors), 1)[0])


# ------------------------------------------------------------------------------------------- orders of convergence

# h (s) where each method is in its asymptotic regime over 2 s of the T-handle and well above rounding (im6
# reaches ~1e-12 below h = 0.03; rkmk4's phase error of order 5, from RK4's energy error of order 5, still shows
# at h = 0.05).
ORDER_STEPS = {"im4": (0.05, 0.025, 0.0125), "ot4": (0.05, 0.025, 0.0125), "im6": (0.2, 0.1, 0.05),
               "rkmk4": (0.025, 0.0125, 0.00625)}  # fmt: skip


@pytest.mark.parametrize("name", ORDER_STEPS)
def test_order_against_the_closed_form_on_the_t_handle(name):
    duration = 2.0
    exact = TorqueFreeSolution.from_body_state(np.diag(T_HANDLE_MOMENTS), quat_identity(), T_HANDLE_OMEGA_BODY)
    q_exact, omega_exact = exact.orientation(np.array(duration)), exact.omega_world(np.array(duration))
    errors = []
    for h in ORDER_STEPS[name]:
        state, params = _t_handle()
        end = _run(name, state, params, h, round(duration / h))
        errors.append(_angle(q_exact, end.q[0]) + np.linalg.norm(end.omega_world[0] - omega_exact) / 5.0)
    assert abs(_fitted_order(errors, ORDER_STEPS[name]) - CLAIMS[name].order) <= TOLERANCE_ORDER


def _driven_reference(state: BodyState, params: BodyParams, duration: float) -> tuple[np.ndarray, np.ndarray]:
    """DOP853 on ``q̇ = ½ [0, ω] ⊗ q``, ``L̇ = τ``, ``ω = O I⁻¹ Oᵀ L`` for body 0: ``(q, ω)`` at ``duration``."""
    inverse, torque = params.inertia_body_inv[:1], params.torque_world[0]

    def rate(t, y):
        q, L = y[:4] / np.linalg.norm(y[:4]), y[4:]
        omega = omega_world_from_momentum(q[None], L[None], inverse)[0]
        return np.concatenate([0.5 * quat_mul(np.concatenate([[0.0], omega]), q), torque])

    y0 = np.concatenate([state.q[0], state.L_world[0]])
    y = solve_ivp(rate, (0.0, duration), y0, method="DOP853", rtol=1e-13, atol=1e-13).y[:, -1]
    q = quat_normalize(y[:4])
    return q, omega_world_from_momentum(q[None], y[None, 4:], inverse)[0]


@pytest.mark.parametrize("name", ORDER_STEPS)
def test_order_with_a_constant_torque(name):
    """The torque is held over the whole step and applied at every stage's time: the order stays."""
    state, params = _random_bodies(1, seed=21)
    duration = 1.0
    q_reference, omega_reference = _driven_reference(state, params, duration)
    steps = (0.05, 0.025, 0.0125) if name != "im6" else (0.1, 0.05, 0.025)  # |ω| = 8.5 rad/s
    errors = []
    for h in steps:
        end = _run(name, state, params, h, round(duration / h))
        np.testing.assert_allclose(end.L_world[0], state.L_world[0] + duration * params.torque_world[0], rtol=1e-14)
        errors.append(_angle(q_reference, end.q[0]) + np.linalg.norm(end.omega_world[0] - omega_reference))
    assert abs(_fitted_order(errors, steps) - CLAIMS[name].order) <= TOLERANCE_ORDER


def test_rkmk4_without_the_gyroscopic_term_is_fourth_order_for_its_model():
    """With the gyroscopic term off the model is ``ω̇ = O I⁻¹ Oᵀ τ``, ``q̇ = ½ [0, ω] ⊗ q``."""
    state, params = _random_bodies(1, seed=22)
    params = BodyParams(params.inertia_body, params.inertia_body_inv, params.torque_world, gyroscopic=False)
    inverse, torque = params.inertia_body_inv[:1], params.torque_world[:1]

    def rate(t, y):
        q, omega = y[:4] / np.linalg.norm(y[:4]), y[4:]
        alpha = omega_world_from_momentum(q[None], torque, inverse)[0]
        return np.concatenate([0.5 * quat_mul(np.concatenate([[0.0], omega]), q), alpha])

    y0 = np.concatenate([state.q[0], state.omega_world[0]])
    y = solve_ivp(rate, (0.0, 1.0), y0, method="DOP853", rtol=1e-13, atol=1e-13).y[:, -1]
    steps = (0.1, 0.05, 0.025)
    errors = []
    for h in steps:
        end = _run("rkmk4", state, params, h, round(1.0 / h))
        errors.append(_angle(quat_normalize(y[:4]), end.q[0]) + np.linalg.norm(end.omega_world[0] - y[4:]))
    assert abs(_fitted_order(errors, steps) - 4) <= TOLERANCE_ORDER


@pytest.mark.parametrize("backend", ["numba", "numpy"])
def test_rkmk4_backends_agree_without_the_gyroscopic_term(backend):
    state, params = _random_bodies(7, seed=23)
    params = BodyParams(params.inertia_body, params.inertia_body_inv, params.torque_world, gyroscopic=False)
    other = "numpy" if backend == "numba" else "numba"
    a = _run("rkmk4", state, params, 0.05, 5, backend=backend)
    b = _run("rkmk4", state, params, 0.05, 5, backend=other)
    for x, y in ((a.q, b.q), (a.omega_world, b.omega_world), (a.L_world, b.L_world)):
        np.testing.assert_allclose(x, y, rtol=0.0, atol=1e-14 * max(1.0, np.abs(y).max()))


def test_the_kernels_left_jacobian_inverse_coefficient_matches_sim_taylor():
    angle_sq = np.concatenate([ANGLE_SWEEP**2, [0.999, 1.5, 20.0]])
    for a2 in angle_sq:
        _, s2, s3 = rodrigues_coefficients_numba(a2)
        # The kernel's c from s2 and s3, sim.taylor's from the cotangent: each within its bound of the truth.
        np.testing.assert_allclose(left_jacobian_inv_coefficient_numba(a2, s2, s3),
                                   left_jacobian_inv_coefficient(a2), rtol=2 * coefficient_rtol(a2, "c"))  # fmt: skip


# ------------------------------------------------------------------------------------------------- the compositions


def test_composition_coefficients_meet_their_order_conditions():
    for coefficients in (TRIPLE_JUMP, KAHAN_LI_9):
        gamma = np.array(coefficients)
        np.testing.assert_array_equal(gamma, gamma[::-1])  # palindromic: the composition is symmetric
        assert abs(gamma.sum() - 1.0) < 4e-16
        assert abs(np.sum(gamma**3)) < 4e-15
    assert abs(np.sum(np.array(KAHAN_LI_9) ** 5)) < 4e-15


@pytest.mark.parametrize("name", COMPOSITIONS)
def test_compositions_conserve_momentum_over_many_steps(name):
    state, params = _random_bodies(6, seed=24, torque=False)
    new = _run(name, state, params, 1.0 / 60.0, 1200)
    drift = np.linalg.norm(new.L_world - state.L_world, axis=-1) / np.linalg.norm(state.L_world, axis=-1)
    assert drift.max() <= RTOL_MOMENTUM  # in fact zero: every stage adds h·0 to L


@pytest.mark.parametrize("name", COMPOSITIONS)
def test_compositions_apply_the_torque_once_per_step(name):
    state, params = _random_bodies(5, seed=25)
    new, _ = INTEGRATORS[name](state, params, 0.05)
    np.testing.assert_array_equal(new.L_world, state.L_world + 0.05 * params.torque_world)


@pytest.mark.parametrize(("name", "base"), [("im4", implicit_midpoint), ("im6", implicit_midpoint),
                                            ("ot4", object_trapezoidal)])  # fmt: skip
def test_without_the_gyroscopic_term_a_composition_is_one_base_step(name, base):
    state, params = _random_bodies(4, seed=26)
    params = BodyParams(params.inertia_body, params.inertia_body_inv, params.torque_world, gyroscopic=False)
    composed, _ = INTEGRATORS[name](state, params, 0.05)
    single, _ = base.step(state, params, 0.05)
    np.testing.assert_array_equal(composed.q, single.q)
    np.testing.assert_array_equal(composed.omega_world, single.omega_world)


@pytest.mark.parametrize(("name", "base", "coefficients"), [("im4", implicit_midpoint, TRIPLE_JUMP),
                                                            ("im6", implicit_midpoint, KAHAN_LI_9),
                                                            ("ot4", object_trapezoidal, TRIPLE_JUMP)])  # fmt: skip
def test_a_composition_in_one_kernel_call_equals_one_call_per_stage(name, base, coefficients):
    state, params = _random_bodies(7, seed=29)
    fused, fused_cost = INTEGRATORS[name](state, params, 0.05)
    # A wrapper is not a base step with a kernel of its own: the stages run one call at a time.
    staged, staged_cost = step_composed(name, lambda *a, **k: base.step(*a, **k), coefficients, state, params, 0.05)
    np.testing.assert_array_equal(fused.q, staged.q)
    np.testing.assert_array_equal(fused.L_world, staged.L_world)
    np.testing.assert_allclose(fused.omega_world, staged.omega_world, rtol=0.0, atol=4e-15)
    np.testing.assert_array_equal(fused_cost.newton_iterations, staged_cost.newton_iterations)
    np.testing.assert_array_equal(fused_cost.substeps, staged_cost.substeps)


def test_a_failing_stage_names_the_composition_the_stage_and_the_body():
    inertia = np.broadcast_to(np.diag(T_HANDLE_MOMENTS), (2, 3, 3))
    omega = np.array([T_HANDLE_OMEGA_BODY, (0.3, 60.0, 0.2)])  # body 1 turns by ~16 rad in the first stage
    state = BodyState.from_omega_body(quat_identity((2,)), omega, inertia)
    with pytest.raises(NumericalError, match=r"^im4 \(stage 1 of 3, 1\.35121 h\): .*failed for body 1: Newton"):
        INTEGRATORS["im4"](state, BodyParams.from_inertia(inertia), 0.2, newton=NewtonOptions(max_substep_depth=0))


def test_compositions_sum_newton_iterations_and_report_the_largest_split():
    state, params = _t_handle()
    _, midpoint_cost = implicit_midpoint.step(state, params, 1.0 / 60.0)
    _, cost = INTEGRATORS["im6"](state, params, 1.0 / 60.0)
    assert cost.substeps[0] == 1  # no stage was split
    assert cost.newton_iterations[0] >= len(KAHAN_LI_9)  # at least one Newton update per stage
    assert cost.newton_iterations[0] > midpoint_cost.newton_iterations[0]


# ------------------------------------------------------------------------------------------------ the exact stepper


def _body_frame_reference(duration: float, t_eval: np.ndarray):
    """DOP853 on Euler's equations ``I Ω̇ = I Ω × Ω`` and ``q̇ = ½ q ⊗ [0, Ω]`` for the T-handle at ``t_eval``:
    ``(q, ω, Ω)``."""
    moments = np.array(T_HANDLE_MOMENTS)

    def rate(t, y):
        q, omega_body = y[:4], y[4:]
        return np.concatenate(
            [
                0.5 * quat_mul(q, np.concatenate([[0.0], omega_body])),
                np.cross(moments * omega_body, omega_body) / moments,
            ]
        )

    y0 = np.concatenate([quat_identity(), T_HANDLE_OMEGA_BODY])
    solution = solve_ivp(rate, (0.0, duration), y0, method="DOP853", rtol=1e-13, atol=1e-13, t_eval=t_eval)
    q = quat_normalize(solution.y[:4].T)
    return q, quat_rotate(q, solution.y[4:].T), solution.y[4:].T


@pytest.mark.parametrize("h", [1.0 / 60.0, 1.0])
def test_the_exact_stepper_agrees_with_dop853_over_a_minute(h):
    duration = 60.0
    n_steps = round(duration / h)
    times = h * np.arange(1, n_steps + 1)
    q_reference, omega_reference, omega_body_reference = _body_frame_reference(duration, times)
    state, params = _t_handle()
    q, omega = np.empty((n_steps, 4)), np.empty((n_steps, 3))
    for k in range(n_steps):
        state, _ = INTEGRATORS["exact"](state, params, h)
        q[k], omega[k] = state.q[0], state.omega_world[0]
    assert _angle(q_reference, q).max() <= ATOL_EXACT_VS_DOP853
    assert np.abs(omega - omega_reference).max() <= ATOL_EXACT_VS_DOP853
    assert omega_body_reference[:, 1].min() < -4.9  # the minute holds flips (period 19.4 s): not a trivial motion


def test_the_exact_stepper_refuses_torque_and_names_the_bodies():
    state, params = _random_bodies(5, seed=27, torque=False)
    torque = np.zeros((5, 3))
    torque[[1, 3], 2] = 0.5
    driven = BodyParams(params.inertia_body, params.inertia_body_inv, torque)
    with pytest.raises(NumericalError, match=r"exact step .* refused for bodies 1, 3: a non-zero torque") as error:
        INTEGRATORS["exact"](state, driven, 0.01)
    np.testing.assert_array_equal(error.value.bodies, [1, 3])
    off = BodyParams(params.inertia_body, params.inertia_body_inv, torque, gyroscopic=False)
    with pytest.raises(NumericalError, match="refused for bodies 1, 3"):
        INTEGRATORS["exact"](state, off, 0.01)


def test_without_the_gyroscopic_term_the_exact_stepper_spins_about_a_fixed_axis():
    state, params = _random_bodies(4, seed=28, torque=False)
    params = BodyParams(params.inertia_body, params.inertia_body_inv, params.torque_world, gyroscopic=False)
    new, _ = INTEGRATORS["exact"](state, params, 0.7)
    np.testing.assert_array_equal(new.omega_world, state.omega_world)
    expected = quat_mul(quat_exp(0.7 * state.omega_world), state.q)
    np.testing.assert_allclose(new.q, expected, rtol=0.0, atol=4e-16)
