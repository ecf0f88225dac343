"""The engines' steps under gravity about a pivot: each takes the torque ``τ(q) = (O c) × m g`` as its engine does
(sim/integrators/engines/common.py), checked through the world (sim/world.py) on heavy tops.

- MuJoCo's three modes against the real MuJoCo (``mujoco``, the ``peers`` extra) on a ball joint at the pivot
  (benchmarks/heavy_top_mujoco.py): one step to rounding, one second to the rounding the motion amplifies, and
  ``mujoco_rk4`` fourth order under gravity (τ(q) at each stage) as MuJoCo's RK4 is.
- ``bullet_explicit`` against pybullet's multibody on a spherical joint (benchmarks/engine_peers.py), which has no
  100 N m clamp: equal where the clamp is not engaged; the clamp itself against Bullet's source formula.
- The one-stage engines (Bullet, PhysX, Jolt, Godot, Catto, MuJoCo's Euler and implicitfast) against their source
  formula ``ω' = ω + h I_w⁻¹ τ(q₀)``: the torque at the step's start (gyroscopic term off, so the torque is all
  that moves ω), re-derived with scipy's rotations.
- MuJoCo's implicitfast on a pivoted body is its Euler step bit for bit (``mjd_freeMhat`` is for free joints).

Tolerances: ``RTOL_ONE_STEP`` bounds one step against the real engines (measured: 2.3e-16 in q, 4.3e-16 relative
in Ω; both compute the same formulas in float64 in another order); ``RTOL_ONE_SECOND`` one second of steps
(measured ≤ 8.7e-13 at h = 1/960 against MuJoCo, 3e-14 against pybullet at 1/60 with the clamp off).
``TOLERANCE_ORDER``: measured orders of mujoco_rk4 4.02 (heavy_top, 1/60 → 1/120) and on the asymmetric top, at
errors far above the DOP853 reference's (~1e-11 rad).
"""

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.spatial.transform import Rotation

from spinlab.benchmarks.engine_peers import pybullet_top_run
from spinlab.benchmarks.heavy_top_body import HeavyTop, top_world
from spinlab.benchmarks.heavy_top_mujoco import mujoco_model, mujoco_state, set_mujoco_state
from spinlab.scene.model.measures import orientation_error
from spinlab.sim.integrators import CLAIMS, ENGINE_STEPS, INTEGRATORS, PIVOT_AWARE
from spinlab.sim.integrators.engines.bullet import MAX_GYROSCOPIC_FORCE
from spinlab.sim.integrators.state import BodyParams, BodyState, omega_world_from_momentum, to_body
from spinlab.sim.integrators.torque import LeverTorque
from spinlab.sim.quaternion import quat_mul, quat_normalize, quat_rotate
from tests.sim.world_reference import assert_same_bits

RTOL_ONE_STEP = 2e-15
RTOL_ONE_SECOND = 1e-11
TOLERANCE_ORDER = 0.2
SKIP_REASON = "the peers extra (pip install -e '.[peers]') is not installed"
MUJOCO_MODES = {"mujoco_euler": "Euler", "mujoco_implicitfast": "implicitfast", "mujoco_rk4": "RK4"}
ONE_STAGE = sorted(name for name in ENGINE_STEPS if name != "mujoco_rk4")


def _asymmetric_top() -> HeavyTop:
    """Moments (0.5, 0.4, 0.2) kg m² about the pivot, 1 kg, the centre of mass 0.3 m up the body z axis (so the
    inertia about it is diagonal, as pybullet's link takes it), spun at 20 rad/s off its axes."""
    q0 = quat_normalize(np.array([0.95, 0.25, -0.1, 0.05]))
    com = np.array([0.0, 0.0, 0.3])
    return HeavyTop(np.diag([0.5, 0.4, 0.2]), 1.0, com, np.array([0.0, 0.0, -9.81]), -com, np.zeros(3), q0,
                    quat_rotate(q0, np.array([1.0, -0.5, 20.0])))  # fmt: skip


TOPS = {"heavy_top": HeavyTop.load, "asymmetric_top": _asymmetric_top}


