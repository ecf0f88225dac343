"""Accuracy against cost on the heavy symmetric top, for spinlab's integrators under torque and MuJoCo's.

The body is the ``heavy_top`` preset: a disc on a massless stem, inertia (0.4233, 0.4233, 0.125) kg m² about its
tip, 1 kg, its centre of mass 0.6 m up the symmetry axis from a fixed pivot, spun at 25 rad/s about that axis and
released 30° from the vertical under g = 9.81 m/s². It is stepped through :class:`sim.world.World` (so each method
gets gravity's torque the way a scene does: the splittings ``split2/4/6`` evaluate ``τ(q)`` at their own stages,
the others hold a torque over the step, taken at a predicted midpoint) at h = 1/60 … 1/480 s for 5 s
(``quick``: 1/120 and 1/240 s for 2 s), and measured against the Lagrange top's closed form
(:mod:`sim.lagrange_top`, itself accurate to ~2e-11 rad):

- ``energy_error``: max over the run of ``|E − E₀|/(|T₀| + |V₀|)`` (scene/model/measures.py), ``E = ½ Ω·I Ω − m g·(O
  c)`` (kinetic about the pivot plus potential with the pivot as reference height; E₀ ≈ 44 J, from the initial state);
- ``orientation_error``: the angle (rad) between the final orientation and the closed form's;
- ``energy_ratio``, ``orientation_ratio``: the error at 2h over the error at h (16 for a 4th-order method, 64 for
  a 6th-order one), where the same method was run at 2h;
- ``us_per_body_step``: µs per body per step in a batch of ``COST_BODIES`` such tops (orientations turned by up to
  ~0.2 rad, rates perturbed by 0.1 rad/s, restarted every run length so a diverging method is timed over the same
  steps), the best of ``repeats`` chained runs; ``us_per_step_one_body``: the one-body run's own time per step.

A method whose run fails (spinlab raises :class:`~sim.errors.NumericalError`) or ends non-finite has ``None`` for
its errors and cost and the time it failed at in ``failed_at``.

The top and spinlab's runs of it are in :mod:`benchmarks.heavy_top_body`, MuJoCo's (optional) in
:mod:`benchmarks.heavy_top_mujoco`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from spinlab.benchmarks.engine_peers import import_mujoco
from spinlab.benchmarks.heavy_top_body import (
    COST_BODIES,
    SCENE,
    HeavyTop,
    TimeCall,
    spinlab_cost,
    spinlab_run,
    top_world,
)
from spinlab.benchmarks.heavy_top_mujoco import MUJOCO_INTEGRATORS, mujoco_cost, mujoco_run
from spinlab.scene.model.measures import energy_error, energy_scale, orientation_error
from spinlab.sim.integrators import METHODS, ORIENTATION_TORQUE
from spinlab.sim.lagrange_top import LagrangeTopSolution

__all__ = ["run", "targets", "format_table", "plot", "GROUPS", "STEPS", "STEPS_QUICK"]

STEPS, DURATION = (1.0 / 60.0, 1.0 / 120.0, 1.0 / 240.0, 1.0 / 480.0), 5.0
STEPS_QUICK, DURATION_QUICK = (1.0 / 120.0, 1.0 / 240.0), 2.0

GROUPS = {
    "splitting": "τ(q) at each stage (splitting: kick and free body)",
    "held": "torque held over the step at a predicted midpoint",
    "mujoco": "MuJoCo, ball joint at the pivot",
}
"""The three kinds of rows, in table order: what each does with the torque."""


def _measures(top: HeavyTop, solution: LagrangeTopSolution, h: float, n_steps: int, q, omega_body) -> dict:
    """The errors of a run (``None`` when it stopped early or ended non-finite, with the time it failed at)."""
    with np.errstate(all="ignore"):
        energy = top.energy(q, omega_body)
        finite = np.isfinite(energy) & np.all(np.isfinite(q), axis=-1)
    if len(q) < n_steps + 1 or not finite.all():
        failed_at = (len(q) if finite.all() else int(np.argmin(finite))) * h
        return {"energy_error": None, "orientation_error": None, "failed_at": failed_at}
    q_exact = solution.orientation(np.array([n_steps * h]))
    kinetic0 = 0.5 * omega_body[0] @ top.inertia_body @ omega_body[0]
    scale = energy_scale(kinetic0, energy[0] - kinetic0)
    return {"energy_error": float(np.abs(energy_error(energy, energy[0], scale)).max()),
            "orientation_error": float(orientation_error(q[-1:], q_exact)[0]), "failed_at": None}  # fmt: skip


def _with_ratios(rows: list[dict]) -> list[dict]:
    """Each row with the error at 2h over its error at h, from the same method's row at 2h (else ``None``)."""
    by_key = {(r["source"], r["integrator"], r["h"]): r for r in rows}
    out = []
    for r in rows:
        coarse = by_key.get((r["source"], r["integrator"], 2.0 * r["h"]))  # exact: h halves by a power of 2
        ratios = {}
        for key in ("energy_error", "orientation_error"):
            fine, big = r[key], None if coarse is None else coarse[key]
            ratios[key.replace("error", "ratio")] = big / fine if fine and big is not None else None
        out.append(r | ratios)
    return out


