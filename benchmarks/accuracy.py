"""Accuracy against cost on the T-handle, for every integrator in ``INTEGRATORS`` and for MuJoCo's when installed.

The body is seed 003's T-handle: principal moments (2.5, 1.4, 1.3) kg m², identity orientation, body ω
(0.05, 5, 0.05) rad/s (near the unstable intermediate axis: it flips every 9.7 s), torque-free, gyroscopic term on.
It is stepped at h = 1/2 … 1/2000 s (eleven steps) for 60 s (``quick``: 1/60 and 1/240 s for 20 s), one body, and
measured against the closed form (:class:`sim.exact.TorqueFreeSolution`):

- ``energy_error``: max over the run of ``|E/E₀ − 1|`` (scene/model/measures.py, without torque); ``momentum_error``:
  max of ``|L − L₀|/|L₀|`` (world);
- ``orientation_error``: the angle (rad) between the final orientation and the exact one;
- ``flips`` and ``flips_exact``: sign changes of the body rate ``Ω_y`` at the step times, run and closed form;
- ``us_per_body_step``: µs per body per step in a batch of ``COST_BODIES`` such handles (random orientations,
  rates perturbed by 0.1 rad/s), the best of ``repeats`` chained runs; ``us_per_step_one_body``: the one-body run's
  own time per step (Python call overhead included). The exact stepper's batch is ``EXACT_COST_BODIES`` bodies:
  set when it looped over bodies in Python, kept so that the tables in docs/accuracy.md stay comparable; it is
  batched now (sim/torque_free_rows.py; its cost by batch size: benchmarks/exact_step.py).

MuJoCo (optional: ``pip install mujoco``) steps the same body as a free joint with ``diaginertia`` and no gravity
(``qpos[3:7]`` is the (w, x, y, z) orientation, body → world; ``qvel[3:6]`` the body-frame ω) with its ``Euler``,
``implicit``, ``implicitfast`` and ``RK4`` integrators; its batch is one model of ``COST_BODIES`` free bodies.

The heavy symmetric top under gravity (:mod:`benchmarks.heavy_top_accuracy`: every integrator that takes a torque
and MuJoCo's on a ball joint, against the Lagrange top's closed form) is measured in the same run, at h = 1/30 …
1/1920 s (``HEAVY_TOP_STEPS``); its result is the ``heavy_top`` entry, its table follows the T-handle's and its
plot is ``docs/images/accuracy_heavy_top.png``. The methods are the maths' (``METHODS``) and the rotations about the
principal axes (``AXES``); the engines' steps are benchmarks/engines.py's.

Work–precision (:mod:`benchmarks.work_precision`, the ``equal_error`` entry): for both bodies, at orientation errors
1e-2 … 1e-12 rad, the cheapest spinlab method's work (µs per body per simulated second in the batch, interpolated
in log–log between steps) against MuJoCo RK4's, and the methods whose error rises as h shrinks (none, since the
orientation is carried as a double-double: sim/integrators/state.py ``BodyState.q_low``). Beside it, the float64
floor of this run (``rounding_floor``, :func:`_rounding_floor`: the closed form re-solved every step at
``FLOOR_STEPS`` from a float64 state), which those methods now get below.

Targets, at h = 1/60 s: an integrator of ours beats MuJoCo's RK4 on energy, momentum and orientation
error at no more than twice its cost per body-step; the implicit midpoint rule's energy error is at least 1000×
smaller than MuJoCo's implicit integrator's. ``python -m spinlab.benchmarks.accuracy [--quick] [--docs]`` prints the
table; ``--docs`` also writes ``docs/accuracy.md`` and the error-versus-cost plot ``docs/images/accuracy.png`` (the plot
needs matplotlib and is skipped without it).
"""

from __future__ import annotations

