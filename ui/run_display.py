"""The run as the window shows it: the 3D views of the timeline's run (render/run_view.py, as ``record`` draws
them), a branch's original beside them (ui/branch.py), and the plots (ui/plot_series.py). It follows the timeline
(scene/model/timeline.py's :class:`~scene.model.timeline.Follower`): made for each run, all or nothing, fed every
step taken or played, shown afresh at a step looked back at."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from spinlab.render.run_view import RunView
from spinlab.scene.model.branch import Original
from spinlab.scene.model.run_model import Session, view_groups
from spinlab.scene.model.step_record import Moment
from spinlab.scene.model.timeline import Follower, Timeline
from spinlab.ui.branch import OriginalView
from spinlab.ui.capacity import release_freed_memory
from spinlab.ui.plot_series import PlotFeed

if TYPE_CHECKING:
    import moderngl

    from spinlab.render.renderer import RenderOptions
    from spinlab.render.text import TextOverlay
    from spinlab.ui.controller_state import Choices

__all__ = ["RunDisplay", "RELEASE_AFTER_BODIES"]

RELEASE_AFTER_BODIES = 1000  # a restart from or to a scene this large hands the freed memory back (ui/capacity.py)


class RunDisplay(Follower):
    """The views and plots of a run on ``ctx``, labelled with ``text``, as the person's ``choices`` show it (the
    overlays, one view per group or one, the body the exact ghosts follow; set before the first run starts)."""

    def __init__(self, ctx: moderngl.Context, text: TextOverlay) -> None:
        self.ctx, self.text = ctx, text
        self.choices: Choices | None = None
        self.plots = PlotFeed()
        self._view: RunView | None = None
        self._run: Session | None = None  # the run's first session: its groups and scene are every session's
        self.original_view: OriginalView | None = None  # a branch's original, drawn beside it

    @property
    def view(self) -> RunView:
        """The run on screen."""
        assert self._view is not None, "made when the first run started"
        return self._view

    def _choices(self) -> Choices:
        assert self.choices is not None, "set before the first run starts"
        return self.choices

    def started(self, session: Session) -> None:
        """A new run: its views and plots, all or nothing (raising keeps the running one's)."""
        choices = self._choices()
        session.retime_costs = True  # the cost column: each integrator's step timed alone (scene/model/failures.py)
        groups = view_groups(session, choices.split_views)
        view = RunView(self.ctx, session, self.text, options=choices.render, groups=groups)
        try:
            self.plots.started(session, view.renderer.layout.colors_rgba[:, :3])
        except BaseException:
            view.release()
            raise
        replaced = 0
        if self._view is not None:
            replaced = len(self._view.renderer.layout.colors_rgba)
            self._view.release()
        self._view, self._run = view, session
        if max(replaced, len(session.scene.bodies)) >= RELEASE_AFTER_BODIES:
            # The run replaced (or the scene's check run), before the first frame: worth its ~50 ms of collecting
            # only where there is much to give back.
            release_freed_memory()
        view.feed(session, self._poinsot_body(session))

    def stepped(self, shown: Session | Moment, newton_per_step: np.ndarray, ms_per_step: float) -> None:
        """Steps into the plots and the 3D trails, one point per step."""
        self.plots.stepped(shown, newton_per_step, ms_per_step)
        self.view.feed(shown, self._poinsot_body(shown))

    def shown_at(self, session: Session, step: int) -> None:
        self.view.show(session, step, self._poinsot_body(session))
        self.plots.shown_at(session, step)

    def switched(self, session: Session) -> None:
        self.plots.switched(session)

    def original_moved(self, original: Original | None) -> None:
        self.plots.original_moved(original)

    def _poinsot_body(self, session: Session | Moment) -> int | None:
        """The body the exact ghosts and the Poinsot traces of ``session`` follow: the one selected in the panel
        (side by side, its first copy)."""
        selected = self._choices().selected_body
        return session.row(selected) if selected < len(session.setup.scene.bodies) else None

    def prepare(self, timeline: Timeline) -> None:
        """The views at ``timeline``'s step shown, their cameras where the camera keys put them and their instance
        data made (no GL): a branch's original too, its view made once branched and released once the branch
        ends."""
        original, shown = timeline.original, self.original_view
        if shown is not None and shown.original is not original:
            shown.release()
            self.original_view = shown = None
        if original is not None:
            body = self._poinsot_body(original.session)
            if shown is None:
                view = RunView(self.ctx, original.session, self.text, options=self._choices().render,
                               groups=self.view.groups)  # fmt: skip
                self.original_view = shown = OriginalView(view, original, body)
            shown.follow(body)
        # The scene's camera keys set the cameras before the frame is prepared with them (a followed body wins).
        snapshot, choices = timeline.shown.drawable(), self._choices()
        self.view.steer(snapshot, timeline.shown.t, None if choices.follow else choices.camera)
        self.view.prepare(snapshot)

    def draw(
        self,
        timeline: Timeline,
        screen: moderngl.Framebuffer,
        area: tuple[int, int, int, int],
        *,
        text_scale: float,
        background: tuple[float, float, float],
    ) -> None:
        """The views of ``timeline``'s step shown into ``area`` of ``screen`` (beside the original's, branched)."""
        choices, shown, view = self._choices(), timeline.shown, self.view
        view.follow(shown.drawable(), choices.selected_body if choices.follow else None)
        if self.original_view is None:
            # The rest of the screen is the windows' colour: the renderer may fill it (one copy of its backdrop
            # cache).
            view.draw(screen, screen.size, area, shown, text_scale=text_scale, background=background)
        else:
            labels = timeline.view_labels(view.groups)
            self.original_view.draw_beside(
                view, screen, area, shown, labels, text_scale=text_scale, background=background
            )

    # -- what the controller asks of the views (ui/controller.py's Display) ------------------------------------

    def show_views(self, split: bool) -> None:
        """The run in one view per group (``split``) or in one view."""
        assert self._run is not None, "made when the first run started"
        self.view.set_groups(view_groups(self._run, split))
        if self.original_view is not None:
            self.original_view.view.set_groups(self.view.groups)

    def set_render_options(self, options: RenderOptions) -> None:
        self.view.renderer.options = options
        if self.original_view is not None:
            self.original_view.view.renderer.options = options

    def reset_view(self) -> None:
        self.view.reset_cameras()

    def release(self) -> None:
        self.view.release()
        if self.original_view is not None:
            self.original_view.release()
