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

from scene.scene_file import SceneSpec
from scene.simulation import Simulation
from scene.trace import TraceWriter
from sim.exact import TorqueFreeSolution
from sim.quaternion import quat_conj, quat_mul

__all__ = ["BodySummary", "run_scene", "step_count", "orientation_error"]


@dataclass(frozen=True)
class BodySummary:
    """One body's figures after a run; ``None`` where a measure does not apply (e.g. |ΔL| under torque)."""

    body: str
    integrator: str
    energy_error: float
    momentum_error: float | None
    orientation_error: float | None
    newton_per_step: float
    max_substeps: int
    wall_seconds: float


def step_count(duration: float, h: float) -> int:
    """The number of steps of ``h`` in ``duration`` (rounded to the nearest whole step, at least one)."""
    return max(1, round(duration / h))


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
    simulation = Simulation(scene, integrator=integrator, h=h, gyroscopic=gyroscopic)
    steps = step_count(duration, h)
    start = simulation.snapshot()
    start_energy = start.energy + simulation.potential_energy()
    references = _exact_references(simulation, start)
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
                trace.write(simulation.t, simulation.names, now.q, now.omega_world, now.L_world, now.energy)
            if progress is not None:
                progress(index + 1, steps)
    wall = time.perf_counter() - wall_start

    end = simulation.snapshot()
    energy_error = np.abs((end.energy + simulation.potential_energy()) - start_energy) / np.abs(start_energy)
    momentum_error = np.linalg.norm(end.L_world - start.L_world, axis=-1) / np.linalg.norm(start.L_world, axis=-1)
    summaries = []
    for i, name in enumerate(simulation.names):
        reference = references[i]
        torque_free = reference is not None
        summaries.append(
            BodySummary(
                body=name,
                integrator=simulation.body_integrators[i] or "kinematic",
                energy_error=float(energy_error[i]) if start_energy[i] != 0 else math.nan,
                momentum_error=float(momentum_error[i]) if torque_free else None,
                orientation_error=_final_orientation_error(end, i, reference),
                newton_per_step=float(iterations[i] / steps),
                max_substeps=int(substeps[i]),
                wall_seconds=wall,
            )
        )
    return summaries


def _final_orientation_error(end, i: int, reference: TorqueFreeSolution | None) -> float | None:
    if reference is None:
        return None
    q_exact = reference.orientation(np.array([end.t]))
    return float(orientation_error(end.q[i : i + 1], q_exact.reshape(1, 4))[0])


def _exact_references(simulation: Simulation, start) -> list[TorqueFreeSolution | None]:
    """The closed-form solution for each torque-free dynamic body (file order); ``None`` for the others.

    Gravity exerts no torque about the centre of mass, so only pivoted bodies under gravity have torque. A body
    integrated with the gyroscopic term off is still compared with the true motion: that is the point.
    """
    has_gravity = bool(np.any(simulation.scene.gravity != 0.0))
    references: list[TorqueFreeSolution | None] = []
    for i, body in enumerate(simulation.scene.bodies):
        if body.kinematic or np.allclose(start.omega_world[i], 0.0) or (body.pivot is not None and has_gravity):
            references.append(None)
            continue
        inertia = body.inertia_body
        references.append(TorqueFreeSolution.from_state(inertia, start.q[i], start.omega_world[i]))
    return references


class _maybe_trace:
    """``with _maybe_trace(path) as trace``: a TraceWriter, or None when there is no path."""

    def __init__(self, path: Path | None) -> None:
        self._writer = None if path is None else TraceWriter(path)

    def __enter__(self) -> TraceWriter | None:
        return None if self._writer is None else self._writer.__enter__()

    def __exit__(self, *exc_info) -> None:
        if self._writer is not None:
            self._writer.__exit__(*exc_info)