import pathlib
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from spinlab import checkout_folder
from spinlab.benchmarks import heavy_top_accuracy, work_precision
from spinlab.benchmarks.engine_peers import import_mujoco
from spinlab.benchmarks.figures import pyplot, save_figure
from spinlab.benchmarks.timing import best_seconds_per_call
from spinlab.scene.files.atomic_file import write_atomically
from spinlab.scene.model.measures import energy_error, energy_scale, momentum_error, orientation_error
from spinlab.sim.errors import NumericalError
from spinlab.sim.exact import TorqueFreeSolution
from spinlab.sim.integrators import AXES, INTEGRATORS, METHODS
from spinlab.sim.integrators.state import BodyParams, BodyState, rotational_energy
from spinlab.sim.quaternion import quat_conj, quat_identity, quat_rotate

__all__ = ["run", "format_table", "write_docs", "write_plot", "ours_cost_us", "mujoco_cost_us", "MUJOCO_INTEGRATORS"]

MOMENTS = (2.5, 1.4, 1.3)  # kg m²
OMEGA_BODY = (0.05, 5.0, 0.05)  # rad/s
# From 1/2 s, where MuJoCo RK4's error is ~1e-1 and the axes splittings' (which take the fast spin exactly) 1e-2 …
# 1e-7, so the equal-error comparison from 1e-4 down has curves that cross it rather than all bounded by their
# coarsest step.
STEPS = (1 / 2, 1 / 4, 1 / 8, 1 / 15, 1 / 30, 1 / 60, 1 / 120, 1 / 240, 1 / 480, 1 / 1000, 1 / 2000)
# The float64 floor (:func:`_rounding_floor`): the closed form solved afresh every step, a slow step,
# at these steps.
FLOOR_STEPS = (1 / 8, 1 / 15, 1 / 30, 1 / 60, 1 / 120)
DURATION = 60.0
TARGET_H = 1.0 / 60.0  # the step the targets (module docstring) are judged at
HEAVY_TOP_STEPS = tuple(1.0 / (30.0 * 2**k) for k in range(7))  # 1/30 … 1/1920 s: RK4 down to ~1e-10 rad
MEASURED = METHODS + AXES  # the engines' steps: benchmarks/engines.py
STEPS_QUICK, DURATION_QUICK = (1.0 / 60.0, 1.0 / 240.0), 20.0
COST_BODIES, EXACT_COST_BODIES = 1000, 10
MUJOCO_INTEGRATORS = ("Euler", "implicit", "implicitfast", "RK4")
TARGET_COST_RATIO, TARGET_ENERGY_RATIO = 2.0, 1000.0
SEED = 2024
_SECONDS_PER_REPEAT = 0.1
_MEASURE_KEYS = ("energy_error", "momentum_error", "orientation_error", "flips", "flips_exact", "us_per_body_step",
                 "us_per_step_one_body", "newton_iterations_per_step")  # fmt: skip


def _sign_changes(y: np.ndarray) -> int:
    return int(np.count_nonzero(np.diff(np.sign(y)) != 0))


def _measures(q, omega_body, energy, L_world, times: np.ndarray, exact: TorqueFreeSolution) -> dict:
    """Errors of a run from its orientations ``(T, 4)``, body rates ``(T, 3)``, energies ``(T,)`` and world momenta
    ``(T, 3)`` at ``times`` (``times[0] = 0``)."""
    q_exact = exact.orientation(times[-1:])[0]
    return {
        "energy_error": float(np.abs(energy_error(energy, energy[0], energy_scale(energy[0], 0.0))).max()),
        "momentum_error": float(momentum_error(L_world, L_world[0]).max()),
        "orientation_error": float(orientation_error(q[-1], q_exact)),
        "flips": _sign_changes(omega_body[:, 1]),
        "flips_exact": _sign_changes(exact.omega_body(times)[:, 1]),
    }


