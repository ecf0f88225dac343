"""``spinlab run SCENE``: step a scene headless (every integrator in turn with ``--integrator all``), print a table
per body, optionally write a trace per run (design.md §Contracts)."""

from __future__ import annotations

import argparse
import sys

from spinlab.commands.arguments import (
    DEFAULT_DURATION_S,
    add_scene_arguments,
    check_writable,
    positive_float,
    writable_path,
)
from spinlab.commands.progress import ProgressBar
from spinlab.sim.errors import NumericalError, printable

__all__ = ["add_parser", "run_command", "format_summary"]


def format_summary(runs) -> str:
    """The table of ``run``: one line per body of each run (a :class:`~scene.model.runner.RunSummary`, an
    integrator's), made column by column (10⁵ bodies are 10⁵ lines: no Python object or call a number)."""

    def numbers(values, width: int) -> list[str]:
        form, dash = f"%{width}.2e", f"{'—':>{width}}"  # %-formatting: half an f-string's time a number
        if None not in values:
            return list(map(form.__mod__, values))
        return [dash if value is None else form % value for value in values]

    # The integrator column as wide as its longest name (the engines' steps: "bullet_implicit_world").
    width = max([19, *(len(name) for run in runs for name in set(run.integrator))])
    header = (
        f"{'body':<20} {'integrator':<{width}} {'energy err':>10} {'|ΔL|/|L|':>10} {'orient. err':>11} "
        f"{'Newton/step':>11} {'max sub':>7} {'wall s':>7}"
    )
    lines = [header, "-" * len(header)]
    for run in runs:
        names = run.body
        if not "".join(names).isprintable():  # a name is the file's: control characters and all, as escapes
            names = [printable(name) for name in names]
        integrators = [f"{name:<{width}}" for name in run.integrator] if len(set(run.integrator)) > 1 else None
        # The rest of each line, one string per distinct (Newton, sub-steps): a run's bodies share most of them.
        wall = f"{_wall(run.wall_seconds):>7}"
        keys = list(zip(run.newton_per_step, run.max_substeps, strict=True))
        tails = {key: f"{key[0]:>11.2f} {key[1]:>7d} {wall}" for key in set(keys)}
        errors: tuple[list, ...] = (run.energy_error, run.momentum_error, run.orientation_error)
        row = "%-20s %s %10.2e %10.2e %11.2e %s"  # every figure there: each line in one pass
        if any(None in values for values in errors):
            row, errors = "%-20s %s %s %s %s %s", tuple(map(numbers, errors, (10, 10, 11)))
        columns = [
            names,
            integrators or [f"{run.integrator[0]:<{width}}"] * len(names),
            *errors,
            list(map(tails.__getitem__, keys)),
        ]
        lines += map(row.__mod__, zip(*columns, strict=True))
    return "\n".join(lines)


def _wall(seconds: float) -> str:
    """A wall time in ``run``'s table: to 0.01 s, and below 0.1 s to two significant digits (a short run of a few
    bodies takes a millisecond or less, which "0.00" would hide)."""
    return f"{seconds:.2g}" if seconds < 0.1 else f"{seconds:.2f}"