def run(
    quick: bool,
    *,
    time_call: TimeCall,
    repeats: int,
    progress: Callable[[str], None] | None = None,
    steps: tuple[float, ...] | None = None,
    duration: float | None = None,
    integrators: tuple[str, ...] | None = None,
    mujoco_integrators: tuple[str, ...] = MUJOCO_INTEGRATORS,
) -> dict[str, Any]:
    """Measure every integrator that takes a torque (all but ``exact``; or ``integrators``) and MuJoCo's when
    installed. JSON-serialisable: ``{"scene", "duration", "steps", "cost_bodies", "energy0", "mujoco" (version or
    None), "groups", "rows": [{"source", "integrator", "group", "h", the measures of the module docstring}]}``."""
    report = progress if progress is not None else (lambda message: None)
    steps = steps or (STEPS_QUICK if quick else STEPS)
    duration = duration or (DURATION_QUICK if quick else DURATION)
    if integrators is None:
        integrators = tuple(name for name in METHODS if name != "exact")  # engines: benchmarks/engines.py
    ordered = sorted(integrators, key=lambda name: name not in ORIENTATION_TORQUE)  # the splittings first
    mujoco = import_mujoco()
    top = HeavyTop.load()
    solution = top.solution()
    rows: list[dict[str, Any]] = []
    batch = top_world(top, ordered[0], *top.batch(COST_BODIES))
    for name in ordered:
        group = "splitting" if name in ORIENTATION_TORQUE else "held"
        for h in steps:
            report(f"heavy top: {name} h={h:.6g} ...")
            n_steps = round(duration / h)
            q, omega_body, one_body = spinlab_run(top, name, h, n_steps)
            row = _measures(top, solution, h, n_steps, q, omega_body)
            cost = None if row["failed_at"] is not None else spinlab_cost(batch, name, h, n_steps, time_call, repeats)
            rows.append(
                {"source": "spinlab", "integrator": name, "group": group, "h": h}
                | row
                | {"us_per_body_step": None if cost is None else cost * 1e6, "us_per_step_one_body": one_body * 1e6}
            )
    for name in mujoco_integrators if mujoco is not None else ():
        for h in steps:
            report(f"heavy top: mujoco {name} h={h:.6g} ...")
            n_steps = round(duration / h)
            q, omega_body, one_body = mujoco_run(mujoco, top, name, h, n_steps)
            row = _measures(top, solution, h, n_steps, q, omega_body)
            cost = mujoco_cost(mujoco, top, name, h, n_steps, time_call, repeats)
            rows.append({"source": "mujoco", "integrator": name, "group": "mujoco", "h": h} | row | {
                "us_per_body_step": cost * 1e6, "us_per_step_one_body": one_body * 1e6})  # fmt: skip
    rows = _with_ratios(rows)
    return {"scene": SCENE, "duration": duration, "steps": list(steps), "cost_bodies": COST_BODIES,
            "energy0": float(top.energy(top.q0[None], top.omega_body0[None])[0]),
            "mujoco": None if mujoco is None else mujoco.__version__, "groups": GROUPS,
            "rows": rows, "targets": targets(rows)}  # fmt: skip


def targets(rows: list[dict]) -> dict[str, Any]:
    """The issue's done-criterion from rows with their ratios, per step: which of split4 and split6 beat MuJoCo RK4
    on both energy and orientation error at the same h, and their error ratios 2h : h (16 and 64 expected)."""
    at = {(r["source"], r["integrator"], r["h"]): r for r in rows}
    steps = sorted({h for (_, _, h) in at}, reverse=True)
    beats: dict[str, list[str]] = {}
    for h in steps:
        rk4 = at.get(("mujoco", "RK4", h))
        if rk4 is None or rk4["energy_error"] is None:
            continue
        beats[f"1/{1.0 / h:.0f}"] = [name for name in ("split4", "split6") if (r := at.get(("spinlab", name, h)))
                                     and r["energy_error"] is not None and r["energy_error"] < rk4["energy_error"]
                                     and r["orientation_error"] < rk4["orientation_error"]]  # fmt: skip
    ratios = {name: {f"1/{1.0 / h:.0f}": [at[("spinlab", name, h)][key] for key in ("energy_ratio",
                                                                                 "orientation_ratio")]
                     for h in steps[1:] if ("spinlab", name, h) in at}
              for name in ("split4", "split6")}  # fmt: skip
    return {"beats_rk4": beats, "ratios": ratios}


def _number(x: float | None, spec: str = ".2e") -> str:
    return "—" if x is None else format(x, spec)


