"""The herpolhode trail: a ring buffer of each body's world angular velocity, and the invariable plane.

Without torque, ω (world) moves in the invariable plane ``ω · L̂ = 2E/|L|`` (math.md §Accuracy measures); the
path of its tip is the herpolhode. The renderer draws ω from the body's centre scaled by ``omega_scale`` (m per
rad/s), so the tip of the drawn arrow traces the herpolhode and the plane sits at ``omega_scale · 2E/|L|`` from the
centre along L̂. The buffer stores ω itself (a free vector), not tip positions, so the curve stays the herpolhode
when the body's centre moves.
"""

from __future__ import annotations

import numpy as np

__all__ = ["HerpolhodeTrail", "invariable_plane", "MAX_TRAIL_SAMPLES"]

# The trails of all the bodies together hold at most this many samples of ω (3.8 MB), however many bodies there
# are: a few hundred bodies keep every sample asked for, a cloud a shorter trail each (the last 160 steps of 1000
# bodies; the last 2 of 80,000 or more). Drawn, a cloud's trails are thinned to render/trail_lines.py's
# MAX_TRAIL_SEGMENTS anyway (a 10^5-body cloud draws one segment a body), so a longer trail held is memory wasted.
MAX_TRAIL_SAMPLES = 160_000


class HerpolhodeTrail:
    """The last ``capacity`` samples of ``omega_world`` (N, 3) rad/s of ``n_bodies`` bodies, oldest first; fewer
    when ``capacity`` of every body would pass :data:`MAX_TRAIL_SAMPLES` (but at least 2, one segment)."""

    def __init__(self, n_bodies: int, capacity: int) -> None:
        self.capacity = min(int(capacity), max(2, MAX_TRAIL_SAMPLES // max(int(n_bodies), 1)))
        self._omega_world = np.zeros((self.capacity, n_bodies, 3))
        self._next = 0
        self.count = 0
        # Samples pushed since the last clear: the next sample's absolute index (sample_index). Thinning keeps the
        # samples whose absolute index is a multiple of the stride, so the kept samples stay the same from one
        # push to the next instead of shifting with the newest.
        self.pushed = 0
        self.version = 0  # changes with every push and clear: what a cache of derived data is keyed on

    def push(self, omega_world: np.ndarray) -> None:
        """Append one sample, (N, 3) rad/s world frame, dropping the oldest when full."""
        self._omega_world[self._next] = omega_world
        self._next = (self._next + 1) % self.capacity
        self.count = min(self.count + 1, self.capacity)
        self.pushed += 1
        self.version += 1

    def refill(self, omega_world: np.ndarray, pushed: int) -> None:
        """Hold the newest samples of ``omega_world`` (T, N, 3) rad/s world frame, oldest first, as the last of
        ``pushed`` samples pushed since the last clear: the trail as it was when they were pushed one by one (a run
        shown again at a past step, scene/model/step_record.py)."""
        kept = np.asarray(omega_world)[-self.capacity :]
        self._omega_world[: len(kept)] = kept
        self._next = len(kept) % self.capacity
        self.count = len(kept)
        self.pushed = int(pushed)
        self.version += 1

    def clear(self) -> None:
        """Forget every sample (after a reset or a jump in time)."""
        self._next = 0
        self.count = 0
        self.pushed = 0
        self.version += 1

    def stride(self, n_bodies: int, max_values: int | None) -> int:
        """The sampling stride that keeps T' · ``n_bodies`` within ``max_values`` (1 without a limit), give or take
        the two ends of the trail (:meth:`omega_world` keeps its newest sample too, and the multiples of the stride
        it holds may start at its oldest): a power of two, so that the samples kept at one stride are kept at every
        finer one and a growing trail changes its kept samples only when the stride doubles."""
        if max_values is None:
            return 1
        needed = max(1, -(-self.count * n_bodies // max_values))
        return 1 << (needed - 1).bit_length()

    def omega_world(
        self, bodies: np.ndarray | slice = slice(None), max_values: int | None = None, *, stride: int | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """The samples of ``bodies``, oldest first: ``(omega_world (T', K, 3) rad/s world frame, age (T',))``,
        the age in samples (0 for the newest; :meth:`sample_index` gives their absolute indices). With
        ``max_values`` the samples whose absolute index is a multiple of :meth:`stride` are kept, and the newest,
        so that T' · K stays within about ``max_values`` (many bodies cost no more than a few); an explicit
        ``stride`` overrides that. Anchored to absolute indices, the kept samples stay the same from one push to the
        next (but the newest)."""
        selected = np.arange(self._omega_world.shape[1])[bodies]
        if stride is None:
            stride = self.stride(len(selected), max_values)
        newest = self.pushed - 1
        oldest = self.pushed - self.count
        index = np.arange(-(-oldest // stride) * stride, self.pushed, stride)  # the multiples of stride held
        if self.count and (not len(index) or index[-1] != newest):
            index = np.append(index, newest)
        age = newest - index
        slots = (self._next - 1 - age) % self.capacity
        return self._omega_world[np.ix_(slots, selected)], age

    def sample_index(self, age: np.ndarray) -> np.ndarray:
        """The absolute index of the samples of ``age`` (T',): how many samples were pushed before each since the
        last clear."""
        return self.pushed - 1 - np.asarray(age)


def invariable_plane(L_world: np.ndarray, energy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The invariable plane of each body: unit normal ``L̂`` (N, 3) and the distance ``2E/|L|`` (N,) rad/s of the
    plane ``ω · L̂ = 2E/|L|`` from the origin of ω-space. ``L_world`` (N, 3) kg·m²/s world frame, ``energy`` (N,)
    J. A body with no momentum gets normal +z and distance 0."""
    L_norm = np.linalg.norm(L_world, axis=1)
    moving = L_norm > 0.0
    safe = np.where(moving, L_norm, 1.0)
    normal = np.where(moving[:, None], L_world / safe[:, None], [0.0, 0.0, 1.0])
    return normal, np.where(moving, 2.0 * energy / safe, 0.0)
