"""The ``[[change]]`` tables of a scene file: the gyroscopic term switched at given times, read and checked.

A change lands as a kick does (scene/files/kick_table.py): on the first step boundary ``t_k = k h >= time``, after the
step that reaches it and after that boundary's kicks, so the steps from ``t_k`` on are taken with it. It is what the
window's gyroscopic switch does at step ``k`` (``Session.set_gyroscopic``), written down: a run saved from the window
(a branch too) keeps its switches as changes, and loading the file gives the same run, bit for bit.

    key          type        meaning
    time         s, >= 0     required; when the change lands
    gyroscopic   bool        required; the gyroscopic term ω × Iω on (true) or off (false) from then on
    body         name        optional; the term switched for this dynamic body alone
    caption      string      optional; words shown when it lands (scene/files/caption_table.py)

A change without ``body`` acts on the whole world (every body, every side-by-side copy) and clears every body's own
switch; one with ``body`` switches that body alone (each side-by-side copy of it), whatever the world's term, until
a change of the whole world: two copies of one body, one switched, show both futures side by side. The command
line's ``--no-gyroscopic`` sets the term at the start; the file's changes switch it at their times.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from spinlab.scene.files.caption_table import read_caption_text
from spinlab.scene.files.limits import MAX_BODIES, check_count
from spinlab.scene.files.validation import dynamic_body, fail, timed_table

__all__ = ["CHANGE_KEYS", "ChangeSpec", "read_changes"]

CHANGE_KEYS = ("time", "gyroscopic", "body", "caption")


@dataclass(frozen=True)
class ChangeSpec:
    """The gyroscopic term switched on or off (``gyroscopic``) at ``time`` s, for every body (``body`` ``None``) or
    for the body named ``body`` alone, with the ``caption`` shown then."""

    time: float
    gyroscopic: bool
    body: str | None = None
    caption: str | None = None


def read_changes(entries: object, where: str, bodies: Sequence) -> tuple[ChangeSpec, ...]:
    """The ``[[change]]`` tables of a scene file, in file order, checked against its ``bodies`` (BodySpec): one
    :class:`~sim.errors.InputError` naming ``change[i].key`` and the value for the first mistake."""
    if not isinstance(entries, list):
        fail(where, "change", "must be an array of tables, written [[change]]", entries)
    check_count(len(entries), MAX_BODIES, "changes", where=where, key="change")
    named = any(isinstance(entry, dict) and "body" in entry for entry in entries)
    by_name = {body.name: body for body in bodies} if named else {}
    return tuple(_read_change(entry, index, where, by_name) for index, entry in enumerate(entries))


def _read_change(entry: object, index: int, where: str, by_name: dict) -> ChangeSpec:
    lands = "the change lands on the first step boundary at or after it"
    change, time = timed_table(entry, index, where, "change", CHANGE_KEYS, lands)
    if not change.has("gyroscopic"):
        change.fail("gyroscopic", "is required: true switches the gyroscopic term on, false off")
    gyroscopic = change.table["gyroscopic"]
    if not isinstance(gyroscopic, bool):
        change.fail("gyroscopic", "must be true or false", gyroscopic)
    caption = read_caption_text(change, "caption")
    if not change.has("body"):
        return ChangeSpec(time, gyroscopic, caption=caption)
    name = dynamic_body(change, by_name, "it has no gyroscopic term")
    return ChangeSpec(time, gyroscopic, name, caption)
