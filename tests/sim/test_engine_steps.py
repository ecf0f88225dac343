"""The engine steps without a Python wheel (PhysX, Jolt, Godot, Catto 2015), each step re-derived by hand from the
cited source, line by line with scipy's rotations and numpy's inverse (another route than the modules'), and the
engines' clamps and thresholds (sim/integrators/{physx,jolt,godot,catto2015,bullet}.py).

``ATOL_STEP`` bounds the difference of one step's ω (rad/s) and q between the two routes: rounding of ~20
operations on values of order 10."""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from spinlab.sim.integrators import INTEGRATORS
from spinlab.sim.integrators.engines.bullet import integrate_transform
from spinlab.sim.integrators.state import BodyParams, BodyState

ATOL_STEP = 1e-13
H = 1.0 / 60.0
MOMENTS = np.array([1.3, 1.4, 2.5])


def _body(omega_world, q=(0.9, 0.1, -0.3, 0.3), torque=(0.0, 0.0, 0.0)):
    q = np.asarray(q, dtype=float) / np.linalg.norm(q)
    inertia = np.diag(MOMENTS)[None]
    state = BodyState.from_omega_world(q[None], np.asarray(omega_world, dtype=float)[None], inertia)
    return state, BodyParams.from_inertia(inertia, np.asarray(torque, dtype=float)[None])


def _rotation(q):  # (w, x, y, z) → scipy (x, y, z, w)
    return Rotation.from_quat([q[1], q[2], q[3], q[0]])


def _quat(rotation):
    x, y, z, w = rotation.as_quat()
    return np.array([w, x, y, z])


def _same_rotation(a, b):
    assert min(np.abs(a - b).max(), np.abs(a + b).max()) <= ATOL_STEP


def _rescaled(omega_body):
    """copyToSolverBodyData / ApplyGyroscopicForceInternal: ℓ* = ℓ − h Ω × ℓ, |ℓ*| ← |ℓ|, Ω' = I⁻¹ ℓ*."""
    momentum = MOMENTS * omega_body
    stepped = momentum - H * np.cross(omega_body, momentum)
    return (stepped * np.linalg.norm(momentum) / np.linalg.norm(stepped)) / MOMENTS


@pytest.mark.parametrize("name", ["physx_gyro", "jolt_gyro"])
def test_physx_and_jolt_gyroscopic_steps_by_hand(name):
    state, params = _body([0.4, 4.0, -1.0])
    new, _ = INTEGRATORS[name](state, params, H)
    rotation = _rotation(state.q[0])
    omega = rotation.apply(_rescaled(rotation.inv().apply(state.omega_world[0])))
    np.testing.assert_allclose(new.omega_world[0], omega, atol=ATOL_STEP)
    _same_rotation(new.q[0], _quat(Rotation.from_rotvec(H * omega) * rotation))


@pytest.mark.parametrize("name", ["physx", "jolt", "godot"])
def test_the_defaults_without_gyroscopic_term_keep_omega_and_spin_about_it(name):
    state, params = _body([0.4, 4.0, -1.0], torque=(0.2, -0.1, 0.3))
    new, _ = INTEGRATORS[name](state, params, H)
    rotation = _rotation(state.q[0])
    inertia_world_inv = rotation.as_matrix() @ np.diag(1.0 / MOMENTS) @ rotation.as_matrix().T
    omega = state.omega_world[0] + H * inertia_world_inv @ params.torque_world[0]
    np.testing.assert_allclose(new.omega_world[0], omega, atol=ATOL_STEP)
    _same_rotation(new.q[0], _quat(Rotation.from_rotvec(H * omega) * rotation))


def test_catto2015_by_hand():
    state, params = _body([0.4, 4.0, -1.0])
    new, cost = INTEGRATORS["catto2015"](state, params, H)
    rotation = _rotation(state.q[0])
    omega_body = rotation.inv().apply(state.omega_world[0])
    inertia = np.diag(MOMENTS)

    def skew(v):
        return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])

    jacobian = inertia + H * (skew(omega_body) @ inertia - skew(inertia @ omega_body))
    omega_body -= np.linalg.inv(jacobian) @ (H * np.cross(omega_body, inertia @ omega_body))
    omega = rotation.apply(omega_body)
    np.testing.assert_allclose(new.omega_world[0], omega, atol=ATOL_STEP)
    w, x, y, z = state.q[0]
    q = state.q[0] + 0.5 * H * np.array([-omega @ [x, y, z], *(w * omega + np.cross(omega, [x, y, z]))])
    _same_rotation(new.q[0], q / np.linalg.norm(q))
    assert cost.newton_iterations[0] == 1


