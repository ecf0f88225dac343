"""Torques that depend on the orientation only, for the integrators that evaluate them at their own stages.

The integrators of :mod:`sim.integrators.splitting` take, besides the constant ``params.torque_world``, a torque
``τ(q)``: any callable from orientations ``q`` (N, 4) (w, x, y, z), body → world, to world torques (N, 3) N m.
:class:`LeverTorque` is the one the world uses, and the one the compiled kernel evaluates: a constant world force
acting at a point fixed in the body, about a pivot fixed in the body and in space,

    τ(q) = (O r) × f

with ``r`` the point seen from the pivot in the body frame and ``f`` the force. Gravity on a heavy top is
``r = c`` (the centre of mass seen from the pivot) and ``f = m g``; its potential energy is ``V(q) = −f · (O r)``
(``τ = −∂V/∂θ`` for a small rotation ``θ`` in the world: ``δ(O r) = θ × O r``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from spinlab.sim.quaternion import quat_rotate
from spinlab.sim.vector import cross, dot

__all__ = ["LeverTorque", "OrientationTorque"]

OrientationTorque = Callable[[np.ndarray], np.ndarray]
"""``τ(q)``: orientations (N, 4) → world torques (N, 3) N m."""


@dataclass(frozen=True, eq=False)
class LeverTorque:
    """``τ(q) = (O r) × f`` for N bodies. ``lever_body``: (N, 3) m, body frame, the point where the force acts,
    from the pivot. ``force_world``: (N, 3) N, world frame, constant."""

    lever_body: np.ndarray
    force_world: np.ndarray

    def __post_init__(self) -> None:
        for name in ("lever_body", "force_world"):
            object.__setattr__(self, name, np.ascontiguousarray(getattr(self, name), dtype=np.float64))

    def __len__(self) -> int:
        return self.lever_body.shape[0]

    def __call__(self, q: np.ndarray) -> np.ndarray:
        """``(O r) × f``: (N, 3) N m, world frame, at orientations ``q`` (N, 4)."""
        return cross(quat_rotate(q, self.lever_body), self.force_world)

    def __getitem__(self, index: Any) -> LeverTorque:
        """The torques of the bodies at ``index``."""
        return LeverTorque(self.lever_body[index], self.force_world[index])

    def potential_energy(self, q: np.ndarray) -> np.ndarray:
        """``V(q) = −f · (O r)``: (N,) J, zero when the lever is across the force."""
        return -dot(self.force_world, quat_rotate(q, self.lever_body))
