"""The real engines beside spinlab's engine steps (the ``peers`` extra): the same body and state stepped in MuJoCo
(``mujoco``) or Bullet (``pybullet``) and in spinlab, for tests/sim/test_engines_against_peers.py and the engines
benchmark's agreement figures (docs/engines.md).

Mapping: MuJoCo ``<option integrator="Euler"|"implicitfast"|"RK4">`` on a ``<freejoint/>`` body with a diagonal
``<inertial>`` at its origin → ``mujoco_euler`` | ``mujoco_implicitfast`` | ``mujoco_rk4`` (``qvel[3:6]`` is the body
rate Ω); pybullet ``createMultiBody(useMaximalCoordinates=True)`` (a ``btRigidBody``, default flag
``BT_ENABLE_GYROSCOPIC_FORCE_IMPLICIT_BODY``) → ``bullet_implicit_body``, and its default multibody base
(``btMultiBody``, ``ω × I ω`` explicit) → ``bullet_explicit``. Damping 0, gravity 0.
"""

from __future__ import annotations

import numpy as np

from spinlab.sim.integrators import INTEGRATORS
from spinlab.sim.integrators.state import BodyParams, BodyState, to_world
from spinlab.sim.quaternion import quat_normalize

__all__ = ["N_STEPS", "PAIRS", "BODIES", "start", "spinlab_run", "mujoco_run", "pybullet_run", "difference",
           "agreement_figures", "import_mujoco", "pybullet_top_run"]  # fmt: skip

N_STEPS = 600


def import_mujoco():
    """The ``mujoco`` module, or ``None`` without the ``peers`` extra. Its warnings (a simulation going unstable,
    which the benchmarks measure and report themselves) are dropped: by default MuJoCo appends them to a
    MUJOCO_LOG.TXT in the working folder, a file the person running ``bench`` did not ask for."""
    try:
        import mujoco
    except ImportError:
        return None
    mujoco.set_mju_user_warning(_drop)
    return mujoco


def _drop(message: str) -> None:
    """A MuJoCo warning, dropped (:func:`import_mujoco`)."""


BODIES = {
    "t_handle": ((1.3, 1.4, 2.5), (0.05, 5.0, 0.05)),  # kg m², rad/s: near the intermediate axis
    # A thin rod spun about a tilted axis, slowly enough that the explicit steps stay bounded for 600 steps (at
    # 12 rad/s their precession grows by e^12 and more, and rounding differences with it).
    "rod": ((0.02, 1.0, 1.0), (3.0, 0.5, -0.3)),
}
PAIRS = {
    "mujoco_euler": ("mujoco", "Euler"),
    "mujoco_implicitfast": ("mujoco", "implicitfast"),
    "mujoco_rk4": ("mujoco", "RK4"),
    "bullet_implicit_body": ("pybullet", "maximal"),
    "bullet_explicit": ("pybullet", "multibody"),
}


def start(seed: int, omega_body) -> tuple[np.ndarray, np.ndarray]:
    """A random orientation (w, x, y, z) and the body rate as an array."""
    return quat_normalize(np.random.default_rng(seed).normal(size=4)), np.asarray(omega_body, dtype=float)


def spinlab_run(name: str, q0: np.ndarray, omega_body: np.ndarray, moments, h: float) -> BodyState:
    inertia = np.diag(moments)[None]
    state = BodyState.from_omega_body(q0[None], omega_body[None], inertia)
    params = BodyParams.from_inertia(inertia)
    for _ in range(N_STEPS):
        state, _ = INTEGRATORS[name](state, params, h)
    return state


def mujoco_run(mujoco, integrator: str, q0, omega_body, moments, h: float) -> tuple[np.ndarray, np.ndarray]:
    """MuJoCo's end state: q (w, x, y, z) and ω (world) after :data:`N_STEPS` steps."""
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


def pybullet_run(pybullet, q0, omega_body, moments, h: float, *, maximal: bool) -> tuple[np.ndarray, np.ndarray]:
    """pybullet's end state: q (w, x, y, z) and ω (world) after :data:`N_STEPS` steps."""
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


