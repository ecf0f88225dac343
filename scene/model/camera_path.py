"""Camera keys played over time (scene/files/camera_table.py's ``[[camera]]`` tables): the cameras' values at any
time, and who holds the cameras, the keys or a person. No GL: render/run_view.py applies the values to each view's
orbit camera (render/camera.py).

**The path.** Each value (azimuth, elevation, distance, target, field of view) has a value at every key: the key's
own, or the one before it held, or, before any key gave it, the view's own framing (its ``start``, the default
camera). Before the first key, when it comes after t = 0, the framing is a key at t = 0, so the cameras move from
it to the first key; after the last key they stay. Between two keys at ``t0 < t1`` a value goes from ``v0`` to
``v1`` as ``v0 + (v1 − v0) s(u)`` with ``u = (t − t0) / (t1 − t0)`` and the cubic ease in and out
``s(u) = u² (3 − 2u)``: exact at the keys (``s(0) = 0``, ``s(1) = 1``), monotone between them (``s' ≥ 0``),
and at rest at every key (``s'(0) = s'(1) = 0``), so the motion is C¹ across keys and a held value stays still.
The distance is eased geometrically, ``v0 (v1 / v0)^s``, a zoom at an even pace on screen. The azimuth is eased
as written (170 → 190 turns 20°, 0 → 720 two whole turns). The target is eased between the two keys' target
points as they are at time ``t``: a body's moves with the body, so a camera aimed at a body follows it.

**Who holds the cameras.** A :class:`CameraDirector` plays a path when ``playing`` (the window's toggle); a person
who turns, pans or zooms the cameras holds them (:meth:`CameraDirector.grab`) from the key before until the next
key, where the keys take them again: the person's framing is kept until the story moves on. Framing the views
again (the window's "Reset view") gives them back to the keys at once.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from spinlab.scene.files.camera_table import CameraKey

__all__ = ["CameraState", "CameraPath", "CameraDirector", "ease"]

_ANGLES = ("azimuth", "elevation", "distance", "fov")
_CHANNELS = (*_ANGLES, "target")


def ease(u: float) -> float:
    """The cubic ease in and out, ``u² (3 − 2u)`` for ``u`` in [0, 1]: 0 and 1 at the ends, at rest at both."""
    return u * u * (3.0 - 2.0 * u)


@dataclass(frozen=True)
class CameraState:
    """An orbit camera's values (render/camera.py's ``OrbitCamera``): degrees, metres, ``target`` (3,) m world."""

    azimuth: float
    elevation: float
    distance: float
    target: np.ndarray = field(compare=False)
    fov: float


Where = Callable[[str], "np.ndarray | None"]
"""A body's position now, (3,) m world, by its name; ``None`` where the view shows no copy of it."""


class CameraPath:
    """The cameras over time as ``keys`` (in time order, as scene/files/camera_table.py reads them) say."""

    def __init__(self, keys: Sequence[CameraKey] = ()) -> None:
        self.keys = tuple(keys)
        self.times = [key.time for key in self.keys]
        # Per value, per key: the index of the key whose value holds there (-1: the view's own framing).
        self._source: dict[str, list[int]] = {}
        for name in _CHANNELS:
            last, sources = -1, []
            for index, key in enumerate(self.keys):
                last = index if getattr(key, name) is not None else last
                sources.append(last)
            self._source[name] = sources

    def __bool__(self) -> bool:
        return bool(self.keys)

    def at(self, t: float, start: CameraState, where: Where) -> CameraState:
        """The cameras at ``t`` s, from the view's own framing ``start`` and the bodies' positions now
        (``where``)."""
        if not self.keys:
            return start
        index = bisect.bisect_right(self.times, t) - 1  # the key at or before t (-1: before the first)
        if index < 0:
            first = self.times[0]
            if first <= 0.0 or t <= 0.0:
                return self._key_state(-1, start, where)
            return _between(self._key_state(-1, start, where), self._key_state(0, start, where), ease(t / first))
        here = self._key_state(index, start, where)
        if index + 1 >= len(self.keys) or t <= self.times[index]:
            return here
        t0, t1 = self.times[index], self.times[index + 1]
        return _between(here, self._key_state(index + 1, start, where), ease((t - t0) / (t1 - t0)))

    def _key_state(self, index: int, start: CameraState, where: Where) -> CameraState:
        """Every value at key ``index`` (-1: the view's own framing), a body target where it is now."""
        values = {}
        for name in _ANGLES:
            source = self._source[name][index] if index >= 0 else -1
            values[name] = getattr(start, name) if source < 0 else getattr(self.keys[source], name)
        source = self._source["target"][index] if index >= 0 else -1
        target = start.target if source < 0 else self.keys[source].target
        if isinstance(target, str):
            found = where(target)
            target = start.target if found is None else found
        return CameraState(values["azimuth"], values["elevation"], values["distance"], np.asarray(target, float),
                           values["fov"])  # fmt: skip

    def key_before(self, t: float) -> float:
        """The time of the last key at or before ``t`` (−∞ before the first)."""
        index = bisect.bisect_right(self.times, t) - 1
        return self.times[index] if index >= 0 else -math.inf

    def key_after(self, t: float) -> float:
        """The time of the first key after ``t`` (∞ after the last)."""
        index = bisect.bisect_right(self.times, t)
        return self.times[index] if index < len(self.times) else math.inf


def _between(a: CameraState, b: CameraState, s: float) -> CameraState:
    """``a`` eased towards ``b`` by ``s`` in [0, 1] (exactly ``a`` at 0): the distance geometrically."""
    if s <= 0.0:
        return a
    if s >= 1.0:
        return b
    distance = a.distance * (b.distance / a.distance) ** s
    return CameraState(
        a.azimuth + (b.azimuth - a.azimuth) * s, a.elevation + (b.elevation - a.elevation) * s, distance,
        a.target + (b.target - a.target) * s, a.fov + (b.fov - a.fov) * s,
    )  # fmt: skip


class CameraDirector:
    """Plays a scene's camera keys (``playing``: the window's toggle, on by default) unless a person holds the
    cameras: a drag or a zoom (:meth:`grab`) holds them from the key before until the next key."""

    def __init__(self, keys: Sequence[CameraKey] = (), playing: bool = True) -> None:
        self.path = CameraPath(keys)
        self.playing = playing
        self._held: tuple[float, float] | None = None  # (from, until) s: a person's hand on the cameras

    def load(self, keys: Sequence[CameraKey]) -> None:
        """Play ``keys`` (a new scene's), let go of any hold."""
        if tuple(keys) != self.path.keys:
            self.path = CameraPath(keys)
        self._held = None

    def grab(self, t: float) -> None:
        """A person moved the cameras at ``t`` s: the keys let go of them until the next key after ``t``."""
        if self.path:
            self._held = (self.path.key_before(t), self.path.key_after(t))

    def let_go(self) -> None:
        """The person gives the cameras back to the keys (the window's "Reset view")."""
        self._held = None

    def held(self, t: float) -> bool:
        """Whether a person holds the cameras at ``t`` s (looking back before the hold, or past its key, lets go)."""
        if self._held is not None and not self._held[0] <= t < self._held[1]:
            self._held = None
        return self._held is not None

    def steers(self, t: float) -> bool:
        """Whether the keys set the cameras at ``t`` s: playing, there are keys, and no person holds them."""
        return self.playing and bool(self.path) and not self.held(t)