def _best_seconds(advance: Callable[[], Any], repeats: int, clock: Callable[[], float] = time.perf_counter) -> float:
    """Best seconds per call of ``advance`` over ``repeats`` chained runs (one warm-up call first), by ``clock``."""
    advance()
    begin = time.perf_counter()
    advance()
    calls = max(1, min(20_000, int(_SECONDS_PER_REPEAT / max(time.perf_counter() - begin, 1e-7))))
    return best_seconds_per_call(advance, repeats, calls, clock)


def _batch(n_bodies: int) -> tuple[np.ndarray, np.ndarray]:
    """Random orientations ``(n, 4)`` and body rates ``(n, 3)`` near the T-handle's."""
    rng = np.random.default_rng(SEED + n_bodies)
    q = rng.normal(size=(n_bodies, 4))
    return q / np.linalg.norm(q, axis=-1, keepdims=True), np.array(OMEGA_BODY) + 0.1 * rng.normal(size=(n_bodies, 3))


def _ours(name: str, h: float, n_steps: int, times: np.ndarray, exact, repeats: int) -> dict:
    step = INTEGRATORS[name]
    inertia = np.diag(MOMENTS)[None]
    state = BodyState.from_omega_body(quat_identity((1,)), np.array([OMEGA_BODY]), inertia)
    params = BodyParams.from_inertia(inertia)
    q, omega_world, L_world = np.empty((n_steps + 1, 4)), np.empty((n_steps + 1, 3)), np.empty((n_steps + 1, 3))
    q[0], omega_world[0], L_world[0] = state.q[0], state.omega_world[0], state.L_world[0]
    iterations = 0
    step(state, params, h)  # compiles the kernels on first use
    begin = time.perf_counter()
    for k in range(1, n_steps + 1):
        state, cost = step(state, params, h)
        q[k], omega_world[k], L_world[k] = state.q[0], state.omega_world[0], state.L_world[0]
        iterations += int(cost.newton_iterations[0])
    one_body = (time.perf_counter() - begin) / n_steps
    # The state's own L and E = ½ ω·L: a method that carries L exactly shows a zero momentum error.
    energy = rotational_energy(omega_world, L_world)
    row = _measures(q, quat_rotate(quat_conj(q), omega_world), energy, L_world, times, exact)
    return row | {"us_per_body_step": ours_cost_us(name, h, repeats), "us_per_step_one_body": one_body * 1e6,
                  "newton_iterations_per_step": iterations / n_steps}  # fmt: skip


def ours_cost_us(name: str, h: float, repeats: int, clock: Callable[[], float] = time.perf_counter) -> float:
    """µs per body-step of spinlab's ``name`` over a batch of T-handles (``EXACT_COST_BODIES`` for ``exact``,
    else ``COST_BODIES``), the best of ``repeats``, by ``clock`` (wall time unless said)."""
    step = INTEGRATORS[name]
    n_bodies = EXACT_COST_BODIES if name == "exact" else COST_BODIES
    q_batch, omega_batch = _batch(n_bodies)
    batch_inertia = np.broadcast_to(np.diag(MOMENTS), (n_bodies, 3, 3))
    batch = [BodyState.from_omega_body(q_batch, omega_batch, batch_inertia), BodyParams.from_inertia(batch_inertia)]

    def advance() -> None:
        batch[0] = step(batch[0], batch[1], h)[0]

    return _best_seconds(advance, repeats, clock) / n_bodies * 1e6


def _rounding_floor(h: float, n_steps: int, exact: TorqueFreeSolution) -> float:
    """Final orientation error (rad) of the T-handle stepped by its own closed form, re-solved at every step from the
    float64 state the step before left (``Ω = I⁻¹ Oᵀ L``, ``L`` fixed, ``q`` normalised): a step with no truncation
    error at all, so what it shows is float64 rounding, amplified by the flips. The ``exact`` integrator does not
    show it: it samples one solution from the start (sim/integrators/exact.py)."""
    inertia = np.diag(MOMENTS)
    q = quat_identity()
    L_world = inertia @ np.array(OMEGA_BODY)
    at_h = np.array([h])
    for _ in range(n_steps):
        omega_body = quat_rotate(quat_conj(q), L_world) / np.array(MOMENTS)
        q = TorqueFreeSolution.from_body_state(inertia, q, omega_body).orientation(at_h)[0]
        q = q / np.linalg.norm(q)
    return float(orientation_error(q, exact.orientation(np.array([n_steps * h]))[0]))


