"""The ``[[kick]]`` tables of a scene file: each kick read and checked (one :class:`~sim.errors.InputError` naming
``kick[i].key`` and the value for the first mistake), and the step it lands on.

A kick lands on the first step boundary ``t_k = k h >= time`` (``k`` the step index, :func:`kick_step`). What a kick
does to the bodies, frames and units, is scene/running/kicks.py's (``KickSchedule``); docs/scene_files.md documents
the keys.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from spinlab.scene.files.caption_table import read_caption_text
from spinlab.scene.files.limits import MAX_BODIES, MAX_STEP_INDEX, check_count
from spinlab.scene.files.validation import TableReader, dynamic_body, fail

__all__ = ["KickSpec", "KICK_KEYS", "BEYOND_ANY_RUN", "kick_step", "read_kicks", "renamed_kicks"]

KICK_KEYS = ("body", "time", "angular_impulse", "impulse", "point", "counteract_children", "caption")
_ZERO = (0.0, 0.0, 0.0)


@dataclass(frozen=True, eq=False)
class KickSpec:
    """One kick: ``body`` (its name), ``time`` s >= 0, ``angular_impulse`` (3,) N·m·s world, ``impulse`` (3,) N·s
    world at ``point`` (3,) m body frame from the centre of mass, ``counteract_children``, and the ``caption`` shown
    when it lands (scene/files/caption_table.py). Arrays are float64."""

    body: str
    time: float
    angular_impulse: np.ndarray
    impulse: np.ndarray | None = None
    point: np.ndarray | None = None
    counteract_children: bool = False
    caption: str | None = None


BEYOND_ANY_RUN = MAX_STEP_INDEX
"""The step a kick lands on when its time is more steps away than this (float64 counts steps by ones up to here;
scene/files/limits.py: no run goes this far)."""


def kick_step(time: float, h: float) -> int:
    """The smallest step index ``k >= 0`` with ``k * h >= time`` in float64, the way the simulation's clock reads
    (``t = k h``): a kick at exactly ``k h`` lands on step ``k``. A kick beyond 2⁵² steps lands on
    :data:`BEYOND_ANY_RUN`: no run reaches it (scene/files/limits.py's MAX_STEPS), and there ``k`` and ``k ± 1`` are one
    float64, so the search by ones would never end (a fuzzed kick at t = 1e50 s hung every command)."""
    ratio = time / h
    if not ratio <= BEYOND_ANY_RUN:  # NaN and inf too
        return BEYOND_ANY_RUN
    k = max(0, math.ceil(ratio))
    while k > 0 and (k - 1) * h >= time:
        k -= 1
    while k * h < time:
        k += 1
    return k


def renamed_kicks(kicks: Sequence[KickSpec], rename: Callable[[str], str]) -> tuple[KickSpec, ...]:
    """``kicks`` struck on the bodies ``rename(body)``: a side-by-side copy's share of the scene's kicks."""
    return tuple(replace(kick, body=rename(kick.body)) for kick in kicks)


def read_kicks(entries: object, where: str, bodies: Sequence) -> tuple[KickSpec, ...]:
    """The ``[[kick]]`` tables of a scene file, checked against its ``bodies`` (BodySpec, file order): one
    :class:`~sim.errors.InputError` naming ``kick[i].key`` and the value for the first mistake."""
    if not isinstance(entries, list):
        fail(where, "kick", "must be an array of tables, written [[kick]]", entries)
    check_count(len(entries), MAX_BODIES, "kicks", where=where, key="kick")
    by_name = {body.name: body for body in bodies}
    parents = {body.parent for body in bodies if body.parent is not None}
    return tuple(_read_kick(entry, index, where, by_name, parents) for index, entry in enumerate(entries))


def _read_kick(entry: object, index: int, where: str, by_name: dict, parents: set) -> KickSpec:
    label = f"kick[{index}]"
    if not isinstance(entry, dict):
        fail(where, label, "must be a table, written [[kick]]", entry)
    kick = TableReader(entry, where, label)
    kick.check_keys(KICK_KEYS)
    name = dynamic_body(kick, by_name, "only a dynamic body can be kicked")
    if not kick.has("time"):
        kick.fail("time", "is required (s; the kick lands on the first step boundary at or after it)")
    time = kick.number("time", 0.0)
    if time < 0.0:
        kick.fail("time", "must be at least 0 s", entry["time"])
    angular = kick.vector("angular_impulse", 3, _ZERO)
    impulse = kick.vector("impulse", 3, None)
    point = kick.vector("point", 3, None)
    if point is not None and impulse is None:
        kick.fail("point", "is where an impulse strikes: give impulse = [x, y, z] (N·s, world) with it", entry["point"])
    if not (kick.has("angular_impulse") or kick.has("impulse")):
        kick.fail("body", "kicks with nothing: give angular_impulse (N·m·s, world) or impulse (N·s, world)", name)
    counteract = entry.get("counteract_children", False)
    if not isinstance(counteract, bool):
        kick.fail("counteract_children", "must be true or false", counteract)
    if counteract and name not in parents:
        kick.fail("counteract_children", f"body '{name}' has no children to counteract", counteract)
    return KickSpec(name, time, angular, impulse, point, counteract, read_caption_text(kick, "caption"))
