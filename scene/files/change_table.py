"""The ``[[change]]`` tables of a scene file: the gyroscopic term switched at given times, read and checked.

A change lands as a kick does (scene/files/kick_table.py): on the first step boundary ``t_k = k h >= time``, after the
step that reaches it and after that boundary's kicks, so the steps from ``t_k`` on are taken with it. It is what the
window's gyroscopic switch does at step ``k`` (``Session.set_gyroscopic``), written down: a run saved from the window
(a branch too) keeps its switches as changes, and loading the file gives the same run, bit for bit.

    key          type        meaning
    time         s, >= 0     required; when the change lands
    gyroscopic   bool        required; the gyroscopic term ω × Iω on (true) or off (false) from then on
    caption      string      optional; words shown when it lands (scene/files/caption_table.py)

Changes act on the whole world (every body, every side-by-side copy): the term is one switch of the world's. The
command line's ``--no-gyroscopic`` sets the term at the start; the file's changes switch it at their times.
"""

from __future__ import annotations

from dataclasses import dataclass

from spinlab.scene.files.caption_table import read_caption_text
from spinlab.scene.files.limits import MAX_BODIES, check_count
from spinlab.scene.files.validation import fail, timed_table

__all__ = ["CHANGE_KEYS", "ChangeSpec", "read_changes"]

CHANGE_KEYS = ("time", "gyroscopic", "caption")


@dataclass(frozen=True)
class ChangeSpec:
    """The gyroscopic term switched on or off (``gyroscopic``) at ``time`` s, with the ``caption`` shown then."""

    time: float
    gyroscopic: bool
    caption: str | None = None


def read_changes(entries: object, where: str) -> tuple[ChangeSpec, ...]:
    """The ``[[change]]`` tables of a scene file, in file order: one :class:`~sim.errors.InputError` naming
    ``change[i].key`` and the value for the first mistake."""
    if not isinstance(entries, list):
        fail(where, "change", "must be an array of tables, written [[change]]", entries)
    check_count(len(entries), MAX_BODIES, "changes", where=where, key="change")
    return tuple(_read_change(entry, index, where) for index, entry in enumerate(entries))


def _read_change(entry: object, index: int, where: str) -> ChangeSpec:
    lands = "the change lands on the first step boundary at or after it"
    change, time = timed_table(entry, index, where, "change", CHANGE_KEYS, lands)
    if not change.has("gyroscopic"):
        change.fail("gyroscopic", "is required: true switches the gyroscopic term on, false off")
    gyroscopic = change.table["gyroscopic"]
    if not isinstance(gyroscopic, bool):
        change.fail("gyroscopic", "must be true or false", gyroscopic)
    return ChangeSpec(time, gyroscopic, read_caption_text(change, "caption"))