def format_table(result: dict[str, Any]) -> str:
    """A markdown table, grouped by what a method does with the torque, one row per integrator and step."""
    lines = [f"Heavy symmetric top (`{result['scene']}`), {result['duration']:g} s, E₀ = {result['energy0']:.4g} J, "
             f"against the Lagrange top's closed form; cost in a batch of {result['cost_bodies']} tops and for one "
             f"alone (through the world). Ratio: the error at 2h over the error at h (16: 4th order, 64: 6th).", "",
             "| integrator | h (s) | energy error | ratio | orientation error (rad) | ratio | µs/body-step "
             "| µs/step, 1 body |", "|---|---|---:|---:|---:|---:|---:|---:|"]  # fmt: skip
    for group, title in result["groups"].items():
        rows = [r for r in result["rows"] if r["group"] == group]
        if rows:
            lines.append(f"| *{title}* | | | | | | | |")
        for r in rows:
            name = r["integrator"] if r["source"] == "spinlab" else f"MuJoCo {r['integrator']}"
            if r["failed_at"] is not None:
                lines.append(f"| {name} | 1/{1.0 / r['h']:.0f} | diverged at t = {r['failed_at']:.3g} s | | | | | "
                             f"{r['us_per_step_one_body']:.3g} |")  # fmt: skip
                continue
            lines.append(f"| {name} | 1/{1.0 / r['h']:.0f} | {_number(r['energy_error'])} | "
                         f"{_number(r['energy_ratio'], '.3g')} | {_number(r['orientation_error'])} | "
                         f"{_number(r['orientation_ratio'], '.3g')} | {_number(r['us_per_body_step'], '.3g')} | "
                         f"{r['us_per_step_one_body']:.3g} |")  # fmt: skip
    if result["mujoco"] is None:
        lines.append("\nMuJoCo is not installed (`pip install mujoco`): its rows and the comparison are skipped.")
        return "\n".join(lines)
    beats = result["targets"]["beats_rk4"]
    ratios = result["targets"]["ratios"]
    lines += [
        "",
        f"MuJoCo {result['mujoco']}. Beat MuJoCo RK4 on energy and orientation error at the same h: "
        + "; ".join(f"h = {h}: {', '.join(names) or 'none'}" for h, names in beats.items())
        + ".",
        "Error ratios 2h : h (energy, orientation): "
        + "; ".join(
            f"{name} " + ", ".join(f"at {h} {_number(e, '.3g')}, {_number(o, '.3g')}" for h, (e, o) in by_h.items())
            for name, by_h in ratios.items()
        )
        + ".",
    ]
    return "\n".join(lines)


def plot(result: dict[str, Any], axes) -> None:
    """Draw orientation error and energy error against µs per body per simulated second on matplotlib ``axes``
    (two): the splittings bold, the held-torque methods dotted, MuJoCo dashed (RK4 in black). Errors above 10 are
    drawn at 10 and a zero at 1e-17."""
    from matplotlib import colormaps

    styles = {"splitting": {"marker": "o", "linestyle": "-", "linewidth": 2.4, "markersize": 7},
              "held": {"marker": ".", "linestyle": ":", "linewidth": 1.3},
              "mujoco": {"marker": "s", "linestyle": "--", "linewidth": 2.0}}  # fmt: skip
    palettes: dict[str, list[Any]]  # colour names and colormap RGBA tuples
    palettes = {"splitting": ["tab:blue", "tab:green", "tab:red", "tab:purple", "tab:orange", "tab:cyan", "tab:pink"],
                "mujoco": ["tab:gray", "tab:olive", "black"],
                "held": [colormaps["tab20b"](i / 20 + 0.025) for i in range(0, 20, 2)]}  # fmt: skip
    keys = list(dict.fromkeys((r["source"], r["integrator"], r["group"]) for r in result["rows"]))
    index_in_group = {key: [k for k in keys if k[2] == key[2]].index(key) for key in keys}
    for key in keys:
        rows = sorted((r for r in result["rows"] if (r["source"], r["integrator"], r["group"]) == key
                       and r["failed_at"] is None
                       and r["us_per_body_step"] is not None), key=lambda r: r["h"], reverse=True)  # fmt: skip
        if not rows:
            continue
        cost = [r["us_per_body_step"] / r["h"] for r in rows]
        label = key[1] if key[0] == "spinlab" else f"MuJoCo {key[1]}"
        for axis, measure in zip(axes, ("orientation_error", "energy_error"), strict=True):
            colour = palettes[key[2]][index_in_group[key] % len(palettes[key[2]])]
            axis.loglog(cost, [min(max(r[measure], 1e-17), 10.0) for r in rows], color=colour, label=label,
                        **styles[key[2]])  # fmt: skip
    steps = f"h = 1/{1.0 / max(result['steps']):.0f} … 1/{1.0 / min(result['steps']):.0f} s"
    for axis, title in zip(axes, ("final orientation error (rad)", "max relative energy error"), strict=True):
        axis.set_xlabel("cost: µs per body per simulated second (batch)")
        axis.set_title(f"heavy top, {result['duration']:g} s, {steps}: {title}")
        axis.grid(True, which="both", alpha=0.3)
