"""Typed reading of one TOML table, with one :class:`~sim.errors.InputError` per mistake.

A :class:`TableReader` wraps a parsed TOML table together with the file it came from and the label of the table
(``scene``, ``body "handle"``, ``body[2]``); every error it raises names the file, the dotted key
(``body "handle".inertia``) and the offending value. Numbers are TOML integers or floats (never booleans) and
must be finite, because TOML spells ``nan`` and ``inf``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn, overload

import numpy as np

from spinlab.scene.files.limits import MAX_DEPTH, MAX_MAGNITUDE, MIN_POSITIVE, check_count
from spinlab.sim.errors import InputError

__all__ = [
    "TableReader", "body_label", "check_names_and_parents", "did_you_mean", "fail", "in_range", "timed_table",
    "RANGE_TEXT",
]  # fmt: skip

_MISSING = object()


def did_you_mean(word: str, options: Iterable[str]) -> str:
    """``"; did you mean 'x'?"`` for the closest of ``options`` to ``word``, or ``""`` when none is close."""
    import difflib  # only a mistake needs it

    close = difflib.get_close_matches(word, list(options), n=1)
    return f"; did you mean '{close[0]}'?" if close else ""


def _short(name: str) -> str:
    """A body's name as messages show it: cut to 40 characters."""
    return name if len(name) <= 40 else name[:39] + "…"


def body_label(name: str) -> str:
    """How messages name a body: ``body "handle"``, a long name cut to 40 characters."""
    return f'body "{_short(name)}"'


def fail(where: str, key: str | None, message: str, value: object = None) -> NoReturn:
    """Raise the one domain error for bad input; ``where`` is the file, ``key`` the dotted key."""
    raise InputError(message, where=where, key=key, value=value)


RANGE_TEXT = f"0 or {MIN_POSITIVE:g} … {MAX_MAGNITUDE:g} in magnitude"
"""The range of :func:`in_range`, as messages say it."""


def in_range(values):
    """Where ``values`` (a float or an array) hold a number a scene may hold: 0, or a magnitude from
    ``MIN_POSITIVE`` to ``MAX_MAGNITUDE`` (scene/files/limits.py). The one rule for a number given in a file and for one
    the reader derives from others (a shape's moments of inertia, ω turned into the parent's frame): what a scene
    holds, its writer (scene/files/scene_toml.py) writes, so a scene that loaded always saves and loads back."""
    magnitude = np.abs(values)
    return (magnitude <= MAX_MAGNITUDE) & ((magnitude == 0.0) | (magnitude >= MIN_POSITIVE))


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _type_name(value: object) -> str:
    names = {bool: "a boolean", str: "a string", list: "an array", dict: "a table", int: "an integer"}
    return names.get(type(value), f"a {type(value).__name__}")


