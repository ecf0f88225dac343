"""Headless runs (``run``): a scene stepped for a duration through the run model the window and ``record`` share
(scene/model/run_model.py's :class:`Session`), its trace written as it goes, each body's measures read at the end.

Per body, a run reports the run model's measures at its last step (scene/model/measures.py, as magnitudes, from the
state after the last kick): the relative energy error, the relative change of world angular momentum ``|ΔL|/|L|``
for torque-free bodies, the orientation error against the body's closed-form motion where one exists, and the Newton
iterations and sub-steps the integrator needed. A kinematic body has none of the three: its motion is prescribed.

A scene of several views (one per integrator, as the engines and compare presets) is the window's comparison: a view
that fails or diverges (scene/model/failures.py's one rule) is frozen and the others go on, and ``run`` lists it as
the label does; a body that lost more energy than the threshold is noted as damping, as the label says too.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from spinlab.scene.files.body_table import body_column
from spinlab.scene.files.kick_table import kick_step
from spinlab.scene.files.limits import MAX_STEP_INDEX, MAX_STEPS, MAX_TRACE_ROWS, check_count
from spinlab.scene.files.scene_file import SceneSpec
from spinlab.scene.model.failures import damping_text
from spinlab.scene.model.run_model import Session, Setup, scene_integrators
from spinlab.scene.process.kernels import load_kernels
from spinlab.sim import compiled
from spinlab.sim.errors import InputError, NumericalError
from spinlab.sim.integrators.state import StepCost

if TYPE_CHECKING:
    from spinlab.scene.files.trace import TraceWriter
    from spinlab.scene.running.simulation import Simulation

__all__ = ["BodySummary", "RunSummary", "run_scene", "run_kernels", "step_count", "check_finite", "damping_notes"]


@dataclass(frozen=True)
class RunSummary(Sequence):
    """A run's figures as columns, one entry a body (file order), which ``run``'s table is made from at once (10⁵
    bodies: no object a body); indexed or iterated, a :class:`BodySummary` a body. ``wall_seconds`` is the run's,
    every body's."""

    body: list[str]
    integrator: list[str]
    energy_error: list[float | None]
    momentum_error: list[float | None]
    orientation_error: list[float | None]
    newton_per_step: list[float]
    max_substeps: list[int]
    wall_seconds: float
    note: list[str | None]

    def __len__(self) -> int:
        return len(self.body)

    def __getitem__(self, index):  # an int: one body's row; a slice: a list of them
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        return BodySummary(self.body[index], self.integrator[index], self.energy_error[index],
                           self.momentum_error[index], self.orientation_error[index], self.newton_per_step[index],
                           self.max_substeps[index], self.wall_seconds, self.note[index])  # fmt: skip


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

    Raises :class:`InputError` naming ``where`` when that is more than :data:`scene.files.limits.MAX_STEPS` (unless the
    limits are lifted) or more than any run can take, :data:`scene.files.limits.MAX_STEP_INDEX` (limits lifted or not).
    """
    with np.errstate(over="ignore"):
        ratio = float(np.float64(duration) / np.float64(h))
    if not ratio <= MAX_STEP_INDEX:  # inf too
        raise InputError(
            f"gives more steps of h = {h:g} s than a run can count ({MAX_STEP_INDEX:,}, where t = k h stops being "
            "exact)",
            where=where,
            value=duration,
        )
    steps = max(1, round(ratio))
    check_count(steps, MAX_STEPS, f"steps of h = {h:g} s", where=where, value=duration)
    return steps


def run_scene(
    scene: SceneSpec,
    *,
    integrator: str | None,
    h: float,
    duration: float,
    gyroscopic: bool = True,
    trace_path: Path | None = None,
    progress: Callable[[int, int], None] | None = None,
    failures: list | None = None,
) -> RunSummary:
    """Step ``scene`` for ``duration`` s in steps of ``h``; write the trace (atomically) if ``trace_path`` is given.

    The run is the window's run model (scene/model/run_model.py's :class:`Session`): its steps, kicks, changes and
    measures, the last step measured against the state after the last kick. ``integrator`` overrides every body's
    (``None`` keeps the scene's). A scene of several views freezes a view that fails or diverges, as the window
    does; ``failures``, when given, receives ``(view label, Failure)`` for each. Raises
    :class:`sim.errors.NumericalError` when a step fails otherwise (a run of one view; every view); no trace file is
    left behind then.
    """
    steps = step_count(duration, h)
    if trace_path is not None:
        rows = (steps + 1) * len(scene.bodies)
        check_count(rows, MAX_TRACE_ROWS, "rows of trace (steps + 1) × bodies", where=str(trace_path))
    setup = Setup(scene, scene_integrators(scene, integrator), h=h, gyroscopic=gyroscopic)
    parents = body_column(scene.bodies, "parent")
    nodes = len(parents) - parents.count(None)
    if not _without_numba(scene, setup.integrators, gyroscopic, steps, nodes):
        compiled.load_numba()  # first: the references' sums of many bodies are compiled then (sim/exact_batch.py)
    session = Session(setup, curves=False)  # the table shows the errors alone
    simulation = session.simulation
    start = session.snapshot
    check_finite(simulation, start, session.energy())
    substeps = np.ones(len(simulation.names), dtype=np.int64)
    with run_kernels(session, steps), _maybe_trace(trace_path) as trace:

        def each(cost: StepCost) -> None:
            np.maximum(substeps, cost.substeps, out=substeps)
            if trace is not None:
                now = simulation.snapshot()
                check_finite(simulation, now)
                trace.write(now.t, simulation.names, now.q, now.omega_world, now.L_world, now.energy)
            if progress is not None:
                progress(simulation.step_index, steps)

        if trace is not None:
            trace.write(0.0, simulation.names, start.q, start.omega_world, start.L_world, start.energy)
        report = session.step(steps, each=each, last_only=True)
        if report.error is not None:
            raise NumericalError(report.error)
        if failures is not None:
            failures += [(session.groups[number].label, failure) for number, failure in session.failures.items()]
        check_finite(simulation, session.snapshot, session.energy())
    wall = report.ms_per_step * report.steps / 1e3  # the stepping alone (the kernels are loaded), not the measuring
    sample, plotted, count = session.latest.sample.latest(), session.plotted, len(simulation.names)
    figures = np.full((4, count), np.nan)  # the plotted (dynamic) bodies' measures; NaN: none (kinematic)
    figures[:, plotted] = (sample.energy_error, sample.momentum_error, sample.orientation_error, report.newton_per_step)
    closed_form_notes = np.full(count, None, dtype=object)
    closed_form_notes[plotted] = np.array(session.references.notes, dtype=object)
    notes = _kick_notes(session.scene, h, steps, simulation.names, closed_form_notes.tolist())
    notes = _joined(notes, damping_notes(session))
    energy, momentum, orientation = map(_figures, figures[:3])
    integrators = [name or "kinematic" for name in simulation.body_integrators]
    return RunSummary(list(simulation.names), integrators, energy, momentum, orientation,
                      np.nan_to_num(figures[3]).tolist(), substeps.tolist(), wall, notes)  # fmt: skip


def run_kernels(session: Session, steps: int) -> contextlib.AbstractContextManager[None]:
    """What ``session``'s ``steps`` steps run on: the kernels' bits without numba, never imported, when that is
    cheaper (:func:`sim.compiled.steps_without_numba`; the trace's bytes are those of the compiled path), else the
    compiled kernels, loaded here."""
    scene, simulation = session.scene, session.simulation
    nodes = int(np.count_nonzero(simulation.graph.parent >= 0))
    if _without_numba(scene, simulation.integrators, session.setup.gyroscopic, steps, nodes):
        return compiled.gated(stand_in="twin")
    load_kernels(scene, dict.fromkeys(name for name in simulation.integrators if name is not None))
    return contextlib.nullcontext()


def _without_numba(scene: SceneSpec, integrators, gyroscopic: bool, steps: int, nodes: int) -> bool:
    """Whether ``steps`` steps of ``scene``'s bodies with ``integrators`` (one a body) and ``nodes`` nodes with a
    parent take the kernels' bits without numba (:func:`run_kernels`)."""
    # A change may switch the term off mid-run (scene/running/changes.py): numba then, as for a run without it.
    without_term = not gyroscopic or any(not change.gyroscopic for change in scene.changes)
    return compiled.steps_without_numba(integrators, steps, gyroscopic=not without_term, graph_nodes=nodes)


def _kick_notes(scene: SceneSpec, h: float, steps: int, names: list[str], notes: list) -> list[str | None]:
    """``notes`` (one a body of ``names``) with, for each body kicked within the run, a word that its errors are
    measured from the state just after the run's last kick (scene/running/kicks.py: a kick changes L and E by
    design). Counted in one pass over the kicks."""
    landed = [(kick.body, step) for kick in scene.kicks if (step := kick_step(kick.time, h)) <= steps]
    if not landed:
        return notes
    counts = Counter(body for body, _ in landed)
    since = f"measured from t = {max(step for _, step in landed) * h:.4g} s, after the last kick"
    words = [None if name not in counts else f"kicked {counts[name]}× (scene file): {since}" for name in names]
    return _joined(notes, words)


def _joined(notes: list[str | None], words: list[str | None]) -> list[str | None]:
    """Each body's ``notes`` with its ``words`` after them (either may be ``None``)."""
    return [
        note if word is None else (word if note is None else f"{note}; {word}")
        for note, word in zip(notes, words, strict=True)
    ]


def damping_notes(session: Session) -> list[str | None]:
    """Each body's note at ``session``'s latest step (file order) when its energy loss is past the divergence
    threshold, as the window's view label says it (scene/model/failures.py's ``damping_text``: ``"ΔE −51 %
    (damping)"``, not a divergence); ``None`` for the others."""
    words: list[str | None] = [None] * len(session.scene.bodies)
    change, threshold = session.latest.sample.latest().energy_change(), session.setup.divergence
    if change is not None:
        for row in np.flatnonzero(change < -threshold).tolist():  # damping_text's words, where it has any
            words[int(session.plotted[row])] = damping_text(change[row], threshold)
    return words


def _figures(values: np.ndarray) -> list[float | None]:
    """Measures for the table: ``None`` where one has no value (NaN: a body at rest has no relative error, a
    body under torque no |ΔL|, a body without a closed form no orientation error)."""
    values = np.asarray(values, dtype=float)
    if not np.isnan(values).any():  # every figure there (10^5 bodies: no pass a body)
        return values.tolist()
    return [None if value != value else value for value in values.tolist()]


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


class _maybe_trace:
    """``with _maybe_trace(path) as trace``: a TraceWriter, or None when there is no path."""

    def __init__(self, path: Path | None) -> None:
        if path is None:
            self._writer = None
        else:
            from spinlab.scene.files.trace import TraceWriter

            self._writer = TraceWriter(path)

    def __enter__(self) -> TraceWriter | None:
        return None if self._writer is None else self._writer.__enter__()

    def __exit__(self, *exc_info) -> None:
        if self._writer is not None:
            self._writer.__exit__(*exc_info)
