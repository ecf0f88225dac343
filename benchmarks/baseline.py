"""A bench report read back, its headline figures, and a run's figures compared with a stored baseline's.

A report is what ``bench`` writes (:mod:`benchmarks.runner`): ``{"metadata": {...}, "benchmarks": {name: result}}``.
Each benchmark's headline figures are the costs a regression would show in: a time per step, per frame or per
element (lower is better), or a rate (frames or body-steps per second, a real-time factor: higher is better). A
figure is flagged when the new run is worse than the baseline by more than ``NOISE`` (15 %): two runs of the same
commit on one shared 2-core machine part by up to ~20 % in the window's median frame as the load moves, and by a few
percent when it is idle; read a flag beside the two runs' load averages, which the table prints.
"""

from __future__ import annotations

import json
import math
import os
import stat
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["read_report", "figures", "compare", "format_comparison", "NOISE", "MAX_REPORT_BYTES"]

MAX_REPORT_BYTES = 16 * 1024 * 1024
"""The largest report read (a full report is ~30 kB)."""

NOISE = 0.15
"""The relative change beyond which a figure is flagged: new/old > 1.15 for a cost, < 1/1.15 for a rate."""

_HIGHER_IS_BETTER = ("per_second", "_per_s", "factor")

Figures = Iterable[tuple[str, str, float | None]]
"""A benchmark's figures read from its result: (what was measured, figure, value or ``None``)."""


def read_report(path: os.PathLike | str) -> dict[str, Any] | None:
    """The report at ``path``, or ``None`` when it is missing or not a report. Only a regular file of at most
    ``MAX_REPORT_BYTES`` is read: ``/dev/zero`` was read until memory ran out, and a FIFO would wait for a writer.
    JSON nested too deeply for the parser is no report either (it was an "internal error: RecursionError")."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        with os.fdopen(os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)), "rb") as file:
            data = file.read(MAX_REPORT_BYTES + 1)
        if len(data) > MAX_REPORT_BYTES:
            return None
        report = json.loads(data.decode("utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(report, dict) or not isinstance(report.get("benchmarks", {}), dict):
        return None
    return report


def _value(row: dict[str, Any], dotted: str) -> float | None:
    """``row``'s number at ``dotted`` (``"spinlab.loop_s"``: ``row["spinlab"]["loop_s"]``), if finite."""
    value: Any = row
    for part in dotted.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    return float(value) if ok else None


def _rows(
    key: Callable[[dict[str, Any]], str], fields: tuple[str, ...], which: str = "results", keep=lambda row: True
) -> Callable[[dict[str, Any]], Figures]:
    """The figures ``fields`` of each row of ``result[which]`` that ``keep`` keeps, named by ``key(row)``."""

    def read(result: dict[str, Any]) -> Figures:
        for row in result.get(which) or ():
            if isinstance(row, dict) and keep(row):
                yield from ((key(row), field, _value(row, field)) for field in fields)

    return read


def _gui(result: dict[str, Any]) -> Figures:
    for row in result.get("results") or ():
        width, height = row.get("size") or result.get("size") or ("?", "?")
        for field in ("median_ms", "p90_ms", "update_ms", "draw_ms"):
            yield f"{row.get('workload')} @ {width}×{height}", field, _value(row, field)


def _engines(result: dict[str, Any]) -> Figures:
    for engine, us in (result.get("us_per_body_step") or {}).items():
        yield engine, "us_per_body_step", _value({"us": us}, "us")


def _accuracy(result: dict[str, Any]) -> Figures:
    """The cost per body-step at the targets' h (1/60 s) for the free body, at 1/60 s for the heavy top."""
    h = (result.get("targets") or {}).get("h", 1.0 / 60.0)
    free = _rows(lambda r: f"{r['source']} {r['integrator']}", ("us_per_body_step",), "rows", lambda r: r["h"] == h)
    top = _rows(lambda r: f"heavy top {r['source']} {r['integrator']}", ("us_per_body_step",), "rows",
                lambda r: math.isclose(r["h"], 1.0 / 60.0))  # fmt: skip
    yield from free(result)
    yield from top(result.get("heavy_top") or {})


