"""One run model for the window and ``record``: the setup a person chose, the simulation it makes, its views and
their labels, and the samples of every step that the plots, the 3D trails and the video read.

A :class:`Setup` is everything that fixes a run (scene with edited initial states, an integrator per body, side
by side or not, ``h``, the gyroscopic term). :func:`run_layout` turns it into the scene the simulation runs and
its views (:class:`Group`). A :class:`Session` is one run of it: it owns the
:class:`~scene.running.simulation.Simulation`, steps it when asked and measures every step (scene/model/samples.py), in
one batch after the stepping. Its :attr:`Session.latest` (a :class:`Steps`) is what the last call stepped: the window
appends it to the plots and both the window and the video push its states to the 3D trails; :func:`view_labels` gives
each view's label lines.

"All side by side" copies the scene once per integrator into one scene, so all integrators step in lock step
from the same initial state, batched by the world in one call per integrator; each copy gets its own view. Bodies
that would move alike under one integrator (the compare preset's one T-handle per integrator) are copied once
(:func:`stand_ins`): one body per integrator, not every body of the scene in every view.
"""

from __future__ import annotations

import copy
import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from spinlab.scene.files.body_table import BodySpec, BodyTable, body_column, with_integrator
from spinlab.scene.files.change_table import ChangeSpec
from spinlab.scene.files.kick_table import renamed_kicks
from spinlab.scene.files.scene_file import SceneSpec
from spinlab.scene.model.failures import (
    DEFAULT_DIVERGENCE,
    CostMeter,
    Failure,
    IntegratorCost,
    Watch,
    damping_text,
    failure_reason,
    gained_text,
)
from spinlab.scene.model.flips import flip_text
from spinlab.scene.model.measures import potential_counts
from spinlab.scene.model.run_changes import change_caption
from spinlab.scene.model.samples import ERROR_FLOOR, References, Sample, concatenated, measured_rows
from spinlab.scene.model.step_record import Moment, StepRecord, Steps, checkpoint_interval
from spinlab.scene.running.simulation import DEFAULT_INTEGRATOR, Simulation, Snapshot
from spinlab.sim.errors import NumericalError
from spinlab.sim.integrators import CLAIMS, METHODS
from spinlab.sim.integrators.state import StepCost, rotational_energy

__all__ = [
    "ERROR_FLOOR",
    "Setup",
    "Group",
    "Session",
    "StepReport",
    "Steps",
    "Sample",
    "run_layout",
    "stand_ins",
    "view_groups",
    "view_labels",
    "error_text",
    "default_integrators",
    "scene_integrators",
    "compared_integrators",
    "integrators_for",
    "check_scene_runs",
]

# The 3D view draws ω and L at most this many times longer than the longest initial ones.
DRAW_LIMIT = 100.0
# Step calls (the window's frames) between two timings of each integrator's step alone on warm caches (the cost
# column's µs per body-step, scene/model/failures.py's CostMeter.retime): a few a second, each a few calls of every
# group.
RETIME_CALLS = 15


@dataclass(frozen=True)
class Setup:
    """What fixes a run. ``integrators`` has one name per body of ``scene`` (``None`` for a kinematic body);
    ``side_by_side`` runs a copy of the scene per integrator of ``compared`` instead; ``h`` s; ``gyroscopic``
    the ω × L term."""

    scene: SceneSpec
    integrators: tuple[str | None, ...]
    side_by_side: bool = False
    compared: tuple[str, ...] = METHODS
    h: float = 1.0 / 60.0
    gyroscopic: bool = True
    divergence: float = DEFAULT_DIVERGENCE
    """The energy gain ΔE/E past which a view of a run with several views is frozen as diverged
    (scene/model/failures.py's ``diverged``: a loss never is; ``inf``: only a non-finite energy)."""


@dataclass(frozen=True)
class Group:
    """The bodies one view shows: ``label`` (an integrator, or the integrators of the whole scene) and indices into
    a snapshot."""

    label: str
    bodies: tuple[int, ...]


