"""The ``[[caption]]`` tables of a scene file, and the ``caption`` a ``[[kick]]`` or ``[[change]]`` may carry: text
shown over the views for a while, read and checked.

    key        type           meaning
    time       s, >= 0        required; shown from the first step boundary ``t_k = k h >= time`` on
    duration   s, > 0         required; shown until the first step boundary at or after ``time + duration``
    text       string         required; up to MAX_CAPTION_CHARS characters on up to MAX_CAPTION_LINES lines
                              (``\\n`` breaks a line; a long line wraps where it is drawn)
    position   string         "bottom" (default), "top", or a body's name: the caption beside that body in each
                              view that shows it, with a leader line to it

A kick's or change's ``caption`` (a string, the rules of ``text``) is shown at the bottom from the step it lands on,
for scene/model/run_changes.py's ``CAPTION_S`` seconds (scene/model/captions.py gathers them all). A body called
"top" or "bottom" cannot be pointed at: the words name the places.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from spinlab.scene.files.validation import TableReader, did_you_mean, fail, timed_table

__all__ = [
    "CAPTION_KEYS",
    "CaptionSpec",
    "PLACES",
    "MAX_CAPTIONS",
    "MAX_CAPTION_CHARS",
    "MAX_CAPTION_LINES",
    "read_captions",
    "read_caption_text",
]

CAPTION_KEYS = ("time", "duration", "text", "position")
PLACES = ("bottom", "top")  # the default first
MAX_CAPTIONS = 10_000  # a lesson's video has tens; this many keep each frame's look-up cheap
MAX_CAPTION_CHARS = 300  # a few sentences: more is not read in the seconds a caption is shown
MAX_CAPTION_LINES = 6


@dataclass(frozen=True)
class CaptionSpec:
    """``text`` shown from ``time`` s for ``duration`` s at ``position``: "bottom", "top" or a body's name."""

    time: float
    duration: float
    text: str
    position: str = PLACES[0]


def read_captions(entries: object, where: str, bodies: Sequence) -> tuple[CaptionSpec, ...]:
    """The ``[[caption]]`` tables of a scene file, in file order, a ``position`` naming one of ``bodies`` (BodySpec):
    one :class:`~sim.errors.InputError` naming ``caption[i].key`` and the value for the first mistake."""
    if not isinstance(entries, list):
        fail(where, "caption", "must be an array of tables, written [[caption]]", entries)
    if len(entries) > MAX_CAPTIONS:
        fail(where, "caption", f"holds {len(entries):,} captions, more than the {MAX_CAPTIONS:,} a scene may have")
    names = {body.name for body in bodies}
    return tuple(_read_caption(entry, index, where, names) for index, entry in enumerate(entries))


def read_caption_text(table: TableReader, key: str) -> str | None:
    """The caption text at ``key`` of ``table`` (``None`` when absent): a string with something to read, at most
    :data:`MAX_CAPTION_CHARS` characters on :data:`MAX_CAPTION_LINES` lines, no control character but ``\\n``."""
    if not table.has(key):
        return None
    text = table.string(key)
    if not text.strip():
        table.fail(key, "must not be empty: give the words to show", text)
    if len(text) > MAX_CAPTION_CHARS:
        table.fail(key, f"is {len(text)} characters long; a caption holds at most {MAX_CAPTION_CHARS}", text)
    if any(not (character.isprintable() or character == "\n") for character in text):
        table.fail(key, "must not hold control characters (tabs, escapes); \\n breaks a line", text)
    if text.count("\n") >= MAX_CAPTION_LINES:
        table.fail(key, f"has {text.count(chr(10)) + 1} lines; a caption holds at most {MAX_CAPTION_LINES}", text)
    return text


def _read_caption(entry: object, index: int, where: str, names: set[str]) -> CaptionSpec:
    shows = "the caption shows from the first step boundary at or after it"
    caption, time = timed_table(entry, index, where, "caption", CAPTION_KEYS, shows)
    if not caption.has("duration"):
        caption.fail("duration", "is required (s; how long the caption shows)")
    duration = caption.number("duration", 0.0, positive=True)
    text = read_caption_text(caption, "text")
    if text is None:
        caption.fail("text", "is required: the words to show")
    position = caption.string("position", PLACES[0])
    if position not in PLACES and position not in names:
        shown = ", ".join(sorted(names)[:10]) + (", …" if len(names) > 10 else "")
        hint = did_you_mean(position, [*PLACES, *names])
        caption.fail("position", f"must be bottom, top or a body's name (bodies: {shown}){hint}", position)
    return CaptionSpec(time, duration, text, position)
