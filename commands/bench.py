"""``spinlab bench``: run the benchmarks, print their tables and write the results as JSON."""

from __future__ import annotations

import argparse
from pathlib import Path

__all__ = ["bench_command", "BENCHMARK_NAMES", "DEFAULT_BENCH_JSON"]

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_BENCH_JSON = ROOT / "benchmarks" / "results" / "bench.json"
BENCHMARK_NAMES = ("contiguous_list", "integrators", "accuracy", "render", "gui", "maps")


def bench_command(args: argparse.Namespace) -> int:
    from benchmarks.runner import run_all

    json_path = args.json or DEFAULT_BENCH_JSON
    json_path.parent.mkdir(parents=True, exist_ok=True)
    run_all(quick=args.quick, json_path=json_path, only=args.only)
    return 0