@dataclass(frozen=True)
class StepReport:
    """What a call to :meth:`Session.step` did: ``steps`` taken, the mean Newton iterations per step of each
    plotted body (K,), wall milliseconds per step, and the error that stopped it, if any."""

    steps: int
    newton_per_step: np.ndarray
    ms_per_step: float
    error: str | None = None
    integrator_cost: dict[str, IntegratorCost] = dataclasses.field(default_factory=dict)
    """Each integrator's cost over these steps (scene/model/failures.py)."""
    failed: tuple[int, ...] = ()
    """The views (indices into ``Session.groups``) frozen during these steps."""


def default_integrators(scene: SceneSpec) -> tuple[str | None, ...]:
    """Each body's integrator as the scene gives it (the simulation's default when it names none)."""
    kinematic = body_column(scene.bodies, "kinematic").tolist()
    names = body_column(scene.bodies, "integrator")
    return tuple(None if still else (name or DEFAULT_INTEGRATOR) for still, name in zip(kinematic, names, strict=True))


def scene_integrators(scene: SceneSpec, integrator: str | None) -> tuple[str | None, ...]:
    """Each body's integrator with ``integrator`` for every dynamic body (``None``: the scene's own,
    :func:`default_integrators`); ``None`` for a kinematic body."""
    if integrator is None:
        return default_integrators(scene)
    return tuple(None if still else integrator for still in body_column(scene.bodies, "kinematic").tolist())


def check_scene_runs(scene: SceneSpec) -> None:
    """Start ``scene`` as the window would and take one step, on a throwaway session: a scene that loads but cannot
    start or fails on its first step raises here (:class:`NumericalError`), before a window opens or the panel
    replaces the running scene with it."""
    session = Session(Setup(scene, default_integrators(scene), h=scene.h), sampled=True)
    report = session.step(1)
    if report.error is not None:
        raise NumericalError(f"{scene.path}: cannot run this scene: {report.error}")


def compared_integrators(setup: Setup) -> tuple[str, ...]:
    """The integrators a side-by-side run steps: ``setup.compared`` less those that refuse a torque where the scene
    has one (:func:`integrators_for`)."""
    return integrators_for(setup.scene, setup.compared)


def integrators_for(scene: SceneSpec, names: tuple[str, ...]) -> tuple[str, ...]:
    """``names`` less those whose claims say they refuse a torque (``exact``: the closed form holds only for a
    torque-free body), when ``scene`` has one: every integrator in turn (``--integrator all``, side by side) leaves
    them out rather than stop at t = 0. All of ``names`` when none would be left."""
    if not scene.has_torque:
        return names
    return tuple(name for name in names if CLAIMS[name].accepts_torque) or names


def run_layout(setup: Setup) -> tuple[SceneSpec, tuple[Group, ...]]:
    """The scene the simulation runs and the views it is shown in.

    Side by side: one copy of every body per integrator (renamed ``"name [integrator]"``, parents renamed alike,
    coloured by integrator), one view per copy. Otherwise the scene itself, with one view per integrator when every
    body is a root and they use more than one (the compare preset), else a single view (:func:`view_groups`).
    """
    scene = setup.scene
    if setup.side_by_side:
        from spinlab.scene.model.palette import integrator_color  # the copies' colours (not run's: ~1 ms of its start)

        stand_in = stand_ins(scene)
        copied = [body for index, body in enumerate(scene.bodies) if stand_in[index] == index]
        # A kick on a body copied once with others is struck on the body that stands for them.
        kicked = {body.name: scene.bodies[stand_in[index]].name for index, body in enumerate(scene.bodies)}
        copies: list[BodySpec] = []
        copy_groups: list[Group] = []
        for number, integrator in enumerate(compared_integrators(setup)):
            first = len(copies)
            color = integrator_color(integrator, number)
            for body in copied:
                copies.append(
                    dataclasses.replace(
                        body,
                        name=f"{body.name} [{integrator}]",
                        parent=None if body.parent is None else f"{body.parent} [{integrator}]",
                        integrator=None if body.kinematic else integrator,
                        color=color,
                    )
                )
            copy_groups.append(Group(integrator, tuple(range(first, len(copies)))))
        # Every copy gets the scene's kicks, on its own bodies: the same kick at the same step; and so a body's own
        # switch of the gyroscopic term (a change of the whole world is the world's, once).
        kicks = tuple(
            kick for group in copy_groups for kick in renamed_kicks(scene.kicks, _copy_name(group.label, kicked))
        )
        changes = tuple(change for change in scene.changes if change.body is None) + tuple(
            dataclasses.replace(change, body=_copy_name(group.label, kicked)(change.body))
            for group in copy_groups
            for change in scene.changes
            if change.body is not None
        )
        return dataclasses.replace(scene, bodies=tuple(copies), kicks=kicks, changes=changes), tuple(copy_groups)
    bodies: Sequence[BodySpec]
    if isinstance(scene.bodies, BodyTable):  # columns: no spec a body (10^5 bodies: ~0.3 s)
        bodies = scene.bodies.with_integrators(setup.integrators)
    else:  # a body whose integrator is the one it had is not copied (10^5 bodies: ~20 MB)
        pairs = zip(scene.bodies, setup.integrators, strict=True)
        bodies = tuple(body if body.integrator == name else with_integrator(body, name) for body, name in pairs)
    run_scene = dataclasses.replace(scene, bodies=bodies)
    used = list(dict.fromkeys(name for name in setup.integrators if name is not None))
    if len(used) > 1 and all(parent is None for parent in body_column(bodies, "parent")):
        labels = [name or "kinematic" for name in setup.integrators]
        groups = tuple(
            Group(label, tuple(i for i, other in enumerate(labels) if other == label))
            for label in dict.fromkeys(labels)
        )
        return run_scene, groups
    return run_scene, (_whole_scene(run_scene),)


