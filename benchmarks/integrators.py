"""Throughput of the integrators: body-steps per second at N = 1, 10, 10³, 10⁴, 10⁵ bodies, µs per one-body step,
and the gain of both cores (sim.integrators.threads) at N = 10³, 10⁴, 10⁵ for four integrators.

The bodies are T-handles (principal moments (2.5, 1.4, 1.3) kg m², seed 003) in random orientations, spinning
near the intermediate axis (body ω ≈ (0.05, 5, 0.05) rad/s, perturbed), torque-free, gyroscopic term on, stepped
at h = 1/60 s. Each measurement chains ``steps`` calls of ``INTEGRATORS[name]`` (the state flows from one step
to the next, as in the app), after a warm-up call that also compiles the numba kernels; the best of ``repeats``
runs counts, with garbage collection off, as timeit does. The compiled backend is measured at every N, the numpy
reference at N = 1 and 10³ for comparison. The main table uses numba's threads (all cores by default); the
threads table measures the same steps on one thread and on all of them.

The target for the implicit midpoint rule (what a real-time batch needs): ≥ 2 M body-steps/s at N = 10³ and 10⁵,
≤ 20 µs per one-body step; ``run`` reports whether it was met on this machine.
"""

from __future__ import annotations

import gc
import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from spinlab.sim.integrators import ENGINE_STEPS, INTEGRATORS
from spinlab.sim.integrators.state import BodyParams, BodyState

__all__ = ["run", "format_table"]

SIZES = (1, 10, 10**3, 10**4, 10**5)
THREAD_INTEGRATORS = ("implicit_midpoint", "im4", "rkmk4", "euler")
THREAD_SIZES = (10**3, 10**4, 10**5)
NUMPY_SIZES = (1, 10**3)
# The exact stepper evaluates the closed form in Python, hundreds of times dearer a body-step than a kernel: batches
# of 10³ and 10⁵ would take minutes and say nothing new.
MAX_BODIES = {"exact": 10}
H = 1.0 / 60.0
SEED = 2024
TARGET_BODY_STEPS_PER_SECOND = 2e6
TARGET_SINGLE_BODY_US = 20.0
_SECONDS_PER_REPEAT = 0.1


def _bodies(n_bodies: int) -> tuple[BodyState, BodyParams]:
    rng = np.random.default_rng(SEED + n_bodies)
    q = rng.normal(size=(n_bodies, 4))
    q /= np.linalg.norm(q, axis=-1, keepdims=True)
    inertia = np.broadcast_to(np.diag([2.5, 1.4, 1.3]), (n_bodies, 3, 3))
    omega_body = np.array([0.05, 5.0, 0.05]) + 0.1 * rng.normal(size=(n_bodies, 3))
    return BodyState.from_omega_body(q, omega_body, inertia), BodyParams.from_inertia(inertia)


def _best_seconds_per_step(step: Callable[..., Any], n_bodies: int, backend: str, repeats: int) -> tuple[float, float]:
    """Best seconds per step over ``repeats`` runs, and the mean Newton iterations per body-step."""
    start, params = _bodies(n_bodies)
    state, cost = step(start, params, H, backend=backend)  # warm-up; compiles the kernel on first use
    begin = time.perf_counter()
    step(state, params, H, backend=backend)
    estimate = max(time.perf_counter() - begin, 1e-7)
    steps = max(1, min(20_000, int(_SECONDS_PER_REPEAT / estimate)))
    best = math.inf
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(repeats):
            state = start
            begin = time.perf_counter()
            for _ in range(steps):
                state, cost = step(state, params, H, backend=backend)
            best = min(best, (time.perf_counter() - begin) / steps)
    finally:
        if gc_was_enabled:
            gc.enable()
    return best, float(np.mean(cost.newton_iterations))