def run_command(args: argparse.Namespace) -> int:
    """``run``, with the cyclic garbage collector paused (scene/process/collector.py): a scene of 10⁵ bodies is ~10⁶
    long-lived objects, which every full collection would traverse again, and the run makes no reference cycles
    as it steps (a test holds it), so reference counting frees all it drops. What survives the run (the modules,
    numba's compiler and types: some 10⁵ objects once the kernels are loaded) is frozen at its end, out of the
    collection the interpreter makes as it exits (10^5 bodies: ~0.2 CPU s)."""
    from spinlab.scene.process.collector import collector_paused

    with collector_paused(freeze_after=True):
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    from spinlab.scene.files.atomic_file import refuse_overwriting
    from spinlab.scene.files.scene_file import load_scene
    from spinlab.scene.model.failures import Failure
    from spinlab.scene.model.run_model import integrators_for
    from spinlab.scene.model.runner import RunSummary, run_scene, step_count
    from spinlab.sim.integrators import FAMILIES

    scene = load_scene(args.scene)
    h = args.dt or scene.h
    names, left_out = [args.integrator], []
    family = FAMILIES.get(args.integrator)
    if family is not None:
        # Every integrator of the family in turn: one that refuses the scene's torque is left out, not a failure.
        names = list(integrators_for(scene, family))
        left_out = [f"{name} (it takes no torque, and this scene has one)" for name in family if name not in names]
    traces = {name: args.trace for name in names}
    if args.trace is not None and family is not None:
        traces = {name: args.trace.with_name(f"{args.trace.stem}.{name}{args.trace.suffix}") for name in names}
        for trace in traces.values():  # a name made longer than the one given, or a read-only file: refused now
            check_writable(trace, "--trace")
    # The path given is refused when it is the scene, even where each integrator's trace gets a name of its own.
    for trace in {args.trace, *traces.values()}:
        refuse_overwriting(trace, scene.path, "--trace")
    duration = args.duration or scene.duration or DEFAULT_DURATION_S  # given, else the scene's own length
    steps = step_count(duration, h)  # too many steps: refused before any work
    runs: list[RunSummary] = []
    failures: list[str] = []
    frozen: list[tuple[str, Failure]] = []  # the views a run of several froze, (label, why)
    for name in names:
        trace = traces[name]
        label = f"{scene.name} ({name or 'scene integrators'})"
        try:
            run = run_scene(
                scene,
                integrator=name,
                h=h,
                duration=duration,
                gyroscopic=not args.no_gyroscopic,
                trace_path=trace,
                progress=ProgressBar(label),
                failures=frozen,
            )
        except NumericalError as error:
            if family is None:
                raise
            # With every integrator in turn, one that blows up (or refuses a torque) is a finding, not the end.
            failures.append(f"{name}: {error}")
            continue
        runs.append(run)
        if trace is not None:
            print(f"trace written to {printable(str(trace))}", file=sys.stderr)
    gyro = "off" if args.no_gyroscopic else "on"
    print(f"{scene.name}: {steps} steps of h = {h:.6g} s ({steps * h:.6g} s simulated), gyroscopic term {gyro}")
    print(format_summary(runs))
    for run in runs:
        for body, integrator, note in zip(run.body, run.integrator, run.note, strict=True):
            if note:
                print(f"note: {printable(body)} ({integrator}): {note}")
    for name in left_out:
        print(f"left out: {name}")
    # As the window and `record`: a view frozen when it failed or diverged (scene/model/failures.py).
    failures += [f"{view}: {failure.label()}" for view, failure in frozen]
    for failure in failures:
        print(f"failed: {printable(failure)}")
    return 1 if failures else 0


def add_parser(commands) -> None:
    """Add ``run`` to the ``commands`` of main.py's parser."""
    run = commands.add_parser(
        "run",
        help="step a scene headless, print a summary per body, optionally write a trace",
        description="Step SCENE (a preset name or a .toml file) for a duration in fixed steps, without a window. "
        "Prints, per body: the final relative energy error, |ΔL|/|L| (torque-free bodies), the orientation error "
        "against the closed-form solution (torque-free bodies, and symmetric heavy tops), Newton iterations per step "
        "and sub-steps, and the stepping's wall time (the compiled kernels are loaded before it starts).",
    )
    add_scene_arguments(
        run,
        "override every body's integrator; 'all' runs each of the maths' methods in turn and prints one table, "
        "'engines' each engine's step (docs/engines.md), 'axes' the principal-axes splittings (docs/integrators.md)",
    )
    run.add_argument("--dt", type=positive_float, metavar="H", help="time step in seconds (default: the scene's)")
    run.add_argument("--trace", type=writable_path, metavar="OUT.csv", help="write every step of every body as CSV")
    run.set_defaults(handler=run_command)
