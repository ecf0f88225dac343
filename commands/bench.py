"""``spinlab bench``: run the benchmarks, print their tables and write the results as JSON."""

from __future__ import annotations

import argparse
from pathlib import Path

from spinlab import checkout_root
from spinlab.commands.arguments import writable_path

__all__ = ["add_parser", "bench_command", "BENCHMARK_NAMES", "DEFAULT_BENCH_JSON"]

# In a source checkout the results go where the repository keeps them; installed, into the current folder.
_CHECKOUT = checkout_root()
DEFAULT_BENCH_JSON = _CHECKOUT / "benchmarks" / "results" / "bench.json" if _CHECKOUT else Path("bench.json")
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
)


def bench_command(args: argparse.Namespace) -> int:
    from spinlab.benchmarks.runner import run_all
    from spinlab.render.record import parse_size
    from spinlab.sim.errors import InputError

    settings = {}
    if args.size:
        if args.only is not None and "gui" not in args.only:
            raise InputError("only the gui benchmark opens a window", where="--size", value=args.size[0])
        settings["gui"] = {"sizes": list(dict.fromkeys(parse_size(text) for text in args.size))}
    json_path = args.json or DEFAULT_BENCH_JSON
    json_path.parent.mkdir(parents=True, exist_ok=True)
    run_all(quick=args.quick, json_path=json_path, only=args.only, settings=settings)
    return 0


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
        "MuJoCo RK4 beside it when installed), latency (µs per one-body step: kernel, step, World.step).",
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
        help="where to write the results (default: benchmarks/results/bench.json in a source checkout, else "
        "bench.json in the current folder)",
    )
    bench.set_defaults(handler=bench_command)
