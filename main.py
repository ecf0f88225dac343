"""spinlab: spinning rigid bodies in real time, and why the numerics matter.

The command line (design.md §Contracts). Each subcommand is a small function; every mistake a user can make
ends as one line on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from pathlib import Path

from sim.errors import InputError, NumericalError, SpinlabError, printable, quoted

ROOT = Path(__file__).resolve().parent
DEFAULT_BENCH_JSON = ROOT / "benchmarks" / "results" / "bench.json"
EXIT_USAGE = 2
BENCHMARK_NAMES = ("contiguous_list", "integrators", "accuracy", "render", "gui", "maps")
EXIT_INTERRUPTED = 130


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


class _ProgressBar:
    """A one-line progress bar on stderr (only when stderr is a terminal): steps, rate and time left."""

    def __init__(self, label: str, unit: str = "steps") -> None:
        self.label = label
        self.unit = unit
        self.enabled = sys.stderr.isatty()
        self._start = time.perf_counter()
        self._last_draw = 0.0

    def __call__(self, done: int, total: int) -> None:
        now = time.perf_counter()
        if not self.enabled or (now - self._last_draw < 0.1 and done < total):
            return
        self._last_draw = now
        elapsed = now - self._start
        rate = done / elapsed if elapsed > 0 else 0.0
        left = (total - done) / rate if rate > 0 else 0.0
        filled = int(30 * done / total)
        sys.stderr.write(
            f"\r{self.label} [{'#' * filled}{'.' * (30 - filled)}] {done}/{total} {self.unit}, "
            f"{rate:,.1f} {self.unit}/s, {left:5.1f} s left "
        )
        if done == total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def _format_summary(rows) -> str:
    """The table of ``run``: one line per body (and integrator)."""

    def number(value, spec=".2e"):
        return "—" if value is None else format(value, spec)

    header = (
        f"{'body':<20} {'integrator':<19} {'energy err':>10} {'|ΔL|/|L|':>10} {'orient. err':>11} "
        f"{'Newton/step':>11} {'max sub':>7} {'wall s':>7}"
    )
    lines = [header, "-" * len(header)]
    for row in rows:
        body = printable(row.body)  # a name is the file's: control characters and all, shown as escapes
        lines.append(
            f"{body:<20} {row.integrator:<19} {number(row.energy_error):>10} {number(row.momentum_error):>10} "
            f"{number(row.orientation_error):>11} {row.newton_per_step:>11.2f} {row.max_substeps:>7d} "
            f"{row.wall_seconds:>7.2f}"
        )
    return "\n".join(lines)


def _cmd_run(args: argparse.Namespace) -> int:
    from scene.atomic_file import refuse_overwriting
    from scene.runner import run_scene, step_count
    from scene.scene_file import load_scene
    from sim.integrators import INTEGRATORS

    scene = load_scene(args.scene)
    h = args.dt or scene.h
    names = list(INTEGRATORS) if args.integrator == "all" else [args.integrator]
    left_out = []
    if args.integrator == "all" and scene.has_torque and "exact" in names:
        # The closed form holds only without torque: with every integrator in turn, it is left out, not a failure.
        names.remove("exact")
        left_out.append("exact (the closed form holds only for torque-free bodies, and this scene has torque)")
    traces = {name: args.trace for name in names}
    if args.trace is not None and args.integrator == "all":
        traces = {name: args.trace.with_name(f"{args.trace.stem}.{name}{args.trace.suffix}") for name in names}
    for trace in traces.values():
        refuse_overwriting(trace, scene.path, "--trace")
    step_count(args.duration, h)  # too many steps: refused before any work
    rows, failures = [], []
    for name in names:
        trace = traces[name]
        label = f"{scene.name} ({name or 'scene integrators'})"
        try:
            rows += run_scene(
                scene,
                integrator=name,
                h=h,
                duration=args.duration,
                gyroscopic=not args.no_gyroscopic,
                trace_path=trace,
                progress=_ProgressBar(label),
            )
        except NumericalError as error:
            if args.integrator != "all":
                raise
            # With every integrator in turn, one that blows up (or refuses a torque) is a finding, not the end.
            failures.append(f"{name}: {error}")
            continue
        if trace is not None:
            print(f"trace written to {printable(str(trace))}", file=sys.stderr)
    steps = step_count(args.duration, h)
    gyro = "off" if args.no_gyroscopic else "on"
    print(f"{scene.name}: {steps} steps of h = {h:.6g} s ({steps * h:.6g} s simulated), gyroscopic term {gyro}")
    print(_format_summary(rows))
    for row in rows:
        if row.note:
            print(f"note: {printable(row.body)} ({row.integrator}): {row.note}")
    for name in left_out:
        print(f"left out: {name}")
    for failure in failures:
        print(f"failed: {printable(failure)}")
    return 1 if failures else 0


def _cmd_record(args: argparse.Namespace) -> int:
    from render.record import frame_count, parse_size, record_scene
    from scene.scene_file import load_scene

    size = parse_size(args.size)
    frame_count(args.duration, args.fps)  # a rate or a frame count out of range: refused before loading anything
    scene = load_scene(args.scene)
    result = record_scene(
        scene,
        args.out,
        duration=args.duration,
        fps=args.fps,
        size=size,
        integrator=args.integrator,
        gyroscopic=not args.no_gyroscopic,
        progress=_ProgressBar(f"recording {scene.name}", unit="frames"),
    )
    stopped = " (interrupted: the file holds what was recorded)" if result.interrupted else ""
    width, height = result.size
    print(
        f"wrote {printable(str(result.path))}: {result.frames} frames at {result.fps:g} fps, {width}x{height}, "
        f"{result.simulated_seconds:.6g} s simulated{stopped}"
    )
    return EXIT_INTERRUPTED if result.interrupted else 0


def _cmd_gui(args: argparse.Namespace) -> int:
    from render.record import parse_size
    from ui.gui import run_gui

    return run_gui(args.scene, size=parse_size(args.size), fullscreen=args.fullscreen)


def _cmd_bench(args: argparse.Namespace) -> int:
    from benchmarks.runner import run_all

    json_path = args.json or DEFAULT_BENCH_JSON
    json_path.parent.mkdir(parents=True, exist_ok=True)
    run_all(quick=args.quick, json_path=json_path, only=args.only)
    return 0


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
    gui.set_defaults(handler=_cmd_gui)

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
    run.add_argument(
        "--trace", type=_writable_path, metavar="OUT.csv", help="write every step of every body as CSV"
    )
    run.set_defaults(handler=_cmd_run)

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
    record.set_defaults(handler=_cmd_record)

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
    bench.set_defaults(handler=_cmd_bench)
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
