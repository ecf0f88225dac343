"""A branch: from a past step, a second run goes on with other choices beside the original.

"Branch" at the step shown keeps the run as it is (the *original*, with its whole step record, recorded future
included) and goes on from that exact state as a new run (scene/model/replay.py's ``at_step``, bit for bit), to which
every later change applies: the gyroscopic term, a kick, the divergence threshold. The two are shown side by side at
the same step: the original from its record while it holds that step, stepped on past it, so both futures advance in
lock step. Each branch view's label says how far it has turned from the original's copy of its bodies (the largest
orientation angle between the two, scene/model/measures.py), the divergence of the two futures.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from spinlab.scene.model.measures import orientation_error
from spinlab.scene.model.run_model import Group, Session, view_labels
from spinlab.scene.model.step_record import Moment, StepRecord

__all__ = ["Original", "Divergence", "branch_labels", "original_labels", "divergence_angles"]

_GREY = (0.8, 0.8, 0.8)


@dataclass(frozen=True)
class Divergence:
    """A branch's divergence from its original, drawn in the orientation plot: per view of the branch, the largest
    angle (rad) between a body's orientation in the two runs at each step from the branch's first, at times ``t``
    (S,) s: ``angle`` (G, S) rad, each view's line in ``rgb`` (G colours, its first body's)."""

    t: np.ndarray
    angle: np.ndarray
    rgb: list[tuple[float, float, float]]


class Original:
    """The run a branch went on from, shown beside it: ``session`` (kept, with its step record) at :attr:`step`."""

    def __init__(self, session: Session, step: int) -> None:
        self.session = session
        self.step = step
        self.first = step  # the branch's first step
        self.error: str | None = None  # why it stopped, once stepped on past its record
        # The divergence measured so far, from ``first`` on, of one branch run in one grid of views.
        self._measured: tuple[Session, tuple[Group, ...]] | None = None
        self._angles: list[np.ndarray] = []  # per step, (G,) rad

    def divergence(self, branch: Session, step: int, groups: tuple[Group, ...], rgb: list) -> Divergence:
        """The branch's divergence from this original (:func:`divergence_angles` per view) at each step from
        :attr:`first` to ``step``, read from the two runs' step records. Steps measured once are kept (the records
        do not change) until the branch is another run (taken back) or the views change; a step either record no
        longer holds ends the series. ``rgb``: the plotted bodies' colours (``branch.plotted``'s; a view's line takes
        its first plotted body's)."""
        if self._measured is None or self._measured[0] is not branch or self._measured[1] != groups:
            self._measured, self._angles = (branch, groups), []
        known = self.first + len(self._angles) - 1
        if step > known:
            mine, theirs = (_record(run).snapshots_until(step, step - known) for run in (branch, self.session))
            count = min(len(mine), len(theirs))
            if count == step - known:
                angles = orientation_error(
                    np.stack([snapshot.q for snapshot in mine]), np.stack([snapshot.q for snapshot in theirs])
                )
                self._angles += list(_largest_per_group(angles, groups))
        shown = np.array(self._angles[: max(step - self.first + 1, 0)]).reshape(-1, len(groups))
        t = (self.first + np.arange(len(shown))) * branch.h
        return Divergence(t, shown.T.copy(), [_group_rgb(branch, group, rgb) for group in groups])

    @property
    def shown(self) -> Session | Moment:
        """The original at :attr:`step`: itself when that is its last step, else the moment from its record."""
        return self.session if self.step >= _record(self.session).last_step else Moment(self.session, self.step)

    def go_to(self, step: int) -> None:
        """Show the original at ``step`` (the branch's): from its record, stepped on first past its last step
        (until it fails: then it stays at its last good step, :attr:`error` says why)."""
        session = self.session
        ahead = step - session.simulation.step_index
        if ahead > 0 and self.error is None:
            self.error = session.step(ahead).error
        record = _record(session)
        self.step = min(max(step, record.first_step), record.last_step)


def divergence_angles(branch: Session | Moment, original: Session | Moment, groups: tuple[Group, ...]) -> list[float]:
    """Per group, the largest angle (rad) between a body's orientation in the branch and in the original at the
    same step."""
    angles = orientation_error(branch.drawable().q, original.drawable().q)
    return [float(angle) for angle in _largest_per_group(angles[None], groups)[0]]


def _record(session: Session) -> StepRecord:
    assert session.record is not None, "a branched run keeps its step record"
    return session.record


def _group_rgb(session: Session, group: Group, rgb: list) -> tuple[float, float, float]:
    """The colour of ``group``'s first plotted body in ``rgb`` (the plotted bodies' colours), else a grey."""
    rows = [session.rows[body] for body in group.bodies if body in session.rows]
    return tuple(rgb[rows[0]]) if rows and len(rgb) == len(session.plotted) else _GREY


def _largest_per_group(angles: np.ndarray, groups: tuple[Group, ...]) -> np.ndarray:
    """(S, G): per step, the largest of ``angles`` (S, N) rad over each group's bodies (0 for an empty group)."""
    return np.stack([np.max(angles[:, list(group.bodies)], axis=1, initial=0.0) for group in groups], axis=1)


def branch_labels(branch: Session | Moment, original: Session | Moment, groups: tuple[Group, ...]) -> list[tuple]:
    """The branch's views' labels: their own (:func:`~scene.model.run_model.view_labels`), marked as the branch, and the
    divergence from the original, e.g. ``"Δθ from the original = 1.2e-03 rad"``."""
    angles = divergence_angles(branch, original, groups)
    return [
        (f"{title} · branch", *rest, f"Δθ from the original = {angle:.1e} rad" if angle else "as the original")
        for (title, *rest), angle in zip(view_labels(branch, groups), angles, strict=True)
    ]


def original_labels(original: Original, groups: tuple[Group, ...]) -> list[tuple]:
    """The original's views' labels, marked as the original (and, stepped on until it failed, why it stopped)."""
    stopped = () if original.error is None else ("stopped: " + original.error[:80],)
    return [(f"{title} · original", *rest, *stopped) for title, *rest in view_labels(original.shown, groups)]
