"""A run recomputed from its start or a checkpoint: its numbers do not depend on when a compiled kernel arrived, and
any step it kept can be gone back to.

The window starts stepping before numba has compiled the integrators' kernels (sim/compiled.py): meanwhile their
numpy reference paths step the bodies, which agree with the kernels to a few ulps a step, not bit for bit. When the
kernels a run used are ready, :class:`Replay` starts a new :class:`~scene.model.run_model.Session` of the run's first
setup, with the run's kicks and its later edits (the gyroscopic switch, the divergence threshold, at the steps they
were made), and steps it on the compiled kernels, a few milliseconds at a time, until it reaches the running
session's step; the window then carries on with it. Every step of a run is a function of its setup, its edits and
its step index (the wall clock only decides how many steps a frame takes), so the replayed session is, bit for bit,
the session that would have run on the compiled kernels from the start.

The same recomputation takes a run back in time (scene/model/step_record.py, :func:`at_step`): started from a
checkpoint (``start``, a copy of the session at an earlier step) and stopped at a ``target`` step, it gives the run's
state at that step.
"""

from __future__ import annotations

import copy
import time
from typing import cast

from spinlab.scene.model.run_model import Session
from spinlab.sim.errors import NumericalError

__all__ = ["Replay", "at_step"]


class Replay:
    """``live``'s run so far (to its step ``target``, by default the step it is at), recomputed by :meth:`advance`
    on :attr:`session`: a new session of its first setup, or ``start``, a copy of it at an earlier step (a
    checkpoint: the edits made before that step are in it)."""

    def __init__(self, live: Session, *, start: Session | None = None, target: int | None = None) -> None:
        self.live = live
        self.target = target
        self.session = Session(live.initial_setup, record=live.record is not None) if start is None else start
        # The kicks are the running session's own schedule (a kick added while the replay catches up is seen too).
        self.session.simulation.kicks = live.simulation.kicks
        self.error: str | None = None
        self._edits_made = sum(1 for step, _, _ in live.edits if step < self.steps)

    @property
    def steps(self) -> int:
        return self.session.simulation.step_index

    def advance(self, budget_s: float = float("inf")) -> bool:
        """Step the replay towards the live session's step for about ``budget_s`` wall seconds; whether it has
        reached it (or stopped on the error the live run stopped on: :attr:`error`)."""
        start = time.perf_counter()
        live, session = self.live, self.session
        while True:
            self._make_edits()
            target = live.simulation.step_index if self.target is None else self.target
            if self.steps >= target or self.error is not None:
                return True
            left = budget_s - (time.perf_counter() - start)
            if left <= 0.0:
                return False
            pending = [step for step, _, _ in live.edits[self._edits_made :]]
            count = min([target, *pending]) - self.steps
            report = session.step(count, left)
            if report.error is not None:
                self.error = report.error
            elif report.steps == 0:
                return False

    def _make_edits(self) -> None:
        """Make the live run's edits that were made at the replay's step, in their order."""
        edits, session = self.live.edits, self.session
        while self._edits_made < len(edits) and edits[self._edits_made][0] <= self.steps:
            _, what, value = edits[self._edits_made]
            if what == "gyroscopic":
                session.set_gyroscopic(cast(bool, value))  # Session.edits holds what set_gyroscopic was given
            elif what == "divergence":
                session.set_divergence(cast(float, value))
            self._edits_made += 1


def at_step(session: Session, step: int) -> Session:
    """``session``'s run as it was at ``step`` (after the edits made there), a new session whose step record ends at
    ``step``: the record's newest checkpoint at or before ``step``, copied and stepped on with the run's later edits
    made again at their steps (:class:`Replay`). Bit for bit the state ``session`` had at ``step``. Raises
    :class:`ValueError` when its step record no longer holds ``step``."""
    record = session.record
    start = None if record is None else record.checkpoint_step(step)
    if record is None or start is None or not record.first_step <= step <= record.last_step:
        raise ValueError(f"step {step} is no longer in this run's step record")
    kept = record.checkpoints[start]
    begin = Session(session.initial_setup, sampled=session.sampled) if kept is None else kept.copy()
    replay = Replay(session, start=begin, target=step)
    replay.advance()
    if replay.error is not None:
        raise NumericalError(replay.error)
    back = replay.session
    # Its own kicks from now on: one struck on it (a branch) is not the run's.
    back.simulation.kicks = copy.deepcopy(session.simulation.kicks)
    back.record = record.until(step)
    back.latest = back.record.steps_until(step, 1)
    back.snapshot = back.latest.snapshots[-1]
    back.retime_costs = session.retime_costs
    return back
