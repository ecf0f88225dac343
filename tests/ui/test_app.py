"""The real window under Xvfb: frames drawn, the panel driven through its edits (as a click would), keys and mouse
dispatched as pyglet events, and what the window draws and writes (screenshots, videos) read back. What the edits
do to the setup is tested without a window: tests/ui/test_controller*.py."""

import warnings

import av
import numpy as np
import pytest

from spinlab.render.video import read_video_info
from spinlab.sim.quaternion import quat_conj, quat_rotate
from spinlab.ui.capture import RECORD_FPS
from spinlab.ui.panel import PanelEdits
from spinlab.ui.theme import PANEL_BG_RGB
from spinlab.ui.view3d import PANEL_WIDTH
from tests.ui.window_frames import finished_video

FRAME_S = 1.0 / 60.0
PANEL_COLOR_TOLERANCE = 3  # 8-bit levels
FAST = 3  # time scale 2**3 = 8×


def run_frames(app, count, wall_dt=FRAME_S):
    for _ in range(count):
        app.window.dispatch_events()
        app.frame(wall_dt)
        app.window.flip()


def ask(app, **fields):
    """Apply panel edits (what clicking the panel produces) and draw one frame."""
    app.pending = PanelEdits(**fields)
    run_frames(app, 1)


def fresh(app, scene):
    """Open ``scene`` running at 1×, one integrator per body, gyroscopic term on."""
    state = app.state
    state.paused, state.time_scale_exp, state.side_by_side, state.gyroscopic = False, 0, False, True
    ask(app, scene=scene, reset=True)
    assert state.scene_name == scene and state.error is None


def omega_body_y(app, body=0):
    snapshot = app.timeline.session.snapshot
    return quat_rotate(quat_conj(snapshot.q[body]), snapshot.omega_world[body])[1]


def decode_png(path):
    with av.open(str(path)) as container:
        return next(container.decode(video=0)).to_ndarray(format="rgb24")