def _cost_spread(result: dict[str, Any]) -> Figures:
    """The median over the passes of each method's CPU and wall µs per body-step."""
    passes = result.get("passes") or []
    for clock in ("cpu", "wall"):
        for group, costs in (passes[0].get(clock) or {}).items() if passes else ():
            for name in costs:
                values = sorted(p[clock][group][name] for p in passes)
                yield f"{group} {name}", f"{clock}_us_median", _value({"us": values[len(values) // 2]}, "us")


_FIGURES: dict[str, Callable[[dict[str, Any]], Figures]] = {
    "contiguous_list": _rows(lambda r: f"{r['operation']} {r['implementation']} n={r['n']}", ("per_element_ns",)),
    "integrators": _rows(lambda r: f"{r['integrator']} {r['backend']} N={r['n_bodies']}", ("us_per_step",)),
    "latency": _rows(lambda r: r["integrator"], ("kernel_us", "step_us", "world_us")),
    "render": lambda result: (
        *_rows(lambda r: f"{r['workload']} bodies={r['bodies']} samples={r['samples']}", ("ms_per_frame",))(result),
        *_rows(lambda r: f"record {r['scene']}", ("realtime_factor",), "record")(result),
    ),
    "gui": _gui,
    "scaling": _rows(lambda r: f"N={r['n']}", ("spinlab.process_s", "spinlab.loop_s", "mujoco.process_s"), "rows"),
    "engines": _engines,
    "accuracy": _accuracy,
    "cost_spread": _cost_spread,
}
"""Each benchmark's headline figures: (what was measured, figure, value); benchmarks not named here have none."""


def figures(report: dict[str, Any]) -> dict[tuple[str, str, str], float]:
    """``{(benchmark, what, figure): value}`` for every headline figure of ``report`` that has a finite value."""
    out = {}
    for name, result in (report.get("benchmarks") or {}).items():
        read = _FIGURES.get(name)
        if read is None or not isinstance(result, dict):
            continue
        try:
            for what, figure, value in read(result):
                if value is not None:
                    out[(name, str(what), figure)] = value
        except (KeyError, TypeError, ValueError):  # a result of another shape (an older bench): not compared
            continue
    return out


def compare(old: dict[str, Any], new: dict[str, Any], noise: float = NOISE) -> list[dict[str, Any]]:
    """One row per figure both reports hold: ``{"benchmark", "what", "figure", "old", "new", "ratio" (new/old),
    "verdict"}``, the verdict ``"slower"`` or ``"faster"`` beyond ``noise`` (a rate's ratio read the other way up),
    else ``""``."""
    before, after = figures(old), figures(new)
    rows = []
    for key in (key for key in after if key in before):
        ratio = after[key] / before[key] if before[key] else math.inf
        worse = 1.0 / ratio if key[2].endswith(_HIGHER_IS_BETTER) and ratio else ratio
        verdict = "slower" if worse > 1.0 + noise else "faster" if worse < 1.0 / (1.0 + noise) else ""
        rows.append({"benchmark": key[0], "what": key[1], "figure": key[2], "old": before[key], "new": after[key],
                     "ratio": ratio, "verdict": verdict})  # fmt: skip
    return rows


def _run_line(label: str, report: dict[str, Any]) -> str:
    meta = report.get("metadata") or {}
    load = [x[0] for x in (meta.get("load_before"), meta.get("load_after")) if isinstance(x, list) and x]
    loads = "load " + " → ".join(f"{x:.2f}" for x in load) if len(load) == 2 else ""
    parts = [meta.get("date", "undated"), meta.get("commit") or "", meta.get("host") or "", meta.get("cpu_model") or ""]
    return f"{label}: " + ", ".join(str(part) for part in (*parts, loads) if part)


def format_comparison(old: dict[str, Any], new: dict[str, Any], noise: float = NOISE) -> str:
    """A Markdown table of :func:`compare`'s rows, the two runs (date, commit, machine, load) above it and the
    count of flags below."""
    rows = compare(old, new, noise)
    lines = [_run_line("before", old), _run_line("after", new), ""]
    lines += ["| benchmark | measured | figure | before | after | after/before | |", "|---|---|---|---:|---:|---:|---|"]
    for r in rows:
        lines.append(f"| {r['benchmark']} | {r['what']} | {r['figure']} | {r['old']:.4g} | {r['new']:.4g} | "
                     f"{r['ratio']:.3f} | {r['verdict']} |")  # fmt: skip
    slower = sum(r["verdict"] == "slower" for r in rows)
    faster = sum(r["verdict"] == "faster" for r in rows)
    lines.append(f"\n{len(rows)} figures compared; beyond the noise ({noise:.0%}): {slower} slower, {faster} faster")
    return "\n".join(lines)