@dataclass(frozen=True)
class TableReader:
    """Reads keys of ``table`` (a parsed TOML table) from file ``where``; keys are reported as ``label.key``."""

    table: dict[str, Any]
    where: str
    label: str

    def key(self, key: str) -> str:
        """The dotted name of ``key`` in messages, e.g. ``body "handle".inertia``."""
        return f"{self.label}.{key}" if self.label else key

    def fail(self, key: str, message: str, value: object = None) -> NoReturn:
        fail(self.where, self.key(key), message, value)

    def has(self, key: str) -> bool:
        return key in self.table

    def check_keys(self, allowed: Sequence[str], *, explain: dict[str, str] | None = None) -> None:
        """Reject the first key not in ``allowed``; ``explain`` maps a known-elsewhere key to a reason."""
        for key in self.table:
            if key in allowed:
                continue
            if explain and key in explain:
                self.fail(key, explain[key], self.table[key])
            self.fail(key, f"unknown key{did_you_mean(key, allowed)}", self.table[key])

    def subtable(self, key: str) -> TableReader | None:
        """The reader of the table at ``key``, or ``None`` when the key is absent."""
        value = self.table.get(key, _MISSING)
        if value is _MISSING:
            return None
        if not isinstance(value, dict):
            self.fail(key, f"must be a table, not {_type_name(value)}", value)
        return TableReader(value, self.where, self.key(key))

    @overload
    def string(self, key: str, *, choices: Sequence[str] = ()) -> str: ...
    @overload
    def string(self, key: str, default: str, *, choices: Sequence[str] = ()) -> str: ...
    @overload
    def string(self, key: str, default: None, *, choices: Sequence[str] = ()) -> str | None: ...

    def string(self, key: str, default: str | None | object = _MISSING, *, choices: Sequence[str] = ()) -> str | None:
        """A string, one of ``choices`` when given; required when there is no ``default``."""
        value = self.table.get(key, _MISSING)
        if value is _MISSING:
            if default is _MISSING:
                self.fail(key, "is required", None)
            return default  # type: ignore[return-value]
        if not isinstance(value, str):
            self.fail(key, f"must be a string, not {_type_name(value)}", value)
        if choices and value not in choices:
            self.fail(key, f"must be one of {', '.join(choices)}{did_you_mean(value, choices)}", value)
        return value

    def number(self, key: str, default: float, *, positive: bool = False) -> float:
        """A finite number (``> 0`` when ``positive``), or ``default`` when the key is absent."""
        value = self.table.get(key, _MISSING)
        if value is _MISSING:
            return float(default)
        return self._finite(key, value, value, positive=positive)

    @overload
    def vector(
        self,
        key: str,
        length: int,
        default: Sequence[float],
        *,
        positive: bool = False,
        bounds: tuple[float, float] | None = None,
        any_magnitude: bool = False,
    ) -> np.ndarray: ...
    @overload
    def vector(
        self,
        key: str,
        length: int,
        default: None,
        *,
        positive: bool = False,
        bounds: tuple[float, float] | None = None,
        any_magnitude: bool = False,
    ) -> np.ndarray | None: ...

    def vector(
        self,
        key: str,
        length: int,
        default: Sequence[float] | None,
        *,
        positive: bool = False,
        bounds: tuple[float, float] | None = None,
        any_magnitude: bool = False,
    ) -> np.ndarray | None:
        """A finite ``(length,)`` float array (entries ``> 0`` when ``positive``, within ``bounds`` when given, and
        within the range of :mod:`scene.files.limits` unless ``any_magnitude``: for a direction the caller scales);
        ``default`` (``None``: ``None``) when the key is absent."""
        value = self.table.get(key, _MISSING)
        if value is _MISSING:
            return None if default is None else np.array(default, dtype=float)
        if not isinstance(value, list):
            self.fail(key, f"must be an array of {length} numbers, not {_type_name(value)}", value)
        if len(value) != length:
            self.fail(key, f"must have {length} numbers, not {len(value)}", value)
        entries = [self._finite(key, entry, value, positive=positive, any_magnitude=any_magnitude) for entry in value]
        if bounds is not None and not all(bounds[0] <= entry <= bounds[1] for entry in entries):
            self.fail(key, f"entries must lie in [{bounds[0]:g}, {bounds[1]:g}]", value)
        return np.array(entries, dtype=float)

    def matrix3(self, key: str) -> np.ndarray:
        """A finite 3×3 float array written as an array of three arrays of three numbers."""
        value = self.table[key]
        if not isinstance(value, list) or len(value) != 3 or not all(isinstance(row, list) for row in value):
            self.fail(key, "must be 3 numbers or an array of 3 rows of 3 numbers", value)
        if any(len(row) != 3 for row in value):
            self.fail(key, "every row of a 3×3 tensor must have 3 numbers", value)
        return np.array([[self._finite(key, entry, value) for entry in row] for row in value], dtype=float)

    def _finite(
        self, key: str, entry: object, shown: object, *, positive: bool = False, any_magnitude: bool = False
    ) -> float:
        """``entry`` as a float; errors show ``shown`` (the whole value, for an array)."""
        if not _is_number(entry):
            self.fail(key, f"must be a number, not {_type_name(entry)}", shown)
        try:
            number = float(entry)  # type: ignore[arg-type]
        except OverflowError:  # a TOML integer beyond float64's range
            number = math.inf
        if not math.isfinite(number):
            self.fail(key, "must be a finite number", shown)
        if positive and number <= 0.0:
            self.fail(key, "must be greater than zero", shown)
        if any_magnitude or in_range(number):
            return number
        if abs(number) > MAX_MAGNITUDE:
            self.fail(key, f"is too large: numbers here are at most {MAX_MAGNITUDE:g} in magnitude", shown)
        self.fail(key, f"is too small: a number here is 0 or at least {MIN_POSITIVE:g} in magnitude", shown)


