"""The argument types and arguments the commands share: each checks what a person typed before any work, and an
argparse error is one line (main.py's parser)."""

from __future__ import annotations

import argparse
import math
import os
import stat
from collections.abc import Callable
from pathlib import Path

from spinlab.sim.errors import InputError, quoted

__all__ = ["writable_path", "check_writable", "positive_float", "nonnegative_float", "integrator_name",
           "add_scene_arguments", "lazy_epilog", "DEFAULT_DURATION_S"]  # fmt: skip

DEFAULT_DURATION_S = 10.0


def writable_path(text: str) -> Path:
    """An argparse type: a path a file can be written at, checked before any work is done: its directory exists
    and is writable, its name is one the file system takes, and a file already there is a regular file that is not
    read-only (scene/files/atomic_file.py's ``read_only``: a protected file is refused, not replaced)."""
    from spinlab.scene.files.atomic_file import READ_ONLY, read_only

    if not text:
        raise argparse.ArgumentTypeError("an empty path is not a file")
    path = Path(text)
    directory = path.parent if str(path.parent) else Path(".")
    shown, shown_directory = quoted(text), quoted(str(directory))
    try:
        status = os.stat(path)  # a name too long, a NUL byte: an OSError or ValueError now
    except (FileNotFoundError, NotADirectoryError):
        status = None
    except (OSError, ValueError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        raise argparse.ArgumentTypeError(f"{shown} cannot be used: {reason}") from None
    if status is not None and stat.S_ISDIR(status.st_mode):
        raise argparse.ArgumentTypeError(f"{shown} is a directory, not a file")
    if not directory.is_dir():
        raise argparse.ArgumentTypeError(f"directory {shown_directory} of {shown} does not exist")
    if not os.access(directory, os.W_OK):
        raise argparse.ArgumentTypeError(f"directory {shown_directory} of {shown} is not writable")
    if status is not None and stat.S_ISREG(status.st_mode) and read_only(path, status):
        raise argparse.ArgumentTypeError(f"{shown} {READ_ONLY}")
    return path


def check_writable(path: Path, option: str) -> None:
    """:func:`writable_path`'s checks for a name the program makes from one given (``run --integrator all``'s
    trace per integrator): :class:`InputError` naming ``option`` and the name, before any work."""
    try:
        writable_path(str(path))
    except argparse.ArgumentTypeError as error:
        raise InputError(str(error), where=option) from None


def positive_float(text: str) -> float:
    """An argparse type: a finite number > 0, within the range a scene file's numbers have (scene/files/limits.py)."""
    from spinlab.scene.files.limits import MAX_MAGNITUDE, MIN_POSITIVE

    shown = quoted(text)
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{shown} is not a number") from None
    if not (value > 0.0 and value < float("inf")):
        raise argparse.ArgumentTypeError(f"{shown} must be a finite number > 0")
    if not MIN_POSITIVE <= value <= MAX_MAGNITUDE:
        raise argparse.ArgumentTypeError(f"{shown} must lie between {MIN_POSITIVE:g} and {MAX_MAGNITUDE:g}")
    return value


def nonnegative_float(text: str) -> float:
    """An argparse type: 0, or a number :func:`positive_float` takes."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if value == 0.0:
        return 0.0
    if value < 0.0:
        raise argparse.ArgumentTypeError(f"{quoted(text)} must be a finite number >= 0")
    return positive_float(text)


def integrator_name(text: str) -> str:
    from spinlab.sim.integrators import FAMILIES, INTEGRATORS

    if text not in FAMILIES and text not in INTEGRATORS:
        choices = ", ".join([*INTEGRATORS, *FAMILIES])
        raise argparse.ArgumentTypeError(f"unknown integrator '{text}' (choose from {choices})")
    return text


def add_scene_arguments(command: argparse.ArgumentParser, integrator_help: str) -> None:
    """The arguments ``run`` and ``record`` share: the scene, its duration, the integrator, the gyroscopic term."""
    command.add_argument("scene", metavar="SCENE", help="a preset name (e.g. t_handle, compare) or a .toml path")
    command.add_argument(
        "--duration", type=positive_float, metavar="T", help="seconds (default: the scene's duration, else 10)"
    )
    command.add_argument("--integrator", type=integrator_name, metavar="NAME", help=integrator_help)
    command.add_argument("--no-gyroscopic", action="store_true", help="drop the gyroscopic term ω × L, as games do")
    lazy_epilog(command, INTEGRATORS_HEADING, integrators_epilog)


INTEGRATORS_HEADING = "integrators (from their claims, sim/integrators):"


def integrators_epilog() -> str:
    """The integrators, one line each: name and one-line description (sim/integrators/claims.py's ``describe``)."""
    from spinlab.sim.integrators import CLAIMS
    from spinlab.sim.integrators.claims import describe

    width = max(len(name) for name in CLAIMS)
    return "\n".join([INTEGRATORS_HEADING, *(f"  {name:<{width}}  {describe(c)}" for name, c in CLAIMS.items())])


_LAZY_EPILOGS: dict[str, Callable[[], str]] = {}


def lazy_epilog(command: argparse.ArgumentParser, heading: str, make: Callable[[], str]) -> None:
    """Give ``command`` the epilog ``make()`` (which starts with ``heading``), made only when its help is shown and
    printed with its lines as they are: a list drawn from where the program defines it (the integrators, the
    window's keys), which importing costs time a command line that only fails to parse should not pay."""
    _LAZY_EPILOGS[heading] = make
    command.epilog = heading
    command.formatter_class = _EpilogFormatter


class _EpilogFormatter(argparse.HelpFormatter):
    """argparse's formatter, but an epilog of :func:`lazy_epilog` is made here and keeps its lines."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        make = _LAZY_EPILOGS.get(text)
        if make is not None:
            return "".join(indent + line for line in make().splitlines(keepends=True))
        return super()._fill_text(text, width, indent)
