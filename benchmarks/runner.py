"""Run every registered benchmark, print its table, and write one JSON file with metadata.

Each module in ``BENCHMARKS`` provides ``run(quick, *, progress=None) -> dict`` (JSON-serialisable) and
``format_table(result) -> str``. ``python -m spinlab.benchmarks.runner [--quick] [--json OUT.json]`` runs them all;
``python main.py bench`` calls ``run_all`` with its own default JSON location.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import pathlib
import platform
import stat
import sys
from types import ModuleType
from typing import Any, TextIO

import numpy as np

from spinlab.benchmarks import accuracy, contiguous_list, engines, gui, integrators, latency, maps, render, scaling
from spinlab.scene.files.atomic_file import atomic_output

__all__ = ["BENCHMARKS", "main", "run_all", "write_json_atomically", "MAX_REPORT_BYTES"]

MAX_REPORT_BYTES = 16 * 1024 * 1024
"""The largest earlier report ``--only`` reads to keep its other results (a full report is ~30 kB)."""

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
}


def _metadata(quick: bool) -> dict[str, Any]:
    return {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "cpu_count": os.cpu_count(),
        "quick": quick,
    }


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
    settings: dict[str, dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Run every benchmark in ``BENCHMARKS`` (or the ones named in ``only``), each with its keyword arguments in
    ``settings`` (by name: ``{"gui": {"sizes": [(1920, 1080)]}}``); print each table to ``out`` (default: the
    current ``sys.stdout``, looked up at call time) and progress to stderr.

    Returns ``{"metadata": {...}, "benchmarks": {name: result}}`` and writes it to ``json_path`` when given; with
    ``only``, the other benchmarks' results already in that file are kept (each result carries its own date).
    """
    out = sys.stdout if out is None else out
    metadata = _metadata(quick)
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
    if json_path is not None:
        if only is not None:
            # The others' results as the file holds them now, not when this run began: a bench of another part that
            # finished meanwhile is kept.
            kept = {name: result for name, result in _read_results(json_path).items() if name not in only}
            report["benchmarks"] = kept | report["benchmarks"]
        write_json_atomically(report, json_path)
        print(f"\nwrote {json_path}", file=out)
    return report


def _read_results(path: pathlib.Path) -> dict[str, Any]:
    """The ``benchmarks`` of an earlier report at ``path``; none when it is missing or not such a report. Only a
    regular file of at most ``MAX_REPORT_BYTES`` is read: ``--json /dev/zero`` read until memory ran out, and a
    FIFO would wait for a writer. JSON nested too deeply for the parser is no report either (it was an "internal
    error: RecursionError")."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return {}
        with os.fdopen(os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)), "rb") as file:
            data = file.read(MAX_REPORT_BYTES + 1)
        if len(data) > MAX_REPORT_BYTES:
            return {}
        results = json.loads(data.decode("utf-8")).get("benchmarks", {})
    except (OSError, ValueError, AttributeError, RecursionError):
        return {}
    return results if isinstance(results, dict) else {}


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
