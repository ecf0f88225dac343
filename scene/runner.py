"""Headless runs: step a scene for a duration, write its trace, and measure each body against what must hold.

Per body, a run reports the final relative error of the conserved energy (rotational kinetic energy, plus the
potential energy ``−m g·x`` of a body under gravity), the relative change of world angular momentum ``|ΔL|/|L|``
for torque-free bodies, the orientation error against the closed-form torque-free solution (sim/exact.py) where
one exists, and the Newton iterations and sub-steps the integrator needed.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from scene.limits import MAX_STEPS, MAX_TRACE_ROWS, check_count
from scene.scene_file import SceneSpec
from scene.simulation import Simulation
from scene.trace import TraceWriter
from sim.errors import InputError, NumericalError
from sim.exact import TorqueFreeSolution
from sim.lagrange_top import LagrangeTopSolution, lagrange_top_from_body
from sim.quaternion import quat_conj, quat_mul

__all__ = ["BodySummary", "run_scene", "step_count", "orientation_error", "relative_change", "check_finite"]


@dataclass(frozen=True)
class BodySummary:
    """One body's figures after a run; ``None`` where a measure does not apply (e.g. |ΔL| under torque)."""

    body: str
    integrator: str
    energy_error: float | None
    momentum_error: float | None
    orientation_error: float | None
    newton_per_step: float
    max_substeps: int
    wall_seconds: float
    note: str | None = None


def step_count(duration: float, h: float, *, where: str = "--duration") -> int:
    """The number of steps of ``h`` in ``duration`` (rounded to the nearest whole step, at least one).

    Raises :class:`InputError` naming ``where`` when that is more than :data:`scene.limits.MAX_STEPS` (unless the
    limits are lifted) or more than any count could be (``duration / h`` overflowing).
    """
    with np.errstate(over="ignore"):
        ratio = float(np.float64(duration) / np.float64(h))
    if not math.isfinite(ratio):
        raise InputError(f"gives more steps of h = {h:g} s than can be counted", where=where, value=duration)
    steps = max(1, round(ratio))
    check_count(steps, MAX_STEPS, f"steps of h = {h:g} s", where=where, value=duration)
    return steps


def orientation_error(q: np.ndarray, q_reference: np.ndarray) -> np.ndarray:
    """Angle (rad) of the rotation between two (N, 4) orientations, in [0, π]."""
    difference = quat_mul(quat_conj(q_reference), q)
    return 2.0 * np.arctan2(np.linalg.norm(difference[:, 1:], axis=-1), np.abs(difference[:, 0]))


