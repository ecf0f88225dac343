"""The argument types and arguments the commands share: each checks what a person typed before any work, and an
argparse error is one line (main.py's parser)."""

from __future__ import annotations

import argparse
import math
import os
from pathlib import Path

from spinlab.sim.errors import quoted

__all__ = ["writable_path", "positive_float", "nonnegative_float", "integrator_name", "add_scene_arguments",
           "DEFAULT_DURATION_S"]  # fmt: skip

DEFAULT_DURATION_S = 10.0


def writable_path(text: str) -> Path:
    """An argparse type: a path whose directory exists and is writable, checked before any work is done."""
    if not text:
        raise argparse.ArgumentTypeError("an empty path is not a file")
    path = Path(text)
    directory = path.parent if str(path.parent) else Path(".")
    shown, shown_directory = quoted(text), quoted(str(directory))
    try:
        if path.is_dir():
            raise argparse.ArgumentTypeError(f"{shown} is a directory, not a file")
        if not directory.is_dir():
            raise argparse.ArgumentTypeError(f"directory {shown_directory} of {shown} does not exist")
        if not os.access(directory, os.W_OK):
            raise argparse.ArgumentTypeError(f"directory {shown_directory} of {shown} is not writable")
        os.stat(path) if path.exists() else None  # a name too long, a NUL byte: an OSError or ValueError now
    except (OSError, ValueError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        raise argparse.ArgumentTypeError(f"{shown} cannot be used: {reason}") from None
    return path


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
        "--duration", type=positive_float, default=DEFAULT_DURATION_S, metavar="T", help="seconds (default: 10)"
    )
    command.add_argument("--integrator", type=integrator_name, metavar="NAME", help=integrator_help)
    command.add_argument("--no-gyroscopic", action="store_true", help="drop the gyroscopic term ω × L, as games do")
    command.epilog = INTEGRATORS_HEADING  # the list itself is made only when the help is shown
    command.formatter_class = _EpilogFormatter


INTEGRATORS_HEADING = "integrators (from their claims, sim/integrators):"


def integrators_epilog() -> str:
    """The integrators, one line each: name and one-line description (sim/integrators/claims.py's ``describe``)."""
    from spinlab.sim.integrators import CLAIMS
    from spinlab.sim.integrators.claims import describe

    width = max(len(name) for name in CLAIMS)
    return "\n".join([INTEGRATORS_HEADING, *(f"  {name:<{width}}  {describe(c)}" for name, c in CLAIMS.items())])


class _EpilogFormatter(argparse.HelpFormatter):
    """argparse's formatter, but the integrators' list (made here: importing the integrators costs ~0.3 s, which
    a command line that only fails to parse should not pay) keeps its lines."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if text == INTEGRATORS_HEADING:
            return "".join(indent + line for line in integrators_epilog().splitlines(keepends=True))
        return super()._fill_text(text, width, indent)
