"""The original's view beside a branch (scene/model/branch.py): its own :class:`~render.run_view.RunView`, drawn on
the left of the branch's (their cameras shared), following the original's step as the timeline moves it."""

from __future__ import annotations

from spinlab.render.run_view import RunView
from spinlab.scene.model.branch import Original
from spinlab.scene.model.step_record import Moment

__all__ = ["OriginalView"]


class OriginalView:
    """``view`` showing ``original`` at the step it was last shown (:meth:`follow`)."""

    def __init__(self, view: RunView, original: Original, preferred_body: int | None) -> None:
        self.view, self.original, self.step = view, original, original.step
        view.show(original.session, original.step, preferred_body)

    def follow(self, preferred_body: int | None) -> None:
        """The view at the original's step now: the steps moved on through fed to it, or shown afresh back there;
        its instance data prepared (no GL)."""
        original, step = self.original, self.original.step
        if step > self.step:
            self.view.feed(Moment(original.session, step, step - self.step), preferred_body)
        elif step < self.step:
            self.view.show(original.session, step, preferred_body)
        self.step = step
        self.view.prepare(original.shown.drawable())

    def release(self) -> None:
        self.view.release()
