"""spinlab: spinning rigid bodies in real time, and why the numerics matter.

The command line (design.md §Contracts). Each subcommand is a small function; every mistake a user can make
ends as one line on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from pathlib import Path

from commands.bench import BENCHMARK_NAMES, DEFAULT_BENCH_JSON, bench_command
from commands.gui import gui_command
from commands.record import record_command
from commands.run import run_command
from scene.interrupts import EXIT_INTERRUPTED
from sim.errors import InputError, SpinlabError, printable, quoted

ROOT = Path(__file__).resolve().parent
EXIT_USAGE = 2


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (with a pointer to --help) and exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        message = printable(message)  # what a person typed, control characters and all, is quoted as escapes
        if len(message) > 300:
            message = message[:299] + "…"
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def _writable_path(text: str) -> Path:
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


def _positive_float(text: str) -> float:
    """An argparse type: a finite number > 0, within the range a scene file's numbers have (scene/limits.py)."""
    from scene.limits import MAX_MAGNITUDE, MIN_POSITIVE

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


def _integrator_name(text: str) -> str:
    from sim.integrators import INTEGRATORS

    if text != "all" and text not in INTEGRATORS:
        raise argparse.ArgumentTypeError(f"unknown integrator '{text}' (choose from {', '.join(INTEGRATORS)}, all)")
    return text


def _add_scene_arguments(command: argparse.ArgumentParser, integrator_help: str) -> None:
    """The arguments ``run`` and ``record`` share: the scene, its duration, the integrator, the gyroscopic term."""
    command.add_argument("scene", metavar="SCENE", help="a preset name (e.g. t_handle, compare) or a .toml path")
    command.add_argument("--duration", type=_positive_float, default=10.0, metavar="T", help="seconds (default: 10)")
    command.add_argument("--integrator", type=_integrator_name, metavar="NAME", help=integrator_help)
    command.add_argument("--no-gyroscopic", action="store_true", help="drop the gyroscopic term ω × L, as games do")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="spinlab",
        description="Spinning rigid bodies in real time, and why the numerics matter.",
        epilog="Run 'spinlab COMMAND --help' for the options of a command.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    gui = commands.add_parser(
        "gui",
        help="open the window (the default command)",
        description="Open the spinlab window on SCENE (a preset name or a .toml path; default: compare, one "
        "T-handle per integrator). Space pauses, the right arrow steps, R resets, F12 saves a screenshot; drag to "
        "orbit, right-drag to pan, wheel to zoom.",
    )
    gui.add_argument("scene", nargs="?", metavar="SCENE", help="a preset name or a .toml path (default: compare)")
    gui.add_argument("--size", default="1280x720", metavar="WxH", help="window pixels (default: 1280x720)")
    gui.add_argument("--fullscreen", action="store_true", help="open the window full screen (--size is then ignored)")
    gui.set_defaults(handler=gui_command)

    run = commands.add_parser(
        "run",
        help="step a scene headless, print a summary per body, optionally write a trace",
        description="Step SCENE (a preset name or a .toml file) for a duration in fixed steps, without a window. "
        "Prints, per body: the final relative energy error, |ΔL|/|L| (torque-free bodies), the orientation error "
        "against the closed-form solution (torque-free bodies, and symmetric heavy tops), Newton iterations per step "
        "and sub-steps, and the wall time.",
    )
    _add_scene_arguments(run, "override every body's integrator; 'all' runs each one in turn and prints one table")
    run.add_argument("--dt", type=_positive_float, metavar="H", help="time step in seconds (default: the scene's)")
    run.add_argument("--trace", type=_writable_path, metavar="OUT.csv", help="write every step of every body as CSV")
    run.set_defaults(handler=run_command)

    record = commands.add_parser(
        "record",
        help="record a scene to an MP4 video, without a window",
        description="Render SCENE offscreen and encode it as H.264 MP4 (yuv420p). Simulation time advances in the "
        "scene's own steps, independent of the frame rate; the video holds exactly fps x T frames. A scene with "
        "several integrators (compare), or --integrator all, is drawn one view per integrator, in lock step. "
        "The file is written atomically; Ctrl-C stops and keeps a playable file of what was recorded.",
    )
    _add_scene_arguments(record, "override every body's integrator; 'all': one view per integrator, in lock step")
    record.add_argument("--out", required=True, type=_writable_path, metavar="OUT.mp4", help="the video file")
    record.add_argument("--fps", type=_positive_float, default=60.0, help="frames per second (default: 60)")
    record.add_argument("--size", default="1280x720", metavar="WxH", help="pixels, rounded to even (default: 1280x720)")
    record.set_defaults(handler=record_command)

    bench = commands.add_parser(
        "bench",
        help="run the benchmark suite and write JSON results",
        description="Run the benchmarks, print a table per benchmark and write all results as JSON: "
        "contiguous_list (the entity store against a node-based linked list and a Python list, seed 000), "
        "integrators (body-steps/s at N = 1 … 10⁵), accuracy (errors against the exact solution and cost, with "
        "MuJoCo when installed), render (frames/s offscreen and record end to end), gui (window frame time; "
        "needs Xvfb), maps (seed 003's maps of the energy change per step and Newton's convergence, docs/maps.md).",
    )
    bench.add_argument("--quick", action="store_true", help="smaller sizes and fewer repeats (a few minutes in all)")
    bench.add_argument(
        "--only",
        action="append",
        choices=list(BENCHMARK_NAMES),
        metavar="NAME",
        help=f"run only this benchmark (repeatable): {', '.join(BENCHMARK_NAMES)}",
    )
    bench.add_argument(
        "--json",
        type=_writable_path,
        metavar="OUT.json",
        help=f"where to write the results (default: {DEFAULT_BENCH_JSON.relative_to(ROOT)})",
    )
    bench.set_defaults(handler=bench_command)
    return parser


