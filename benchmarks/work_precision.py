"""Work–precision: the cost of each method at equal error, read off its error-against-cost curve.

A method run at several steps ``h`` gives points (work, error): work is µs per body per simulated second in a batch
(``us_per_body_step / h``), error the final orientation error (rad). Between two neighbouring steps the curve is
taken as a straight line in log–log (a method of order p has ``log error ≈ p log h + c``, and its work is ∝ 1/h),
so the work at a target error is interpolated there. A target the method's coarsest step already beats is reached
at that step's work or less (an upper bound, flagged); one its finest step does not reach is not reached (``None``).
The curve is followed from the coarsest step down and stops where the error stops falling, so a floor of rounding
(or of the reference) is never taken for a crossing.

:func:`equal_error` compares, at each target error, the cheapest spinlab method with a reference (MuJoCo's RK4):
the ratio of their works, > 1 where spinlab is cheaper. :func:`error_rises` names the methods whose error grows by
more than a factor ``RISE`` as ``h`` shrinks while it is between ``FLOOR`` and ``CEILING`` rad. None may, down to
1e-12: a smaller step that gives a larger error is rounding piling up. Above ``CEILING`` an orientation error is
saturated (at most π) and a method is not converging yet.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = [
    "TARGETS",
    "FLOOR",
    "CEILING",
    "RISE",
    "curves",
    "work_at_error",
    "equal_error",
    "error_rises",
    "format_equal_error",
]

TARGETS = tuple(10.0**-k for k in range(2, 13))
"""The errors (rad) compared at: 1e-2 … 1e-12."""
FLOOR = 1e-12
CEILING = 0.1
"""rad: an error above it (trapezoidal's 0.7 → 3.1 rad from h = 1/2 to 1/4) is no step of a converging curve."""
RISE = 2.0


def curves(rows: list[dict[str, Any]], error_key: str = "orientation_error") -> dict[tuple[str, str], list]:
    """``(source, integrator)`` → ``[(h, work µs per body per simulated second, error), …]`` from the coarsest step
    to the finest, rows without an error or a cost (a failed run) left out."""
    out: dict[tuple[str, str], list] = {}
    for r in rows:
        if r.get(error_key) is None or r.get("us_per_body_step") is None:
            continue
        out.setdefault((r["source"], r["integrator"]), []).append(
            (r["h"], r["us_per_body_step"] / r["h"], r[error_key])
        )
    return {key: sorted(points, reverse=True) for key, points in out.items()}


def work_at_error(points: list, target: float) -> tuple[float | None, bool]:
    """``(work, bound)``: the work (µs per body per simulated second) at which the curve ``points`` (coarsest
    first) reaches ``target`` rad, interpolated in log–log; ``bound`` True when its coarsest step is already below
    ``target`` (then the work is that step's, an upper bound); ``(None, False)`` when it is never reached."""
    if not points:
        return None, False
    if points[0][2] <= target:
        return points[0][1], True
    for (_, work0, error0), (_, work1, error1) in zip(points, points[1:], strict=False):
        if not error1 < error0 or error1 <= 0.0:
            return None, False  # the error stopped falling above the target: a floor
        if error1 <= target:
            fraction = math.log(error0 / target) / math.log(error0 / error1)
            return math.exp(math.log(work0) + fraction * math.log(work1 / work0)), False
    return None, False


def equal_error(
    rows: list[dict[str, Any]], reference: tuple[str, str] = ("mujoco", "RK4"), targets: tuple[float, ...] = TARGETS
) -> list[dict[str, Any]]:
    """For each target error: the reference's work, the cheapest spinlab method and its work, and the ratio
    (reference's work / spinlab's; ``None`` where either never reaches the target). JSON-serialisable rows."""
    every = curves(rows)
    ours = {name: points for (source, name), points in every.items() if source == "spinlab"}
    out = []
    for target in targets:
        reference_work, reference_bound = work_at_error(every.get(reference, []), target)
        best: tuple[str | None, float | None, bool] = (None, None, False)
        for name, points in ours.items():
            work, bound = work_at_error(points, target)
            if work is not None and (best[1] is None or work < best[1]):
                best = (name, work, bound)
        ratio = None if reference_work is None or best[1] is None else reference_work / best[1]
        out.append({"error": target, "reference_work": reference_work, "reference_bound": reference_bound,
                    "best": best[0], "best_work": best[1], "best_bound": best[2], "ratio": ratio})  # fmt: skip
    return out


def error_rises(rows: list[dict[str, Any]]) -> dict[str, list[float]]:
    """``"source integrator"`` → the steps ``h`` at which the error is more than :data:`RISE` × the error at the
    next coarser step while that one is above :data:`FLOOR` and below :data:`CEILING` (empty lists left out)."""
    out = {}
    for (source, name), points in curves(rows).items():
        rises = [
            h1
            for (_, _, e0), (h1, _, e1) in zip(points, points[1:], strict=False)
            if FLOOR < e0 < CEILING and e1 > RISE * e0
        ]
        if rises:
            out[f"{source} {name}"] = rises
    return out


def _work(work: float | None, bound: bool) -> str:
    return "—" if work is None else f"{'≤ ' if bound else ''}{work:.3g}"


def format_equal_error(table: list[dict[str, Any]], rises: dict[str, list[float]], reference: str) -> str:
    """The markdown table of :func:`equal_error` and a line on :func:`error_rises`."""
    lines = [f"| orientation error (rad) | {reference}: µs per body per simulated s | cheapest spinlab method | its µs "
             f"per body per simulated s | {reference} / spinlab |", "|---:|---:|---|---:|---:|"]  # fmt: skip
    for r in table:
        ratio = "—" if r["ratio"] is None else f"{'≥ ' if r['best_bound'] and not r['reference_bound'] else ''}" \
            f"{r['ratio']:.3g}×"  # fmt: skip
        lines.append(f"| {r['error']:.0e} | {_work(r['reference_work'], r['reference_bound'])} | {r['best'] or '—'} | "
                     f"{_work(r['best_work'], r['best_bound'])} | {ratio} |")  # fmt: skip
    listed = "; ".join(f"{name} at h = {', '.join(f'1/{1 / h:.0f}' for h in hs)}" for name, hs in rises.items())
    lines.append("")
    lines.append(
        f"Errors that rise by more than {RISE:g}× as h shrinks, from between {FLOOR:g} and {CEILING:g} rad: "
        f"{listed or 'none on the machine that ran it'}."
    )
    return "\n".join(lines)
