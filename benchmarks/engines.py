"""The engines' verdict table (docs/engines.md): each engine step on four bodies at h = 1/60 and 1/30 s
over 60 s, against the exact torque-free motion (sim.exact, Euler–Poinsot), and its cost.

Bodies (moments along body x, y, z in kg m²; body rate at t = 0 in rad/s), all torque-free, gyroscopic term on:

- ``t_handle``: seed 003's (1.3, 1.4, 2.5), Ω = (0.05, 5, 0.05): near the intermediate axis, flips every ~9.7 s;
- ``major_spin``: the same body, Ω = (0.05, 0.05, 5): about the major axis, stable, never flips;
- ``disc``: a near-symmetric disc (0.25, 0.26, 0.5), Ω = (1, 0, 5): precesses, never flips;
- ``fast_rod``: a thin rod (0.12, 0.12, 0.002), Ω = (0.3, 0, 20): spun fast about its long axis, tilted.

Measures, each over the whole run: ``energy_drift`` max |E/E₀ − 1|; ``momentum_drift`` max |L − L₀|/|L₀|;
``flips`` / ``flips_exact``: sign changes of the body rate about the axis the body starts spinning on (its largest
component); ``first_wrong_flip_s``: the time of the first flip of either motion that the other does not make
within 1 s (``None``: none); ``toward_intermediate``: how far ``D = |L|²/(2E)`` (the inertia the momentum sees: I_mid
on the separatrix) moved from its start toward the intermediate moment, as a fraction of the way, at the end (0:
none, as exactly; 1: reached the separatrix; negative: away); ``us_per_body_step``: µs per body-step of a batch of
``COST_BODIES`` T-handles (numpy; the engine steps have no compiled kernel), best of ``repeats``.

With ``mujoco`` and ``pybullet`` installed (the ``peers`` extra), ``agreement`` gives the largest difference of the
end state after 600 steps against the real engine (tests/sim/test_engines_against_peers.py's setup).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from spinlab.benchmarks.engine_peers import agreement_figures
from spinlab.benchmarks.timing import best_seconds_per_call
from spinlab.sim.exact import TorqueFreeSolution
from spinlab.sim.integrators import CLAIMS, FAMILIES, INTEGRATORS
from spinlab.sim.integrators.state import BodyParams, BodyState, energy, to_body
from spinlab.sim.quaternion import quat_identity

__all__ = ["run", "format_table", "ENGINES", "BODIES"]

ENGINES = FAMILIES["engines"]  # the float32 twins: docs/engines.md compares them by run
BODIES = {
    "t_handle": ((1.3, 1.4, 2.5), (0.05, 5.0, 0.05)),
    "major_spin": ((1.3, 1.4, 2.5), (0.05, 0.05, 5.0)),
    "disc": ((0.25, 0.26, 0.5), (1.0, 0.0, 5.0)),
    "fast_rod": ((0.12, 0.12, 0.002), (0.3, 0.0, 20.0)),
}
STEPS = (1.0 / 60.0, 1.0 / 30.0)
DURATION = 60.0
MATCH_WINDOW = 1.0  # s: a flip of one motion is matched by the other's within this
COST_BODIES = 10_000
_SECONDS_PER_REPEAT = 0.1


def _flip_times(rate: np.ndarray, times: np.ndarray) -> np.ndarray:
    sign = np.sign(rate)
    return times[1:][np.flatnonzero(sign[1:] * sign[:-1] < 0)]


def _first_unmatched(a: np.ndarray, b: np.ndarray) -> float | None:
    """The earliest flip of ``a`` or ``b`` with no flip of the other within ``MATCH_WINDOW`` s (each used once)."""
    unmatched = []
    for ours, theirs in ((a, b), (b, a)):
        free = list(theirs)
        for t in ours:
            near = [u for u in free if abs(u - t) <= MATCH_WINDOW]
            if near:
                free.remove(min(near, key=lambda u: abs(u - t)))
            else:
                unmatched.append(float(t))
    return min(unmatched) if unmatched else None


def _run_engine(name: str, h: float) -> dict[str, dict[str, Any]]:
    """Every body of :data:`BODIES` under ``name`` at ``h`` for :data:`DURATION` s, in one batch."""
    moments = [np.diag(m) for m, _ in BODIES.values()]
    inertia = np.array(moments)
    omega0 = np.array([w for _, w in BODIES.values()])
    state = BodyState.from_omega_body(quat_identity((len(BODIES),)), omega0, inertia)
    params = BodyParams.from_inertia(inertia)
    n_steps = round(DURATION / h)
    times = h * np.arange(n_steps + 1)
    rate_steps, energy_steps, momentum_steps = [to_body(state.q, state.omega_world)], [energy(state)], [state.L_world]
    failed_at = None
    for k in range(1, n_steps + 1):
        try:
            state, _ = INTEGRATORS[name](state, params, h)
        except Exception:  # a non-finite state: the run ends there for every body (reported)
            failed_at = k * h
            break
        rate_steps.append(to_body(state.q, state.omega_world))
        energy_steps.append(energy(state))
        momentum_steps.append(state.L_world)
    rates, energies, momenta = np.array(rate_steps), np.array(energy_steps), np.array(momentum_steps)
    times = times[: len(rates)]
    results = {}
    for index, (body, (moment, omega)) in enumerate(BODIES.items()):
        exact = TorqueFreeSolution.from_body_state(np.diag(moment), quat_identity(), np.array(omega))
        axis = int(np.argmax(np.abs(omega)))
        e0, l0 = energies[0, index], momenta[0, index]
        depth = np.sum(momenta[:, index] ** 2, axis=-1) / (2.0 * energies[:, index])
        middle = sorted(moment)[1]
        span = middle - depth[0]
        ours = _flip_times(rates[:, index, axis], times)
        theirs = _flip_times(exact.omega_body(times)[:, axis], times)
        finite = np.isfinite(energies[:, index])
        results[body] = {
            "energy_drift": float(np.nanmax(np.abs(energies[finite, index] / e0 - 1.0))),
            "momentum_drift": float(
                np.nanmax(np.linalg.norm(momenta[finite, index] - l0, axis=-1)) / np.linalg.norm(l0)
            ),
            "flips": int(ours.size),
            "flips_exact": int(theirs.size),
            "first_wrong_flip_s": _first_unmatched(ours, theirs),
            "toward_intermediate": None if abs(span) < 1e-3 * middle else float((depth[-1] - depth[0]) / span),
            "failed_at_s": failed_at,
        }
    return results


def _cost_us(name: str, repeats: int, n_bodies: int, clock: Callable[[], float] = time.perf_counter) -> float:
    """µs per body-step of ``name`` over ``n_bodies`` T-handles, the best of ``repeats``, by ``clock``."""
    rng = np.random.default_rng(2024)
    q = rng.normal(size=(n_bodies, 4))
    q /= np.linalg.norm(q, axis=-1, keepdims=True)
    inertia = np.broadcast_to(np.diag([1.3, 1.4, 2.5]), (n_bodies, 3, 3))
    omega = np.array([0.05, 5.0, 0.05]) + 0.1 * rng.normal(size=(n_bodies, 3))
    batch = [BodyState.from_omega_body(q, omega, inertia), BodyParams.from_inertia(inertia)]

    def advance() -> None:
        batch[0] = INTEGRATORS[name](batch[0], batch[1], STEPS[0])[0]

    advance()
    begin = time.perf_counter()
    advance()
    calls = max(1, min(1000, int(_SECONDS_PER_REPEAT / max(time.perf_counter() - begin, 1e-7))))
    return 1e6 * best_seconds_per_call(advance, repeats, calls, clock) / n_bodies


def run(quick: bool, *, progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """The verdict table's numbers (JSON-serialisable); ``quick``: 1 repeat, 1000 bodies for the cost."""
    repeats, n_bodies = (1, 1000) if quick else (5, COST_BODIES)
    rows = []
    for name in ENGINES:
        if progress is not None:
            progress(name)
        for h in STEPS:
            for body, measures in _run_engine(name, h).items():
                rows.append({"engine": name, "h": h, "body": body, **measures})
    cost = {name: _cost_us(name, repeats, n_bodies) for name in ENGINES}
    return {"rows": rows, "us_per_body_step": cost, "cost_bodies": n_bodies, "duration": DURATION,
            "methods": {name: CLAIMS[name].method for name in ENGINES}, "agreement": agreement_figures()}  # fmt: skip


