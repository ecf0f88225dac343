"""A run's step record: every step it took, as it was shown, and checkpoints to go back to.

A :class:`~scene.model.run_model.Session` made with ``record=True`` (the window's) appends what each call of its
``step`` made: the :class:`Steps` (every step's snapshot as drawn and its measured sample) with
the call's Newton iterations per step and wall milliseconds per step, which the plots show. Everything on screen at a
step (the bodies, the labels, the trails, the exact ghost, the Poinsot traces, the plots) is a function of the
record up to that step, so the window can show any past moment again exactly as it first showed it.

Bounded: the record holds at most ``budget_bytes`` (:data:`RECORD_BYTES` by default) of snapshots and samples;
past it the oldest calls are forgotten first (the newest is always kept), and the timeline then starts later. The
compare preset (8 bodies) takes ~2.3 kB a step (8.3 MB a minute at h = 1/60), so its last ~7 minutes are kept; a
10^4-body cloud (1.2 MB a step: its snapshots, and of its measures the rows it measures) keeps its last ~50 steps, a
10^5-body one (12 MB) its last 5.

Going back: every :data:`CHECKPOINT_STEPS` steps (or more, for large worlds: a checkpoint copies the whole session,
see :func:`checkpoint_interval`) the session leaves a copy of itself here. The state at step ``k`` is the last
checkpoint at or before ``k``, copied and stepped to ``k`` with the run's edits made again at their steps
(scene/model/replay.py): every step is a function of the setup, the edits and the step index, so this is, bit for bit,
the run's own state at ``k`` (tests/scene/test_step_record.py). The checkpoint of step 0 holds no copy (``None``): the
run's start is a new session of its first setup, made when it is gone back to (a copy made at the start took 80 MB
at 10^5 bodies, there from the window's first frame).
"""

from __future__ import annotations

import bisect
import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from spinlab.scene.model.samples import Sample, concatenated
from spinlab.scene.running.simulation import Snapshot

if TYPE_CHECKING:
    from spinlab.scene.model.run_model import Session

__all__ = ["StepRecord", "Steps", "Entry", "Moment", "RECORD_BYTES", "CHECKPOINT_STEPS", "checkpoint_interval"]

RECORD_BYTES = 64 * 2**20
CHECKPOINT_STEPS = 60
# A checkpoint copies the session (~1 kB a body): past this many bodies they are spaced out in proportion (10^4
# bodies every 600 steps), so that copying stays a small part of stepping; at most MAX_CHECKPOINTS are kept.
CHECKPOINT_BODIES = 1000
MAX_CHECKPOINTS = 256