def _world_run(top: HeavyTop, name: str, h: float, n_steps: int, *, gyroscopic: bool = True):
    """The top stepped ``n_steps`` times through the world: orientation (4,) and body rate Ω (3,)."""
    world = top_world(top, name, top.q0[None], top.omega_body0[None])
    world.gyroscopic = gyroscopic
    for _ in range(n_steps):
        world.step(h)
    q = world.values("q").copy()
    return q[0], to_body(q, world.values("omega_world"))[0]


def _mujoco_run(mujoco, top: HeavyTop, mode: str, h: float, n_steps: int):
    model = mujoco_model(mujoco, top, mode, h)
    data = mujoco.MjData(model)
    set_mujoco_state(data, top.q0[None], top.omega_body0[None])
    for _ in range(n_steps):
        mujoco.mj_step(model, data)
    q, omega_body = mujoco_state(data)
    return q[0], omega_body[0]


def _parted(theirs, ours) -> tuple[float, float]:
    """The angle (rad) between two orientations and the largest difference of two body rates relative to their size."""
    (q_theirs, omega_theirs), (q_ours, omega_ours) = theirs, ours
    angle = orientation_error(q_theirs[None], q_ours[None])[0]
    return angle, float(np.abs(omega_theirs - omega_ours).max() / np.abs(omega_theirs).max())


@pytest.mark.parametrize("h", [1.0 / 60.0, 1.0 / 960.0])
@pytest.mark.parametrize("top", TOPS)
@pytest.mark.parametrize("name", MUJOCO_MODES)
def test_one_step_of_each_mujoco_mode_is_mujocos_on_a_ball_jointed_top(name, top, h):
    mujoco = pytest.importorskip("mujoco", reason=SKIP_REASON)
    body = TOPS[top]()
    angle, rate = _parted(_mujoco_run(mujoco, body, MUJOCO_MODES[name], h, 1), _world_run(body, name, h, 1))
    assert angle <= RTOL_ONE_STEP and rate <= RTOL_ONE_STEP, (angle, rate)


@pytest.mark.parametrize("h", [1.0 / 60.0, 1.0 / 960.0])
@pytest.mark.parametrize("name", MUJOCO_MODES)
def test_one_second_of_each_mujoco_mode_is_mujocos_on_the_heavy_top(name, h):
    mujoco = pytest.importorskip("mujoco", reason=SKIP_REASON)
    top, n_steps = HeavyTop.load(), round(1.0 / h)
    theirs = _mujoco_run(mujoco, top, MUJOCO_MODES[name], h, n_steps)
    angle, rate = _parted(theirs, _world_run(top, name, h, n_steps))
    assert angle <= RTOL_ONE_SECOND and rate <= RTOL_ONE_SECOND, (angle, rate)
    assert orientation_error(theirs[0][None], top.q0[None])[0] > 0.5  # it has moved: the comparison means something


def test_mujocos_implicitfast_is_its_euler_on_a_ball_joint_and_so_is_spinlabs():
    """MuJoCo adds the gyroscopic derivative to a free joint only: on a ball joint its implicitfast is its Euler to
    the bit, and spinlab's mujoco_implicitfast on a pivoted top is mujoco_euler's step bit for bit."""
    top = _asymmetric_top()
    for h in (1.0 / 60.0, 1.0 / 240.0):
        fast, euler = _world_run(top, "mujoco_implicitfast", h, 30), _world_run(top, "mujoco_euler", h, 30)
        assert_same_bits(fast[0], euler[0])
        assert_same_bits(fast[1], euler[1])
    mujoco = pytest.importorskip("mujoco", reason=SKIP_REASON)
    for fast, euler in zip(_mujoco_run(mujoco, top, "implicitfast", 1.0 / 60.0, 30),
                           _mujoco_run(mujoco, top, "Euler", 1.0 / 60.0, 30), strict=True):  # fmt: skip
        assert_same_bits(fast, euler)


