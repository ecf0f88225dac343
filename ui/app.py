"""The window: pyglet + moderngl + ImGui, and the frame loop that drives a :class:`~scene.model.run_model.Session`.

One frame (:meth:`App.frame`): the wall time since the last frame, times the time scale, goes into a fixed-step
accumulator; the session takes the whole steps due (at most ``MAX_STEPS_PER_FRAME``, within a time budget, dropping
what it cannot catch up so the window keeps its frame rate while the simulation lags), the plots get a sample and
the 3D trails a point of every step taken (as a video's do), the panel and plots are laid out, the 3D view is drawn
into its part of the window, each view labelled as a video labels it, ImGui over it, and screenshots and video
frames are read back before the frame is shown. While recording, each frame of the video is exactly 1/60 s × the
time scale of the run, so the video plays at the chosen speed however slow the window is; its steps are taken within
the frame's budget, over several of the window's frames when they are dear, and the frame that gets there is recorded.

What a person asks for (the panel's and the keys' edits) is carried out by the window-free controller,
ui/controller.py, which holds the person's choices once, catches whatever an edit raises and shows it in the panel;
the window is its :class:`~ui.controller.Host`: it starts, steps, draws, records and captures the runs.
The window's whole life, from the command line, is commands/gui.py's :func:`~commands.gui.run_gui`.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import moderngl
import numpy as np
from imgui_bundle import imgui, implot
from OpenGL import GL as gl

from spinlab.render.grid import grid_columns, grid_viewports_in
from spinlab.render.renderer import Renderer, RenderOptions
from spinlab.render.run_view import RunView, reference_scale
from spinlab.render.text import TextOverlay
from spinlab.scene.files.png import save_png
from spinlab.scene.files.scene_file import SceneSpec
from spinlab.scene.model.run_model import Session, Setup, view_groups, view_labels
from spinlab.scene.running.history import Moment
from spinlab.scene.running.pacing import Accumulator
from spinlab.scene.running.replay import Replay
from spinlab.sim import compiled
from spinlab.ui import recording
from spinlab.ui.branch import Original, branch_labels, original_labels
from spinlab.ui.capacity import map_large_blocks, release_freed_memory, steps_per_call
from spinlab.ui.capture import RECORD_FPS, Recording, read_pixels
from spinlab.ui.controller import Controller, failure_text
from spinlab.ui.controller_state import PanelEdits
from spinlab.ui.cost_history import failure_lines
from spinlab.ui.files import timestamped_path
from spinlab.ui.key_help import draw_key_help, draw_state_badge
from spinlab.ui.panel import draw_panel
from spinlab.ui.plot_history import Divergence, history_until, new_history
from spinlab.ui.plots import PlotOptions, draw_plots
from spinlab.ui.scene_load import SceneLoad, loads_in_background
from spinlab.ui.theme import PANEL_BG_RGB, apply_theme, set_text_scale
from spinlab.ui.timeline import draw_timeline
from spinlab.ui.turns import turn_seconds
from spinlab.ui.view3d import Rect, to_viewport, window_layout
from spinlab.ui.view_mouse import ViewMouse
from spinlab.ui.window import WindowGone, clear_gl_errors, close_window, open_window, window_framebuffer, window_gone

if TYPE_CHECKING:
    from spinlab.scene.running.history import RunHistory
    from spinlab.ui.cost_history import LiveRun
    from spinlab.ui.kernel_loader import KernelLoader

__all__ = ["App", "WINDOW_SIZE"]

WINDOW_SIZE = (1280, 720)
MAX_FRAME_S = 0.1  # a longer frame (a stall, a dragged window) counts as this long
MAX_STEPS_PER_FRAME = 240
RELEASE_AFTER_BODIES = 1000  # a restart from or to a scene this large hands the freed memory back (ui/capacity.py)
# While recording every step due is taken (the video's time is exact), up to this many a frame: a tiny h
# (down to a scene file's 1e-50 s) would otherwise never finish a frame. Beyond it the video runs slow.
MAX_RECORD_STEPS_PER_FRAME = 20_000
# Stepping may take this long in a frame, or this share of the recent frame time if that is longer (a frame slow
# to draw leaves room to step: at worst stepping doubles it, never starves it), but never more than the most: a
# frame slow because its steps are (kernels still compiling, the numpy paths step) must not grant itself more
# (issue 22: no frame over 0.1 s); the simulation then runs behind real time, which the status line says.
STEP_BUDGET_S = 0.008
STEP_BUDGET_SHARE = 0.5
STEP_BUDGET_MOST_S = 0.025
# A run recomputed on the compiled kernels once they are ready (scene/running/replay.py) takes this long a frame at
# most.
REPLAY_BUDGET_S = 0.004
FRAME_STATS = 60  # frames over which frame time and speed are averaged
FRAME_LOG = 1200
# The panel and the plots are fixed windows without a background of their own: the frame is cleared to their
# colour first (a clear costs nothing on llvmpipe; ImGui's window backgrounds, blended and textured, cost ~6 ms of
# CPU a frame at 1280x720).
FIXED_WINDOW = (
    imgui.WindowFlags_.no_move | imgui.WindowFlags_.no_resize | imgui.WindowFlags_.no_collapse
    | imgui.WindowFlags_.no_saved_settings | imgui.WindowFlags_.no_background
)  # fmt: skip
BACKGROUND_SRGB = PANEL_BG_RGB
LABEL_SCALE = 0.85  # the views' labels against a video's of the same height: the panel and plots share the window


class App:
    """The window on ``scene``, of ``size`` pixels (or full screen); it may be resized at any time, every frame is
    drawn at the window's size then. ``visible=False`` and ``vsync=False`` serve tests and benchmarks,
    ``output_dir`` is where screenshots, videos and CSV files go (default: the current directory)."""

    def __init__(
        self,
        scene: SceneSpec,
        *,
        size: tuple[int, int] = WINDOW_SIZE,
        visible: bool = True,
        vsync: bool = True,
        output_dir: str = ".",
        fullscreen: bool = False,
    ) -> None:
        map_large_blocks()
        self.window = open_window(size, visible=visible, vsync=vsync, fullscreen=fullscreen)
        self.ctx = moderngl.create_context()
        clear_gl_errors(self.ctx)
        self._screen_fb: moderngl.Framebuffer | None = None  # the window's framebuffer at its size (_screen)
        # The text overlay keeps its own ImGui context; made while none is current it leaves none current, so
        # the window's context below becomes current (render/text.py).
        self.text = TextOverlay(self.ctx)
        imgui.create_context()
        implot.create_context()
        imgui.get_io().set_ini_filename("")
        self.window.push_handlers(self)  # under ImGui's handlers, which see every event first
        # imports pyglet.window, which needs a display: after open_window
        from spinlab.ui.imgui_backend import ImGuiBackend

        self.imgui_renderer = ImGuiBackend(self.window, self.ctx)
        self.ui_scale = max(self.window.scale, 1.0) if self.pixel_ratio == 1.0 else 1.0
        apply_theme(self.ui_scale)

        # The person's choices (``state``) and the panel's form, held by the controller; this window is its host.
        self.controller = Controller(scene, self, output_dir=output_dir)
        self.state, self.form = self.controller.choices, self.controller.form
        self.state.render, self.state.plots = RenderOptions.for_bodies(len(scene.bodies)), PlotOptions()
        self.recording: Recording | None = None
        self.finishing: list[recording.Finishing] = []  # stopped videos being finalised (ui/recording.py)
        self._loading: SceneLoad | None = None  # a large scene being loaded in the background (ui/scene_load.py)
        self._prepared: SceneLoad | None = None  # one loaded, whose run the next restart starts if it is its setup
        self.announce_recording = False  # print "recording to PATH" on stdout at the first frame (run_gui)
        self.want_screenshot = False
        self.last_screenshot: Path | None = None
        self.last_video: Path | None = None
        # The run and the run on screen (render/run_view.py, as record draws it): made by the controller's start
        # below (restart), then always there (:attr:`session`, :attr:`view`).
        self._session: Session | None = None
        self._view: RunView | None = None
        self.mouse = ViewMouse(self)  # a gesture on the 3D view (ui/view_mouse.py)
        self._frame_s: deque[float] = deque(maxlen=FRAME_STATS)
        self._last_update: float | None = None
        self._speed: deque[tuple[int, float, float]] = deque(maxlen=FRAME_STATS)  # steps, advanced, requested
        self._panel_edits = PanelEdits()
        self.frame_log: deque[tuple[float, float, float, float]] = deque(maxlen=FRAME_LOG)
        # What compiles the kernels meanwhile (commands/gui.py), closed with the window.
        self.kernel_loader: KernelLoader | None = None
        self._replay: Replay | None = None
        # The run's integrators that stepped on a stand-in off their kernel's bits (sim/compiled.py): recomputed later.
        self._on_numpy: frozenset[str] = frozenset()
        self.moment: Moment | None = None  # the past step shown (scene/running/history.py); None: the run now
        self.original: Original | None = None  # the run a branch went on from, drawn beside it (ui/branch.py)
        self._record_until: int | None = None  # the last step of a recording of the history (start_recording)
        self._video_behind = False  # recording: the steps to the video's next frame are not all taken (_advance)
        self.state_badge: Rect | None = None  # where the PAUSED / STOPPED badge went in the last frame (window px)
        self.controller.start()

    @property
    def session(self) -> Session:
        """The running session (made when the window opens, replaced by a restart or a branch)."""
        assert self._session is not None, "the controller's start made the first session"
        return self._session

    @session.setter
    def session(self, session: Session) -> None:
        self._session = session

    @property
    def view(self) -> RunView:
        """The run on screen (render/run_view.py)."""
        assert self._view is not None, "the controller's start made the first view"
        return self._view

    @property
    def pixel_ratio(self) -> float:
        """Framebuffer pixels per window coordinate (2 on a HiDPI display whose framebuffer is larger)."""
        return self.window.get_framebuffer_size()[0] / max(self.window.width, 1)

    def window_layout(self):
        """Where the panel, the plots and the 3D view go now (ui/view3d.py's :func:`window_layout`): the panel and
        the plots grow with the chosen text size, and the plots' strip with a plot enlarged."""
        state = self.state
        return window_layout(
            self.window.width,
            self.window.height,
            panel=state.show_panel,
            plots=state.show_plots,
            ui_scale=self.ui_scale * state.text_scale,
            enlarged=bool(state.plots is not None and state.plots.focus),
        )

    @property
    def pending(self) -> PanelEdits:
        """What the keys asked for since the last frame (the controller's; set it to ask for edits at once)."""
        return self.controller.pending

    @pending.setter
    def pending(self, edits: PanelEdits) -> None:
        self.controller.pending = edits

    # -- the run --------------------------------------------------------------------------------------------

    def restart(self, setup: Setup) -> None:
        """Start ``setup`` from its initial state: a new session, renderer, plots and cameras. All or
        nothing: if any of them cannot be made, the error is raised and the running session is kept."""
        state = self.state
        prepared, self._prepared = self._prepared, None
        made = prepared.run_for(setup) if prepared is not None else None
        session = made if made is not None else Session(setup, history=True)
        session.retime_costs = True  # the cost column: each integrator's step timed alone (scene/model/failures.py)
        groups = view_groups(session, state.split_views)
        view = RunView(self.ctx, session, self.text, options=state.render, groups=groups)
        try:
            history = new_history(session, view.renderer.layout.colors_rgba[:, :3])
        except BaseException:
            view.release()
            raise
        replaced = len(self._session.scene.bodies) if self._session is not None else 0
        if self._view is not None:
            self._view.release()
        self._end_branch()
        self._session, self._view, self.history = session, view, history
        self._replay, self._on_numpy = None, compiled.off_kernel_bits(session.simulation.integrators)
        self.moment, self._record_until = None, None
        if max(replaced, len(session.scene.bodies)) >= RELEASE_AFTER_BODIES:
            # The run replaced (or the scene's check run), before the first frame: worth its ~50 ms of collecting
            # only where there is much to give back.
            release_freed_memory()
        self.accumulator = Accumulator()  # the simulated time owed (scene/running/pacing.py)
        self._video_behind = False
        state.error = None
        self.form.status.wall_t = 0.0
        self.form.failures, self.form.live = [], history.live
        self._record_sample(np.zeros(len(self.session.plotted)), float("nan"))

    def _record_sample(self, newton_per_step: np.ndarray, ms_per_step: float) -> None:
        """The session's latest steps into the plots and the 3D trails, one point per step."""
        self.history.append(self.session.latest.sample, newton_per_step, ms_per_step)
        self.view.feed(self.session, self._poinsot_body())

    @property
    def renderer(self) -> Renderer:
        """The run's renderer (its bodies, trails, ghosts and Poinsot traces)."""
        return self.view.renderer

    def _poinsot_body(self) -> int | None:
        """The body the exact ghosts and the Poinsot traces follow: the one selected in the panel (side by side,
        its first copy)."""
        selected = self.state.selected_body
        bodies: Sequence[int] = range(len(self.session.setup.scene.bodies))
        if self.session.setup.side_by_side:
            bodies = self.session.groups[0].bodies
        return bodies[selected] if selected < len(bodies) else None

    def step(self, count: int, budget_s: float = float("inf")) -> int:
        """Take up to ``count`` steps now, within ``budget_s`` wall seconds; a numerical failure pauses the run and
        shows why. Returns the steps. The steps are taken and recorded a few at a time when the bodies are many
        (ui/capacity.py's :func:`steps_per_call`): each step of each body is held until it is recorded."""
        taken, start, most = 0, time.perf_counter(), steps_per_call(len(self.session.scene.bodies))
        while taken < count:
            asked = min(most, count - taken)
            report = self.session.step(asked, budget_s - (time.perf_counter() - start))
            taken += report.steps
            if report.steps:
                self._record_sample(report.newton_per_step, report.ms_per_step)
            if report.error:
                self.state.error, self.state.paused = report.error, True
            if report.failed:  # a view of a comparison froze: listed in the panel, the others go on
                self.form.failures = failure_lines(self.session)
            # Fewer steps than asked: the session saw the budget spent, or about to be (its next call would take
            # one step whatever the budget left: 2 steps of 25 ms on the numpy paths, a 0.1 s frame).
            if report.error or report.steps < asked or time.perf_counter() - start > budget_s:
                break
        return taken

    def _switch_to_compiled(self) -> None:
        """Once the compiled kernels of every integrator the run stepped on its numpy path are ready
        (sim/compiled.py), recompute the run on them from its start, :data:`REPLAY_BUDGET_S` a frame
        (scene/running/replay.py), and carry on with that session: a run's numbers are the compiled kernels' whenever
        they came. The plots and trails drawn meanwhile stay (they differ in the last bits at most)."""
        if not self._on_numpy or self.moment is not None:  # not while looking back: the history shown would change
            return
        if self._replay is None:
            if compiled.not_ready(self._on_numpy):
                return
            self._replay = Replay(self.session)
        replay = self._replay
        if not replay.advance(REPLAY_BUDGET_S):
            return
        replay.session.retime_costs = self.session.retime_costs
        self.session = self._live().session = replay.session
        self._replay, self._on_numpy = None, compiled.off_kernel_bits(replay.session.simulation.integrators)

    def _advance(self, wall_dt: float) -> None:
        """Feed this frame's time to the accumulator and take the whole steps due (looking back: move on through
        the run's recorded steps, then on live)."""
        state, h = self.state, self.session.h
        if state.paused or (state.error and self.moment is None):
            return
        scale = 2.0**state.time_scale_exp
        # Recording, every frame of the video is 1/RECORD_FPS of it at the chosen speed, however long it took to
        # draw; the next one's time is added once the last was recorded.
        if self.recording:
            requested = 0.0 if self._video_behind else scale / RECORD_FPS
        else:
            requested = min(wall_dt, MAX_FRAME_S) * scale
        due = self.accumulator.due(requested, h)
        budget = min(max(STEP_BUDGET_S, STEP_BUDGET_SHARE * 1e-3 * self.form.status.frame_ms), STEP_BUDGET_MOST_S)
        self._video_behind = False  # set again below only by a recording's frame short of its steps
        if self.moment is not None:
            most = MAX_RECORD_STEPS_PER_FRAME if self.recording else MAX_STEPS_PER_FRAME
            steps = self._replay_history(min(due, most))
        elif self.recording:
            # The steps to the video's next frame within the frame's budget, over as many of the window's frames as
            # they take; only the frame that gets there is recorded (:meth:`draw`). The video's time stays exact,
            # and no frame of the window waits for a video frame's steps: 4 steps side by side on the numpy paths,
            # while a cold start's kernels compile, took 0.1 s.
            asked = min(due, MAX_RECORD_STEPS_PER_FRAME)
            steps = self.step(asked, budget)
            self._video_behind = steps < asked and not state.paused
        else:
            steps = self.step(min(due, MAX_STEPS_PER_FRAME), budget)
        self.accumulator.took(steps, due, h, keep=self._video_behind)
        self.form.status.wall_t += wall_dt
        self._speed.append((steps, steps * h, requested))

    # -- going back in time (scene/running/history.py) ---------------------------------------------------------------

    @property
    def shown(self) -> Session | Moment:
        """What the views, labels and plots show: the run now, or the past step looked back at."""
        return self.session if self.moment is None else self.moment

    @property
    def shown_step(self) -> int:
        return self.session.simulation.step_index if self.moment is None else self.moment.step

    def seek(self, step: int) -> None:
        """Show the run as it was right after ``step`` was drawn (kept within its history, whose last step is the
        run now): the bodies, labels, trails, exact ghosts, Poinsot traces and plots, from its history."""
        history = self._history()
        step = min(max(int(step), history.first_step), history.last_step)
        if step == self.shown_step:
            return
        self.moment = None if step == history.last_step else Moment(self.session, step)
        self._show(step)

    def _history(self) -> RunHistory:
        """The run's history: the window's sessions keep theirs (``Session(history=True)``)."""
        history = self.session.history
        assert history is not None, "the window's sessions keep their history"
        return history

    def _live(self) -> LiveRun:
        """The plots' live run (ui/cost_history.py), which every window's plot history has."""
        live = self.history.live
        assert live is not None, "made with the plot history (new_history, history_until)"
        return live

    def _show(self, step: int) -> None:
        """The renderer's part of the run and the plots as they were right after ``step`` was drawn."""
        self.view.show(self.session, step, self._poinsot_body())
        self.history = history_until(self.session, self.renderer.layout.colors_rgba[:, :3], step, self.history.live)
        self.form.live = self.history.live

    def _replay_history(self, count: int) -> int:
        """Move the step shown ``count`` steps on through the run's recorded steps, drawn as they were first drawn;
        past the run's last step it goes on live. Returns the steps moved."""
        history, moment = self._history(), self.moment
        assert moment is not None, "the history is replayed from a step looked back at"
        shown = moment.step
        target = min(shown + count, history.last_step)
        ahead = Moment(self.session, target, target - shown)  # the steps moved through, as a step call's
        self.view.feed(ahead, self._poinsot_body())
        for entry in history.entries_between(shown + 1, target):
            self.history.append(entry.steps.sample, entry.newton_per_step, entry.ms_per_step)
        self.moment = None if target == history.last_step else Moment(self.session, target)
        moved = target - shown
        if self.moment is None and moved < count and self._record_until is None:
            moved += self.step(count - moved)
        return moved

    def go_on_from_shown(self) -> None:
        """Looking back, go on from the step shown: the run goes back to it (``Session.at_step``, bit for bit) and
        its later steps are forgotten; the gyroscopic switch and the divergence threshold are the run's there."""
        if self.moment is None:
            return
        self._take_back(self.moment.step)

    def _take_back(self, step: int) -> None:
        """Go on with the run as it was at ``step`` (a new session, bit for bit), its plots and view rebuilt."""
        session = self.session.at_step(step)
        self.session, self.moment, self._replay = session, None, None
        self._live().session = session
        self._show(step)
        state = self.state
        state.gyroscopic, state.divergence = session.simulation.world.gyroscopic, session.watch.threshold
        state.error = None
        self.form.failures = failure_lines(session)

    # -- a branch: two futures side by side (ui/branch.py) ----------------------------------------------------

    def branch(self) -> None:
        """Keep the run as it is, the original (its history and recorded future too), and go on from the step
        shown as a second run drawn beside it, to which later changes apply; branched already, end the branch and
        go on with the branch's run alone."""
        if self.original is not None:
            self._end_branch()
            self.controller.tell("branch ended: the branch's run goes on alone")
            return
        step, original = self.shown_step, self.session
        view = RunView(self.ctx, original, self.text, options=self.state.render, groups=self.view.groups)
        try:
            self._take_back(step)
        except BaseException:
            view.release()
            raise
        self.original = Original(view, original, step, self._poinsot_body())
        self.controller.tell(
            f"branched at t = {step * original.h:.4g} s: the original on the left, the branch on the right; "
            "a change now applies to the branch"
        )

    def _end_branch(self) -> None:
        if self.original is not None:
            self.original.release()
            self.original = None

    def branch_divergence(self) -> Divergence | None:
        """Branched, the branch's divergence from the original up to the step shown (plotted with the orientation
        errors); else ``None``."""
        if self.original is None:
            return None
        return self.original.divergence(self.session, self.shown_step, self.view.groups, self.history.rgb)

    def branch_view_labels(self) -> list[tuple[str, ...]]:
        """The labels of the views shown (of the branch's, when branched: with the divergence from the original)."""
        if self.original is None:
            return view_labels(self.shown, self.view.groups)
        return branch_labels(self.shown, self.original.shown, self.view.groups)

    # -- what the controller asks of the window (ui/controller.py's Host) ----------------------------------------

    def show_views(self, split: bool) -> None:
        self.view.set_groups(view_groups(self.session, split))
        if self.original is not None:
            self.original.view.set_groups(self.view.groups)

    def set_render_options(self, options: RenderOptions) -> None:
        self.renderer.options = options
        if self.original is not None:
            self.original.view.renderer.options = options

    def reset_view(self) -> None:
        self.view.reset_cameras()

    def request_screenshot(self) -> None:
        self.want_screenshot = True

    def start_recording(self, path) -> None:
        """Record from the next frame on; looking back, the run's history from the step shown to the run now,
        played on at the chosen speed, and then stop (:meth:`_stop_at_present`)."""
        self.recording, self._video_behind = Recording(path), False
        if self.moment is not None:
            self._record_until = self._history().last_step
            self.state.paused = False

    def _stop_at_present(self) -> None:
        """A recording of the history stops, paused, once the run now is drawn."""
        if self._record_until is not None and (self.recording is None or self.shown_step >= self._record_until):
            self._record_until = None
            self.state.paused = self.state.paused or self.recording is not None
            if self.recording is not None:
                self.controller.attempt(self.stop_recording, failed="video not saved")

    def stop_recording(self) -> str:
        return recording.stop_recording(self)

    def paths_in_use(self) -> frozenset[Path]:
        return recording.paths_in_use(self)

    # -- one frame --------------------------------------------------------------------------------------------

    def frame(self, wall_dt: float) -> None:
        """One whole frame into the back buffer (the caller flips): :meth:`update`, then :meth:`draw`."""
        self.update(wall_dt)
        self.draw()

    def update(self, wall_dt: float) -> None:
        """The CPU half of a frame: carry out what was asked, advance the simulation, lay out the UI."""
        edits, self._panel_edits = (self.controller.take_pending(), self._panel_edits), PanelEdits()
        if self.finishing:
            recording.collect_finished(self)
        running = self._session
        for asked in (*edits, *self._loaded_edits()):
            if asked.scene is not None and asked.loaded is None and loads_in_background(asked.scene):
                self._loading = SceneLoad(asked, self.state)  # a later one replaces it
                self.controller.tell(f"loading {asked.scene} …")
                continue
            self.controller.apply(asked)
        self._prepared = None  # a loaded scene's run not started (its edit failed) is not kept
        self._switch_to_compiled()
        if self._session is running:
            self._advance(wall_dt)
        # else a new run (a restart, a scene loaded): its first steps wait for the next frame, which a frame that
        # made the session, views and plots and drew them all has no time left for (issue 22: no frame over 0.1 s).
        if self.original is not None:  # at the branch's step, stepped on past what it had recorded
            self.original.go_to(self.shown_step, self._poinsot_body())
            self.original.view.prepare(self.original.shown.drawable())
        # The 3D view's instance data now, while the rasteriser still works on the last frame (no GL).
        self.view.prepare(self.shown.drawable())
        self._update_status(wall_dt)
        self._panel_edits, self._layout = self._build_ui(wall_dt)

    def _loaded_edits(self) -> list[PanelEdits]:
        """The edit of a scene loaded in the background, once it is (with what was made: ``loaded``)."""
        loading = self._loading
        if loading is None or not loading.done():
            return []
        self._loading, self._prepared = None, loading
        loading.edit.loaded = loading
        return [loading.edit]

    def draw(self) -> None:
        """The GL half: the 3D view, ImGui over it, then screenshots and video frames read back; the commands
        are flushed so that the rasteriser works while the next :meth:`update` runs."""
        width, height = self.window.get_framebuffer_size()
        screen = self._screen((width, height))
        area = self.draw_views(screen)
        video_frame = self.recording is not None and not self._video_behind  # not a frame short of its steps
        if video_frame and not self.state.record_window:
            self.controller.attempt(recording.record_frame, self, area, failed="recording stopped")
        screen.use()
        self.imgui_renderer.render(imgui.get_draw_data(), screen)
        if video_frame and self.state.record_window:
            self.controller.attempt(recording.record_frame, self, (0, 0, width, height), failed="recording stopped")
        if self.want_screenshot:
            self.want_screenshot = False
            self.controller.attempt(self._screenshot, (width, height), failed="screenshot not saved")
        self._stop_at_present()
        gl.glFlush()

    def draw_views(self, screen: moderngl.Framebuffer) -> tuple[int, int, int, int]:
        """The window's background and the 3D views with their labels (what the views show: :attr:`shown`) into
        ``screen``, the window's framebuffer; returns the views' area (x, y, width, height), GL's pixels."""
        width, height = screen.size
        area = to_viewport(self._layout.view, self.window.height, width / max(self.window.width, 1))
        screen.use()
        screen.scissor = None  # type: ignore[assignment]  # None (no scissor test) is allowed; the stub omits it
        screen.viewport = (0, 0, width, height)
        screen.clear(*BACKGROUND_SRGB, 1.0, depth=1.0)
        shown = self.shown
        self.view.follow(shown.drawable(), self.state.selected_body if self.state.follow else None)
        scale = LABEL_SCALE * reference_scale(height)
        if self.original is None:
            # The rest of the screen is the windows' colour: the renderer may fill it (one copy of its backdrop
            # cache).
            self.view.draw(screen, (width, height), area, shown, text_scale=scale, background=BACKGROUND_SRGB)
            return area
        # Branched: the original on the left (or above, in a tall area), with the branch's cameras (framed first, by
        # the branch's view), and one key, the branch's, across both when it runs along the bottom.
        original = self.original
        first, second = grid_viewports_in(area, 2, grid_columns(2, *area[2:]))
        labels = self.branch_view_labels()
        span = area if first[1] == second[1] else None  # side by side (one above the other: a key each half)

        def draw_branch() -> None:
            self.view.draw(
                screen, (width, height), second, shown, text_scale=scale, labels=labels, background=BACKGROUND_SRGB,
                shares_target=True, key_span=span,
            )  # fmt: skip

        if self.view.cameras is None:  # the branch's view frames the cameras, on the first frame after a reset
            draw_branch()
        original.view.cameras, original.view.poinsot_camera = self.view.cameras, self.view.poinsot_camera
        original.view.draw(
            screen, (width, height), first, original.shown, text_scale=scale,
            labels=original_labels(original, self.view.groups), background=BACKGROUND_SRGB, shares_target=True,
            key=span is None, key_span=span,
        )  # fmt: skip
        draw_branch()
        return area

    def _screen(self, size: tuple[int, int]) -> moderngl.Framebuffer:
        """The window's framebuffer at its ``size`` this frame (``ctx.screen`` keeps the size the window opened
        with: ui/window.py's :func:`window_framebuffer`); made again when the window was resized. The renderer's
        caches follow the size of the framebuffer they are given."""
        if self._screen_fb is None or tuple(self._screen_fb.size) != tuple(size):
            self._screen_fb = window_framebuffer(self.ctx, size)
        return self._screen_fb

    def _build_ui(self, wall_dt: float):
        io = imgui.get_io()
        io.delta_time = max(wall_dt, 1e-4)
        state = self.state
        set_text_scale(state.text_scale)  # read by the new frame
        imgui.new_frame()
        layout = self.window_layout()
        edits = PanelEdits()
        if layout.panel is not None:
            imgui.set_next_window_pos(imgui.ImVec2(layout.panel.x, layout.panel.y))
            imgui.set_next_window_size(imgui.ImVec2(layout.panel.width, layout.panel.height))
            if imgui.begin(f"spinlab · {state.scene_name}###panel", flags=FIXED_WINDOW)[0]:
                edits = draw_panel(state, self.form)
            imgui.end()
        if layout.plots is not None:
            imgui.set_next_window_pos(imgui.ImVec2(layout.plots.x, layout.plots.y))
            imgui.set_next_window_size(imgui.ImVec2(layout.plots.width, layout.plots.height))
            flags = FIXED_WINDOW | imgui.WindowFlags_.no_title_bar | imgui.WindowFlags_.no_scrollbar
            if imgui.begin("plots", flags=flags)[0]:
                history = self._history()
                draw_timeline(
                    edits, history.first_step, self.shown_step, history.last_step, self.session.h,
                    branched=self.original is not None,
                )  # fmt: skip
                available = imgui.get_content_region_avail()
                self.history.divergence = self.branch_divergence()
                edits.plot_focus = draw_plots(self.history, state.plots, (available.x, available.y))
            imgui.end()
        # The badges sit above the strip the overlays' key may take at the bottom of the view (render/run_view.py),
        # and the state badge clear of the key in a free cell of the grid.
        ratio = self.pixel_ratio
        strip = self.view.key_strip_px / ratio
        views = Rect(layout.view.x, layout.view.y, layout.view.width, max(layout.view.height - strip, 1.0))
        if self.recording:
            recording.draw_rec_indicator(self, views)
        key = self.view.key_rect if state.paused or state.error else None  # the badge is drawn only then
        avoid = None if key is None else Rect(*(value / ratio for value in key))
        self.state_badge = draw_state_badge(views, state.paused, state.error, self.ui_scale, avoid)
        self.mouse.draw()
        if state.show_key_help:
            state.show_key_help = draw_key_help(layout.view)
        imgui.render()
        return edits, layout

    def _update_status(self, wall_dt: float) -> None:
        # Frame time as the clock sees it, whatever ``wall_dt`` the caller fed the simulation.
        now = time.perf_counter()
        if self._last_update is not None:
            self._frame_s.append(now - self._last_update)
        self._last_update = now
        status = self.form.status
        status.sim_t = self.shown.t
        status.frame_ms = 1e3 * float(np.median(self._frame_s)) if self._frame_s else 0.0
        recent = np.array(self._speed) if self._speed else np.array([[0.0, 1.0, 1.0]])
        steps, advanced, requested = recent.sum(axis=0)
        status.speed_ratio = advanced / requested if requested > 0 else 1.0
        status.steps_per_frame = steps / len(recent)
        self.form.record_seconds = self.recording.seconds if self.recording else 0.0

    def _screenshot(self, size: tuple[int, int]) -> None:
        path = save_png(
            timestamped_path(self.state.output_dir, self.state.scene_name, ".png"), read_pixels(self.ctx, (0, 0, *size))
        )
        self.last_screenshot = path
        self.controller.tell(f"screenshot saved to {path}")

    # -- the loop and input ------------------------------------------------------------------------------------

    def run(self, max_fps: float | None = 60.0, frames: int | None = None) -> None:
        """Dispatch events and draw frames until the window is closed (or ``frames`` have been drawn);
        ``max_fps`` caps the frame rate when vsync does not (``None``: as fast as it goes). Each frame is updated
        while the previous one is rasterised, then shown, then drawn; ``frame_log`` keeps the seconds of each
        part (events, update, flip, draw: together the time from one frame to the next, short of the cap's
        sleep) of the last frames. The cap paces frames on a fixed grid of ``1 / max_fps``: a sleep that overshoots
        (they do by up to a millisecond) is made up at the next frames, so the rate is ``max_fps`` on average, not
        a little under it; of a longer lag, at most one period is made up.

        The window going from outside (ui/window.py) raises :class:`WindowGone` as soon as the loop notices, at
        the latest after the next dispatch of events or flip."""
        last = time.perf_counter()
        deadline = last
        count = 0
        # The kernel loader's thread runs Python only between frames (ui/turns.py), not beside them.
        turns = self.kernel_loader.turns if self.kernel_loader is not None else None
        while not self.window.has_exit and (frames is None or count < frames):
            begun = time.perf_counter()
            if turns is not None:
                turns.close()
            self.window.dispatch_events()
            self._check_window()
            start = time.perf_counter()
            self.update(start - last)
            last = start
            updated = time.perf_counter()
            self.window.flip()
            self._check_window()
            shown = time.perf_counter()
            self.draw()
            drawn = time.perf_counter()
            self.frame_log.append((start - begun, updated - start, shown - updated, drawn - shown))
            count += 1
            now = time.perf_counter()
            if max_fps:
                deadline = max(deadline + 1.0 / max_fps, now - 1.0 / max_fps)
            if turns is not None:  # its turn: a share of the frame, or the cap's sleep if that is longer
                turns.lend(max(turn_seconds(drawn - begun), deadline - now if max_fps else 0.0))
            if max_fps:
                now = time.perf_counter()
                if deadline > now:
                    time.sleep(deadline - now)

    def _check_window(self) -> None:
        gone = window_gone(self.window)
        if gone is not None:
            raise WindowGone(gone)

    def close(self) -> str | None:
        """:meth:`finish_recording`, then :meth:`release`; returns what became of the recording."""
        note = self.finish_recording()
        self.release()
        return note

    def finish_recording(self) -> str | None:
        """Finalise a recording in progress and wait for those stopped before it (playable files, or none where
        one cannot be made; no GL is needed). Returns what became of them, for a person who no longer sees the
        panel (``None``: there were none)."""
        notes = recording.collect_finished(self, wait=True)
        if self.recording is not None:
            try:
                notes.append(recording.stop_recording(self, wait=True))
            except Exception as error:  # noqa: BLE001 - said in the note; closing goes on
                notes.append(f"video not saved: {failure_text(error)}")
        return "; ".join(notes) if notes else None

    def release(self) -> None:
        """Free ImGui and GL, close the window. After the display connection was lost, neither GL nor the
        display is touched; the kernels' worker process ends."""
        if self.kernel_loader is not None:
            self.kernel_loader.close()
        reachable = window_gone(self.window) is None
        if reachable:
            clear_gl_errors(self.ctx)  # an interrupt between a read and its error check leaves one pending
            self.imgui_renderer.shutdown()
        implot.destroy_context()
        imgui.destroy_context()
        if reachable:
            self.view.release()
            self.text.release()
        close_window(self.window)

    def on_key_press(self, symbol: int, modifiers: int):
        from pyglet.window import key

        if imgui.get_io().want_capture_keyboard:
            return True if symbol == key.ESCAPE else None
        handled = self.controller.key(symbol)
        return True if handled or symbol == key.ESCAPE else None  # Escape does not close the window

    def on_mouse_press(self, x: int, y: int, button: int, modifiers: int):
        from pyglet.window import key, mouse

        layout = self.window_layout()
        inside = layout.view.contains(x, self.window.height - y) and not imgui.get_io().want_capture_mouse
        pan = button in (mouse.RIGHT, mouse.MIDDLE) or (button == mouse.LEFT and bool(modifiers & key.MOD_SHIFT))
        kick = button == mouse.LEFT and bool(modifiers & key.MOD_CTRL)
        self.mouse.press(x, y, inside=inside, pan=pan, kick=kick)

    def on_mouse_release(self, x: int, y: int, button: int, modifiers: int):
        self.mouse.release(x, y)

    def on_mouse_drag(self, x: int, y: int, dx: int, dy: int, buttons: int, modifiers: int):
        self.mouse.move(x, y, dx, dy)

    def on_mouse_scroll(self, x: int, y: int, scroll_x: float, scroll_y: float):
        if not imgui.get_io().want_capture_mouse:
            ratio = self.pixel_ratio
            self.view.zoom(scroll_y, (x * ratio, y * ratio))  # pyglet's y is up, as GL's
