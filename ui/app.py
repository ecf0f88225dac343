"""The window: pyglet + moderngl + ImGui, its events, and the frame loop that draws a run over time.

The run is the controller's window-free :class:`~scene.model.timeline.Timeline` (ui/controller.py, which also
carries out what a person asks for: the panel's and the keys' edits); the window follows it (a
:class:`~scene.model.timeline.Follower`): for each run it makes the 3D views (render/run_view.py, as ``record``
draws them) and the plots (ui/plot_series.py), and feeds them every step taken or shown.

One frame (:meth:`App.frame`): the wall time since the last frame, times the time scale, goes into a fixed-step
accumulator; the timeline takes the whole steps due (at most ``MAX_STEPS_PER_FRAME``, within a time budget, dropping
what it cannot catch up so the window keeps its frame rate while the simulation lags), or plays on through its
recorded steps when looking back; the panel and plots are laid out, the 3D view is drawn into its part of the
window, each view labelled as a video labels it, ImGui over it, and screenshots and video frames (ui/recording.py)
are read back before the frame is shown. The window's whole life, from the command line, is commands/gui.py's
:func:`~commands.gui.run_gui`.
"""

from __future__ import annotations

import time
from collections import deque
from pathlib import Path
from typing import TYPE_CHECKING

import moderngl
from imgui_bundle import imgui, implot
from OpenGL import GL as gl

from spinlab.render.imgui_draw import ImGuiLayer
from spinlab.render.renderer import Renderer, RenderOptions
from spinlab.render.run_view import RunView, reference_scale
from spinlab.render.text import TextOverlay
from spinlab.render.window_frame import WindowFrame
from spinlab.scene.files.scene_file import SceneSpec
from spinlab.ui.capacity import map_large_blocks
from spinlab.ui.capture import save_screenshot
from spinlab.ui.controller import Controller
from spinlab.ui.controller_state import PanelEdits
from spinlab.ui.frame_steps import FrameSteps
from spinlab.ui.key_help import draw_key_help, draw_state_badge
from spinlab.ui.panel import PANEL_WINDOW, draw_panel_window
from spinlab.ui.plots import PLOTS_WINDOW, PlotOptions, draw_plots_window, options_key
from spinlab.ui.recording import Recorder
from spinlab.ui.run_display import RunDisplay
from spinlab.ui.scene_load import SceneLoads
from spinlab.ui.theme import PANEL_BG_RGB, apply_theme, set_text_scale
from spinlab.ui.view3d import Rect, to_viewport, window_layout
from spinlab.ui.view_mouse import ViewMouse
from spinlab.ui.window import WindowGone, clear_gl_errors, close_window, open_window, window_framebuffer, window_gone
from spinlab.ui.window_layer import WindowLayer

if TYPE_CHECKING:
    from spinlab.ui.kernel_loader import KernelLoader

__all__ = ["App", "WINDOW_SIZE"]

