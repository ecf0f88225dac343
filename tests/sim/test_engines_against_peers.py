"""The ``bullet_*`` and ``mujoco_*`` engine steps against the real engines (the ``peers`` extra: ``mujoco``,
``pybullet``): the same body and state, 600 steps, the same end state.

Which setting maps to which step:

- MuJoCo: a body with a ``<freejoint/>`` and a diagonal ``<inertial>`` at its origin, ``<option integrator=...>``
  ``Euler`` → ``mujoco_euler``, ``implicitfast`` → ``mujoco_implicitfast``, ``RK4`` → ``mujoco_rk4``; ``qvel[3:6]``
  is the body-frame rate ``Ω``.
- pybullet: ``createMultiBody(..., useMaximalCoordinates=True)`` makes a ``btRigidBody``, whose default flag is
  ``BT_ENABLE_GYROSCOPIC_FORCE_IMPLICIT_BODY`` → ``bullet_implicit_body``; the default multibody path (a
  ``btMultiBody`` base, its ``ω × I ω`` explicit in ``computeAccelerationsArticulatedBodyAlgorithmMultiDof``)
  agrees with ``bullet_explicit`` (measured, 1e-14). Damping is set to 0 in both (the multibody default is 0.04).

Tolerances: both sides compute the same formulas in float64 in another order, so they differ by rounding, which
the motion amplifies (the T-handle passes near its separatrix); ``RTOL_AGREEMENT`` bounds the end state (q, and ω
relative to its size) after 600 steps (measured: at most 3e-12).
"""

import numpy as np
import pytest

from spinlab.sim.integrators import INTEGRATORS
from spinlab.sim.integrators.state import BodyParams, BodyState, to_body, to_world
from spinlab.sim.quaternion import quat_normalize

RTOL_AGREEMENT = 1e-9
N_STEPS = 600
MOMENTS = (1.3, 1.4, 2.5)  # kg m², seed 003's T-handle, along body x, y, z
OMEGA_BODY = (0.05, 5.0, 0.05)  # rad/s, near the intermediate axis
ROD_MOMENTS = (0.02, 1.0, 1.0)  # kg m²: a thin rod along body x ...
# ... spun about a tilted axis, slowly enough that the explicit steps stay bounded for 600 steps (at 12 rad/s their
# precession grows by e^12 and more: rounding then differs without bound, as the benchmark shows).
ROD_OMEGA_BODY = (3.0, 0.5, -0.3)  # rad/s
SKIP_REASON = "the peers extra (pip install -e '.[peers]') is not installed"
BODIES = [(MOMENTS, OMEGA_BODY), (ROD_MOMENTS, ROD_OMEGA_BODY)]


def _start(seed: int, omega_body) -> tuple[np.ndarray, np.ndarray]:
    return quat_normalize(np.random.default_rng(seed).normal(size=4)), np.asarray(omega_body, dtype=float)


def _spinlab(name: str, q0: np.ndarray, omega_body: np.ndarray, moments, h: float) -> BodyState:
    inertia = np.diag(moments)[None]
    state = BodyState.from_omega_body(q0[None], omega_body[None], inertia)
    params = BodyParams.from_inertia(inertia)
    for _ in range(N_STEPS):
        state, _ = INTEGRATORS[name](state, params, h)
    return state


def _assert_agree(q_peer: np.ndarray, omega_world_peer: np.ndarray, state: BodyState) -> None:
    q = state.q[0]
    q_peer = q_peer if float(q_peer @ q) >= 0.0 else -q_peer  # ±q is one rotation
    assert np.abs(q_peer - q).max() <= RTOL_AGREEMENT
    scale = np.abs(omega_world_peer).max()
    assert np.abs(omega_world_peer - state.omega_world[0]).max() <= RTOL_AGREEMENT * scale


# -------------------------------------------------------------------------------------------------------- MuJoCo


def _mujoco_run(mujoco, integrator: str, q0, omega_body, moments, h: float):
    xml = (
        f'<mujoco><option timestep="{h!r}" gravity="0 0 0" integrator="{integrator}"/><worldbody><body>'
        f'<freejoint/><inertial pos="0 0 0" mass="1" diaginertia="{" ".join(repr(m) for m in moments)}"/>'
        "</body></worldbody></mujoco>"
    )
    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    data.qpos[3:7], data.qvel[3:6] = q0, omega_body
    for _ in range(N_STEPS):
        mujoco.mj_step(model, data)
    q = data.qpos[3:7].copy()
    return q, to_world(quat_normalize(q)[None], data.qvel[3:6][None])[0]


