"""A run's changes and the switches in force at any of its steps, read from the run itself: the gyroscopic term as
its setup started it, switched by the scene's ``[[change]]`` tables (scene/running/changes.py) and by the switches
made while it ran (``Session.edits``), in the order the simulation makes them at a step (the scene's first, then the
person's); and the divergence threshold, set by its setup and its edits.

The panel shows :func:`in_force` at the step shown (looking back too), the timeline and the plots mark
:func:`run_changes`, and the views' labels, in the window and in a video alike, carry :func:`change_caption` for
:data:`CAPTION_S` seconds after a change (scene/model/run_model.py's ``view_labels``). A scripted change's own words
(its ``caption``) are shown over the views for as long (scene/model/captions.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from spinlab.scene.model.run_model import Session
    from spinlab.scene.model.step_record import Moment

__all__ = ["Change", "InForce", "run_changes", "in_force", "change_caption", "CAPTION_S"]

CAPTION_S = 3.0  # simulated seconds a change's line stays in the views' labels, and a kick's or change's caption


@dataclass(frozen=True)
class Change:
    """The gyroscopic term switched to ``gyroscopic`` at step ``step`` (``t`` s): the steps from there on take it;
    ``scripted`` when a scene file's ``[[change]]`` did it, else a switch made while the run ran; ``body`` names the
    body whose own term it switched (``None``: the whole world's)."""

    step: int
    t: float
    gyroscopic: bool
    scripted: bool
    body: str | None = None

    @property
    def text(self) -> str:
        """What it did, in a few words: ``"gyroscopic term off"`` (``"… off for handle"``: one body's own)."""
        return f"gyroscopic term {'on' if self.gyroscopic else 'off'}" + (f" for {self.body}" if self.body else "")

    @property
    def caption(self) -> str:
        """What it did and when, as the views' labels say it: ``"gyroscopic term off at t = 13.40 s"``."""
        return f"{self.text} at t = {self.t:.2f} s"


@dataclass(frozen=True)
class InForce:
    """The switches a run takes its next step with: the gyroscopic term, and the divergence threshold (|ΔE|/E)."""

    gyroscopic: bool
    divergence: float


def run_changes(session: Session | Moment) -> tuple[Change, ...]:
    """Every switch of the gyroscopic term in ``session``'s run (a moment's: its session's), in step order: those of
    the whole world that changed it (a change to the value already in force is none), and each body's own."""
    h = session.simulation.h
    made = [(step, 0, value) for step, value in session.simulation.changes.by_step()]
    made += [(step, 1, bool(value)) for step, what, value in session.edits if what == "gyroscopic"]
    made.sort(key=lambda change: change[:2])  # a step's scripted change first, then the switches made there
    changes, on = [], session.initial_setup.gyroscopic
    for step, by_person, value in made:
        if value != on:
            changes.append(Change(step, step * h, value, scripted=not by_person))
            on = value
    if not session.simulation.changes.own_by_step():
        return tuple(changes)
    own = [Change(step, step * h, value, True, name) for step, name, value in session.simulation.changes.own_by_step()]
    return tuple(sorted(changes + own, key=lambda change: change.step))  # stable: the world's first at a step


def in_force(session: Session | Moment, step: int) -> InForce:
    """The switches ``session``'s run took the step after ``step`` with (those made at ``step`` included)."""
    gyroscopic = session.initial_setup.gyroscopic
    for change in run_changes(session):
        if change.step > step:
            break
        if change.body is None:
            gyroscopic = change.gyroscopic
    divergence = session.initial_setup.divergence
    for at, what, value in session.edits:
        if what == "divergence" and at <= step:
            divergence = cast(float, value)  # Session.edits holds what set_divergence was given
    return InForce(gyroscopic, divergence)


def change_caption(session: Session | Moment, t: float) -> str | None:
    """The caption of the latest change at or before ``t`` s, while it is less than :data:`CAPTION_S` old."""
    latest = None
    for change in run_changes(session):
        if change.t > t:
            break
        latest = change
    return latest.caption if latest is not None and t - latest.t < CAPTION_S else None