def install_signal_handlers() -> None:
    """Ctrl-C, SIGTERM and SIGHUP stop a command the same way (:mod:`scene.interrupts`): a recording is finalised,
    a half-written output removed, and the exit status is 130. A write past ``ulimit -f`` fails (EFBIG) instead of
    killing the process."""
    from scene.atomic_file import ignore_file_size_signal
    from scene.interrupts import install_handlers

    install_handlers()
    ignore_file_size_signal()


def _report(command: str, message: str) -> None:
    """One line on stderr (a closed stderr is not worth a second error)."""
    prefix = f"spinlab {printable(command)[:40]}".rstrip()
    with contextlib.suppress(OSError, ValueError):
        print(f"{prefix}: {printable(message)}", file=sys.stderr, flush=True)


def _silence_stdout() -> None:
    """After a broken pipe, point stdout at /dev/null so the interpreter's final flush does not complain."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def main(argv: list[str] | None = None) -> int:
    install_signal_handlers()
    command = ""  # until the arguments are parsed
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if args.command is None:
            # design.md: plain `python main.py` opens the window on the integrator-comparison demo.
            args = parser.parse_args(["gui"])
        command = args.command
        status = args.handler(args)
        sys.stdout.flush()
        return status
    except InputError as error:
        _report(command, f"error: {error}")
        return EXIT_USAGE
    except SpinlabError as error:
        _report(command, str(error))
        return 1
    except BrokenPipeError:
        _silence_stdout()
        _report(command, "stopped: the output was closed (broken pipe)")
        return 1
    except OSError as error:
        where = f"{quoted(str(error.filename))}: " if error.filename else ""
        _report(command, f"{where}{error.strerror or error}")
        return 1
    except MemoryError:
        _report(command, "out of memory")
        return 1
    except KeyboardInterrupt as interrupt:
        reason = f" ({interrupt})" if str(interrupt) else ""
        _report(command, f"interrupted{reason}")
        return EXIT_INTERRUPTED
    except Exception as error:  # noqa: BLE001 - a bug: one line, with a way to see the traceback
        if os.environ.get("SPINLAB_DEBUG"):
            raise
        _report(command, f"internal error: {type(error).__name__}: {error} (SPINLAB_DEBUG=1 shows the traceback)")
        return 1


if __name__ == "__main__":
    sys.exit(main())