def checkpoint_interval(bodies: int) -> int:
    """Steps between two checkpoints of a session of ``bodies`` bodies: :data:`CHECKPOINT_STEPS`, in proportion
    past :data:`CHECKPOINT_BODIES` bodies."""
    return max(CHECKPOINT_STEPS, -(-CHECKPOINT_STEPS * bodies // CHECKPOINT_BODIES))


@dataclass(frozen=True)
class Steps:
    """What one call to ``Session.step`` stepped, oldest first: ``snapshots`` (S) as the 3D view draws them
    (``Session.drawable``) and ``sample`` their measurements (:class:`~scene.model.samples.Sample`, (S, K) fields).
    The initial state is a batch of one."""

    snapshots: tuple[Snapshot, ...]
    sample: Sample


@dataclass(frozen=True)
class Entry:
    """What one call of ``Session.step`` made: :attr:`steps` whose first snapshot is step ``first``, the mean Newton
    iterations per step of each plotted body (K,), wall milliseconds per step; ``nbytes`` what its arrays hold.
    ``stored`` are the steps as held: with ``measured`` rows (a run that measures a sample of its K plotted bodies,
    scene/model/samples.py), their sample holds those rows alone of the measures that are NaN elsewhere, and
    :attr:`steps` gives it back at its full width (NaN there), bit for bit; at 10^5 bodies that NaN took 14 MB a
    step of the record's budget."""

    first: int
    stored: Steps
    newton_per_step: np.ndarray
    ms_per_step: float
    nbytes: int
    measured: np.ndarray | None = None

    @property
    def steps(self) -> Steps:
        """The steps, their sample at its full width."""
        if self.measured is None:
            return self.stored
        sample = self.stored.sample
        return dataclasses.replace(self.stored, sample=widened(sample, self.measured, sample.energy_error.shape[-1]))

    @property
    def snapshots(self) -> tuple[Snapshot, ...]:
        """The steps' snapshots (no sample made)."""
        return self.stored.snapshots

    @property
    def last(self) -> int:
        """The step index of its last snapshot."""
        return self.first + len(self.stored.snapshots) - 1

    def until(self, step: int) -> Entry:
        """This entry cut after step ``step`` (itself when it ends there or before)."""
        return self.between(self.first, step)

    def between(self, first: int, last: int) -> Entry:
        """This entry's steps ``first`` to ``last`` (itself when it holds no others)."""
        start, stop = max(first - self.first, 0), min(last, self.last) - self.first + 1
        if start == 0 and stop == len(self.stored.snapshots):
            return self
        steps = dataclasses.replace(
            self.stored, snapshots=self.stored.snapshots[start:stop], sample=sliced(self.stored.sample, start, stop)
        )
        return Entry(self.first + start, steps, self.newton_per_step, self.ms_per_step, _nbytes(steps), self.measured)


class StepRecord:
    """The entries of a run, oldest first, within ``budget_bytes``, and its checkpoints (step → session copy), one
    due every ``checkpoint_every`` steps (:func:`checkpoint_interval`)."""

    def __init__(
        self, budget_bytes: int = RECORD_BYTES, measured: np.ndarray | None = None, *, checkpoint_every: int
    ) -> None:
        self.budget_bytes = int(budget_bytes)
        self.checkpoint_every = int(checkpoint_every)
        # The rows a run measuring a sample of its bodies measures (None: every row): its entries hold those alone.
        self.measured = measured
        self.entries: list[Entry] = []
        self._firsts: list[int] = []  # each entry's first step, for bisection
        self.nbytes = 0
        self.checkpoints: dict[int, Session | None] = {}
        self.dropped = 0  # entries forgotten to stay within the budget

    # -- filling -------------------------------------------------------------------------------------------------

    def append(self, first: int, steps: Steps, newton_per_step: np.ndarray, ms_per_step: float) -> None:
        """Add a call's ``steps`` whose first snapshot is step ``first`` (the step after the last entry's)."""
        if self.entries and first != self.entries[-1].last + 1:
            raise ValueError(f"step record: steps from {first} do not follow step {self.entries[-1].last}")
        newton = np.asarray(newton_per_step, dtype=float)
        if self.measured is not None:
            steps = dataclasses.replace(steps, sample=narrowed(steps.sample, self.measured))
        entry = Entry(first, steps, newton, float(ms_per_step), _nbytes(steps), self.measured)
        self.entries.append(entry)
        self._firsts.append(first)
        self.nbytes += entry.nbytes
        while self.nbytes > self.budget_bytes and len(self.entries) > 1:
            self._drop_oldest()

    def _drop_oldest(self) -> None:
        gone = self.entries.pop(0)
        self._firsts.pop(0)
        self.nbytes -= gone.nbytes
        self.dropped += 1
        # Keep the newest checkpoint at or before the first step still held: going back to it starts there.
        kept = self.checkpoint_step(self.first_step)
        for step in [step for step in self.checkpoints if kept is None or step < kept]:
            del self.checkpoints[step]

    def checkpoint_due(self, step: int) -> bool:
        """Whether the run at ``step`` is to leave a checkpoint: ``checkpoint_every`` steps after the newest."""
        return step - max(self.checkpoints, default=-self.checkpoint_every) >= self.checkpoint_every

    def add_checkpoint(self, step: int, session: Session | None) -> None:
        """Keep ``session`` (a copy nobody steps: scene/model/replay.py's ``at_step`` copies it again) as the run's
        state at ``step`` (``None`` at step 0: the run's start, made anew from its first setup); past
        :data:`MAX_CHECKPOINTS`, every other one of the older half is forgotten."""
        self.checkpoints[step] = session
        if len(self.checkpoints) > MAX_CHECKPOINTS:
            steps = sorted(self.checkpoints)
            for old in steps[1 : len(steps) // 2 : 2]:
                del self.checkpoints[old]

    # -- reading ---------------------------------------------------------------------------------------------------

    @property
    def first_step(self) -> int:
        """The oldest step held (0 until the budget forgets some)."""
        return self.entries[0].first if self.entries else 0

    @property
    def last_step(self) -> int:
        """The newest step held: the run's present."""
        return self.entries[-1].last if self.entries else 0

    def checkpoint_step(self, step: int) -> int | None:
        """The newest checkpoint at or before ``step``, if any."""
        before = [kept for kept in self.checkpoints if kept <= step]
        return max(before) if before else None

    def _index(self, step: int) -> int:
        """The index of the entry holding ``step`` (which must be held)."""
        if not self.first_step <= step <= self.last_step:
            raise IndexError(f"step {step} is not in the step record (steps {self.first_step}–{self.last_step})")
        return bisect.bisect_right(self._firsts, step) - 1

    def steps_until(self, step: int, count: int = 1) -> Steps:
        """The :class:`Steps` of the ``count`` steps ending at ``step`` (fewer when the record starts later),
        oldest first: what the run's ``latest`` was right after a call that ended at ``step``."""
        index = self._index(step)
        parts, left = [], count
        while left > 0 and index >= 0:
            entry = self.entries[index].until(step)
            take = min(left, len(entry.snapshots))
            start = len(entry.snapshots) - take
            entry = entry.between(entry.first + start, entry.last)
            parts.append((entry.snapshots, entry.steps.sample))
            left -= take
            index -= 1
        parts.reverse()
        snapshots = tuple(snapshot for part, _ in parts for snapshot in part)
        return Steps(snapshots, concatenated([sample for _, sample in parts]))

    def snapshots_until(self, step: int, count: int) -> list[Snapshot]:
        """The snapshots of the ``count`` steps ending at ``step`` (fewer when the record starts later), oldest
        first: :meth:`steps_until` without their samples."""
        first = max(step - count + 1, self.first_step)
        return [snapshot for entry in self.entries_between(first, step) for snapshot in entry.snapshots]

    def entries_until(self, step: int) -> Iterator[Entry]:
        """The entries up to ``step``, the last one cut there, oldest first."""
        return self.entries_between(self.first_step, step)

    def entries_between(self, first: int, last: int) -> Iterator[Entry]:
        """The entries of steps ``first`` to ``last`` (both held), the ends cut there, oldest first."""
        for index in range(self._index(first), self._index(last) + 1):
            yield self.entries[index].between(first, last)

    def until(self, step: int) -> StepRecord:
        """A new record of this one up to ``step``: its entries (the last one cut) and checkpoints to there."""
        kept = StepRecord(self.budget_bytes, self.measured, checkpoint_every=self.checkpoint_every)
        for entry in self.entries_until(step):
            kept.entries.append(entry)
            kept._firsts.append(entry.first)
            kept.nbytes += entry.nbytes
        kept.checkpoints = {at: session for at, session in self.checkpoints.items() if at <= step}
        kept.dropped = self.dropped
        return kept


def sliced(sample: Sample, start: int, stop: int | None) -> Sample:
    """``sample``'s steps ``start:stop`` (along its S axis)."""
    values: dict[str, Any] = {
        field.name: None if getattr(sample, field.name) is None else getattr(sample, field.name)[start:stop]
        for field in dataclasses.fields(sample)
    }
    return dataclasses.replace(sample, **values)


# The measures a run measuring a sample of its bodies leaves NaN outside the rows it measures (scene/model/samples.py):
# every field of a Sample but the time and the energy and momentum errors.
_SAMPLED_FIELDS = ("orientation_error", "herpolhode", "herpolhode_exact", "polhode", "polhode_exact", "q_exact",
                   "omega_body_exact", "flips", "flips_exact")  # fmt: skip


def narrowed(sample: Sample, measured: np.ndarray) -> Sample:
    """``sample`` (S steps of K rows) with its :data:`_SAMPLED_FIELDS` cut to the ``measured`` rows (M,)."""
    values: dict[str, Any] = {
        name: None if getattr(sample, name) is None else getattr(sample, name)[:, measured] for name in _SAMPLED_FIELDS
    }
    return dataclasses.replace(sample, **values)


def widened(sample: Sample, measured: np.ndarray, count: int) -> Sample:
    """A :func:`narrowed` ``sample`` at its full width of ``count`` rows again: NaN outside the ``measured`` rows."""
    values: dict[str, Any] = {}
    for name in _SAMPLED_FIELDS:
        narrow = getattr(sample, name)
        if narrow is not None:
            wide = np.full((narrow.shape[0], count, *narrow.shape[2:]), np.nan)
            wide[:, measured] = narrow
            values[name] = wide
    return dataclasses.replace(sample, **values)


def _nbytes(steps: Steps) -> int:
    """The bytes ``steps``' arrays hold (and ~200 B of Python objects per snapshot)."""
    total = 0
    for snapshot in steps.snapshots:
        total += 200 + sum(getattr(snapshot, name).nbytes for name in ("q", "position", "omega_world", "L_world"))
        total += snapshot.energy.nbytes
    sample = steps.sample
    for field in dataclasses.fields(sample):
        value = getattr(sample, field.name)
        if isinstance(value, np.ndarray):
            total += value.nbytes
    return total


class Moment:
    """``session``'s run as it was at ``step`` (held in its step record), read as a session is read to draw it: its
    :attr:`latest` steps (the ``count`` ending at ``step``), :attr:`t`, the failures it had by then; the rest
    (the scene, the plotted rows, the views' groups, the references' flags) is the session's own."""

    def __init__(self, session: Session, step: int, count: int = 1) -> None:
        self.session = session
        self.step = int(step)
        assert session.record is not None, "a moment is read from a session that keeps its step record"
        self.latest = session.record.steps_until(self.step, count)
        self.snapshot = self.latest.snapshots[-1]

    def __getattr__(self, name: str):
        return getattr(self.session, name)

    @property
    def t(self) -> float:
        """Simulation time at the moment, s."""
        return self.snapshot.t

    def drawable(self, snapshot=None):
        """The moment's snapshot as it was drawn (a step record holds the steps as drawn)."""
        return self.snapshot if snapshot is None else snapshot

    def failures_by_bodies(self) -> dict:
        """The views that had failed by the moment, keyed by their bodies (``Session.failures_by_bodies``)."""
        t = self.t
        return {bodies: failure for bodies, failure in self.session.failures_by_bodies().items() if failure.t <= t}