def _number(x: float | None) -> str:
    return "—" if x is None else f"{x:.1e}"


def format_table(result: dict[str, Any]) -> str:
    """The verdict table: one line per engine, h and body."""
    lines = [f"{'engine':<22}{'h':>6} {'body':<11}{'|ΔE|/E':>9}{'|ΔL|/|L|':>10}{'flips':>7}{'exact':>6}"
             f"{'1st wrong':>10}{'→ mid':>9}"]  # fmt: skip
    for row in result["rows"]:
        wrong = "—" if row["first_wrong_flip_s"] is None else f"{row['first_wrong_flip_s']:.1f} s"
        toward = "—" if row["toward_intermediate"] is None else f"{row['toward_intermediate']:+.2f}"
        failed = "" if row["failed_at_s"] is None else f"  (not finite at {row['failed_at_s']:.1f} s)"
        lines.append(f"{row['engine']:<22}{'1/' + str(round(1 / row['h'])):>6} {row['body']:<11}"
                     f"{_number(row['energy_drift']):>9}{_number(row['momentum_drift']):>10}{row['flips']:>7}"
                     f"{row['flips_exact']:>6}{wrong:>10}{toward:>9}{failed}")  # fmt: skip
    lines.append(f"\nµs per body-step ({result['cost_bodies']} T-handles, numpy):")
    lines.extend(f"  {name:<22}{us:8.2f}" for name, us in result["us_per_body_step"].items())
    if result.get("agreement"):
        lines.append("\nagreement with the real engines after 600 steps (largest |Δq|, |Δω|/|ω|):")
        lines.extend(f"  {key:<45}{value:.1e}" for key, value in result["agreement"].items())
    return "\n".join(lines)