def stand_ins(scene: SceneSpec) -> tuple[int, ...]:
    """For each body of ``scene``, the index of the body whose copy stands for it side by side: the first of those
    it would move alike with under one integrator, or itself. Bodies move alike when they are dynamic roots without
    children that differ only in name, integrator, colour and place (the compare preset's T-handles): copied each,
    every view would show the same motion once per body (the compare preset: 14 views of 8 handles). A body with a
    gyroscopic switch of its own (a ``[[change]]`` naming it) stands for itself."""
    parents = {body.parent for body in scene.bodies} | {change.body for change in scene.changes}
    first: dict[tuple, int] = {}
    stand_in = []
    for index, body in enumerate(scene.bodies):
        if body.kinematic or body.parent is not None or body.name in parents:
            stand_in.append(index)
            continue
        arrays = (body.inertia_body, body.inertia_com, body.com_offset, body.orientation, body.omega_parent)
        pivot = None if body.pivot is None else body.pivot.tobytes()
        key = (body.shape, repr(body.sizes), body.mass, pivot, *(array.tobytes() for array in arrays))
        stand_in.append(first.setdefault(key, index))
    return tuple(stand_in)


def copied_bodies(setup: Setup) -> tuple[int, ...] | None:
    """Side by side, the scene's bodies copied into each view, in the order of each copy (:func:`stand_ins`);
    ``None`` otherwise."""
    if not setup.side_by_side:
        return None
    return tuple(index for index, stand_in in enumerate(stand_ins(setup.scene)) if stand_in == index)


def _copy_name(integrator: str, stand_in: dict[str, str]) -> Callable[[str], str]:
    """The name of a body's copy side by side, as :func:`run_layout` gives it: ``"name [integrator]"``, ``name``
    the body's that stands for it (``stand_in``, by name)."""
    return lambda name: f"{stand_in[name]} [{integrator}]"


def _whole_scene(scene: SceneSpec) -> Group:
    """One view of every body of ``scene``, labelled with the integrators they use (file order)."""
    kinematic = body_column(scene.bodies, "kinematic").tolist()
    names = body_column(scene.bodies, "integrator")
    used = dict.fromkeys(name for name, still in zip(names, kinematic, strict=True) if not still and name)
    return Group(", ".join(used) or "kinematic", tuple(range(len(scene.bodies))))


def view_groups(session: Session, split: bool) -> tuple[Group, ...]:
    """``session``'s groups, one view each, or (not ``split``) all bodies in one view."""
    return session.groups if split else (_whole_scene(session.scene),)