def _mujoco_model(mujoco, n_bodies: int, integrator: str, h: float):
    body = '<body><freejoint/><inertial pos="0 0 0" mass="1" diaginertia="{} {} {}"/></body>'.format(*MOMENTS)
    return mujoco.MjModel.from_xml_string(
        f'<mujoco><option timestep="{h!r}" gravity="0 0 0" integrator="{integrator}"/>'
        f"<worldbody>{body * n_bodies}</worldbody></mujoco>"
    )


def _mujoco(mujoco, integrator: str, h: float, n_steps: int, times: np.ndarray, exact, repeats: int) -> dict:
    model = _mujoco_model(mujoco, 1, integrator, h)
    data = mujoco.MjData(model)
    data.qpos[3:7], data.qvel[3:6] = quat_identity(), OMEGA_BODY
    q, omega_body = np.empty((n_steps + 1, 4)), np.empty((n_steps + 1, 3))
    q[0], omega_body[0] = data.qpos[3:7], data.qvel[3:6]
    begin = time.perf_counter()
    for k in range(1, n_steps + 1):
        mujoco.mj_step(model, data)
        q[k], omega_body[k] = data.qpos[3:7], data.qvel[3:6]
    one_body = (time.perf_counter() - begin) / n_steps
    moments = np.array(MOMENTS)
    energy, L_world = 0.5 * np.sum(moments * omega_body**2, axis=-1), quat_rotate(q, moments * omega_body)
    cost = mujoco_cost_us(mujoco, integrator, h, repeats)
    return _measures(q, omega_body, energy, L_world, times, exact) | {
        "us_per_body_step": cost, "us_per_step_one_body": one_body * 1e6}  # fmt: skip


def mujoco_cost_us(mujoco, integrator: str, h: float, repeats: int, clock: Callable[[], float] = time.perf_counter):
    """µs per body-step of MuJoCo's ``integrator`` over one model of ``COST_BODIES`` free T-handles, by ``clock``."""
    batch_model = _mujoco_model(mujoco, COST_BODIES, integrator, h)
    batch_data = mujoco.MjData(batch_model)
    q_batch, omega_batch = _batch(COST_BODIES)
    batch_data.qpos.reshape(COST_BODIES, 7)[:, 3:] = q_batch
    batch_data.qvel.reshape(COST_BODIES, 6)[:, 3:] = omega_batch
    return _best_seconds(lambda: mujoco.mj_step(batch_model, batch_data), repeats, clock) / COST_BODIES * 1e6


def _targets(rows: list[dict], h: float) -> dict:
    at = {(r["source"], r["integrator"]): r for r in rows if r["h"] == h and r.get("failed") is None}
    rk4, implicit = at.get(("mujoco", "RK4")), at.get(("mujoco", "implicit"))
    if rk4 is None or implicit is None:
        return {"h": h, "cost_ratio_to_rk4": {}, "beats_rk4": [], "beats_rk4_met": None,
                "midpoint_energy_ratio": None, "midpoint_met": None}  # fmt: skip
    keys = ("energy_error", "momentum_error", "orientation_error")
    # Every integrator of ours with smaller errors than RK4 on all three counts, and its cost relative to RK4's.
    cost_ratio = {name: r["us_per_body_step"] / rk4["us_per_body_step"] for (source, name), r in at.items()
                  if source == "spinlab" and all(r[k] < rk4[k] for k in keys)}  # fmt: skip
    beats = [name for name, ratio in cost_ratio.items() if ratio <= TARGET_COST_RATIO]
    ratio = implicit["energy_error"] / at[("spinlab", "implicit_midpoint")]["energy_error"]
    return {"h": h, "cost_ratio_to_rk4": cost_ratio, "beats_rk4": beats, "beats_rk4_met": bool(beats),
            "midpoint_energy_ratio": ratio, "midpoint_met": bool(ratio >= TARGET_ENERGY_RATIO)}  # fmt: skip