def timed_table(
    entry: object, index: int, where: str, name: str, keys: Sequence[str], when: str
) -> tuple[TableReader, float]:
    """The reader of ``entry``, the ``[[name]]`` table ``index`` of a file's array of them, holding only ``keys``, and
    its required ``time`` (s, >= 0; ``when`` says what happens then, for the message naming a missing one):
    ``(TableReader, time)``. The tables a scene holds at a time (a change, a caption) open so."""
    label = f"{name}[{index}]"
    if not isinstance(entry, dict):
        fail(where, label, f"must be a table, written [[{name}]]", entry)
    table = TableReader(entry, where, label)
    table.check_keys(keys)
    if not table.has("time"):
        table.fail("time", f"is required (s; {when})")
    time = table.number("time", 0.0)
    if time < 0.0:
        table.fail("time", "must be at least 0 s", entry["time"])
    return table, time


def dynamic_body(table: TableReader, by_name: dict, kinematic: str) -> str:
    """``table``'s ``body``: the name of a dynamic body of ``by_name`` (name → BodySpec), or one failure naming it,
    unknown (with the closest name) or kinematic (``kinematic`` says why that will not do)."""
    name = table.string("body")
    body = by_name.get(name)
    if body is None:
        shown = ", ".join(list(by_name)[:10]) + (", …" if len(by_name) > 10 else "")
        table.fail("body", f"unknown body (bodies: {shown}){did_you_mean(name, by_name)}", name)
    if body.kinematic:
        table.fail("body", f"is a kinematic body, whose motion is prescribed: {kinematic}", name)
    return name


def check_names_and_parents(links: Sequence[tuple[str, str | None]], where: str) -> None:
    """Reject a duplicate name, an unknown parent, a cycle of parents or a chain deeper than ``MAX_DEPTH`` among
    ``(name, parent)`` of the bodies in file order; keys are reported as ``body[i].name`` and
    ``body "name".parent``. Time linear in the number of bodies, however deep the hierarchy."""
    index_of: dict[str, int] = {name: index for index, (name, _) in enumerate(links)}  # the last of a duplicate
    if len(index_of) < len(links):
        first: dict[str, int] = {}
        for index, (name, _) in enumerate(links):
            if name in first:
                fail(where, f"body[{index}].name", f"duplicate body name (body[{first[name]}] has it too)", name)
            first[name] = index
    children = [(name, parent) for name, parent in links if parent is not None]
    for name, parent in children:
        if parent not in index_of:
            known = f"bodies: {', '.join(list(index_of)[:10])}{', …' if len(index_of) > 10 else ''}"
            message = f"unknown parent ({known}){did_you_mean(parent, index_of)}"
            fail(where, f"{body_label(name)}.parent", message, parent)
    # Each body's depth (a root's is 1), found by climbing to the first body whose depth is known; every body is
    # climbed over once. Meeting a body of the current climb again means the climb has gone round a cycle.
    depth: dict[str, int] = {}
    for name, _ in children:  # a root is 1 deep and on no cycle: the first failure in file order is a child's
        chain: list[str] = []
        on_chain: set[str] = set()
        current: str | None = name
        while current is not None and current not in depth:
            if current in on_chain:
                cycle = [_short(node) for node in chain[chain.index(current) :] + [current]]
                shown = " → ".join(cycle) if len(cycle) <= 8 else f"{' → '.join(cycle[:4])} → … → {cycle[-1]}"
                fail(
                    where,
                    f"{body_label(current)}.parent",
                    f"parents form a cycle: {shown}",
                    links[index_of[current]][1],
                )
            chain.append(current)
            on_chain.add(current)
            current = links[index_of[current]][1]
        below = 0 if current is None else depth[current]
        for offset, node in enumerate(reversed(chain), start=1):
            depth[node] = below + offset
        if below + len(chain) > MAX_DEPTH:
            key = f"{body_label(name)}.parent"
            check_count(below + len(chain), MAX_DEPTH, "levels of parents", where=where, key=key)