def test_implicitfast_keeps_the_derivative_for_a_free_body_beside_a_pivoted_one():
    """In one group, the free body gets the free joint's step (the derivative), the pivoted one Euler's."""
    top = _asymmetric_top()
    world = top_world(top, "mujoco_implicitfast", top.q0[None], top.omega_body0[None])
    omega_world = quat_rotate(top.q0, np.array([0.3, 4.0, -1.0]))
    world.add_body(q=top.q0, omega_world=omega_world, inertia_body=top.inertia_body, integrator="mujoco_implicitfast")
    state = BodyState.from_omega_world(top.q0[None], omega_world[None], top.inertia_body[None])
    params = BodyParams.from_inertia(top.inertia_body[None])
    free, _ = INTEGRATORS["mujoco_implicitfast"](state, params, 1.0 / 60.0)
    euler, _ = INTEGRATORS["mujoco_euler"](state, params, 1.0 / 60.0)
    cost = world.step(1.0 / 60.0)
    assert_same_bits(world.values("q")[1], free.q[0])
    assert cost.newton_iterations.tolist() == [0, 1]  # the pivoted body solves nothing
    assert np.abs(free.q - euler.q).max() > 1e-6
    pivoted, _ = _world_run(top, "mujoco_euler", 1.0 / 60.0, 1)
    assert_same_bits(world.values("q")[0], pivoted)


def test_only_mujocos_implicitfast_tells_a_pivoted_body_apart():
    assert PIVOT_AWARE == {"mujoco_implicitfast"}
    state = BodyState.from_omega_body(np.array([[1.0, 0.0, 0.0, 0.0]]), np.array([[0.1, 2.0, 0.3]]), np.eye(3)[None])
    params = BodyParams.from_inertia(np.diag([1.3, 1.4, 2.5])[None])
    for name in ("mujoco_euler", "bullet_explicit", "euler"):
        with pytest.raises(TypeError, match="pivoted"):
            INTEGRATORS[name](state, params, 0.01, pivoted=np.array([True]))


def _dop853(top: HeavyTop, duration: float) -> np.ndarray:
    """The top's orientation after ``duration`` by DOP853 (rtol 1e-13) on ``q̇ = ½ [0, ω] ⊗ q``, ``L̇ = τ(q)``."""
    lever = LeverTorque(top.com_from_pivot_body[None], (top.mass * top.gravity_world)[None])
    inverse = np.linalg.inv(top.inertia_body)[None]

    def rate(t, y):
        q, L = y[:4] / np.linalg.norm(y[:4]), y[4:]
        omega = omega_world_from_momentum(q[None], L[None], inverse)[0]
        return np.concatenate([0.5 * quat_mul(np.concatenate([[0.0], omega]), q), lever(q[None])[0]])

    L0 = quat_rotate(top.q0, top.inertia_body @ top.omega_body0)
    y = solve_ivp(rate, (0.0, duration), np.concatenate([top.q0, L0]), method="DOP853", rtol=1e-13, atol=1e-13).y
    return quat_normalize(y[:4, -1])


@pytest.mark.parametrize("top", TOPS)
def test_mujoco_rk4_is_fourth_order_under_gravity(top):
    """τ(q) at each of RK4's stages, as MuJoCo's mj_RungeKutta evaluates its forces: fourth order on the tops (the
    torque held at the step's midpoint made it second order)."""
    body = TOPS[top]()
    reference = _dop853(body, 1.0)
    errors = [orientation_error(_world_run(body, "mujoco_rk4", h, round(1.0 / h))[0][None], reference[None])[0]
              for h in (1.0 / 60.0, 1.0 / 120.0)]  # fmt: skip
    assert errors[1] > 1e-8  # far above the reference's error
    assert abs(np.log2(errors[0] / errors[1]) - 4.0) <= TOLERANCE_ORDER, errors


def _rounding(name: str) -> float:
    return float(np.finfo(np.float32 if CLAIMS[name].precision == "float32" else np.float64).eps)


