"""The original's view beside a branch (scene/model/branch.py): its own :class:`~render.run_view.RunView`, drawn on
the left of the branch's (their cameras shared), following the original's step as the timeline moves it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from spinlab.render.grid import grid_columns, grid_viewports_in
from spinlab.render.run_view import RunView
from spinlab.scene.model.branch import Original, original_labels
from spinlab.scene.model.step_record import Moment

if TYPE_CHECKING:
    import moderngl

    from spinlab.scene.model.run_model import Session

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

    def draw_beside(
        self,
        branch: RunView,
        screen: moderngl.Framebuffer,
        area: tuple[int, int, int, int],
        shown: Session | Moment,
        labels: list[tuple[str, ...]],
        *,
        text_scale: float,
        background: tuple[float, float, float],
    ) -> None:
        """The ``branch``'s view (showing ``shown`` with ``labels``) and the original's in ``area`` of ``screen``:
        the original on the left (or above, in a tall area), with the branch's cameras (framed first, by the
        branch's view), and one key, the branch's, across both when it runs along the bottom."""
        size = screen.size
        first, second = grid_viewports_in(area, 2, grid_columns(2, *area[2:]))
        span = area if first[1] == second[1] else None  # side by side (one above the other: a key each half)

        def draw_branch() -> None:
            branch.draw(
                screen, size, second, shown, text_scale=text_scale, labels=labels, background=background,
                shares_target=True, key_span=span,
            )  # fmt: skip

        if branch.cameras is None:  # the branch's view frames the cameras, on the first frame after a reset
            draw_branch()
        view, original = self.view, self.original
        view.cameras, view.poinsot_camera = branch.cameras, branch.poinsot_camera
        view.draw(
            screen, size, first, original.shown, text_scale=text_scale, labels=original_labels(original, branch.groups),
            background=background, shares_target=True, key=span is None, key_span=span,
        )  # fmt: skip
        draw_branch()

    def release(self) -> None:
        self.view.release()
