"""The ``heavy_top`` preset's top as the accuracy benchmark uses it, and spinlab's runs of it.

The top is read from the preset (a disc on a massless stem about a fixed pivot, :class:`HeavyTop`); spinlab steps it
through :class:`sim.world.World`, one top for the errors (:func:`spinlab_run`) and a batch of ``COST_BODIES`` tops
near it for the cost (:func:`spinlab_cost`), the way a scene is stepped (gravity's torque included).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from spinlab.scene.files.scene_file import load_scene
from spinlab.sim.errors import NumericalError
from spinlab.sim.lagrange_top import LagrangeTopSolution, lagrange_top_from_body
from spinlab.sim.quaternion import quat_conj, quat_exp, quat_mul, quat_rotate
from spinlab.sim.world import INTEGRATOR_NAMES, World

__all__ = ["HeavyTop", "top_world", "spinlab_run", "spinlab_cost", "TimeCall", "SCENE", "COST_BODIES"]

SCENE = "heavy_top"
COST_BODIES = 1000
SEED = 2025

_STATE_FIELDS = ("q", "omega_world", "L_world", "position", "velocity", "q_low")

TimeCall = Callable[[Callable[[], Any], int], float]
"""``time_call(advance, repeats)``: seconds per call of ``advance``."""


@dataclass(frozen=True)
class HeavyTop:
    """The preset's top: ``inertia_body`` (3, 3) kg m² about the pivot, body frame; ``mass`` kg;
    ``com_from_pivot_body`` (3,) m, body frame; ``gravity_world`` (3,) m/s²; ``pivot_body`` (3,) m, from the
    centre of mass; ``position`` (3,) m of the centre of mass; ``q0`` (4,) body → world; ``omega_world0`` (3,)."""

    inertia_body: np.ndarray
    mass: float
    com_from_pivot_body: np.ndarray
    gravity_world: np.ndarray
    pivot_body: np.ndarray
    position: np.ndarray
    q0: np.ndarray
    omega_world0: np.ndarray

    @classmethod
    def load(cls) -> HeavyTop:
        scene = load_scene(SCENE)
        body = scene.bodies[0]
        pivot = np.array(body.pivot, dtype=float)
        return cls(np.array(body.inertia_body), float(body.mass), -pivot, np.array(scene.gravity), pivot,
                   np.array(body.position), np.array(body.orientation), np.array(body.omega_parent))  # fmt: skip

    @property
    def omega_body0(self) -> np.ndarray:
        return quat_rotate(quat_conj(self.q0), self.omega_world0)

    @property
    def inertia_com(self) -> np.ndarray:
        """(3, 3) kg m² about the centre of mass (parallel axis theorem)."""
        c = self.com_from_pivot_body
        return self.inertia_body - self.mass * (c @ c * np.eye(3) - np.outer(c, c))

    def energy(self, q: np.ndarray, omega_body: np.ndarray) -> np.ndarray:
        """``½ Ω·I Ω − m g·(O c)``: (T,) J for orientations (T, 4) and body rates (T, 3)."""
        kinetic = 0.5 * np.sum(omega_body * (omega_body @ self.inertia_body.T), axis=-1)
        com_world = quat_rotate(q, np.broadcast_to(self.com_from_pivot_body, omega_body.shape))
        return kinetic - self.mass * (com_world @ self.gravity_world)

    def solution(self) -> LagrangeTopSolution:
        solution = lagrange_top_from_body(self.inertia_body, self.mass, self.com_from_pivot_body,
                                          self.gravity_world, self.q0, self.omega_world0)  # fmt: skip
        if solution is None:
            raise ValueError(f"{SCENE} is not a symmetric heavy top the closed form takes")
        return solution

    def batch(self, n_bodies: int) -> tuple[np.ndarray, np.ndarray]:
        """Orientations (n, 4) near ``q0`` and body rates (n, 3) near ``Ω0``, the same for every method."""
        rng = np.random.default_rng(SEED + n_bodies)
        q = quat_mul(np.broadcast_to(self.q0, (n_bodies, 4)), quat_exp(0.1 * rng.normal(size=(n_bodies, 3))))
        return q, self.omega_body0 + 0.1 * rng.normal(size=(n_bodies, 3))


def top_world(top: HeavyTop, integrator: str, q: np.ndarray, omega_body: np.ndarray) -> World:
    """A world of tops, one per orientation (n, 4) and body rate (n, 3), each on its pivot, under gravity."""
    world = World(gravity=top.gravity_world)
    for q_one, omega_one in zip(q, omega_body, strict=True):
        world.add_body(q=q_one, omega_world=quat_rotate(q_one, omega_one), inertia_body=top.inertia_body,
                       integrator=integrator, mass=top.mass, pivot_body=top.pivot_body,
                       position=-quat_rotate(q_one, top.pivot_body))  # fmt: skip
    return world


def spinlab_run(top: HeavyTop, integrator: str, h: float, n_steps: int) -> tuple[np.ndarray, np.ndarray, float]:
    """Step one top ``n_steps`` times through the world: orientations (k + 1, 4), body rates (k + 1, 3) for the
    k steps it took (``k < n_steps`` when a step failed) and the seconds per step."""
    top_world(top, integrator, top.q0[None], top.omega_body0[None]).step(h)  # compiles the kernels on first use
    world = top_world(top, integrator, top.q0[None], top.omega_body0[None])
    q, omega_world = np.empty((n_steps + 1, 4)), np.empty((n_steps + 1, 3))
    q[0], omega_world[0] = world.values("q")[0], world.values("omega_world")[0]
    taken, begin = n_steps, time.perf_counter()
    for k in range(1, n_steps + 1):
        try:
            world.step(h)
        except NumericalError:
            taken = k - 1
            break
        q[k], omega_world[k] = world.values("q")[0], world.values("omega_world")[0]
    seconds = (time.perf_counter() - begin) / max(taken, 1)
    q, omega_world = q[: taken + 1], omega_world[: taken + 1]
    return q, quat_rotate(quat_conj(q), omega_world), seconds


def spinlab_cost(world: World, integrator: str, h: float, n_steps: int, time_call: TimeCall, repeats: int):
    """Seconds per body-step of ``integrator`` over the batch ``world``, from the state it was built with."""
    # Writing the integrator field rebuilds the world's layout (sim/world.py): one batch serves every method.
    world.values("integrator")[...] = INTEGRATOR_NAMES.index(integrator)
    start = {name: world.values(name).copy() for name in _STATE_FIELDS}
    taken = [n_steps]

    def advance() -> None:
        if taken[0] == n_steps:
            for name, values in start.items():
                world.values(name)[...] = values
            taken[0] = 0
        world.step(h)
        taken[0] += 1

    try:
        seconds = time_call(advance, repeats) / len(world)
    except NumericalError:
        seconds = None
    for name, values in start.items():
        world.values(name)[...] = values
    return seconds
