"""A run over time, with no window: the run now, the step shown, the steps it kept, and a branch beside it.

Every step of a run is a function of its setup, its edits and its step index (scene/model/step_record.py), so what
a person does with time is a handful of operations on one :class:`Timeline`: step the run now; show a past step
(:meth:`~Timeline.seek`) and play its recorded steps on from there (:meth:`~Timeline.play`); go on from the step
shown as the run (:meth:`~Timeline.go_on_from_shown`: its later steps forgotten), or beside it as a branch
(:meth:`~Timeline.branch`, scene/model/branch.py), ended keeping either run (:meth:`~Timeline.end_branch`,
:meth:`~Timeline.back_to_original`); restart; and recompute the run on the compiled kernels once they
are ready (:meth:`~Timeline.switch_to_compiled`, scene/model/replay.py). The window, its tests and any other driver
call these; what draws the run (the 3D views, the plots) is a :class:`Follower`, told of every step taken or shown.

    >>> from spinlab.scene.files.scene_file import load_scene
    >>> from spinlab.scene.model.run_model import Setup, default_integrators
    >>> scene = load_scene("t_handle")
    >>> timeline = Timeline()
    >>> timeline.restart(Setup(scene, default_integrators(scene), h=scene.h))
    >>> timeline.step(90).steps, timeline.shown_step
    (90, 90)
    >>> timeline.seek(30); timeline.shown_step, timeline.session.simulation.step_index
    (30, 90)
    >>> timeline.go_on_from_shown(); timeline.session.simulation.step_index
    True
    30
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from spinlab.scene.model.branch import Divergence, Original, branch_labels
from spinlab.scene.model.replay import Replay, at_step
from spinlab.scene.model.run_changes import Change, InForce, in_force, run_changes
from spinlab.scene.model.run_model import Group, Session, Setup, view_labels
from spinlab.scene.model.step_record import Moment, StepRecord
from spinlab.sim import compiled

__all__ = ["Timeline", "Follower", "Stepped"]


class Follower(Protocol):
    """What draws a run and is told of its every change (the window's 3D views and plots; a test's plots). These
    do nothing: a class that derives from it overrides what it needs."""

    def started(self, session: Session) -> None:
        """A new run starts as ``session`` (at its step 0). Raising keeps the run there was: a restart is all or
        nothing."""
        return None

    def stepped(self, shown: Session | Moment, newton_per_step: np.ndarray, ms_per_step: float) -> None:
        """Steps were taken, or played on through the step record: ``shown.latest`` holds them, each with these
        mean Newton iterations per plotted body (K,) and wall milliseconds."""
        return None

    def shown_at(self, session: Session, step: int) -> None:
        """Show ``session``'s run at ``step`` afresh, from its step record (a past step looked at, or the run taken
        back there)."""
        return None

    def switched(self, session: Session) -> None:
        """The run goes on as ``session``, its same steps recomputed (on the compiled kernels)."""
        return None

    def original_moved(self, original: Original | None) -> None:
        """A branch's ``original`` is shown at its step (``original.step``) now; ``None``: no branch any more."""
        return None


class _Unseen(Follower):
    """A run nothing draws."""


@dataclass(frozen=True)
class Stepped:
    """What :meth:`Timeline.step` did: ``steps`` taken, the numerical ``error`` that stopped the run (if any), and
    whether a view of a comparison was frozen (``failed``)."""

    steps: int
    error: str | None = None
    failed: bool = False