def run(quick: bool, *, progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Run the benchmark. JSON-serialisable result: ``{"name", "quick", "duration", "steps", "moments",
    "omega_body", "cost_bodies", "mujoco" (version or None), "rows": [{"source", "integrator", "h", the measures
    of the module docstring}], "targets": {...}, "heavy_top": {...} (:func:`benchmarks.heavy_top_accuracy.run`)}``."""
    report = progress if progress is not None else (lambda message: None)
    steps, duration = (STEPS_QUICK, DURATION_QUICK) if quick else (STEPS, DURATION)
    repeats = 2 if quick else 5
    exact = TorqueFreeSolution.from_body_state(np.diag(MOMENTS), quat_identity(), OMEGA_BODY)
    mujoco = import_mujoco()
    rows: list[dict[str, Any]] = []
    for h in steps:
        n_steps = round(duration / h)
        times = h * np.arange(n_steps + 1)
        for name in MEASURED:
            report(f"{name} h={h:.6g} ...")
            try:
                measured = _ours(name, h, n_steps, times, exact, repeats)
            except NumericalError as error:  # a method that diverges at this step (euler_body at 1/30)
                measured = dict.fromkeys(_MEASURE_KEYS) | {"failed": str(error)}
            rows.append({"source": "spinlab", "integrator": name, "h": h} | measured)
        for integrator in MUJOCO_INTEGRATORS if mujoco is not None else ():
            report(f"mujoco {integrator} h={h:.6g} ...")
            measured = _mujoco(mujoco, integrator, h, n_steps, times, exact, repeats)
            rows.append({"source": "mujoco", "integrator": integrator, "h": h} | measured)
    floor = []
    for h in () if quick else FLOOR_STEPS:
        report(f"rounding floor h={h:.6g} ...")
        floor.append({"h": h, "orientation_error": _rounding_floor(h, round(duration / h), exact)})
    heavy_top = heavy_top_accuracy.run(quick, time_call=_best_seconds, repeats=1 if quick else repeats,
                                       progress=report, steps=None if quick else HEAVY_TOP_STEPS,
                                       integrators=tuple(name for name in MEASURED if name != "exact"))  # fmt: skip
    equal_error = {body: {"table": work_precision.equal_error(measured), "rises": work_precision.error_rises(measured)}
                   for body, measured in (("t_handle", rows), ("heavy_top", heavy_top["rows"]))}  # fmt: skip
    return {"name": "accuracy", "quick": quick, "duration": duration, "steps": list(steps), "moments": MOMENTS,
            "omega_body": OMEGA_BODY, "cost_bodies": COST_BODIES, "exact_cost_bodies": EXACT_COST_BODIES,
            "mujoco": None if mujoco is None else mujoco.__version__, "rows": rows,
            "targets": _targets(rows, TARGET_H if TARGET_H in steps else steps[0]), "heavy_top": heavy_top,
            "equal_error": equal_error, "rounding_floor": floor}  # fmt: skip


def format_table(result: dict[str, Any]) -> str:
    """The T-handle's markdown table, one row per integrator and step, then its targets; then the heavy top's."""
    tables = [_format_t_handle(result)]
    if "heavy_top" in result:  # results written before the heavy top joined the benchmark have none
        tables.append(heavy_top_accuracy.format_table(result["heavy_top"]))
    if "equal_error" in result:  # nor the work–precision comparison, in older results
        tables.append(format_equal_error(result))
    return "\n\n".join(tables)


HEAVY_TOP_FLOOR = (
    "Below ~1e-11 rad the heavy top's errors are rounding, and how they grow with the number of steps depends on "
    "the machine: on the one that ran this, axes8's error stays between 1e-14 and 2.5e-12 rad for h = 1/120 … "
    "1/30720 (5 s; runs at h and h/2 part by ≤ 1.7e-12 rad), where another x86-64 machine measured it (runs "
    "compared with each other) rising 3.4e-12 → 9.5e-12 → 1.6e-11 rad as h halved. The orientation is a "
    "double-double (q + q_low) but the angular momentum is plain float64, rounded at every kick of the torque: one "
    "ulp of relative noise added to L each step here gives 5.4e-12, 1.2e-11, 2.2e-11, 4.5e-11 rad at h = 1/240 … "
    "1/1920, an error of that size and trend. A rise there is the number of steps, not the method. L's rounding is "
    "most of what is left here too: with L carried as L + L_low (an experiment on the step's numpy path, the kicks "
    "summed apart and added by a two-sum), axes8's error at h = 1/240, 1/480, 1/960, 1/1920 goes from 4.3e-13, "
    "5.5e-14, 7.1e-13, 3.6e-13 to 4.0e-14, 4.6e-14, 4.3e-14, 4.4e-14 rad; the compiled step does not carry L_low."
)
"""What the heavy top's equal-error table says of the errors near the rounding floor (docs/accuracy.md)."""

RATIO_SPREAD = (
    "The ratios against MuJoCo RK4 are the machine's that ran the benchmark, its costs' ratio: another x86-64 "
    "machine measured 10–105× for the torque-free ratios one run here put at 21–179× (1e-4 … 1e-10 rad). Below each "
    "table, when benchmarks/cost_spread.py wrote this page, the same ratios over several passes of one run at the "
    "loads they saw, by CPU time and by wall time, each with its spread."
)
"""How far the equal-error ratios move from one machine to another (docs/accuracy.md)."""


def format_equal_error(result: dict[str, Any], spread: dict[str, str] | None = None) -> str:
    """The work–precision tables (:mod:`benchmarks.work_precision`), torque-free then under gravity; after each, the
    body's table of ``spread`` when given (benchmarks/cost_spread.py: the ratios over several passes and loads)."""
    parts = []
    for body, title in (("t_handle", "Torque-free (T-handle)"), ("heavy_top", "Under gravity (heavy top)")):
        entry = result["equal_error"][body]
        parts.append(f"{title}, at equal orientation error:\n\n"
                     + work_precision.format_equal_error(entry["table"], entry["rises"], "MuJoCo RK4"))  # fmt: skip
        if body == "t_handle" and result.get("rounding_floor"):  # older results have no floor
            errors = ", ".join(
                f"{r['orientation_error']:.2g} at 1/{1.0 / r['h']:.0f}" for r in result["rounding_floor"]
            )
            parts[-1] += (f" For scale, the float64 floor: the closed form itself, re-solved every step from the "
                          f"state the step before left in float64 (no truncation error at all), ends {errors} (rad), "
                          f"growing with the number of steps. The axes splittings and the implicit methods get "
                          f"below it: they carry the orientation as a double-double (q + q_low, each step's turn "
                          f"added by compensated summation), so its rounding does not pile up.")  # fmt: skip
        if body == "heavy_top":
            parts[-1] += f" {HEAVY_TOP_FLOOR}"
        if spread and body in spread:
            parts[-1] += f"\n\n{spread[body]}"
    return "\n\n".join(parts)


def _format_t_handle(result: dict[str, Any]) -> str:
    lines = [f"T-handle, moments {result['moments']} kg m², body ω {result['omega_body']} rad/s, torque-free, "
             f"{result['duration']:g} s; cost in a batch of {result['cost_bodies']} bodies "
             f"({result['exact_cost_bodies']} for `exact`) and for one body alone.", "",
             "| integrator | h (s) | energy error | \\|ΔL\\|/\\|L\\| | orientation error (rad) | flips (exact) "
             "| µs/body-step | µs/step, 1 body |", "|---|---|---:|---:|---:|---:|---:|---:|"]  # fmt: skip
    for r in result["rows"]:
        name = r["integrator"] if r["source"] == "spinlab" else f"MuJoCo {r['integrator']}"
        if r.get("failed") is not None:
            lines.append(f"| {name} | 1/{1.0 / r['h']:.0f} | diverged: {r['failed']} | | | | | |")
            continue
        lines.append(f"| {name} | 1/{1.0 / r['h']:.0f} | {r['energy_error']:.2e} | {r['momentum_error']:.2e} | "
                     f"{r['orientation_error']:.2e} | {r['flips']} ({r['flips_exact']}) | "
                     f"{r['us_per_body_step']:.3g} | {r['us_per_step_one_body']:.3g} |")  # fmt: skip
    target = result["targets"]
    if result["mujoco"] is None:
        lines.append("\nMuJoCo is not installed (`pip install mujoco`): its rows and the targets are skipped.")
        return "\n".join(lines)
    h = f"1/{1.0 / target['h']:.0f}"
    beaten = ", ".join(f"{name} at {ratio:.2g}× its cost" for name, ratio in target["cost_ratio_to_rk4"].items())
    lines += ["", f"MuJoCo {result['mujoco']}. Targets at h = {h} s:",
              f"- beats MuJoCo RK4 on energy, momentum and orientation error: {beaten or 'none'}; at ≤ "
              f"{TARGET_COST_RATIO:g}× its cost per body-step: {', '.join(target['beats_rk4']) or 'none'} — "
              f"{'met' if target['beats_rk4_met'] else 'NOT met'};",
              f"- implicit_midpoint's energy error is {target['midpoint_energy_ratio']:.3g}× smaller than MuJoCo "
              f"implicit's (target ≥ {TARGET_ENERGY_RATIO:g}×) — {'met' if target['midpoint_met'] else 'NOT met'}.",
              ]  # fmt: skip
    return "\n".join(lines)


def _plot_line(axes, rows: list[dict], **style: Any) -> None:
    """One integrator's points, cost per simulated second against its orientation and its energy error."""
    cost = [r["us_per_body_step"] / r["h"] for r in rows]
    for axis, key in zip(axes, ("orientation_error", "energy_error"), strict=True):
        axis.loglog(cost, [max(r[key], 1e-17) for r in rows], **style)  # a zero error is drawn at 1e-17


def write_plot(result: dict[str, Any], path: pathlib.Path) -> bool:
    """Log–log plot of final orientation error and energy error against µs per body per simulated second;
    returns False (and writes nothing) when matplotlib is not installed."""
    plt = pyplot()
    if plt is None:
        return False
    figure, axes = plt.subplots(1, 2, figsize=(13, 5.5), layout="constrained")
    colours = plt.get_cmap("tab10")
    for source, marker, linestyle in (("spinlab", "o", "-"), ("mujoco", "s", "--")):
        names = list(dict.fromkeys(r["integrator"] for r in result["rows"] if r["source"] == source))
        for index, name in enumerate(names):
            rows = sorted((r for r in result["rows"] if (r["source"], r["integrator"]) == (source, name)
                           and r.get("failed") is None), key=lambda r: r["h"], reverse=True)  # fmt: skip
            _plot_line(axes, rows, color=colours(index % 10), marker=marker if index < 10 else "D",
                       linestyle=linestyle, label=name if source == "spinlab" else f"MuJoCo {name}")  # fmt: skip
    for axis, title in zip(axes, ("final orientation error (rad)", "max relative energy error"), strict=True):
        axis.set_xlabel("cost: µs per body per simulated second (batch)")
        axis.set_title(
            f"T-handle, {result['duration']:g} s, h = 1/{1.0 / max(result['steps']):.0f} … "
            f"1/{1.0 / min(result['steps']):.0f} s: {title}"
        )
        axis.grid(True, which="both", alpha=0.3)
    axes[1].legend(fontsize=8, ncol=2)
    save_figure(figure, path, dpi=110)
    return True


def write_heavy_top_plot(result: dict[str, Any], path: pathlib.Path) -> bool:
    """The heavy top's two panels (:func:`benchmarks.heavy_top_accuracy.plot`); False without matplotlib."""
    plt = pyplot()
    if plt is None:
        return False
    figure, axes = plt.subplots(1, 2, figsize=(13, 5.5), layout="constrained")
    heavy_top_accuracy.plot(result["heavy_top"], axes)
    axes[1].legend(fontsize=8, ncol=2)
    save_figure(figure, path, dpi=110)
    return True


def write_docs(result: dict[str, Any], root: pathlib.Path | None = None, spread: dict[str, str] | None = None) -> str:
    """Write ``docs/accuracy.md`` (the tables) and ``docs/images/accuracy.png`` and ``accuracy_heavy_top.png`` (the
    plots, if matplotlib is there) in ``root`` (default: the source checkout); ``spread``: the equal-error ratios'
    spread by body (:func:`format_equal_error`; ``python -m spinlab.benchmarks.cost_spread --docs`` passes it)."""
    root = root if root is not None else checkout_folder()
    images = root / "docs" / "images"
    plotted = write_plot(result, images / "accuracy.png") and write_heavy_top_plot(
        result, images / "accuracy_heavy_top.png"
    )
    t_handle, heavy_top = _format_t_handle(result), heavy_top_accuracy.format_table(result["heavy_top"])
    if plotted:
        t_handle = f"![error against cost, T-handle](images/accuracy.png)\n\n{t_handle}"
        heavy_top = f"![error against cost, heavy top](images/accuracy_heavy_top.png)\n\n{heavy_top}"
    text = (
        f"# Accuracy against cost\n\nWritten by `python -m spinlab.benchmarks.accuracy --docs` (see its docstring and "
        f"benchmarks/heavy_top_accuracy.py's for what each column measures). Errors are deterministic on one machine "
        f"(near the rounding floor, below ~1e-11 rad, they move with the CPU and its maths library); the costs "
        f"are wall times on the machine that ran it, and move by tens of percent with its load. In the plots, "
        f"cost is per simulated second (µs per body-step / h), so methods are compared at equal work rather "
        f"than equal h.{'' if plotted else ' (matplotlib is not installed: no plots.)'}\n\n"
        f"## Equal error: the cost of the cheapest method against MuJoCo RK4\n\nWork is µs per body per simulated "
        f"second in a batch (µs per body-step / h), interpolated in log–log between the steps run; '≤' marks a "
        f"target the method's coarsest step already beats (its work there is an upper bound), '—' one never "
        f"reached (benchmarks/work_precision.py). {RATIO_SPREAD}\n\n{format_equal_error(result, spread)}\n\n"
        f"## Torque-free: the T-handle\n\n{t_handle}\n\n## Under torque: the heavy top\n\n{heavy_top}\n"
    )
    (root / "docs").mkdir(exist_ok=True)
    write_atomically(root / "docs" / "accuracy.md", text.encode("utf-8"))
    return "plot written" if plotted else "matplotlib not installed: plot skipped"


if __name__ == "__main__":
    import sys

    arguments = sys.argv[1:]
    outcome = run("--quick" in arguments, progress=lambda message: print(message, file=sys.stderr))
    print(format_table(outcome))
    if "--docs" in arguments:
        print(write_docs(outcome), file=sys.stderr)