@pytest.mark.parametrize(("name", "limit"), [("physx", 100.0), ("jolt", 0.25 * np.pi * 60.0)])
def test_the_angular_speed_clamps(name, limit):
    state, params = _body([0.0, 3.0 * limit, 0.0])
    new, _ = INTEGRATORS[name](state, params, H)
    assert np.linalg.norm(new.omega_world[0]) == pytest.approx(limit, rel=1e-12)


@pytest.mark.parametrize(("name", "slow"), [("jolt", 0.9e-6 / H), ("godot", 0.9e-5)])
def test_a_slow_body_does_not_turn(name, slow):
    state, params = _body([slow, 0.0, 0.0])
    new, _ = INTEGRATORS[name](state, params, H)
    np.testing.assert_array_equal(new.q, state.q)
    faster, _ = INTEGRATORS[name](*_body([1.2 * slow / 0.9, 0.0, 0.0]), H)
    assert np.abs(faster.q - state.q).max() > 0.0


@pytest.mark.parametrize("k", [1.0, 2.0, 8.0])
def test_bullets_angular_motion_threshold_squashes_the_angle(k):
    """Past π/4 a step the body turns by 2 atan(k tan(π/8)), k = |ω| h / (π/4), and not by |ω| h."""
    omega = np.array([[0.0, 0.0, k * 0.25 * np.pi / H]])
    q = integrate_transform(np.array([[1.0, 0.0, 0.0, 0.0]]), omega, H)
    angle = 2.0 * np.arctan2(np.linalg.norm(q[0, 1:]), q[0, 0])
    assert angle == pytest.approx(2.0 * np.arctan(k * np.tan(np.pi / 8.0)), rel=1e-14)


def test_the_float32_twins_run_their_engine_step_in_single_precision():
    """``NAME_f32`` (engines.common.engine_variants): the same kernel, its arithmetic float32 throughout (what the
    single-precision engines run; MuJoCo's is double and has none), so one step parts from the double one by
    float32's rounding, ~1e-8, far above float64's and far below the method's own error."""
    from spinlab.sim.integrators import CLAIMS, FAMILIES, INTEGRATORS
    from spinlab.sim.integrators.engines import bullet, catto2015, godot, jolt, physx
    from spinlab.sim.integrators.state import BodyParams, BodyState

    single = {step.name: step for module in (bullet, physx, jolt, godot, catto2015) for step in module.STEPS}
    assert set(FAMILIES["engines_f32"]) == {f"{name}_f32" for name in single}
    rng = np.random.default_rng(32)
    q = rng.normal(size=(8, 4))
    q /= np.linalg.norm(q, axis=-1, keepdims=True)
    inertia = np.broadcast_to(np.diag([1.3, 1.4, 2.5]), (8, 3, 3))
    state = BodyState.from_omega_body(q, rng.normal(size=(8, 3)) * 3.0, inertia)
    params = BodyParams.from_inertia(inertia)
    state32 = BodyState.of_float_arrays(*(a.astype(np.float32) for a in (state.q, state.omega_world, state.L_world)))
    for name, variant in single.items():
        q_new, omega_new = variant.kernel(state32, params.astype(np.float32), 1.0 / 60.0)
        assert q_new.dtype == omega_new.dtype == np.float32, name  # nothing widened on the way
        twin = f"{name}_f32"
        assert CLAIMS[twin].precision == "float32" and CLAIMS[twin].order == CLAIMS[name].order
        double, _ = INTEGRATORS[name](state, params, 1.0 / 60.0)
        single_step, _ = INTEGRATORS[twin](state, params, 1.0 / 60.0)
        parted = np.abs(double.q - single_step.q).max()
        assert 1e-10 < parted < 1e-6, (name, parted)