def pybullet_top_run(pybullet, top, h: float, n_steps: int) -> tuple[np.ndarray, np.ndarray]:
    """A heavy top (:class:`benchmarks.heavy_top_body.HeavyTop`, its inertia about the centre of mass diagonal in
    the body frame) stepped ``n_steps`` times by pybullet's multibody on a spherical joint at the pivot, from
    ``top.q0`` and ``top.omega_body0``: its end orientation (w, x, y, z) and body rate Ω (rad/s)."""
    inertia_com = top.inertia_com
    if np.any(inertia_com != np.diag(np.diag(inertia_com))):
        raise ValueError("pybullet_top_run takes a top whose inertia about its centre of mass is diagonal")
    client = pybullet.connect(pybullet.DIRECT)
    try:
        pybullet.setGravity(*map(float, top.gravity_world), physicsClientId=client)
        pybullet.setTimeStep(h, physicsClientId=client)
        shape = pybullet.createCollisionShape(pybullet.GEOM_SPHERE, radius=0.05, physicsClientId=client)
        body = pybullet.createMultiBody(
            baseMass=0.0,  # a fixed base at the world origin: the pivot
            linkMasses=[top.mass],
            linkCollisionShapeIndices=[shape],
            linkVisualShapeIndices=[-1],
            linkPositions=[[0.0, 0.0, 0.0]],
            linkOrientations=[[0.0, 0.0, 0.0, 1.0]],
            linkInertialFramePositions=[list(map(float, top.com_from_pivot_body))],
            linkInertialFrameOrientations=[[0.0, 0.0, 0.0, 1.0]],
            linkParentIndices=[0],
            linkJointTypes=[pybullet.JOINT_SPHERICAL],
            linkJointAxis=[[0.0, 0.0, 1.0]],
            physicsClientId=client,
        )
        moments = list(map(float, np.diag(inertia_com)))
        pybullet.changeDynamics(body, 0, localInertiaDiagonal=moments, linearDamping=0.0, angularDamping=0.0,
                                jointDamping=0.0, physicsClientId=client)  # fmt: skip
        pybullet.setCollisionFilterGroupMask(body, 0, 0, 0, physicsClientId=client)
        pybullet.setJointMotorControlMultiDof(body, 0, pybullet.POSITION_CONTROL, targetPosition=[0.0, 0.0, 0.0, 1.0],
                                              force=[0.0, 0.0, 0.0], physicsClientId=client)  # fmt: skip
        w, x, y, z = map(float, top.q0)
        rate = list(map(float, top.omega_body0))  # a spherical joint's velocity is the link's body rate
        pybullet.resetJointStateMultiDof(body, 0, targetValue=[x, y, z, w], targetVelocity=rate,
                                         physicsClientId=client)  # fmt: skip
        for _ in range(n_steps):
            pybullet.stepSimulation(physicsClientId=client)
        (x, y, z, w), omega_body, *_ = pybullet.getJointStateMultiDof(body, 0, physicsClientId=client)
    finally:
        pybullet.disconnect(client)
    return np.array([w, x, y, z]), np.array(omega_body)


def difference(q_peer: np.ndarray, omega_world_peer: np.ndarray, state: BodyState) -> tuple[float, float]:
    """Largest ``|Δq|`` (±q aligned: one rotation) and ``|Δω|/|ω|`` (largest components) of two end states."""
    q = state.q[0]
    q_peer = q_peer if float(q_peer @ q) >= 0.0 else -q_peer
    scale = np.abs(omega_world_peer).max()
    return float(np.abs(q_peer - q).max()), float(np.abs(omega_world_peer - state.omega_world[0]).max() / scale)


def peer_run(peer, setting: str, q0, omega_body, moments, h: float) -> tuple[np.ndarray, np.ndarray]:
    if setting in ("maximal", "multibody"):
        return pybullet_run(peer, q0, omega_body, moments, h, maximal=setting == "maximal")
    return mujoco_run(peer, setting, q0, omega_body, moments, h)


def agreement_figures() -> dict[str, float] | None:
    """``"name vs peer setting"`` → the larger of ``|Δq|`` and ``|Δω|/|ω|`` over both bodies and h = 1/60, 1/30 s;
    ``None`` when neither peer is installed."""
    import importlib  # noqa: PLC0415

    figures = {}
    for name, (module, setting) in PAIRS.items():
        try:
            peer = importlib.import_module(module)
        except ImportError:
            continue
        worst = 0.0
        for moments, omega in BODIES.values():
            q0, omega_body = start(7, omega)
            for h in (1.0 / 60.0, 1.0 / 30.0):
                q_peer, omega_peer = peer_run(peer, setting, q0, omega_body, moments, h)
                worst = max(worst, *difference(q_peer, omega_peer, spinlab_run(name, q0, omega_body, moments, h)))
        figures[f"{name} vs {module} {setting}"] = worst
    return figures or None