@pytest.mark.parametrize("name", ONE_STAGE)
def test_one_stage_engines_take_the_torque_at_the_steps_start(name):
    """The source formula (docs/engines.md): the engine's forces are evaluated once, on the state the step starts
    from, ``ω' = ω + h I_w⁻¹ τ(q₀)`` with ``τ(q₀) = (O₀ c) × m g``; without the gyroscopic term that is all that
    moves ω. The torque at the step's midpoint would part from it by ~h² |dτ/dt| / I ≈ 1e-2 rad/s here."""
    top, h = _asymmetric_top(), 1.0 / 60.0
    _, omega_body = _world_run(top, name, h, 1, gyroscopic=False)
    rotation = Rotation.from_quat(np.roll(top.q0, -1))  # scipy's (x, y, z, w)
    torque_body = rotation.inv().apply(np.cross(rotation.apply(top.com_from_pivot_body), top.mass * top.gravity_world))
    expected = top.omega_body0 + h * np.linalg.solve(top.inertia_body, torque_body)
    atol = 64.0 * _rounding(name) * np.abs(expected).max()
    np.testing.assert_allclose(omega_body, expected, rtol=0.0, atol=atol)


def _gyroscopic_force(omega_world: np.ndarray, q: np.ndarray, moments: np.ndarray) -> np.ndarray:
    rotation = Rotation.from_quat(np.roll(q, -1)).as_matrix()
    return np.cross(omega_world, rotation @ np.diag(moments) @ rotation.T @ omega_world)


@pytest.mark.parametrize("speed", [3.0, 30.0])
def test_bullet_explicit_clamps_the_gyroscopic_force_as_its_source_does(speed):
    """btRigidBody::computeGyroscopicForceExplicit, then convertBodies: ``gf = ω × I_w ω`` scaled to 100 N m when
    longer, ``ω' = ω + h I_w⁻¹ (τ − gf)``; checked against that formula only (pybullet's multibody, the peer the
    free body is checked against, has no clamp)."""
    moments, h = np.array([1.3, 1.4, 2.5]), 1.0 / 60.0
    q = quat_normalize(np.array([0.9, 0.1, -0.3, 0.3]))
    omega = speed * np.array([0.4, 1.0, -0.5])
    torque = np.array([0.2, -0.1, 0.3])
    inertia = np.diag(moments)[None]
    state = BodyState.from_omega_world(q[None], omega[None], inertia)
    new, _ = INTEGRATORS["bullet_explicit"](state, BodyParams.from_inertia(inertia, torque[None]), h)
    force = _gyroscopic_force(omega, q, moments)
    length = np.linalg.norm(force)
    assert (length > MAX_GYROSCOPIC_FORCE) == (speed > 10.0)  # the clamp is engaged in one case only
    force = force * min(1.0, MAX_GYROSCOPIC_FORCE / length)
    rotation = Rotation.from_quat(np.roll(q, -1)).as_matrix()
    inertia_world_inv = rotation @ np.diag(1.0 / moments) @ rotation.T
    expected = omega + h * inertia_world_inv @ (torque - force)
    np.testing.assert_allclose(new.omega_world[0], expected, rtol=0.0, atol=1e-13 * np.abs(expected).max())


@pytest.mark.parametrize("top", TOPS)
def test_bullet_explicit_is_pybullets_multibody_top_while_the_clamp_is_off(top):
    """pybullet's Featherstone multibody on a spherical joint takes the torque at the step's start and ``ω × Iω``
    explicitly, as bullet_explicit does: one step to rounding, and one second at h = 1/240 (where ``|ω × I_w ω|``
    stays below the 100 N m clamp, which the multibody does not have) to the rounding the motion amplifies."""
    pybullet = pytest.importorskip("pybullet", reason=SKIP_REASON)
    body = TOPS[top]()
    for h, n_steps, tolerance in ((1.0 / 60.0, 1, RTOL_ONE_STEP), (1.0 / 240.0, 240, RTOL_ONE_SECOND)):
        theirs = pybullet_top_run(pybullet, body, h, n_steps)
        angle, rate = _parted(theirs, _world_run(body, "bullet_explicit", h, n_steps))
        assert angle <= tolerance and rate <= 4.0 * tolerance, (h, angle, rate)