@pytest.mark.parametrize("h", [1.0 / 60.0, 1.0 / 30.0])
@pytest.mark.parametrize(
    ("integrator", "name"), [("Euler", "mujoco_euler"), ("implicitfast", "mujoco_implicitfast"), ("RK4", "mujoco_rk4")]
)
@pytest.mark.parametrize(("moments", "omega"), BODIES)
def test_mujoco_steps_agree_with_mujoco(integrator, name, h, moments, omega):
    mujoco = pytest.importorskip("mujoco", reason=SKIP_REASON)
    q0, omega_body = _start(7, omega)
    q_peer, omega_peer = _mujoco_run(mujoco, integrator, q0, omega_body, moments, h)
    _assert_agree(q_peer, omega_peer, _spinlab(name, q0, omega_body, moments, h))


def test_mujoco_implicitfast_is_not_euler_on_a_free_body():
    """The gyroscopic derivative that makes implicitfast differ from Euler on a free body (MuJoCo ≥ 3.11) is in
    the installed MuJoCo: the two end states differ by far more than the agreement tolerance."""
    mujoco = pytest.importorskip("mujoco", reason=SKIP_REASON)
    q0, omega_body = _start(7, OMEGA_BODY)
    euler, _ = _mujoco_run(mujoco, "Euler", q0, omega_body, MOMENTS, 1.0 / 60.0)
    fast, _ = _mujoco_run(mujoco, "implicitfast", q0, omega_body, MOMENTS, 1.0 / 60.0)
    assert np.abs(euler - fast).max() > 1e3 * RTOL_AGREEMENT


# ------------------------------------------------------------------------------------------------------ pybullet


def _pybullet_run(pybullet, q0, omega_body, moments, h: float, *, maximal: bool):
    client = pybullet.connect(pybullet.DIRECT)
    try:
        pybullet.setGravity(0, 0, 0, physicsClientId=client)
        pybullet.setTimeStep(h, physicsClientId=client)
        shape = pybullet.createCollisionShape(pybullet.GEOM_SPHERE, radius=0.1, physicsClientId=client)
        body = pybullet.createMultiBody(
            baseMass=1.0,
            baseCollisionShapeIndex=shape,
            baseOrientation=[q0[1], q0[2], q0[3], q0[0]],  # pybullet's (x, y, z, w)
            useMaximalCoordinates=maximal,
            physicsClientId=client,
        )
        pybullet.changeDynamics(
            body, -1, localInertiaDiagonal=list(moments), linearDamping=0.0, angularDamping=0.0, physicsClientId=client
        )
        omega_world = to_world(q0[None], omega_body[None])[0]
        pybullet.resetBaseVelocity(body, [0.0, 0.0, 0.0], list(omega_world), physicsClientId=client)
        for _ in range(N_STEPS):
            pybullet.stepSimulation(physicsClientId=client)
        _, (x, y, z, w) = pybullet.getBasePositionAndOrientation(body, physicsClientId=client)
        _, omega = pybullet.getBaseVelocity(body, physicsClientId=client)
    finally:
        pybullet.disconnect(client)
    return np.array([w, x, y, z]), np.array(omega)


@pytest.mark.parametrize("h", [1.0 / 60.0, 1.0 / 30.0])
@pytest.mark.parametrize(("maximal", "name"), [(True, "bullet_implicit_body"), (False, "bullet_explicit")])
@pytest.mark.parametrize(("moments", "omega"), BODIES)
def test_bullet_steps_agree_with_pybullet(maximal, name, h, moments, omega):
    pybullet = pytest.importorskip("pybullet", reason=SKIP_REASON)
    q0, omega_body = _start(11, omega)
    q_peer, omega_peer = _pybullet_run(pybullet, q0, omega_body, moments, h, maximal=maximal)
    _assert_agree(q_peer, omega_peer, _spinlab(name, q0, omega_body, moments, h))


def test_bullet_implicit_world_and_body_are_one_map_to_rounding():
    """computeGyroscopicImpulseImplicit_World and _Body take the same Newton step in two frames (the body
    Jacobian is the world one turned by O): one step of random bodies agrees to rounding."""
    rng = np.random.default_rng(3)
    q = quat_normalize(rng.normal(size=(50, 4)))
    inertia = np.broadcast_to(np.diag(MOMENTS), (50, 3, 3))
    state = BodyState.from_omega_body(q, 4.0 * rng.normal(size=(50, 3)), inertia)
    params = BodyParams.from_inertia(inertia)
    world, _ = INTEGRATORS["bullet_implicit_world"](state, params, 1.0 / 60.0)
    body, _ = INTEGRATORS["bullet_implicit_body"](state, params, 1.0 / 60.0)
    np.testing.assert_allclose(to_body(world.q, world.omega_world), to_body(body.q, body.omega_world), atol=1e-13)
    np.testing.assert_allclose(world.q, body.q, atol=1e-15)