def view_labels(session: Session | Moment, groups: tuple[Group, ...]) -> list[tuple[str, ...]]:
    """Each view's label lines, the window's and the video's alike: its group's label, then the time of the
    latest step and the largest magnitude of its bodies' relative energy error (scene/model/measures.py), e.g.
    ``("implicit_midpoint", "t = 2.50 s    |ΔE|/E = 1.2e−05")``; when that is a loss past the divergence threshold, a
    line saying it is damping, not a divergence (scene/model/failures.py's ``damping_text``, ``"ΔE −51 % (damping)"``);
    for a view of a few bodies their flip counts against their closed forms' (:func:`_flip_line`); and for a few
    seconds after the gyroscopic term was switched a line saying so (scene/model/run_changes.py's
    :func:`change_caption`). A frozen view's say when and why instead,
    ``("euler_body", "diverged at t = 7.85 s", "Newton did not converge")``. ``session`` may be a moment of one
    (scene/model/step_record.py), read as a session is."""
    sample, row = session.latest.sample, session.rows
    errors, change = sample.energy_error[-1], sample.latest().energy_change()
    labels: list[tuple[str, ...]] = []
    failures = session.failures_by_bodies()
    caption = change_caption(session, session.t)
    changed = () if caption is None else (caption,)
    for group in groups:
        rows = [row[i] for i in group.bodies if i in row]
        detail, damping = f"t = {session.t:.2f} s", ""
        if rows:
            largest = max(rows, key=lambda k: errors[k])
            detail += f"    |ΔE|/E = {error_text(errors[largest])}"
            if change is not None:
                damping = damping_text(change[largest], session.setup.divergence)
        failure = failures.get(group.bodies)
        if failure is not None:
            labels.append((group.label, *failure.label_lines()))
        else:
            labels.append((group.label, detail, *((damping,) if damping else ()), *_flip_line(sample, rows), *changed))
    return labels


def error_text(error: float) -> str:
    """A relative error in a label, ``"1.2e−05"``, ``"0.0e+00"``: two digits and an exponent with a true minus sign,
    as wide as a plus in the labels' font (Roboto's digits are all as wide too), so that a label whose error
    changes, even to exactly 0 and back (a method that keeps the energy does so step by step), keeps its width and
    its panel, which the views' cached backdrop holds (render/viewports.py): a panel whose width flickers has every
    view's backdrop shaded again with it."""
    return f"{error:.1e}".replace("-", "−")


FLIP_LINE_BODIES = 3
"""A view of at most this many bodies shows their flip counts (the engines preset's views: a T-handle and a racket)."""


def _flip_line(sample: Sample, rows: list[int]) -> tuple[str, ...]:
    """A label line for a view of up to :data:`FLIP_LINE_BODIES` plotted bodies ``rows``: their flip counts and their
    closed forms' over the same time (scene/model/flips.py), e.g. ``"flips 7 (exact 7)"``, or in the view's body
    order ``"flips 6 · 3 (exact 6 · 9)"``; none for a view of more, nor when a body has no torque-free closed form
    (a heavy top's sign changes count its nutation, not flips) or is not measured against it."""
    flips, flips_exact = sample.flips, sample.flips_exact
    if flips is None or flips_exact is None or not 0 < len(rows) <= FLIP_LINE_BODIES:
        return ()
    counts, exact = flips[-1][rows], flips_exact[-1][rows]
    if not np.isfinite(exact).all():
        return ()
    text = flip_text(counts, exact)
    return (text,) if text else ()


