"""The errors spinlab reports to a person, as opposed to bugs.

``InputError`` is a mistake in what the user gave (a scene file, an argument): it names the file, the key and the
value, and the command line turns it into one line on stderr and exit status 2. ``NumericalError`` is a numerical
failure the simulation detected (Newton not converging, a non-finite state): it is raised rather than returning a
wrong state silently. ``OutputError`` is a fault writing an output (disk full, file too large, permission, a
closed pipe): the command line reports it in one line with exit status 1, and nothing is left half-written.
"""

from __future__ import annotations

__all__ = ["SpinlabError", "InputError", "NumericalError", "OutputError", "printable", "quoted", "first_few"]


class SpinlabError(Exception):
    """Base of every error that is reported as a message rather than a traceback."""


class InputError(SpinlabError):
    """Invalid user input. ``where`` is the file (or argument), ``key`` and ``value`` what was wrong in it."""

    def __init__(self, message: str, *, where: str | None = None, key: str | None = None, value: object = None):
        self.where, self.key, self.value = where, key, value
        parts = [_cut(printable(p), 2 * MAX_QUOTED) for p in (where, key and f"key '{key}'") if p]
        prefix = ": ".join(parts)
        shown = "" if value is None else f" (got {quoted(value)})"
        super().__init__(f"{prefix}: {message}{shown}" if prefix else f"{message}{shown}")


MAX_QUOTED = 100
"""The longest value a message quotes, in characters; a longer one is cut with an ellipsis."""


def printable(text: str) -> str:
    """``text`` with every character a terminal would act on (control characters, bidirectional overrides,
    line breaks) written as its Python escape, so a message is one line whatever a file holds."""
    text = str(text)
    if text.isprintable():  # nearly always: one C-level test instead of a Python step per character
        return text
    text = _bytes_read_as_utf8(text)
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _bytes_read_as_utf8(text: str) -> str:
    """``text`` with the bytes the locale could not decode read as UTF-8. Under an ASCII locale (``LC_ALL=C``
    without Python's UTF-8 mode) a path's non-ASCII bytes arrive as lone surrogates (Python's surrogateescape):
    'ω.toml' as '\\udccf\\udc89.toml'. Read as UTF-8 they are the name a UTF-8 terminal shows, whatever the
    locale; bytes that are not UTF-8 become ``\\x`` escapes."""
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a surrogate no byte makes: left for the escapes
        return text


def first_few(first: list[str], total: int) -> str:
    """The ``first`` few of ``total`` items joined with commas, and "and N more" for the rest: a failure of 10⁴
    bodies stays one readable line."""
    more = f" and {total - len(first)} more" if total > len(first) else ""
    return ", ".join(first) + more


def quoted(value: object, limit: int = MAX_QUOTED) -> str:
    """``repr(value)``, escaped by :func:`printable` and cut to at most ``limit`` characters."""
    return _cut(printable(_bounded_repr(value, limit)), limit)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _bounded_repr(value: object, limit: int) -> str:
    """``repr`` of ``value`` without building the whole text of a huge list or string."""
    if isinstance(value, str) and len(value) > limit:
        return repr(value[:limit])
    if isinstance(value, list | tuple) and len(value) > limit:
        value = value[:limit]
    try:
        return repr(value)
    except (RecursionError, ValueError):  # a structure nested too deeply to print, an int too long to print
        return f"<{type(value).__name__}>"


class NumericalError(SpinlabError):
    """The simulation met a state it cannot step from; the message says which body and why.

    ``bodies``: the indices (into the batch that was stepped) of the bodies that failed, when known, so that a
    caller holding names can say which bodies they are.
    """

    def __init__(self, message: str, *, bodies=None):
        super().__init__(message)
        self.bodies = bodies


class OutputError(SpinlabError):
    """An output could not be written: ``path`` is the file, the message says why (from the OS error)."""

    def __init__(self, message: str, *, path: str | None = None):
        self.path = path
        super().__init__(f"{path}: {message}" if path else message)