WINDOW_SIZE = (1280, 720)
# A run recomputed on the compiled kernels once they are ready (scene/model/replay.py) takes this long a frame at
# most.
REPLAY_BUDGET_S = 0.004
FRAME_LOG = 1200
BACKGROUND_SRGB = PANEL_BG_RGB
NO_EDITS = PanelEdits()  # a frame's edits that ask for nothing
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
        # Where each frame is drawn before it is copied into the window (render/window_frame.py).
        self.window_frame = WindowFrame(self.ctx, self.window.get_framebuffer_size())
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

        # The person's choices (``state``), the panel's form and the run over time, held by the controller; the
        # run shown as they choose (ui/run_display.py).
        self.display = RunDisplay(self.ctx, self.text)
        self.controller = Controller(scene, self, output_dir=output_dir, display=self.display)
        self.state, self.form, self.timeline = self.controller.choices, self.controller.form, self.controller.timeline
        self.display.choices, self.plots = self.state, self.display.plots
        self.state.render, self.state.plots = RenderOptions.for_bodies(len(scene.bodies)), PlotOptions()
        self.recorder = Recorder(self.controller)
        self.loads = SceneLoads(self.controller)  # large scenes loaded in the background (ui/scene_load.py)
        self.want_screenshot = False
        self.last_screenshot: Path | None = None
        self.mouse = ViewMouse(self)  # a gesture on the 3D view (ui/view_mouse.py)
        self.pacing = FrameSteps(self.controller, self.recorder)  # each frame's (ui/frame_steps.py)
        # The plots and the panel laid out at most 20 times a second while not pointed at (ui/window_layer.py).
        self.plots_layer = WindowLayer(PLOTS_WINDOW, BACKGROUND_SRGB)
        self.panel_layer = WindowLayer(PANEL_WINDOW, BACKGROUND_SRGB)
        self._edited = False  # an edit was applied this frame
        self._panel_edits = PanelEdits()
        self.frame_log: deque[tuple[float, float, float, float]] = deque(maxlen=FRAME_LOG)
        # What compiles the kernels meanwhile (commands/gui.py), closed with the window.
        self.kernel_loader: KernelLoader | None = None
        self.state_badge: Rect | None = None  # where the PAUSED / STOPPED badge went in the last frame (window px)
        self.controller.start()

    @property
    def view(self) -> RunView:
        """The run on screen (render/run_view.py)."""
        return self.display.view

    @property
    def renderer(self) -> Renderer:
        """The run's renderer (its bodies, trails, ghosts and Poinsot traces)."""
        return self.view.renderer

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

    # -- following the timeline (scene/model/timeline.py) ------------------------------------------------------

    # -- what the controller asks of the window (ui/controller.py's Host) ----------------------------------------

    def request_screenshot(self) -> None:
        self.want_screenshot = True

    def start_recording(self, path: Path) -> None:
        self.recorder.start(path, self.timeline.shown_step, self.timeline.record.last_step)
        # The video's frames count from here: no step owed from before (a live frame short of its steps leaves one),
        # which would make its first frame two steps.
        self.pacing.accumulator.seconds = 0.0

    def stop_recording(self) -> str:
        return self.recorder.stop()

    def paths_in_use(self) -> frozenset[Path]:
        return self.recorder.paths_in_use()

    # -- one frame --------------------------------------------------------------------------------------------

    def frame(self, wall_dt: float) -> None:
        """One whole frame into the back buffer (the caller flips): :meth:`update`, :meth:`draw`, :meth:`present`."""
        self.update(wall_dt)
        self.draw()
        self.present()

    def update(self, wall_dt: float) -> None:
        """The CPU half of a frame: carry out what was asked, advance the simulation, lay out the UI."""
        edits, self._panel_edits = (self.controller.take_pending(), self._panel_edits), PanelEdits()
        if self.recorder.finishing:
            self.recorder.collect_finished()
        running, runs = self.timeline.session, self.controller.runs
        self._edited = False
        for asked in self.loads.edits_now(edits):
            self.controller.apply(asked)
            self._edited = self._edited or asked != NO_EDITS
        if self.controller.runs != runs:
            self.pacing.restart()
        self.timeline.switch_to_compiled(REPLAY_BUDGET_S)
        timed = self.pacing.status.part  # the frame's budget, by part (ui/status.py), which the panel shows
        if self.timeline.session is running:
            with timed("steps"):
                self.pacing.advance(wall_dt)
        # else a new run (a restart, a scene loaded): its first steps wait for the next frame, which a frame that
        # made the session, views and plots and drew them all has no time left for (no frame over 0.1 s).
        # The 3D views' instance data now, while the rasteriser still works on the last frame (no GL).
        with timed("views"):
            self.display.prepare(self.timeline)
        self.pacing.update_status()
        self._panel_edits, self._layout = self._build_ui(wall_dt)

    def draw(self) -> None:
        """The GL half, off screen (render/window_frame.py): the 3D view, ImGui over it, screenshots and video frames
        read back; the commands are flushed so that the rasteriser works while the next :meth:`update` runs.
        :meth:`present` copies the frame into the window."""
        size = self.window.get_framebuffer_size()
        frame = self.window_frame = self.window_frame.resize(size)
        timed = self.pacing.status.part
        with timed("ui"):
            for held in self._layers():  # first: nothing is queued for them to wait behind
                held.settle(self.ctx)
        with timed("views"):
            area = self.draw_views(frame.framebuffer)
        recorder = self.recorder
        video_frame = recorder.recording is not None and not recorder.behind  # not a frame short of its steps
        if video_frame and not self.state.record_window:
            self.controller.attempt(recorder.record_frame, frame.framebuffer, area, failed="recording stopped")
        with timed("ui"):
            self.imgui_renderer.render(imgui.get_draw_data(), frame.overlay, self._layers())
        if video_frame and self.state.record_window:
            self.controller.attempt(recorder.record_frame, frame.framebuffer, (0, 0, *size), failed="recording stopped")
        if self.want_screenshot:
            self.want_screenshot = False
            self.controller.attempt(self._screenshot, frame.framebuffer, failed="screenshot not saved")
        recorder.stop_at_present(self.timeline.shown_step)
        frame.drawn = True
        gl.glFlush()

    def present(self) -> None:
        """Copy the frame :meth:`draw` drew last into the window's back buffer, for the next flip to show (nothing
        when no frame was drawn since the last). Made just before the flip, not at the end of the draw: sampling
        the texture the frame is drawn into waits for all of its rasterising, which by then has run beside the next
        frame's :meth:`update`."""
        frame = self.window_frame
        if frame.drawn:
            self.imgui_renderer.copy(frame.texture, self._screen(frame.size), (0, 0, *frame.size))
            frame.drawn = False

    def _layers(self) -> tuple[ImGuiLayer, ...]:
        """The textures the panel and the plots are shown from between their layouts."""
        return self.panel_layer.layer, self.plots_layer.layer

    def _screenshot(self, framebuffer: moderngl.Framebuffer) -> None:
        self.last_screenshot = save_screenshot(framebuffer, self.state.output_dir, self.state.scene_name)
        self.controller.tell(f"screenshot saved to {self.last_screenshot}")

    def draw_views(self, screen: moderngl.Framebuffer) -> tuple[int, int, int, int]:
        """The window's background and the 3D views with their labels (what the views show: the timeline's
        ``shown``) into ``screen``, of the window's size (its frame's
        :attr:`~render.window_frame.WindowFrame.framebuffer`); returns the views' area (x, y, width, height), GL's
        pixels."""
        width, height = screen.size
        area = to_viewport(self._layout.view, self.window.height, width / max(self.window.width, 1))
        screen.use()
        screen.scissor = None  # type: ignore[assignment]  # None (no scissor test) is allowed; the stub omits it
        screen.viewport = (0, 0, width, height)
        scale = LABEL_SCALE * reference_scale(height)
        self.display.draw(self.timeline, screen, area, text_scale=scale, background=BACKGROUND_SRGB)
        return area

    def _screen(self, size: tuple[int, int]) -> moderngl.Framebuffer:
        """The window's framebuffer at its ``size`` this frame (``ctx.screen`` keeps the size the window opened
        with: ui/window.py's :func:`window_framebuffer`); made again when the window was resized."""
        if self._screen_fb is None or tuple(self._screen_fb.size) != tuple(size):
            self._screen_fb = window_framebuffer(self.ctx, size)
        return self._screen_fb

    def _build_ui(self, wall_dt: float):
        io = imgui.get_io()
        io.delta_time = max(wall_dt, 1e-4)
        state = self.state
        set_text_scale(state.text_scale)  # read by the new frame
        imgui.new_frame()
        layout, timed = self.window_layout(), self.pacing.status.part
        edits, timeline, ratio = PanelEdits(), self.timeline, self.pixel_ratio
        if layout.panel is not None:
            panel_key = id(timeline.session), state.paused, state.error, state.text_scale
            with timed("panel"), self.panel_layer.around(layout.panel, ratio, panel_key, self._edited):
                edits = draw_panel_window(layout.panel, state, self.form)
        if layout.plots is not None:
            series = self.plots.series
            shown = id(timeline.session), id(series), options_key(state.plots), state.paused, state.text_scale
            with timed("plots"), self.plots_layer.around(layout.plots, ratio, shown, self._edited):
                draw_plots_window(layout.plots, edits, timeline, series, state.plots, self.view.groups)
        # The badges sit above the strip the overlays' key may take at the bottom of the view (render/run_view.py),
        # and the state badge clear of the key in a free cell of the grid and of the captions.
        strip = self.view.key_strip_px / ratio
        views = Rect(layout.view.x, layout.view.y, layout.view.width, max(layout.view.height - strip, 1.0))
        if self.recorder.recording:
            self.recorder.draw_indicator(views)
        key = self.view.clear_rect if state.paused or state.error else None  # the badge is drawn only then
        avoid = None if key is None else Rect(*(value / ratio for value in key))
        self.state_badge = draw_state_badge(views, state.paused, state.error, self.ui_scale, avoid)
        self.mouse.draw()
        if state.show_key_help:
            state.show_key_help = draw_key_help(layout.view)
        imgui.render()
        return edits, layout

    # -- the loop and input ------------------------------------------------------------------------------------

    def run(self, max_fps: float | None = 60.0, frames: int | None = None) -> None:
        """Dispatch events and draw frames until the window is closed (or ``frames`` have been drawn);
        ``max_fps`` caps the frame rate when vsync does not (``None``: as fast as it goes). Each frame is updated
        while the previous one is rasterised, then that one is shown (:meth:`present`, flip), then this one drawn;
        ``frame_log`` keeps the seconds of each part (events, update, flip, draw: together the time from one frame
        to the next, short of the cap's
        sleep) of the last frames. The cap paces frames on a fixed grid of ``1 / max_fps``: a sleep that overshoots
        (they do by up to a millisecond) is made up at the next frames, so the rate is ``max_fps`` on average, not
        a little under it; of a longer lag, at most one period is made up.

        The window going from outside (ui/window.py) raises :class:`WindowGone` as soon as the loop notices, at
        the latest after the next dispatch of events or flip."""
        last = time.perf_counter()
        deadline = last
        count = 0
        while not self.window.has_exit and (frames is None or count < frames):
            begun = time.perf_counter()
            self.window.dispatch_events()
            self._check_window()
            start = time.perf_counter()
            self.update(start - last)
            last = start
            updated = time.perf_counter()
            with self.pacing.status.part("gpu"):
                self.present()
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
            if self.kernel_loader is not None:  # a stage of kernels the worker has cached, between two frames
                self.kernel_loader.load_ready()
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
        """Finalise the videos (ui/recording.py's :meth:`~ui.recording.Recorder.finish`); what became of them."""
        return self.recorder.finish()

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
            self.display.release()
            self.text.release()
            self.plots_layer.release()
            self.panel_layer.release()
            self.window_frame.release()
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
