"""Many ``[[body]]`` tables of one plain form read straight from a scene file's text, without a TOML document.

A generated scene (benchmarks/cloud.py's, a script's) writes 10⁵ bodies alike: the same keys in the same order, one
``key = value`` line each. Parsed as TOML, every body is a dict of lists of floats (~1 µs a value to make, ~10 to
read back); here one regular expression reads all of them, and each key's values are a column of text turned into
floats at once. :func:`plain_bodies` takes the text from its first ``[[body]]`` line on and gives a
:class:`~scene.files.body_columns.BodySource` when that text is nothing but such tables, all of the form of the
first, each line ``key = value`` with one space either side of ``=`` and the value

- a basic string without escapes: ``"h00"``;
- a decimal number as TOML writes one, an integer of at most 15 digits (float64 holds it exactly) or a float:
  ``-9.6``, ``2``, ``1e-05``;
- an array of such numbers, ``[a, b, c]``, with ``", "`` between them;

and blank lines after a table; anything else (a comment, a sub-table, a ``[[kick]]``, a key in another order,
another spelling of a number) gives ``None``, and the file is parsed as TOML. The values are those TOML gives, bit
for bit: a string as written, a number by Python's ``float`` of its text (the correctly rounded double, as tomllib
and rtoml give; ``-0`` as an integer is not taken, for TOML's integer 0 is ``+0.0``).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from spinlab.scene.files.body_columns import FAST_KEYS, MISSING, BodySource, Default

__all__ = ["plain_bodies", "PLAIN_BYTES"]

# Files over this are tried here first: below it a parser takes a few milliseconds.
PLAIN_BYTES = 64 << 10

_HEADER = "[[body]]\n"
_KEY = r"[A-Za-z0-9_-]+"
_STRING = r'"([^"\\\x00-\x08\x0a-\x1f\x7f]*)"'
# A float with a fraction or an exponent, else an integer float64 holds exactly (not -0).
_NUM = r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+(?:[eE][+-]?[0-9]+)?|[eE][+-]?[0-9]+)|-?[1-9][0-9]{0,14}|0"
_NUMBER = f"({_NUM})"
_LINE = rf"({_KEY}) = (?:{_STRING}|{_NUMBER}|\[(?:{_NUM})((?:, (?:{_NUM}))*)\])\n"


def plain_bodies(text: str) -> BodySource | None:
    """The ``[[body]]`` tables of ``text`` (which starts with the first one's header line and holds the rest of the
    file), when every one of them has the plain form of the module docstring; else ``None``."""
    if not text.startswith(_HEADER):
        return None
    if not text.endswith("\n"):
        text += "\n"
    first_end = text.find("\n" + _HEADER)
    first = text[len(_HEADER) : len(text) if first_end < 0 else first_end + 1].rstrip("\n") + "\n"
    layout: list[tuple[str, int]] = []  # each key and its kind: -1 a string, 0 a number, k an array of k
    position = 0
    while position < len(first):
        line = re.compile(_LINE).match(first, position)  # re's cache: compiled once (~2 ms, a large file's only)
        if line is None:
            return None
        key, string, number, tail = line.groups()
        kind = -1 if string is not None else 0 if number is not None else 1 + tail.count(",")
        layout.append((key, kind))
        position = line.end()
    keys = [key for key, _ in layout]
    if not layout or len(set(keys)) < len(keys):
        return None
    values = {-1: _STRING, 0: _NUMBER}
    pattern = "".join(
        f"{key} = " + values.get(kind, r"\[" + ", ".join([_NUMBER] * kind) + r"\]") + r"\n" for key, kind in layout
    )
    found = re.findall(re.escape(_HEADER) + pattern + r"(\n*)", text)
    if not found:
        return None
    columns = list(zip(*found, strict=True))  # the pattern has two groups at least: a tuple a table
    literal = len(_HEADER) + sum(len(key) + 4 + (2 if kind < 0 else 2 * kind if kind else 0) for key, kind in layout)
    if literal * len(found) + sum(sum(map(len, column)) for column in columns) != len(text):
        return None  # the tables found do not tile the text: something else is in it
    return _TextSource(layout, columns[:-1])


class _TextSource(BodySource):
    """Tables of one layout (key, kind), their values' texts a column a string or number."""

    def __init__(self, layout: list[tuple[str, int]], columns: list[tuple[str, ...]]) -> None:
        self.count = len(columns[0])
        self._kinds = {key: kind for key, kind in layout}
        self._columns: dict[str, list[tuple[str, ...]]] = {}
        at = 0
        for key, kind in layout:
            width = max(kind, 1)
            self._columns[key] = columns[at : at + width]
            at += width

    def tables(self) -> np.ndarray:
        return np.ones(self.count, dtype=bool)

    def has(self, key: str) -> np.ndarray:
        return np.full(self.count, key in self._kinds)

    def keys_within(self, shapes: list[str | None], allowed: dict[str | None, frozenset[str]]) -> np.ndarray:
        fits = {shape: self._kinds.keys() <= allowed.get(shape, FAST_KEYS) for shape in set(shapes)}
        return np.fromiter(map(fits.__getitem__, shapes), bool, self.count)

    def strings(self, key: str, default: object) -> tuple[list[Any], np.ndarray]:
        kind = self._kinds.get(key)
        if kind is None:
            return [default] * self.count, np.full(self.count, default is not MISSING)
        if kind < 0:
            return list(self._columns[key][0]), np.ones(self.count, dtype=bool)
        return [None] * self.count, np.zeros(self.count, dtype=bool)  # numbers, not strings

    def numbers(self, key: str, length: int, default: Default) -> tuple[np.ndarray, np.ndarray | None]:
        kind = self._kinds.get(key)
        if kind is None or kind != (0 if length == 1 else length):  # absent, or not numbers of this length
            defaults = np.tile(np.array(default, dtype=float).reshape(1, length), (self.count, 1))
            return defaults, None if kind is None else np.zeros(self.count, dtype=bool)
        array = np.empty((self.count, length))
        for index, column in enumerate(self._columns[key]):
            array[:, index] = np.fromiter(map(float, column), float, self.count)
        return array, None

    def subset(self, rows: list[int]) -> _TextSource:
        picked = [(key, kind) for key, kind in self._kinds.items()]
        return _TextSource(
            picked, [tuple(column[row] for row in rows) for key, _ in picked for column in self._columns[key]]
        )
