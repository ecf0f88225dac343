"""The errors spinlab reports to a person, as opposed to bugs.

``InputError`` is a mistake in what the user gave (a scene file, an argument): it names the file, the key and the
value, and the command line turns it into one line on stderr and exit status 2. ``NumericalError`` is a numerical
failure the simulation detected (Newton not converging, a non-finite state): it is raised rather than returning a
wrong state silently. ``OutputError`` is a fault writing an output (disk full, file too large, permission, a
closed pipe): the command line reports it in one line with exit status 1, and nothing is left half-written.
"""

from __future__ import annotations

__all__ = ["SpinlabError", "InputError", "NumericalError", "OutputError"]


class SpinlabError(Exception):
    """Base of every error that is reported as a message rather than a traceback."""


class InputError(SpinlabError):
    """Invalid user input. ``where`` is the file (or argument), ``key`` and ``value`` what was wrong in it."""

    def __init__(self, message: str, *, where: str | None = None, key: str | None = None, value: object = None):
        self.where, self.key, self.value = where, key, value
        parts = [p for p in (where, key and f"key '{key}'") if p]
        prefix = ": ".join(parts)
        shown = "" if value is None else f" (got {value!r})"
        super().__init__(f"{prefix}: {message}{shown}" if prefix else f"{message}{shown}")


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
