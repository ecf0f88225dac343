"""The herpolhode trail: a ring buffer of each body's world angular velocity, and the invariable plane.

Without torque, ω (world) moves in the invariable plane ``ω · L̂ = 2E/|L|`` (math.md §Accuracy measures); the
path of its tip is the herpolhode. The renderer draws ω from the body's centre scaled by ``omega_scale`` (m per
rad/s), so the tip of the drawn arrow traces the herpolhode and the plane sits at ``omega_scale · 2E/|L|`` from the
centre along L̂. The buffer stores ω itself (a free vector), not tip positions, so the curve stays the herpolhode
when the body's centre moves.
"""

from __future__ import annotations

import numpy as np

__all__ = ["HerpolhodeTrail", "invariable_plane"]


class HerpolhodeTrail:
    """The last ``capacity`` samples of ``omega_world`` (N, 3) rad/s of ``n_bodies`` bodies, oldest first."""

    def __init__(self, n_bodies: int, capacity: int) -> None:
        self.capacity = int(capacity)
        self._omega_world = np.zeros((self.capacity, n_bodies, 3))
        self._next = 0
        self.count = 0
        self.version = 0  # changes with every push and clear: what a cache of derived data is keyed on

    def push(self, omega_world: np.ndarray) -> None:
        """Append one sample, (N, 3) rad/s world frame, dropping the oldest when full."""
        self._omega_world[self._next] = omega_world
        self._next = (self._next + 1) % self.capacity
        self.count = min(self.count + 1, self.capacity)
        self.version += 1

    def clear(self) -> None:
        """Forget every sample (after a reset or a jump in time)."""
        self._next = 0
        self.count = 0
        self.version += 1

    def stride(self, n_bodies: int, max_values: int | None) -> int:
        """The sampling stride that keeps T' · ``n_bodies`` within ``max_values`` (1 without a limit)."""
        return 1 if max_values is None else max(1, -(-self.count * n_bodies // max_values))

    def omega_world(
        self, bodies: np.ndarray | slice = slice(None), max_values: int | None = None, *, stride: int | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """The samples of ``bodies``, oldest first: ``(omega_world (T', K, 3) rad/s world frame, age (T',))``,
        the age in samples (0 for the newest). With ``max_values`` every stride-th sample is kept, the newest
        always, so that T' · K stays within ``max_values`` (many bodies cost no more than a few); an explicit
        ``stride`` overrides that."""
        selected = np.arange(self._omega_world.shape[1])[bodies]
        if stride is None:
            stride = self.stride(len(selected), max_values)
        age = np.arange(0, self.count, stride)[::-1]
        slots = (self._next - 1 - age) % self.capacity
        return self._omega_world[np.ix_(slots, selected)], age


def invariable_plane(L_world: np.ndarray, energy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The invariable plane of each body: unit normal ``L̂`` (N, 3) and the distance ``2E/|L|`` (N,) rad/s of the
    plane ``ω · L̂ = 2E/|L|`` from the origin of ω-space. ``L_world`` (N, 3) kg·m²/s world frame, ``energy`` (N,)
    J. A body with no momentum gets normal +z and distance 0."""
    L_norm = np.linalg.norm(L_world, axis=1)
    moving = L_norm > 0.0
    safe = np.where(moving, L_norm, 1.0)
    normal = np.where(moving[:, None], L_world / safe[:, None], [0.0, 0.0, 1.0])
    return normal, np.where(moving, 2.0 * energy / safe, 0.0)
