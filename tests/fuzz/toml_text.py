"""TOML text from Python values, including what a person could write but should not: nan and inf, huge
integers, control characters in strings, odd keys, deep nesting, dates where numbers belong.

``to_toml(document)`` writes a top-level table. Beside the plain types (``bool``, ``int``, ``float``, ``str``,
``list``, ``dict``), three wrappers say how to spell a value: :class:`Tables` (an array of tables, ``[[key]]``),
:class:`Inline` (a table written ``{a = 1}`` in place) and :class:`Raw` (TOML text written as it is, for
spellings the serializer would not choose: ``0x1F``, ``1_000``, ``+inf``, a date, 5 000 nested brackets).
A ``dict`` value is written as a ``[section]``; a ``dict`` inside an array is written inline.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

__all__ = ["Raw", "Inline", "Tables", "to_toml", "toml_key", "toml_string", "toml_value"]

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


@dataclass(frozen=True)
class Raw:
    """TOML text for one value, written verbatim."""

    text: str


class Inline(dict):
    """A table written inline, ``{key = value, ...}``."""


class Tables(list):
    """An array of tables, each written under a ``[[key]]`` header."""


def toml_string(text: str) -> str:
    """``text`` as a TOML basic string: quotes and backslashes escaped, control characters as ``\\uXXXX``."""
    out = []
    for char in text:
        code = ord(char)
        if char == '"':
            out.append('\\"')
        elif char == "\\":
            out.append("\\\\")
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\u{code:04x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def toml_key(key: str) -> str:
    """A key, bare when it can be, else quoted."""
    return key if _BARE_KEY.fullmatch(key) else toml_string(key)


def _float(value: float) -> str:
    if math.isnan(value):
        return "-nan" if math.copysign(1.0, value) < 0 else "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    text = repr(value)
    # repr gives "1e+50", which TOML reads; it needs a digit after a decimal point, which repr always writes.
    return text


def toml_value(value: object) -> str:
    """One value as inline TOML text."""
    if isinstance(value, Raw):
        return value.text
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise TypeError(f"no TOML spelling for {type(value).__name__}")


def _is_section(value: object) -> bool:
    return isinstance(value, dict) and not isinstance(value, Inline)


def _emit(table: dict, path: list[str], lines: list[str]) -> None:
    for key, value in table.items():
        if not _is_section(value) and not isinstance(value, Tables):
            lines.append(f"{toml_key(key)} = {toml_value(value)}")
    for key, value in table.items():
        if _is_section(value):
            lines.append("")
            lines.append("[" + ".".join(toml_key(k) for k in [*path, key]) + "]")
            _emit(value, [*path, key], lines)
        elif isinstance(value, Tables):
            for element in value:
                lines.append("")
                lines.append("[[" + ".".join(toml_key(k) for k in [*path, key]) + "]]")
                _emit(element, [*path, key], lines)


def to_toml(document: dict) -> str:
    """The TOML text of ``document`` (a top-level table)."""
    lines: list[str] = []
    _emit(document, [], lines)
    return "\n".join(lines).lstrip("\n") + "\n"