def run(quick: bool, *, progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Run the benchmark (``quick``: 2 repeats instead of 5). JSON-serialisable result:

    ``{"name", "quick", "h", "numba", "results": [{"integrator", "backend", "n_bodies", "seconds_per_step",
    "us_per_step", "body_steps_per_second", "newton_iterations_per_body_step"}], "target": {...}}``.
    """
    import numba

    report = progress if progress is not None else (lambda message: None)
    repeats = 2 if quick else 5
    results: list[dict[str, Any]] = []
    for name, step in INTEGRATORS.items():
        if name in ENGINE_STEPS:  # no kernel of their own: measured by benchmarks/engines.py
            continue
        for backend, sizes in (("numba", SIZES), ("numpy", NUMPY_SIZES)):
            for n_bodies in (n for n in sizes if n <= MAX_BODIES.get(name, n)):
                report(f"{name} {backend} N={n_bodies} ...")
                seconds, iterations = _best_seconds_per_step(step, n_bodies, backend, repeats)
                results.append(
                    {
                        "integrator": name,
                        "backend": backend,
                        "n_bodies": n_bodies,
                        "seconds_per_step": seconds,
                        "us_per_step": seconds * 1e6,
                        "body_steps_per_second": n_bodies / seconds,
                        "newton_iterations_per_body_step": iterations,
                    }
                )
    midpoint = {r["n_bodies"]: r for r in results if r["integrator"] == "implicit_midpoint" and r["backend"] == "numba"}
    target = {
        "integrator": "implicit_midpoint",
        "body_steps_per_second_min": TARGET_BODY_STEPS_PER_SECOND,
        "single_body_us_max": TARGET_SINGLE_BODY_US,
        "met": bool(
            midpoint[10**3]["body_steps_per_second"] >= TARGET_BODY_STEPS_PER_SECOND
            and midpoint[10**5]["body_steps_per_second"] >= TARGET_BODY_STEPS_PER_SECOND
            and midpoint[1]["us_per_step"] <= TARGET_SINGLE_BODY_US
        ),
    }
    return {"name": "integrators", "quick": quick, "h": H, "numba": numba.__version__, "repeats": repeats,
            "threads": numba.get_num_threads(), "results": results, "target": target,
            "thread_scaling": _thread_scaling(repeats, report)}  # fmt: skip


def _thread_scaling(repeats: int, report: Callable[[str], None]) -> list[dict[str, Any]]:
    """Body-steps/s of :data:`THREAD_INTEGRATORS` at :data:`THREAD_SIZES` on one thread and on all of numba's."""
    import numba

    most = numba.get_num_threads()
    rows = []
    try:
        for name in THREAD_INTEGRATORS:
            for n_bodies in THREAD_SIZES:
                rates = {}
                for threads in dict.fromkeys((1, most)):
                    report(f"{name} N={n_bodies} threads={threads} ...")
                    numba.set_num_threads(threads)
                    seconds, _ = _best_seconds_per_step(INTEGRATORS[name], n_bodies, "numba", repeats)
                    rates[threads] = n_bodies / seconds
                rows.append({"integrator": name, "n_bodies": n_bodies, "threads": most,
                             "body_steps_per_second_one_thread": rates[1],
                             "body_steps_per_second": rates[most]})  # fmt: skip
    finally:
        numba.set_num_threads(most)
    return rows


def _rate(body_steps_per_second: float) -> str:
    if body_steps_per_second >= 1e6:
        return f"{body_steps_per_second / 1e6:6.2f} M/s"
    return f"{body_steps_per_second / 1e3:6.1f} k/s"


def format_table(result: dict[str, Any]) -> str:
    """A text table: µs per one-body step and body-steps per second by N, numba and numpy backends."""
    by_key = {(r["integrator"], r["backend"], r["n_bodies"]): r for r in result["results"]}
    names = list(dict.fromkeys(r["integrator"] for r in result["results"]))
    columns = [("numba", n) for n in SIZES] + [("numpy", n) for n in NUMPY_SIZES]
    header = ["integrator", "1 body (us)"] + [f"{backend} N={n:g}" for backend, n in columns] + ["Newton it."]
    rows = [header]
    for name in names:
        single = by_key[name, "numba", 1]["us_per_step"]
        rates = [
            _rate(by_key[name, backend, n]["body_steps_per_second"]) if (name, backend, n) in by_key else "—"
            for backend, n in columns
        ]
        largest = max(n for (other, backend, n) in by_key if other == name and backend == "numba")
        iterations = by_key[name, "numba", largest]["newton_iterations_per_body_step"]
        rows.append([name, f"{single:.1f}", *rates, f"{iterations:.2f}"])
    widths = [max(len(row[column]) for row in rows) + 2 for column in range(len(header))]
    lines = ["".join(f"{cell:<{w}}" if c == 0 else f"{cell:>{w}}" for c, (cell, w) in enumerate(zip(row, widths,
             strict=True))) for row in rows]  # fmt: skip
    target = result["target"]
    lines.append(
        f"\ntarget ({target['integrator']}, numba {result['numba']}): ≥ {target['body_steps_per_second_min'] / 1e6:g} "
        f"M body-steps/s at N = 1e3 and 1e5, ≤ {target['single_body_us_max']:g} us per one-body step: "
        f"{'met' if target['met'] else 'NOT met'}; h = {result['h']:.6g} s, T-handles, torque-free"
    )
    scaling = result.get("thread_scaling", [])
    if scaling:
        lines.append(f"\nboth cores: body-steps/s on 1 thread and on {scaling[0]['threads']}")
        for row in scaling:
            one, most = row["body_steps_per_second_one_thread"], row["body_steps_per_second"]
            lines.append(f"  {row['integrator']:<18} N={row['n_bodies']:<7g} {_rate(one)} -> {_rate(most)}  "
                         f"x{most / one:.2f}")  # fmt: skip
    return "\n".join(lines)


if __name__ == "__main__":
    import sys

    quick_run = "--quick" in sys.argv[1:]
    print(format_table(run(quick_run, progress=lambda message: print(message, file=sys.stderr))))
