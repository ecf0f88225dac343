"""Run every registered benchmark, print its table, and write one JSON file with metadata.

Each module in ``BENCHMARKS`` provides ``run(quick, *, progress=None) -> dict`` (JSON-serialisable) and
``format_table(result) -> str``. ``python -m spinlab.benchmarks.runner [--quick] [--json OUT.json]`` runs them all;
``python main.py bench`` calls ``run_all`` with a folder of runs, where each run writes a file of its own named by
its date, commit and machine (:func:`run_file_name`), so a run never overwrites another and the runs the docs quote
stay beside the commits they measured. The metadata says what a figure needs beside it: the date, the commit (and
whether the work tree had changes), the machine (CPU model, cores) and the load average before and after the run.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import pathlib
import platform
import re
import subprocess
import sys
from types import ModuleType
from typing import Any, TextIO

import numpy as np

from spinlab import checkout_root
from spinlab.benchmarks import (
    accuracy,
    contiguous_list,
    cost_spread,
    engines,
    gui,
    integrators,
    latency,
    maps,
    render,
    scaling,
)
from spinlab.benchmarks.baseline import MAX_REPORT_BYTES, read_report
from spinlab.scene.files.atomic_file import atomic_output

__all__ = ["BENCHMARKS", "main", "run_all", "run_file_name", "write_json_atomically", "MAX_REPORT_BYTES"]

BENCHMARKS: dict[str, ModuleType] = {
    "contiguous_list": contiguous_list,
    "integrators": integrators,
    "latency": latency,
    "accuracy": accuracy,
    "render": render,
    "gui": gui,
    "maps": maps,
    "scaling": scaling,
    "engines": engines,
    "cost_spread": cost_spread,
}


def _metadata(quick: bool, only: list[str] | None) -> dict[str, Any]:
    return {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "commit": _commit(),
        "host": platform.node(),
        "cpu_model": _cpu_model(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "cpu_count": os.cpu_count(),
        "quick": quick,
        "only": only,
        "load_before": _load(),
    }


def _load() -> list[float] | None:
    """The load average over 1, 5 and 15 minutes: the runnable processes sharing the cores, which inflate wall
    times (``None`` where the system does not say)."""
    return list(os.getloadavg()) if hasattr(os, "getloadavg") else None


def _cpu_model() -> str | None:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as file:
            for line in file:
                if line.startswith("model name"):
                    return line.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor() or None


def _commit() -> str | None:
    """The checkout's commit, short, with ``-dirty`` when tracked files have changes; ``None`` installed."""
    root = checkout_root()
    if root is None:
        return None
    try:
        git = ["git", "-C", str(root)]
        sha = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True, timeout=30)
        dirty = subprocess.run([*git, "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                               text=True, timeout=30)  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return None
    if sha.returncode != 0:
        return None
    return sha.stdout.strip() + ("-dirty" if dirty.stdout.strip() else "")


def run_file_name(metadata: dict[str, Any]) -> str:
    """``<date>T<time>Z-<commit>-<host>.json`` (UTC; ``nogit`` outside a checkout): one name per run."""
    when = datetime.datetime.fromisoformat(metadata["date"]).astimezone(datetime.UTC)
    host = re.sub(r"[^A-Za-z0-9._-]", "_", metadata.get("host") or "host")[:40]
    return f"{when:%Y-%m-%dT%H%M%SZ}-{metadata.get('commit') or 'nogit'}-{host}.json"


def write_json_atomically(data: dict[str, Any], path: pathlib.Path) -> None:
    """Write ``data`` as JSON to ``path`` so a reader never sees a half-written file
    (:func:`scene.files.atomic_file.atomic_output`: a full disk is an ``OutputError`` and leaves the old file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_output(path) as file:
        json.dump(data, file, indent=2)
        file.write("\n")


def run_all(
    quick: bool,
    json_path: pathlib.Path | None,
    out: TextIO | None = None,
    only: list[str] | None = None,
    runs_dir: pathlib.Path | None = None,
    settings: dict[str, dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Run every benchmark in ``BENCHMARKS`` (or the ones named in ``only``), each with its keyword arguments in
    ``settings`` (by name: ``{"gui": {"sizes": [(1920, 1080)]}}``); print each table to ``out`` (default: the
    current ``sys.stdout``, looked up at call time) and progress to stderr.

    Returns ``{"metadata": {...}, "benchmarks": {name: result}}`` and writes it to ``json_path`` when given; with
    ``only``, the other benchmarks' results already in that file are kept (each result carries its own date).
    With ``runs_dir`` instead, it is written there as a file of its own (:func:`run_file_name`), holding this
    run's results only.
    """
    out = sys.stdout if out is None else out
    metadata = _metadata(quick, only)
    report: dict[str, Any] = {"metadata": metadata, "benchmarks": {}}
    for name, module in BENCHMARKS.items():
        if only is not None and name not in only:
            continue

        def progress(message: str, name: str = name) -> None:
            print(f"{name}: {message}", file=sys.stderr, flush=True)

        result = module.run(quick, progress=progress, **(settings or {}).get(name, {}))
        report["benchmarks"][name] = {**result, "date": metadata["date"]}
        print(f"\n## {name}{' (quick)' if quick else ''}\n", file=out)
        print(module.format_table(result), file=out, flush=True)
    metadata["load_after"] = _load()
    if json_path is not None and only is not None:
        # The others' results as the file holds them now, not when this run began: a bench of another part that
        # finished meanwhile is kept.
        kept = {name: result for name, result in _read_results(json_path).items() if name not in only}
        report["benchmarks"] = kept | report["benchmarks"]
    path = json_path if json_path is not None else None if runs_dir is None else runs_dir / run_file_name(metadata)
    if path is not None:
        write_json_atomically(report, path)
        print(f"\nwrote {path}", file=out)
    return report


def _read_results(path: pathlib.Path) -> dict[str, Any]:
    """The ``benchmarks`` of an earlier report at ``path``; none when it is missing or not such a report
    (:func:`benchmarks.baseline.read_report`)."""
    report = read_report(path)
    return {} if report is None else report.get("benchmarks", {})


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point: ``python -m spinlab.benchmarks.runner [--quick] [--json OUT.json]``."""
    parser = argparse.ArgumentParser(prog="python -m spinlab.benchmarks.runner", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes and fewer repeats")
    parser.add_argument("--json", type=pathlib.Path, default=None, help="where to write the JSON result")
    arguments = parser.parse_args(argv)
    run_all(arguments.quick, arguments.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