def run_scene(
    scene: SceneSpec,
    *,
    integrator: str | None,
    h: float,
    duration: float,
    gyroscopic: bool = True,
    trace_path: Path | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[BodySummary]:
    """Step ``scene`` for ``duration`` s in steps of ``h``; write the trace (atomically) if ``trace_path`` is given.

    ``integrator`` overrides every body's (``None`` keeps the scene's). Raises :class:`sim.errors.NumericalError`
    when a step fails; no trace file is left behind then.
    """
    steps = step_count(duration, h)
    if trace_path is not None:
        rows = (steps + 1) * len(scene.bodies)
        check_count(rows, MAX_TRACE_ROWS, "rows of trace (steps + 1) × bodies", where=str(trace_path))
    simulation = Simulation(scene, integrator=integrator, h=h, gyroscopic=gyroscopic)
    start = simulation.snapshot()
    start_energy = start.energy + simulation.potential_energy()
    check_finite(simulation, start, start_energy)
    references, reference_notes = _exact_references(simulation, start)
    iterations = np.zeros(len(simulation.names), dtype=np.int64)
    substeps = np.ones(len(simulation.names), dtype=np.int64)

    wall_start = time.perf_counter()
    with _maybe_trace(trace_path) as trace:
        if trace is not None:
            trace.write(0.0, simulation.names, start.q, start.omega_world, start.L_world, start.energy)
        for index in range(steps):
            cost = simulation.step()
            iterations += cost.newton_iterations
            np.maximum(substeps, cost.substeps, out=substeps)
            if trace is not None:
                now = simulation.snapshot()
                check_finite(simulation, now)
                trace.write(simulation.t, simulation.names, now.q, now.omega_world, now.L_world, now.energy)
            if progress is not None:
                progress(index + 1, steps)
        end = simulation.snapshot()
        end_energy = end.energy + simulation.potential_energy()
        check_finite(simulation, end, end_energy)
    wall = time.perf_counter() - wall_start

    energy_error = relative_change(end_energy, start_energy)
    momentum_error = relative_change(end.L_world, start.L_world)
    summaries = []
    for i, name in enumerate(simulation.names):
        reference = references[i]
        body = simulation.scene.bodies[i]
        torque_free = not simulation.scene.under_torque(body) and (reference is not None or name in reference_notes)
        summaries.append(
            BodySummary(
                body=name,
                integrator=simulation.body_integrators[i] or "kinematic",
                energy_error=energy_error[i],
                momentum_error=momentum_error[i] if torque_free else None,
                orientation_error=_final_orientation_error(end, i, reference),
                newton_per_step=float(iterations[i] / steps),
                max_substeps=int(substeps[i]),
                wall_seconds=wall,
                note=reference_notes.get(name),
            )
        )
    return summaries


def relative_change(end: np.ndarray, start: np.ndarray) -> list[float | None]:
    """Per body, ``|end − start| / |start|`` (rows of vectors compared by their norms); ``None`` where ``start``
    is zero (a body at rest has no relative error), computed without overflow (each row scaled first)."""
    end, start = np.asarray(end, dtype=float), np.asarray(start, dtype=float)
    if start.ndim == 1:
        end, start = end[:, None], start[:, None]
    scale = np.max(np.abs(start), axis=-1, keepdims=True)
    safe = np.where(scale > 0.0, scale, 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):  # rows at rest give None below
        change = np.linalg.norm((end - start) / safe, axis=-1) / np.linalg.norm(start / safe, axis=-1)
    return [float(value) if size > 0.0 else None for value, size in zip(change, scale[:, 0], strict=True)]


def check_finite(simulation: Simulation, snapshot, energy: np.ndarray | None = None) -> None:
    """Raise :class:`NumericalError` (time, body, integrator, reason) when a value about to be written or reported
    is not finite: a state that overflowed, a kinematic body's energy, an energy beyond float64's range."""
    fields = {
        "orientation": snapshot.q,
        "angular velocity": snapshot.omega_world,
        "angular momentum": snapshot.L_world,
        "energy": snapshot.energy if energy is None else np.stack([snapshot.energy, energy], axis=-1),
        "position": snapshot.position,
    }
    for what, values in fields.items():
        finite = np.isfinite(values).reshape(len(simulation.names), -1).all(axis=-1)
        if not finite.all():
            i = int(np.flatnonzero(~finite)[0])
            integrator = simulation.body_integrators[i] or "kinematic"
            raise NumericalError(
                f"at t = {snapshot.t:.6g} s, body '{simulation.names[i]}' ({integrator}): its {what} is not finite "
                f"(it overflowed float64)",
                bodies=np.array([i]),
            )


def _final_orientation_error(end, i: int, reference) -> float | None:
    if reference is None:
        return None
    with np.errstate(all="ignore"):
        q_exact = reference.orientation(np.array([end.t]))
        error = float(orientation_error(end.q[i : i + 1], q_exact.reshape(1, 4))[0])
    return error if math.isfinite(error) else None


def _exact_references(simulation: Simulation, start) -> tuple[list, dict[str, str]]:
    """The closed-form solution for each torque-free dynamic body and each symmetric heavy top about a fixed
    pivot (file order); ``None`` for the others. With it, a note per torque-free body whose state the closed form
    cannot take (its case analysis overflows).

    Gravity exerts no torque about the centre of mass, so only pivoted bodies under gravity have torque. A body
    integrated with the gyroscopic term off is still compared with the true motion: that is the point.
    """
    scene = simulation.scene
    references: list[TorqueFreeSolution | LagrangeTopSolution | None] = []
    notes: dict[str, str] = {}
    for i, body in enumerate(scene.bodies):
        if scene.under_torque(body) and body.parent is None:
            # A symmetric heavy top has a closed form too (sim/lagrange_top.py); another torque has none.
            with np.errstate(all="ignore"):
                references.append(
                    lagrange_top_from_body(
                        body.inertia_body, body.mass, -body.pivot, scene.gravity, start.q[i], start.omega_world[i]
                    )
                )
            continue
        if body.kinematic or np.allclose(start.omega_world[i], 0.0) or scene.under_torque(body):
            references.append(None)
            continue
        try:
            with np.errstate(all="raise"):
                reference = TorqueFreeSolution.from_state(body.inertia_body, start.q[i], start.omega_world[i])
                if not np.all(np.isfinite(reference.orientation(np.zeros(1)))):
                    raise FloatingPointError("non-finite orientation")
        except (ArithmeticError, ValueError):
            references.append(None)
            notes[body.name] = "no exact reference: the closed form overflows for this state"
            continue
        references.append(reference)
    return references, notes


class _maybe_trace:
    """``with _maybe_trace(path) as trace``: a TraceWriter, or None when there is no path."""

    def __init__(self, path: Path | None) -> None:
        self._writer = None if path is None else TraceWriter(path)

    def __enter__(self) -> TraceWriter | None:
        return None if self._writer is None else self._writer.__enter__()

    def __exit__(self, *exc_info) -> None:
        if self._writer is not None:
            self._writer.__exit__(*exc_info)
