"""``spinlab bench``: run the benchmarks, print their tables and write the results as JSON, a file per run; compare
a run with a stored baseline."""

from __future__ import annotations

import argparse
from pathlib import Path

from spinlab import checkout_root
from spinlab.commands.arguments import positive_float, writable_path

__all__ = ["add_parser", "bench_command", "BENCHMARK_NAMES", "DEFAULT_RUNS_DIR"]

# In a source checkout each run's file goes where the repository keeps them; installed, into the current folder.
_CHECKOUT = checkout_root()
DEFAULT_RUNS_DIR = _CHECKOUT / "benchmarks" / "results" / "runs" if _CHECKOUT else Path(".")
BENCHMARK_NAMES = (
    "contiguous_list",
    "integrators",
    "latency",
    "accuracy",
    "render",
    "gui",
    "maps",
    "scaling",
    "engines",
    "cost_spread",
)


def bench_command(args: argparse.Namespace) -> int:
    from spinlab.benchmarks.baseline import format_comparison

    noise = {} if args.noise is None else {"noise": args.noise / 100.0}
    if args.compare:
        print(format_comparison(*args.compare, **noise))
        return 0
    from spinlab.benchmarks.runner import run_all
    from spinlab.render.record import parse_size
    from spinlab.sim.errors import InputError

    settings = {}
    if args.size:
        if args.only is not None and "gui" not in args.only:
            raise InputError("only the gui benchmark opens a window", where="--size", value=args.size[0])
        settings["gui"] = {"sizes": list(dict.fromkeys(parse_size(text) for text in args.size))}
    if args.json is None:
        DEFAULT_RUNS_DIR.mkdir(parents=True, exist_ok=True)
    report = run_all(
        quick=args.quick, json_path=args.json, only=args.only, runs_dir=DEFAULT_RUNS_DIR, settings=settings
    )
    if args.baseline is not None:
        print("\n## against the baseline\n\n" + format_comparison(args.baseline, report, **noise))
    return 0


def _report(text: str) -> dict:
    """An argparse type: a bench report read now, before any work (one line when it is none)."""
    from spinlab.benchmarks.baseline import read_report
    from spinlab.sim.errors import quoted

    report = read_report(text)
    if report is None:
        raise argparse.ArgumentTypeError(f"{quoted(text)} is not a bench report (a JSON file that bench wrote)")
    return report


def add_parser(commands) -> None:
    """Add ``bench`` to the ``commands`` of main.py's parser."""
    bench = commands.add_parser(
        "bench",
        help="run the benchmark suite and write JSON results",
        description="Run the benchmarks, print a table per benchmark and write all results as JSON: "
        "contiguous_list (the entity store against a node-based linked list and a Python list, seed 000), "
        "integrators (body-steps/s at N = 1 … 10⁵), accuracy (errors against the exact solution and cost, with "
        "MuJoCo when installed), render (frames/s offscreen and record end to end), gui (window frame time at "
        "1280x720 and 1920x1080, or --size; needs Xvfb), maps (seed 003's maps of the energy change per step and "
        "Newton's convergence, docs/maps.md), "
        "scaling (body-steps/s of the whole `run` process and of its loop at N = 1 … 10⁵ T-handles, peak memory, "
        "MuJoCo RK4 beside it when installed), latency (µs per one-body step: kernel, step, World.step), "
        "engines (the engine steps' verdict table), cost_spread (the cost ratios docs/accuracy.md and "
        "docs/engines.md quote, over several passes and loads).",
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
        "--size",
        action="append",
        metavar="WxH",
        help="the gui benchmark's window size (repeatable; default: 1280x720 and 1920x1080)",
    )
    bench.add_argument(
        "--json",
        type=writable_path,
        metavar="OUT.json",
        help="write the results here, keeping the other benchmarks' results the file holds (default: a file of "
        "this run's own, benchmarks/results/runs/<date>-<commit>-<host>.json in a source checkout, else "
        "<date>-<commit>-<host>.json in the current folder)",
    )
    bench.add_argument(
        "--baseline",
        type=_report,
        metavar="OLD.json",
        help="after the run, print each headline figure beside this stored report's, their ratio and the figures "
        "slower or faster beyond the noise (--noise)",
    )
    bench.add_argument(
        "--compare",
        type=_report,
        nargs=2,
        metavar=("OLD.json", "NEW.json"),
        help="run nothing: print the table --baseline prints for two stored reports",
    )
    bench.add_argument(
        "--noise",
        type=positive_float,
        metavar="PERCENT",
        help="the change a figure must exceed to be flagged (default: benchmarks/baseline.py's NOISE, which the "
        "table states; two runs of one commit on a shared 2-core machine part by up to ~20 %% as its load moves)",
    )
    bench.set_defaults(handler=bench_command)