def test_screenshot_shows_the_panel_the_view_and_the_plots(app):
    from pyglet.window import key

    fresh(app, "compare")
    run_frames(app, 20)
    app.window.dispatch_event("on_key_press", key.F12, 0)
    run_frames(app, 1)
    image = decode_png(app.last_screenshot)
    width, height = app.window.get_framebuffer_size()
    assert image.shape == (height, width, 3)
    panel = image[:, : int(PANEL_WIDTH) - 20]
    panel_bg = np.round(np.array(PANEL_BG_RGB) * 255)
    is_panel_bg = np.all(np.abs(panel.astype(int) - panel_bg) <= PANEL_COLOR_TOLERANCE, axis=2)
    assert is_panel_bg.mean() > 0.3, "the panel's background is not where the panel should be"
    assert (panel.max(axis=2) > 180).mean() > 0.01, "the panel has no light text"
    view = image[: height // 2, int(PANEL_WIDTH) + 10 :]
    assert view.std() > 10.0, "the 3D view is blank"
    assert not np.all(np.abs(view.astype(int) - panel_bg) <= PANEL_COLOR_TOLERANCE, axis=2).mean() > 0.5


def test_the_status_line_says_which_part_of_the_window_loops_frame_took_the_time(app):
    from spinlab.ui.status import FRAME_PARTS, budget_line

    fresh(app, "compare")
    app.run(max_fps=None, frames=4)  # the window's own loop, which times the wait for the rasteriser too
    parts = app.form.status.parts_ms
    assert set(parts) == set(FRAME_PARTS) and all(ms > 0.0 for ms in parts.values()), parts
    line, tip = budget_line(app.form.status)
    assert line.startswith("frame ") and all(name in line and name in tip for name in FRAME_PARTS), line


def test_the_compare_preset_side_by_side_draws_one_handle_per_integrator(app):
    from spinlab.sim.integrators import METHODS

    fresh(app, "compare")
    ask(app, side_by_side=True)
    run_frames(app, 3)
    assert [(group.label, len(group.bodies)) for group in app.view.groups] == [(name, 1) for name in METHODS]
    assert len(app.view.viewports) == len(METHODS)
    assert len(app.renderer.layout.colors_rgba) == len(METHODS), "the renderer holds one body a view"
    ask(app, side_by_side=False)


def test_the_view_from_the_backdrop_cache_is_the_shaded_one(app):
    """The window's frame takes the cached backdrop by one memcpy: the same pixels as shading it, to a level. (One
    view: the labels' panels, baked into the cache, are under the lines that cross them.)"""
    from spinlab.render.views import bounding_viewport
    from spinlab.ui.capture import read_pixels

    fresh(app, "t_handle")
    app.state.paused = True
    run_frames(app, 2)
    renderer = app.renderer
    renderer.backdrop.forget()  # the next frame is shaded
    area = bounding_viewport(app.view.viewports)
    frames = []
    for _ in range(3):  # shaded, shaded into the cache and copied, copied
        app.frame(FRAME_S)
        frames.append(read_pixels(app.window_frame.framebuffer, area))
        app.window.flip()
    assert renderer.backdrop.whole_key is not None, "the last frames should come from the cache"
    shaded = frames[0].astype(int)
    for copied in frames[1:]:
        # The cache has no depth buffer, so llvmpipe shades and blends into it along its linear path, in 8-bit fixed
        # point, where the frame (with one) takes floats: a level apart at some pixels (1.4 % measured).
        difference = np.abs(copied.astype(int) - shaded).max(axis=2)
        assert difference.max() <= 1 and (difference > 0).mean() < 0.05
    assert shaded.std() > 10.0, "the view is blank"


def test_the_window_shows_its_frame_pixel_for_pixel(app):
    """Each frame is drawn off screen and copied into the window, which has no depth buffer (render/window_frame.py):
    the window's pixels are the frame's."""
    from spinlab.ui.capture import read_pixels
    from spinlab.ui.window import clear_gl_errors

    fresh(app, "compare")
    run_frames(app, 2)
    app.frame(FRAME_S)
    size = app.window.get_framebuffer_size()
    frame = read_pixels(app.window_frame.framebuffer, (0, 0, *size))
    shown = read_pixels(app._screen(size), (0, 0, *size))
    clear_gl_errors(app.ctx)  # a read of the window's framebuffer leaves one pending (stack.md)
    app.window.flip()
    assert app.window.context.config.depth_size == 0
    assert np.ptp(frame) > 100, "the frame is blank"
    np.testing.assert_array_equal(shown, frame)


def test_recording_two_seconds_makes_a_playable_video(app):
    fresh(app, "t_handle")
    ask(app, toggle_record=True)  # this frame is the first of the video
    run_frames(app, 2 * RECORD_FPS - 1)
    assert app.form.recording
    ask(app, toggle_record=True)
    assert not app.form.recording
    assert "finishing the video" in app.form.message, "finalised in the background, the panel saying so"
    video = finished_video(app)
    assert video is not None and f"video saved to {video}" in app.form.message
    frames, width, height, fps = read_video_info(video)
    assert frames == 2 * RECORD_FPS
    assert fps == RECORD_FPS and width % 2 == 0 and height % 2 == 0
    assert width > 0.5 * app.window.get_framebuffer_size()[0]


def test_a_recording_started_while_the_last_is_finalised_takes_another_name(app, monkeypatch):
    # Stopped and started again within the second (the clock held still here): the first video is not at its path
    # yet, so the timestamp alone would give the second the same name, and its file would replace the first's.
    import datetime

    from spinlab.ui import files

    now = datetime.datetime(2026, 11, 27, 12, 0, 0)
    monkeypatch.setattr(files, "datetime", type("Clock", (), {"datetime": type("Now", (), {"now": lambda: now})}))
    fresh(app, "t_handle")
    paths = []
    for frames in (5, 7):
        ask(app, toggle_record=True)
        run_frames(app, frames - 1)
        ask(app, toggle_record=True)
        paths.append(app.recorder.finishing[-1].recording.path)
    finished_video(app)
    assert paths[0] != paths[1] and "120000" in paths[0].name
    assert [read_video_info(path)[0] for path in paths] == [5, 7]


def test_closing_waits_for_the_video_being_finalised(app):
    fresh(app, "t_handle")
    ask(app, toggle_record=True)
    run_frames(app, 3)
    ask(app, toggle_record=True)
    note = app.finish_recording()  # as closing the window does
    assert not app.recorder.finishing and note is not None and note.startswith("video saved to ")
    assert read_video_info(app.recorder.last_video)[0] == 4


def test_a_blow_up_pauses_names_the_body_and_reset_recovers(app):
    fresh(app, "t_handle")
    ask(app, integrator=(0, "euler"), h_text="1", apply_h=True)  # explicit Euler at h = 1 s diverges in ~15 steps
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        app.state.time_scale_exp = FAST
        run_frames(app, 40, wall_dt=1.0)  # the blow-up while running, drawn and plotted as it comes
        for _ in range(40):
            ask(app, step=True)
            if app.state.error:
                break
    assert not [(str(w.message), w.filename, w.lineno) for w in caught], (
        "a blow-up is reported in the panel, not warned of"
    )
    assert app.state.paused and app.state.error is not None
    assert "'handle' (euler)" in app.state.error and "not finite" in app.state.error
    assert not app.form.message_is_error, app.form.message
    t_stopped = app.timeline.session.t
    ask(app, toggle_pause=True)
    run_frames(app, 3)
    assert app.state.paused and app.timeline.session.t == t_stopped, "a stopped run stays stopped until reset"
    ask(app, reset=True)
    assert app.state.error is None and app.timeline.session.t == 0.0
    ask(app, toggle_pause=True)
    run_frames(app, 3)
    assert not app.state.paused and app.state.error is None
    ask(app, body_text=("omega_body", "1e200, 0, 0"), apply_body="omega_body")
    assert "at most 1e+50" in app.form.body_errors["omega_body"]
    app.state.time_scale_exp = 0


def test_keys_pause_step_and_reset(app):
    from pyglet.window import key

    fresh(app, "t_handle")
    run_frames(app, 5)
    app.window.dispatch_event("on_key_press", key.SPACE, 0)
    run_frames(app, 1)
    assert app.state.paused
    t_paused = app.timeline.session.t
    run_frames(app, 5)
    assert app.timeline.session.t == t_paused
    app.window.dispatch_event("on_key_press", key.RIGHT, 0)
    run_frames(app, 1)
    assert app.timeline.session.t == pytest.approx(t_paused + app.timeline.session.h)
    app.window.dispatch_event("on_key_press", key.R, 0)
    run_frames(app, 1)
    assert app.timeline.session.t == 0.0
    app.window.dispatch_event("on_key_press", key.H, 0)  # queued: carried out at the next frame's events
    run_frames(app, 1)
    assert not app.state.show_panel
    app.window.dispatch_event("on_key_press", key.H, 0)
    run_frames(app, 1)
    assert app.state.show_panel


def test_the_controller_reads_pyglets_key_symbols(app):
    from pyglet.window import key

    from spinlab.ui.controller import KEYS

    assert KEYS == {name: getattr(key, name.upper()) for name in KEYS}


def test_plus_makes_the_panels_text_and_the_panel_larger(app):
    from imgui_bundle import imgui
    from pyglet.window import key

    fresh(app, "t_handle")
    run_frames(app, 1)
    width = app.window_layout().panel.width
    app.window.dispatch_event("on_key_press", key.PLUS, 0)
    run_frames(app, 2)
    assert app.state.text_scale == 1.25
    assert imgui.get_style().font_scale_main == 1.25
    assert app.window_layout().panel.width == pytest.approx(1.25 * width)
    app.window.dispatch_event("on_key_press", key.MINUS, 0)
    run_frames(app, 2)
    assert imgui.get_style().font_scale_main == 1.0 and app.window_layout().panel.width == width


def test_dragging_in_the_view_orbits_and_the_wheel_zooms(app):
    from pyglet.window import mouse

    fresh(app, "t_handle")
    x, y = int(PANEL_WIDTH + 300), app.window.height - 150  # pyglet's y is up
    app.window.dispatch_event("on_mouse_motion", x, y, 0, 0)
    run_frames(app, 1)
    camera = app.view.cameras[0]
    azimuth, distance = camera.azimuth_deg, camera.distance
    app.window.dispatch_event("on_mouse_press", x, y, mouse.LEFT, 0)
    app.window.dispatch_event("on_mouse_drag", x + 40, y, 40, 0, mouse.LEFT, 0)
    app.window.dispatch_event("on_mouse_release", x + 40, y, mouse.LEFT, 0)
    app.window.dispatch_event("on_mouse_scroll", x + 40, y, 0, 2)
    run_frames(app, 1)
    assert camera.azimuth_deg != azimuth
    assert camera.distance < distance


def red_pixels(app):
    """How many pixels of the panel are the panel's red (ERROR_RGBA), in the frame being drawn."""
    from spinlab.ui.capture import read_pixels
    from spinlab.ui.panel import ERROR_RGBA

    app.window.dispatch_events()
    app.frame(FRAME_S)
    width, height = app.window.get_framebuffer_size()
    panel = read_pixels(app.window_frame.framebuffer, (0, 0, int(PANEL_WIDTH), height)).astype(int)
    app.window.flip()
    red = np.round(np.array([ERROR_RGBA.x, ERROR_RGBA.y, ERROR_RGBA.z]) * 255)
    return int(np.all(np.abs(panel - red) <= 40, axis=2).sum())


def test_a_failing_action_is_shown_in_red_and_the_run_goes_on(app, monkeypatch, tmp_path):
    fresh(app, "t_handle")
    ask(app, toggle_pause=True)  # paused: no "stepping lags" note, which is red too
    app.form.message = None
    assert red_pixels(app) == 0

    def failing(*args, **kwargs):
        raise np.linalg.LinAlgError("Eigenvalues did not converge")

    session, t = app.timeline.session, app.timeline.session.t
    monkeypatch.setattr("spinlab.scene.model.samples.References.__init__", failing)
    ask(app, integrator=(0, "euler"))
    assert app.form.message == "cannot restart: LinAlgError: Eigenvalues did not converge"
    assert (
        app.timeline.session is session
        and app.state.integrators == ["implicit_midpoint"]
        and app.timeline.session.t == t
    )
    assert red_pixels(app) > 100, "the message is drawn in red"
    monkeypatch.undo()
    ask(app, toggle_pause=True)
    run_frames(app, 5)
    assert app.timeline.session.t > t and not app.window.has_exit, "the run goes on"

    output_dir = app.state.output_dir
    ask(app, output_dir=str(tmp_path / "missing"), screenshot=True)  # fails while the frame is drawn
    assert app.form.message_is_error and app.form.message.startswith("screenshot not saved: ")
    ask(app, output_dir=output_dir)
    ask(app, h_text="5e-324", apply_h=True)
    assert "h must be" in app.form.h_error and app.timeline.session.h == 1 / 60


def test_a_large_scene_loads_in_the_background_while_the_window_draws(app, tmp_path):
    # The cloud preset (1000 bodies) held the window's thread ~0.35 s to load; now a thread reads, checks and starts
    # it while the old run goes on, the panel saying so.
    from spinlab.scene.files.scene_file import resolve_scene_path
    from spinlab.ui.scene_load import BACKGROUND_BYTES

    fresh(app, "t_handle")
    assert resolve_scene_path("cloud").stat().st_size > BACKGROUND_BYTES
    ask(app, scene="cloud")
    assert app.state.scene_name == "t_handle" and app.form.message == "loading cloud …"
    for _ in range(600):
        if app.state.scene_name == "cloud":
            break
        run_frames(app, 1)
    assert app.state.scene_name == "cloud" and app.form.message.startswith("loaded cloud")
    assert len(app.timeline.session.scene.bodies) == 1000 and app.timeline.session.simulation.step_index <= 1
    # A large file with a mistake is reported beside the scene field, once read, as a load in the frame is.
    text = resolve_scene_path("cloud").read_text()
    spoiled = tmp_path / "spoiled.toml"
    cut = text.rindex("inertia = ")
    spoiled.write_text(text[:cut] + "inertia = [1.3, 1.4, -2.5]" + text[text.index("\n", cut) :])
    ask(app, scene=str(spoiled))
    for _ in range(600):
        if app.form.scene_error is not None:
            break
        run_frames(app, 1)
    assert app.state.scene_name == "cloud"  # kept
    assert app.form.scene_error is not None and "spoiled.toml" in app.form.scene_error
    assert "inertia" in app.form.scene_error and "h999" in app.form.scene_error