class Timeline:
    """The run :attr:`session` and the step it shows (:attr:`moment`: ``None`` for the run now), its branch's
    :attr:`original` if any; ``follower`` is told of every change. Made empty: :meth:`restart` starts a run."""

    def __init__(self, follower: Follower | None = None) -> None:
        self.follower = follower if follower is not None else _Unseen()
        self._session: Session | None = None
        self.moment: Moment | None = None  # the past step shown; None: the run now
        self.original: Original | None = None  # the run a branch went on from
        self._replay: Replay | None = None
        # The run's integrators that stepped on a stand-in off their kernel's bits (sim/compiled.py): recomputed later.
        self._on_numpy: frozenset[str] = frozenset()

    # -- reading ----------------------------------------------------------------------------------------------

    @property
    def session(self) -> Session:
        """The run now (replaced by a restart, a take back or a switch to the compiled kernels)."""
        assert self._session is not None, "a run was started (restart)"
        return self._session

    @property
    def record(self) -> StepRecord:
        """The run's step record."""
        record = self.session.record
        assert record is not None, "a timeline's runs keep their step record"
        return record

    @property
    def shown(self) -> Session | Moment:
        """What is shown: the run now, or the past step looked at."""
        return self.session if self.moment is None else self.moment

    @property
    def shown_step(self) -> int:
        return self.session.simulation.step_index if self.moment is None else self.moment.step

    @property
    def in_force(self) -> InForce:
        """The switches the run takes the step after the one shown with (scene/model/run_changes.py): what the panel
        shows, looking back too."""
        return in_force(self.session, self.shown_step)

    @property
    def changes(self) -> tuple[Change, ...]:
        """The run's switches of the gyroscopic term, scripted and made, that the timeline and the plots mark."""
        return run_changes(self.session)

    def view_labels(self, groups: tuple[Group, ...]) -> list[tuple[str, ...]]:
        """The labels of the views of ``groups`` at the step shown (a branch's with its divergence from the
        original)."""
        if self.original is None:
            return view_labels(self.shown, groups)
        return branch_labels(self.shown, self.original.shown, groups)

    def divergence(self, groups: tuple[Group, ...], rgb: list) -> Divergence | None:
        """Branched, the branch's divergence from the original up to the step shown; else ``None``."""
        if self.original is None:
            return None
        return self.original.divergence(self.session, self.shown_step, groups, rgb)

    # -- the run now ----------------------------------------------------------------------------------------

    def restart(self, setup: Setup, session: Session | None = None) -> None:
        """Start ``setup`` from its initial state (as ``session``, made beforehand, when given): all or nothing,
        the follower's :meth:`~Follower.started` raising keeps the run there was. A branch ends."""
        session = session if session is not None else Session(setup, record=True)
        self.follower.started(session)
        self._session, self.moment, self.original = session, None, None
        self._replay, self._on_numpy = None, compiled.off_kernel_bits(session.simulation.integrators)

    def step(self, count: int, budget_s: float = float("inf"), per_call: int | None = None) -> Stepped:
        """Take up to ``count`` steps now, within ``budget_s`` wall seconds, at most ``per_call`` at a time (each
        step of each body is held until the follower has it); a numerical failure stops them."""
        taken, error, failed, start = 0, None, False, time.perf_counter()
        most = count if per_call is None else max(per_call, 1)
        while taken < count:
            asked = min(most, count - taken)
            report = self.session.step(asked, budget_s - (time.perf_counter() - start))
            taken += report.steps
            if report.steps:
                self.follower.stepped(self.session, report.newton_per_step, report.ms_per_step)
            error, failed = report.error, failed or bool(report.failed)
            # Fewer steps than asked: the session saw the budget spent, or about to be (its next call would take
            # one step whatever the budget left).
            if error or report.steps < asked or time.perf_counter() - start > budget_s:
                break
        self._follow_original()
        return Stepped(taken, error, failed)

    def switch_to_compiled(self, budget_s: float) -> bool:
        """Once the compiled kernels of every integrator the run stepped on its numpy path are ready
        (sim/compiled.py), recompute the run on them from its start, ``budget_s`` a call, and go on with that
        session: a run's numbers are the compiled kernels' whenever they came. Not while a past step is shown (the
        record shown would change). Whether it switched."""
        if not self._on_numpy or self.moment is not None:
            return False
        if self._replay is None:
            if compiled.not_ready(self._on_numpy):
                return False
            self._replay = Replay(self.session)
        replay = self._replay
        if not replay.advance(budget_s):
            return False
        replay.session.retime_costs = self.session.retime_costs
        self._session, self._replay = replay.session, None
        self._on_numpy = compiled.off_kernel_bits(replay.session.simulation.integrators)
        self.follower.switched(replay.session)
        return True

    # -- the steps kept -------------------------------------------------------------------------------------

    def seek(self, step: int) -> None:
        """Show the run as it was right after ``step`` (kept within its step record, whose last step is the run
        now)."""
        record = self.record
        step = min(max(int(step), record.first_step), record.last_step)
        if step == self.shown_step:
            return
        self.moment = None if step == record.last_step else Moment(self.session, step)
        self.follower.shown_at(self.session, step)
        self._follow_original()

    def play(self, count: int, *, then_live: bool = True) -> int:
        """Move the step shown ``count`` steps on through the recorded steps, as they were first taken; past the
        run's last step it goes on live (``then_live``). Returns the steps moved."""
        moment, record = self.moment, self.record
        if moment is None:
            return self.step(count).steps if then_live else 0
        shown = moment.step
        target = min(shown + count, record.last_step)
        for entry in record.entries_between(shown + 1, target):
            self.follower.stepped(
                Moment(self.session, entry.last, len(entry.snapshots)), entry.newton_per_step, entry.ms_per_step
            )
        self.moment = None if target == record.last_step else Moment(self.session, target)
        moved = target - shown
        if self.moment is None and moved < count and then_live:
            moved += self.step(count - moved).steps
        self._follow_original()
        return moved

    def go_on_from_shown(self) -> bool:
        """Looking back, go on from the step shown: the run goes back to it, bit for bit, and its later steps are
        forgotten; the gyroscopic switch and the divergence threshold are the run's there. Whether it went back.
        (A change made looking back branches instead, keeping them: ui/controller.py.)"""
        if self.moment is None:
            return False
        self._take_back(self.moment.step)
        return True

    def branch(self) -> Original:
        """Keep the run as it is, the original (its record and recorded future too), and go on from the step
        shown as a second run, to which later changes apply."""
        step, original = self.shown_step, self.session
        self._take_back(step)
        self.original = Original(original, step)
        self._follow_original()
        return self.original

    def end_branch(self) -> None:
        """Go on with the branch's run alone."""
        self.original = None
        self.follower.original_moved(None)

    def back_to_original(self) -> None:
        """Go on with the original alone, the branch forgotten: the run it was, its recorded future and all, shown
        at the step the branch showed (within what the original holds)."""
        original = self.original
        assert original is not None, "branched"
        session, step = original.session, original.step
        self._session, self.original, self._replay = session, None, None
        self.moment = None if step >= self.record.last_step else Moment(session, step)
        self.follower.shown_at(session, step)
        self.follower.original_moved(None)

    def _take_back(self, step: int) -> None:
        session = at_step(self.session, step)
        self._session, self.moment, self._replay = session, None, None
        self.follower.shown_at(session, step)
        self._follow_original()

    def _follow_original(self) -> None:
        """The original at the branch's step shown, stepped on past what it had recorded."""
        if self.original is not None:
            self.original.go_to(self.shown_step)
            self.follower.original_moved(self.original)
