"""The cost ratios docs/accuracy.md and docs/engines.md quote, each with its spread over several passes and loads.

A wall time moves by tens of percent with the load on a shared machine, and a ratio of two of them moves less
when both are timed in the same minute, but not nothing: under a load of 14 on 2 cores one run's wall-time ratios
spread by 3× and more. So each ratio is measured in ``PASSES`` passes (quick: 2) through the same run, every method
timed once per pass by both clocks, wall (``time.perf_counter``) and the process's CPU time (``time.process_time``:
every thread's, so a batch split over both cores counts both; others' load inflates it far less), the load average
read at each pass's start, and the tables give the median with the least and greatest of the passes. Timed per
pass, µs per body-step, best of ``REPEATS``:

- ``t_handle``: the axes splittings and MuJoCo RK4 on a batch of the accuracy benchmark's T-handles
  (:func:`benchmarks.accuracy.ours_cost_us`, :func:`~benchmarks.accuracy.mujoco_cost_us`), at h = 1/60 s;
- ``heavy_top``: the same methods on a batch of heavy tops (:mod:`benchmarks.heavy_top_body`, MuJoCo's ball joint
  in :mod:`benchmarks.heavy_top_mujoco`), at h = 1/60 s;
- ``engines``: every engine step of benchmarks/engines.py on its batch of T-handles.

The equal-error ratio against MuJoCo RK4 at an error is the work ratio of two curves, work = cost / h. Within a pass
each method's cost is one number at every h, so :func:`equal_error_spread` re-reads the accuracy benchmark's rows
(their errors are deterministic) with each pass's costs, giving one ratio a pass. Needs MuJoCo for the ratios; the
costs alone are measured without it.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from spinlab.benchmarks import accuracy, engines, work_precision
from spinlab.benchmarks.engine_peers import import_mujoco
from spinlab.benchmarks.heavy_top_body import HeavyTop, spinlab_cost, top_world
from spinlab.benchmarks.heavy_top_mujoco import mujoco_cost
from spinlab.sim.integrators import AXES

__all__ = ["run", "format_table", "equal_error_spread", "format_equal_error_spread", "spread", "PASSES"]

PASSES, PASSES_QUICK = 5, 2
REPEATS = 3
H = 1.0 / 60.0
REFERENCE = ("mujoco", "RK4")
ENGINE_REFERENCE = "mujoco_rk4"
_TOP_STEPS = 300  # steps before a heavy top's batch restarts from its state (benchmarks/heavy_top_body.py)


CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


def _timed(mujoco, top: HeavyTop, batch, repeats: int, engine_bodies: int, clock) -> dict[str, Any]:
    def time_call(advance, repeats):
        return accuracy._best_seconds(advance, repeats, clock)

    t_handle = {f"spinlab {name}": accuracy.ours_cost_us(name, H, repeats, clock) for name in AXES}
    heavy = {f"spinlab {name}": 1e6 * spinlab_cost(batch, name, H, _TOP_STEPS, time_call, repeats) for name in AXES}
    if mujoco is not None:
        t_handle["mujoco RK4"] = accuracy.mujoco_cost_us(mujoco, "RK4", H, repeats, clock)
        heavy["mujoco RK4"] = 1e6 * mujoco_cost(mujoco, top, "RK4", H, _TOP_STEPS, time_call, repeats)
    engine = {name: engines._cost_us(name, repeats, engine_bodies, clock) for name in engines.ENGINES}
    return {"t_handle": t_handle, "heavy_top": heavy, "engines": engine}


def _pass(mujoco, top: HeavyTop, batch, repeats: int, engine_bodies: int) -> dict[str, Any]:
    load = list(os.getloadavg()) if hasattr(os, "getloadavg") else None
    return {"load": load} | {name: _timed(mujoco, top, batch, repeats, engine_bodies, clock)
                             for name, clock in CLOCKS.items()}  # fmt: skip


def by_clock(result: dict[str, Any], clock: str) -> dict[str, Any]:
    """``result`` with each pass's costs by one clock (``"wall"`` or ``"cpu"``): ``{"passes": [{"load",
    "t_handle", "heavy_top", "engines"}], ...}``, what the tables below read."""
    return result | {"clock": clock, "passes": [{"load": p["load"]} | p[clock] for p in result["passes"]]}


def run(quick: bool, *, progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """``{"h", "repeats", "mujoco" (version or None), "engine_bodies", "passes": [{"load": [1, 5, 15 min],
    "wall": {"t_handle": {"source name": µs}, "heavy_top": {...}, "engines": {name: µs}}, "cpu": {...}}]}``."""
    mujoco = import_mujoco()
    top = HeavyTop.load()
    batch = top_world(top, AXES[0], *top.batch(accuracy.COST_BODIES))
    passes, engine_bodies = (PASSES_QUICK, 1000) if quick else (PASSES, engines.COST_BODIES)
    out = []
    for index in range(passes):
        if progress is not None:
            progress(f"pass {index + 1} of {passes} ...")
        out.append(_pass(mujoco, top, batch, 1 if quick else REPEATS, engine_bodies))
    return {"h": H, "repeats": 1 if quick else REPEATS, "mujoco": None if mujoco is None else mujoco.__version__,
            "engine_bodies": engine_bodies, "passes": out}  # fmt: skip


def spread(values: list[float]) -> tuple[float, float, float]:
    """(median, least, greatest)."""
    return statistics.median(values), min(values), max(values)


def _spread_text(values: list[float], spec: str = ".3g", unit: str = "") -> str:
    middle, low, high = spread(values)
    return f"{middle:{spec}}{unit} ({low:{spec}}–{high:{spec}})"


def _loads(result: dict[str, Any]) -> str:
    loads = [p["load"][0] for p in result["passes"] if p.get("load")]
    return f"load average {min(loads):.1f}–{max(loads):.1f}" if loads else "load not known"


def format_table(result: dict[str, Any]) -> str:
    """Each group's costs by each clock and their ratio to the reference's: median (least–greatest) over the
    passes."""
    return "\n\n".join(_format_clock(by_clock(result, clock)) for clock in CLOCKS)


def _format_clock(result: dict[str, Any]) -> str:
    lines = [f"{result['clock']} time: {len(result['passes'])} passes, {_loads(result)}; µs per body-step, median "
             "(least–greatest)"]  # fmt: skip
    for group, reference in (("t_handle", "mujoco RK4"), ("heavy_top", "mujoco RK4"), ("engines", ENGINE_REFERENCE)):
        lines += ["", f"| {group} | µs per body-step | / {reference} |", "|---|---:|---:|"]
        for name in result["passes"][0][group]:
            costs = [p[group][name] for p in result["passes"]]
            ratios = [p[group][name] / p[group][reference] for p in result["passes"] if reference in p[group]]
            lines.append(f"| {name} | {_spread_text(costs)} | {_spread_text(ratios) if ratios else '—'} |")
    return "\n".join(lines)


def equal_error_spread(rows: list[dict[str, Any]], result: dict[str, Any], body: str) -> list[dict[str, Any]]:
    """:func:`benchmarks.work_precision.equal_error` of the accuracy rows ``rows`` (one body's) re-read with each
    pass's costs of ``body``: the rows of the methods a pass timed, each at that pass's cost at every h. Each target
    gets the first pass's row with ``"ratios"``: the ratio of every pass (``None`` where not reached)."""
    tables = []
    for timed in (p[body] for p in result["passes"]):
        measured = (r for r in rows if r.get("us_per_body_step") is not None)
        priced = [
            r | {"us_per_body_step": timed[key]}
            for r in measured
            if (key := f"{r['source']} {r['integrator']}") in timed
        ]
        tables.append(work_precision.equal_error(priced, REFERENCE))
    return [first | {"ratios": [t[k]["ratio"] for t in tables]} for k, first in enumerate(tables[0])]


def _ratio_text(r: dict[str, Any]) -> str:
    ratios = [x for x in r["ratios"] if x is not None]
    bound = "≥ " if r["best_bound"] and not r["reference_bound"] else ""
    return f"{bound}{_spread_text(ratios, '.3g', '×')}" if ratios and len(ratios) == len(r["ratios"]) else "—"


def format_equal_error_spread(rows: list[dict[str, Any]], result: dict[str, Any], body: str) -> str:
    """The markdown table of :func:`equal_error_spread` by each clock: the cheapest method (of the first pass, CPU
    time) and the ratio of MuJoCo RK4's work to it, median (least–greatest) over the passes."""
    cpu, wall = (equal_error_spread(rows, by_clock(result, clock), body) for clock in ("cpu", "wall"))
    lines = ["| orientation error (rad) | cheapest spinlab method | MuJoCo RK4 / spinlab by CPU time | by wall time |"]
    lines.append("|---:|---|---:|---:|")
    for by_cpu, by_wall in zip(cpu, wall, strict=True):
        lines.append(f"| {by_cpu['error']:.0e} | {by_cpu['best'] or '—'} | {_ratio_text(by_cpu)} | "
                     f"{_ratio_text(by_wall)} |")  # fmt: skip
    return "\n".join(lines)


ENGINES_BEGIN, ENGINES_END = "<!-- cost_spread: engines -->", "<!-- /cost_spread -->"
"""docs/engines.md's cost table sits between these lines; :func:`write_docs` rewrites what is between them."""


def _machine(report: dict[str, Any]) -> str:
    meta = report.get("metadata") or {}
    cores = f"{meta['cpu_count']} cores" if meta.get("cpu_count") else ""
    parts = (meta.get("date", "")[:10], meta.get("commit"), meta.get("cpu_model"), cores)
    return ", ".join(str(part) for part in parts if part)


def engines_table(result: dict[str, Any]) -> str:
    """The engine steps' costs and their ratio to ``mujoco_rk4``'s by each clock: median (least–greatest) over the
    passes."""
    lines = [f"| step | CPU µs per body-step | / {ENGINE_REFERENCE} | wall µs per body-step | / {ENGINE_REFERENCE} |"]
    lines.append("|---|---:|---:|---:|---:|")
    cpu, wall = (by_clock(result, clock)["passes"] for clock in ("cpu", "wall"))
    for name in cpu[0]["engines"]:
        cells = []
        for passes in (cpu, wall):
            cells.append(_spread_text([p["engines"][name] for p in passes]))
            cells.append(_spread_text([p["engines"][name] / p["engines"][ENGINE_REFERENCE] for p in passes]))
        lines.append(f"| {name} | {' | '.join(cells)} |")
    return "\n".join(lines)


def write_docs(report: dict[str, Any], root) -> None:
    """docs/accuracy.md from ``report``'s ``accuracy`` result with the equal-error ratios' spread from its
    ``cost_spread`` (:func:`benchmarks.accuracy.write_docs`), and docs/engines.md's cost table (between
    ``ENGINES_BEGIN`` and ``ENGINES_END``) from its ``cost_spread``."""
    from spinlab.scene.files.atomic_file import write_atomically

    result, measured = report["benchmarks"]["cost_spread"], report["benchmarks"]["accuracy"]
    said = (f"MuJoCo RK4's work over the cheapest splitting's, re-read with the costs of each of "
            f"{len(result['passes'])} passes of `bench --only cost_spread` ({_machine(report)}, {_loads(result)}; "
            f"benchmarks/cost_spread.py), median (least–greatest), the errors those of the table above (its run: "
            f"{measured.get('date', 'undated')[:10]}). CPU time counts both threads where spinlab's batch is split "
            f"over the two cores, and the load inflates it far less than wall time:")  # fmt: skip
    bodies = (("t_handle", measured["rows"]), ("heavy_top", measured["heavy_top"]["rows"]))
    spread = {body: f"{said}\n\n" + format_equal_error_spread(rows, result, body) for body, rows in bodies}
    accuracy.write_docs(measured, root, spread)
    path = root / "docs" / "engines.md"
    text = path.read_text(encoding="utf-8")
    head, _, rest = text.partition(ENGINES_BEGIN)
    _, _, tail = rest.partition(ENGINES_END)
    table = (f"{ENGINES_BEGIN}\n{len(result['passes'])} passes of `bench --only cost_spread` ({_machine(report)}, "
             f"{_loads(result)}), {result['engine_bodies']} T-handles, numpy; median (least–greatest); CPU time "
             f"is the process's, wall time what a clock on the wall saw:\n\n"
             f"{engines_table(result)}\n{ENGINES_END}")  # fmt: skip
    write_atomically(path, (head + table + tail).encode("utf-8"))


def main(argv: list[str]) -> int:
    """``python -m spinlab.benchmarks.cost_spread --docs REPORT.json ...``: the docs from stored bench reports,
    their benchmarks merged (a later file's win), which must hold ``accuracy`` and ``cost_spread``."""
    from spinlab import checkout_folder
    from spinlab.benchmarks.baseline import read_report

    if not argv or argv[0] != "--docs" or len(argv) < 2:
        print("usage: python -m spinlab.benchmarks.cost_spread --docs REPORT.json ...", file=sys.stderr)
        return 2
    merged: dict[str, Any] = {"metadata": {}, "benchmarks": {}}
    for name in argv[1:]:
        report = read_report(name)
        if report is None:
            print(f"{name!r} is not a bench report", file=sys.stderr)
            return 2
        merged["benchmarks"].update(report.get("benchmarks", {}))
        if "cost_spread" in report.get("benchmarks", {}):
            merged["metadata"] = report.get("metadata", {})
    if not {"accuracy", "cost_spread"} <= set(merged["benchmarks"]):
        print("the reports hold no accuracy or no cost_spread result", file=sys.stderr)
        return 2
    write_docs(merged, checkout_folder())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