class Session:
    """One run of a :class:`Setup`: ``simulation``, ``groups`` (views), the latest ``snapshot`` and the ``latest``
    steps with their samples. ``plotted`` are the indices of the dynamic bodies (K), whose ``names`` label the plot
    series; ``rows`` maps a body's index to its row among them. With ``record`` (the window's runs) every step is
    kept in :attr:`record` (scene/model/step_record.py, bounded), with checkpoints that scene/model/replay.py's
    ``at_step`` goes back from. A ``sampled`` run (by default a run with a ``record``) measures only a sample of a
    scene of more than ``ALL_MEASURED_MAX`` plotted bodies against their closed forms (scene/model/samples.py): the
    others' orientation errors, curves, flips and exact ghosts are NaN. A view that fails or diverges is frozen and
    the others go on (scene/model/failures.py), in the window, ``record`` and ``run`` alike; a run of one view stops
    instead. Without ``curves`` (``run``, whose table shows the errors alone) the samples carry no curves nor flip
    counts (scene/model/samples.py's :class:`References`)."""

    def __init__(self, setup: Setup, *, record: bool = False, sampled: bool | None = None, curves: bool = True) -> None:
        self.setup = setup
        self.initial_setup = setup
        self.edits: list[tuple[int, str, object]] = []
        """The run's edits after its start, (step index, what, value), in order: what a replay of the run from its
        start (scene/model/replay.py) makes again at the same steps."""
        self.scene, self.groups = run_layout(setup)
        self._copied = copied_bodies(setup)
        self._stand_ins = None if self._copied is None else stand_ins(setup.scene)
        self.simulation = Simulation(self.scene, h=setup.h, gyroscopic=setup.gyroscopic)
        self.snapshot = self.simulation.snapshot()
        self.initial = self.snapshot
        bodies = self.scene.bodies
        self.plotted = np.flatnonzero(~body_column(bodies, "kinematic"))
        self.rows = dict(zip(self.plotted.tolist(), range(len(self.plotted)), strict=True))
        # Side by side with one body per copy, a series is best named by its integrator alone.
        single = self._copied is not None and len(self._copied) == 1
        names = body_column(bodies, "integrator" if single else "name")
        self.names = list(names) if len(self.plotted) == len(names) else [names[i] for i in self.plotted.tolist()]
        self._potential = potential_counts(self.scene)
        # A window's run (``sampled``, by default with a ``record``) measures a large scene's sample against the
        # closed forms: the rows its plots draw (scene/model/samples.py's measured_rows).
        self.sampled = record if sampled is None else sampled
        measured = measured_rows(len(self.plotted)) if self.sampled else None
        self._initial_potential = self._potential_energy()
        self.references = References(
            self.scene, self.initial, self._initial_potential, self.plotted, measured=measured, curves=curves
        )
        self.exact_rows = self.references.exact_rows
        largest = [
            np.linalg.norm(v[self.plotted], axis=1).max(initial=0.0)
            for v in (self.initial.omega_world, self.initial.L_world)
        ]
        self._draw_limits = tuple(DRAW_LIMIT * max(value, 1e-3) for value in largest)
        self.watch = Watch(self.groups, self.rows, len(self.plotted), setup.divergence)
        self._latest: Steps | None = None  # the initial state's, measured when first asked for (latest)
        self.cost_meter = CostMeter(body_column(bodies, "integrator"))
        self.integrator_cost: dict[str, IntegratorCost] = {}  # the last step call's, per integrator
        self._step_seconds = (0.0, 0.0)  # wall s a step and its measuring took in the last call (step's budget)
        self._calls = 0  # step calls so far: the integrators' costs are timed again every RETIME_CALLS
        self.retime_costs = False  # whether to (the window's cost column shows them; a video or a still does not)
        self.record: StepRecord | None = None
        if record:
            measured = None if self.references.every_row else self.references.measured
            self.record = StepRecord(measured=measured, checkpoint_every=checkpoint_interval(len(bodies)))
            self.record.append(0, self.latest, np.zeros(len(self.plotted)), float("nan"))
            self.record.add_checkpoint(0, None)  # the start: a new session of the first setup (replay.at_step)

    @property
    def latest(self) -> Steps:
        """What the last call to :meth:`step` stepped, measured; before any, the initial state, measured when first
        asked for (a run that measures its end alone, ``step(last_only=True)``, never asks)."""
        if self._latest is None:
            self._latest = self._measured([self.initial], [self._initial_potential])
        return self._latest

    @latest.setter
    def latest(self, steps: Steps) -> None:
        self._latest = steps

    def copy(self) -> Session:
        """A copy of this session, without its step record, that steps on bit for bit as this one would: a checkpoint.
        What never changes after the start (the setups, the scene, the initial state, the plotted rows and their
        names, the views' groups: ~17 MB at 10^5 bodies) and what is replaced rather than changed (the references,
        but for their flip counters; the latest steps and snapshot) is shared."""
        shared = (self.record, self.setup, self.initial_setup, self.scene, self.initial, self.snapshot, self.latest,
                  self.references, self.plotted, self.rows, self.names, self.groups, self._potential,
                  self._initial_potential)  # fmt: skip
        memo: dict[int, object] = {id(value): value for value in shared}
        memo[id(self.record)] = None
        # The references' flip counters are the one part of them that changes with every step: the copy's own.
        references = copy.copy(self.references)
        references.flip_counters = copy.deepcopy(self.references.flip_counters)
        memo[id(self.references)] = references
        return copy.deepcopy(self, memo)

    def set_divergence(self, threshold: float) -> None:
        """Freeze views past an energy gain ``threshold`` ΔE/E from the next step on (frozen ones stay frozen)."""
        self.edits.append((self.simulation.step_index, "divergence", float(threshold)))
        self.setup = dataclasses.replace(self.setup, divergence=float(threshold))
        self.watch.threshold = float(threshold)

    def place(self, index: int) -> int:
        """The place among a view's bodies of the scene's body ``index`` (side by side, of the body copied for it:
        :func:`stand_ins`); in a view of the whole run, its first copy's."""
        if self._copied is None or self._stand_ins is None:
            return index
        return self._copied.index(self._stand_ins[index])

    def row(self, index: int) -> int:
        """The snapshot row of the scene's body ``index``: itself, or side by side its first copy's."""
        return self.groups[0].bodies[self.place(index)] if self._copied is not None else index

    def scene_body(self, row: int) -> int:
        """The scene's body a snapshot ``row`` shows (side by side, the body its copy was made of)."""
        return row if self._copied is None else self._copied[row % len(self._copied)]

    @property
    def failures(self) -> dict[int, Failure]:
        """The views that failed and were frozen (index into :attr:`groups` → :class:`Failure`)."""
        return self.watch.failures

    def failures_by_bodies(self) -> dict[tuple[int, ...], Failure]:
        """The failures keyed by the frozen views' bodies (a view of the same bodies shows the same failure)."""
        return {tuple(self.groups[number].bodies): failure for number, failure in self.watch.failures.items()}

    def drawable(self, snapshot: Snapshot | None = None) -> Snapshot:
        """``snapshot`` (the latest by default) for the 3D view, with ω and L at most ``DRAW_LIMIT`` times the
        largest initial ones (non-finite entries replaced): the last good state before a blow-up can hold vectors
        too long to draw."""
        snapshot = self.snapshot if snapshot is None else snapshot
        omega, L = (
            _clamped(vectors, limit)
            for vectors, limit in zip((snapshot.omega_world, snapshot.L_world), self._draw_limits, strict=True)
        )
        if omega is snapshot.omega_world and L is snapshot.L_world:
            return snapshot
        return dataclasses.replace(snapshot, omega_world=omega, L_world=L, energy=rotational_energy(omega, L))

    @property
    def t(self) -> float:
        """Simulation time, s."""
        return self.simulation.t

    @property
    def h(self) -> float:
        return self.simulation.h

    def set_gyroscopic(self, on: bool) -> None:
        """Switch the gyroscopic term from the next step on (the run goes on from where it is)."""
        self.edits.append((self.simulation.step_index, "gyroscopic", bool(on)))
        self.simulation.world.set_gyroscopic(bool(on))

    def scripted_changes(self) -> tuple[ChangeSpec, ...]:
        """The run's changes of the gyroscopic term as a scene file writes them (scene/files/change_table.py), so that
        the file gives this run again, bit for bit: off at t = 0 when the run started without it, then the scene's
        own changes, then each switch made while it ran (a branch's too), at its step's time."""
        start = () if self.initial_setup.gyroscopic else (ChangeSpec(0.0, False),)
        switches = tuple(
            ChangeSpec(step * self.h, bool(value)) for step, what, value in self.edits if what == "gyroscopic"
        )
        return start + self.scene.changes + switches

    def step(
        self,
        count: int,
        budget_s: float = float("inf"),
        *,
        each: Callable[[StepCost], None] | None = None,
        last_only: bool = False,
    ) -> StepReport:
        """Take up to ``count`` steps of ``h``, stopping early once ``budget_s`` wall seconds are spent, and measure
        each step (in one batch afterwards) into :attr:`latest`. A step that would end past the budget, by what a
        step and its measuring cost in the last call, is not begun (the first always is): a frame whose steps are
        dear (numpy paths while the kernels compile) takes one, not two. A numerical failure stops it too (a
        :class:`NumericalError`, or an arithmetic or linear-algebra error from the numerics): the state stays the
        last good one and the report carries the message (which names the body and why).

        ``each(cost)`` is called after every step with its cost per body (file order): ``run`` writes its trace
        there. ``last_only`` measures the last step alone, against the state after the last kick (a session
        without a step record: ``run``'s table reads the end), at one measurement's cost whatever ``count``; the flip
        counts then count at the measured steps only."""
        assert not (last_only and self.record is not None), "a step record keeps every step's measures"
        if not last_only:
            _ = self.latest  # the initial state is measured first: the flip counts take the steps in time order
        newton = np.zeros(len(self.scene.bodies))
        first = self.simulation.step_index + 1
        steps, error = 0, None
        snapshots, potentials = [], []
        parts = [(0, self.references)]  # (first snapshot, the references it and those after it are measured with)
        kicked = None  # last_only: the state after the latest kick, which the references start from once measured
        self.cost_meter.reset()
        frozen_before = set(self.watch.failures)
        start = time.perf_counter()
        step_s, measure_s = self._step_seconds
        while steps < count:
            if steps and time.perf_counter() - start + step_s + (steps + 1) * measure_s > budget_s:
                break
            try:
                cost = self.simulation.step()
            except NumericalError as failure:
                if self._froze_failed(failure):
                    continue  # the failed views are frozen: the others take the step again, unchanged
                error = str(failure)
                break
            except (ArithmeticError, np.linalg.LinAlgError) as failure:
                error = f"at t = {self.t:.6g} s: {type(failure).__name__}: {failure}"
                break
            newton += cost.newton_iterations
            self.cost_meter.add(self.simulation.world.group_seconds, cost)
            steps += 1
            if each is not None:
                each(cost)
            due = self.simulation.kicks.due(self.simulation.step_index)
            if not last_only or due or self.watch.enabled:
                snapshot, potential = self.simulation.snapshot(), self._potential_energy()
                if last_only:
                    snapshots, potentials = [snapshot], [potential]
                    kicked = (snapshot, potential) if due else kicked
                else:
                    snapshots.append(snapshot)
                    potentials.append(potential)
                    if due:  # measured from here on against the state after the kick (References.rebased)
                        self.references = self.references.rebased(self.scene, snapshot, potential)
                        parts.append((len(snapshots) - 1, self.references))
                if self.watch.enabled:
                    if kicked is not None:
                        self.references, kicked = self.references.rebased(self.scene, *kicked), None
                    error = self._froze_diverged(snapshot, potential)
                    if error is not None:
                        break
            if time.perf_counter() - start > budget_s:
                break
        stepped = time.perf_counter()
        elapsed = stepped - start
        if steps and last_only:
            if kicked is not None:
                self.references = self.references.rebased(self.scene, *kicked)
            if not snapshots or snapshots[-1].t != self.t:  # the last step's state, unless taken at a kick
                snapshots, potentials = [self.simulation.snapshot()], [self._potential_energy()]
            parts = [(0, self.references)]
        if steps:
            self.snapshot = snapshots[-1]
            self.latest = self._measured(snapshots, potentials, parts)
            self._step_seconds = (elapsed / steps, (time.perf_counter() - stepped) / steps)
        per_step = newton[self.plotted] / max(steps, 1)
        failed = tuple(sorted(set(self.watch.failures) - frozen_before))
        ms = 1e3 * elapsed / steps if steps else float("nan")
        if self.retime_costs and steps and (self._calls % RETIME_CALLS == 0 or self.cost_meter.untimed()):
            self.cost_meter.retime(self.simulation.world, self.h)
        self._calls += 1
        self.integrator_cost = self.cost_meter.costs()
        if steps and self.record is not None:
            self._remember(first, per_step, ms)
        return StepReport(steps, per_step, ms, error, self.integrator_cost, failed)

    def _remember(self, first: int, newton_per_step: np.ndarray, ms_per_step: float) -> None:
        """The latest steps (from step ``first``) into the step record, and a checkpoint when one is due."""
        record = self.record
        assert record is not None, "called only for a session that keeps its step record"
        record.append(first, self.latest, newton_per_step, ms_per_step)
        if record.checkpoint_due(self.simulation.step_index):
            record.add_checkpoint(self.simulation.step_index, self.copy())

    def _froze_failed(self, failure: NumericalError) -> bool:
        """Freeze the views holding the bodies ``failure`` names, if others remain live (then True: retry)."""
        if not self.watch.enabled or failure.bodies is None:
            return False
        numbers = self.watch.failed_groups(self.simulation.file_order(failure.bodies))
        if not numbers:
            return False
        self.watch.freeze(numbers, Failure(self.t, failure_reason(failure)))
        if not self.watch.live:
            return False  # every view failed: the run stops, as a run of one view does
        self.simulation.freeze(self.watch.bodies_of(numbers))
        return True

    def _froze_diverged(self, snapshot: Snapshot, potential: np.ndarray) -> str | None:
        """Freeze the views past the divergence threshold at this step; the message that stops the run when none
        is left, else ``None``."""
        rows, references = self.plotted, self.references
        energy = snapshot.energy[rows] + potential[rows]
        numbers = self.watch.diverged_groups(energy, references.energy0, references.energy_scale)
        for number in numbers:
            self.watch.freeze([number], Failure(self.t, gained_text(self.watch.threshold), diverged=True))
        if numbers:
            self.simulation.freeze(self.watch.bodies_of(numbers))
        if numbers and not self.watch.live:
            return f"at t = {self.t:.6g} s: every view diverged ({gained_text(self.watch.threshold)})"
        return None

    def sample(self) -> Sample:
        """The latest step's measurements (see :class:`~scene.model.samples.Sample`, without the S axis)."""
        return self.latest.sample.latest()

    def energy(self) -> np.ndarray:
        """(N,) J, file order: every body's energy at the latest snapshot as the measures count it, kinetic plus the
        potential where it counts (scene/model/measures.py)."""
        return self.snapshot.energy + self._potential_energy()

    def _potential_energy(self) -> np.ndarray:
        """(N,) J: the potential energy where it counts (pivoted bodies), else 0."""
        if not self._potential.any():
            return np.zeros(len(self.scene.bodies))
        return np.where(self._potential, self.simulation.potential_energy(), 0.0)

    def _measured(self, snapshots: list[Snapshot], potentials: list[np.ndarray], parts=None) -> Steps:
        """The :class:`Steps` of ``snapshots`` (S) with their potential energies (S, N), measured in one batch per
        stretch between kicks: ``parts`` are (first snapshot, the references it and those after it are measured
        with), ascending (default: all against :attr:`references`)."""
        parts = parts or [(0, self.references)]
        rows = self.plotted

        def stacked(values: list[np.ndarray]) -> np.ndarray:  # (S, K, ...) of the plotted bodies
            return values[0][None, rows] if len(values) == 1 else np.stack(values)[:, rows]

        with np.errstate(over="ignore", invalid="ignore"):
            q = stacked([s.q for s in snapshots])
            omega = stacked([s.omega_world for s in snapshots])
            L = stacked([s.L_world for s in snapshots])
            energy = stacked([s.energy for s in snapshots]) + stacked(potentials)
        t = np.array([s.t for s in snapshots])
        ends = [first for first, _ in parts[1:]] + [len(snapshots)]
        samples = [
            references.measure(t[first:end], q[first:end], omega[first:end], L[first:end], energy[first:end])
            for (first, references), end in zip(parts, ends, strict=True)
            if end > first
        ]
        sample = self.watch.masked(concatenated(samples))
        return Steps(tuple(self.drawable(s) for s in snapshots), sample)


def _clamped(vectors: np.ndarray, limit: float) -> np.ndarray:
    """``vectors`` (N, 3) with every norm at most ``limit`` (NaN taken as 0, infinities as huge); the same array
    when all are within it."""
    with np.errstate(over="ignore", invalid="ignore"):
        if np.all(np.linalg.norm(vectors, axis=1) <= limit):
            return vectors
    finite = np.nan_to_num(vectors, nan=0.0, posinf=np.finfo(float).max, neginf=-np.finfo(float).max)
    # |v| = m |v/m| with m the largest component: no overflow in the squares.
    largest = np.maximum(np.abs(finite).max(axis=1), np.finfo(float).tiny)
    norms = largest * np.linalg.norm(finite / largest[:, None], axis=1)
    # Scaled only where too long: limit / |v| for a zero |v| would overflow (and warn) for nothing.
    scale = np.divide(limit, norms, out=np.ones_like(norms), where=norms > limit)
    return finite * scale[:, None]
