"""MuJoCo's runs of the heavy top, for the accuracy benchmark's comparison (MuJoCo is optional: the caller passes
the imported module).

MuJoCo steps the same body on a ball joint: the body frame at the pivot, ``inertial pos`` at the centre
of mass with the inertia about it (``fullinertia``), gravity on, contacts off, no damping or armature;
``qpos`` is the ball's (w, x, y, z) quaternion, body → world, ``qvel`` its angular velocity in the body frame (as
for a free joint's rotation). Its ``implicitfast`` is its ``Euler`` here (there is no damping to treat
implicitly), so it is left out. Its batch is one model of ``COST_BODIES`` such bodies.
"""

from __future__ import annotations

import time

import numpy as np

from spinlab.benchmarks.heavy_top_body import COST_BODIES, HeavyTop, TimeCall

__all__ = ["MUJOCO_INTEGRATORS", "mujoco_model", "set_mujoco_state", "mujoco_state", "mujoco_run", "mujoco_cost"]

MUJOCO_INTEGRATORS = ("Euler", "implicit", "RK4")


def mujoco_model(mujoco, top: HeavyTop, integrator: str, h: float, n_bodies: int = 1):
    """A model of ``n_bodies`` copies of the top, each on its own ball joint at the world origin."""
    inertia = top.inertia_com
    numbers = (*top.com_from_pivot_body, top.mass, *np.diag(inertia), inertia[0, 1], inertia[0, 2], inertia[1, 2])
    text = [repr(float(x)) for x in numbers]
    body = ('<body pos="0 0 0"><joint type="ball" damping="0" armature="0" frictionloss="0" stiffness="0"/>'
            '<inertial pos="{} {} {}" mass="{}" fullinertia="{} {} {} {} {} {}"/></body>').format(*text)  # fmt: skip
    gravity = " ".join(repr(float(x)) for x in top.gravity_world)
    return mujoco.MjModel.from_xml_string(
        f'<mujoco><option timestep="{h!r}" gravity="{gravity}" integrator="{integrator}">'
        f'<flag contact="disable" energy="enable"/></option><worldbody>{body * n_bodies}</worldbody></mujoco>'
    )


def set_mujoco_state(data, q: np.ndarray, omega_body: np.ndarray) -> None:
    """Put orientations (n, 4) (w, x, y, z), body → world, and body rates (n, 3) into the ball joints."""
    data.qpos[:] = np.reshape(q, -1)
    data.qvel[:] = np.reshape(omega_body, -1)


def mujoco_state(data) -> tuple[np.ndarray, np.ndarray]:
    """The ball joints' orientations (n, 4) and body rates (n, 3)."""
    return data.qpos.reshape(-1, 4).copy(), data.qvel.reshape(-1, 3).copy()


def mujoco_run(mujoco, top: HeavyTop, integrator: str, h: float, n_steps: int):
    model = mujoco_model(mujoco, top, integrator, h)
    data = mujoco.MjData(model)
    set_mujoco_state(data, top.q0[None], top.omega_body0[None])
    q, omega_body = np.empty((n_steps + 1, 4)), np.empty((n_steps + 1, 3))
    q[0], omega_body[0] = data.qpos, data.qvel
    begin = time.perf_counter()
    for k in range(1, n_steps + 1):
        mujoco.mj_step(model, data)
        q[k], omega_body[k] = data.qpos, data.qvel
    return q, omega_body, (time.perf_counter() - begin) / n_steps


def mujoco_cost(mujoco, top: HeavyTop, integrator: str, h: float, n_steps: int, time_call: TimeCall, repeats: int):
    model = mujoco_model(mujoco, top, integrator, h, COST_BODIES)
    data = mujoco.MjData(model)
    q, omega_body = top.batch(COST_BODIES)
    taken = [n_steps]

    def advance() -> None:
        if taken[0] == n_steps:
            set_mujoco_state(data, q, omega_body)
            taken[0] = 0
        mujoco.mj_step(model, data)
        taken[0] += 1

    return time_call(advance, repeats) / COST_BODIES
