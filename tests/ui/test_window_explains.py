"""In a real window (Xvfb): F1 and ? through pyglet open and close the key help over the 3D view, the PAUSED badge
shows while paused and the STOPPED one after a failure, and the overlays' legend is drawn in the view's corner.
Screenshots read back from the window's framebuffer."""

import numpy as np

from spinlab.ui.capture import read_pixels
from spinlab.ui.controller import KEY_HELP_KEYS
from spinlab.ui.key_help import PAUSED_RGBA, STOPPED_RGBA
from spinlab.ui.view3d import window_layout
from tests.ui.test_app import fresh, run_frames

COLOR_TOLERANCE = 12  # 8-bit levels


def _shot(app) -> np.ndarray:
    app.window.dispatch_events()
    app.frame(1.0 / 60.0)
    width, height = app.window.get_framebuffer_size()
    image = read_pixels(app.window_frame.framebuffer, (0, 0, width, height))
    app.window.flip()
    return image


def _share_of(image: np.ndarray, rgba) -> float:
    target = np.round(np.array(rgba[:3]) * 255)
    return float(np.all(np.abs(image.astype(int) - target) <= COLOR_TOLERANCE, axis=2).mean())


def _view(app, image):
    view = window_layout(app.window.width, app.window.height, panel=True, plots=True, ui_scale=app.ui_scale).view
    return image[int(view.y) : int(view.y + view.height), int(view.x) : int(view.x + view.width)], view


def test_pyglets_f1_and_question_mark_are_the_controllers_keys(app):
    from pyglet.window import key

    assert KEY_HELP_KEYS == (key.F1, key.QUESTION, key.SLASH)


def test_f1_opens_and_closes_the_key_help_over_the_view(app):
    from pyglet.window import key

    fresh(app, "compare")
    run_frames(app, 5)
    app.state.paused = True
    before = _shot(app)
    app.window.dispatch_event("on_key_press", key.F1, 0)
    run_frames(app, 1)  # ImGui measures a window that fits its contents on its first frame, then draws it
    shown = _shot(app)
    assert app.state.show_key_help
    view_before, view = _view(app, before)
    view_shown, _ = _view(app, shown)
    middle = (
        slice(int(0.3 * view.height), int(0.7 * view.height)),
        slice(int(0.35 * view.width), int(0.65 * view.width)),
    )
    assert np.abs(view_shown[middle].astype(int) - view_before[middle]).mean() > 10.0, "no key help over the view"
    app.window.dispatch_event("on_key_press", key.SLASH, 0)
    closed = _shot(app)
    assert not app.state.show_key_help
    view_closed, _ = _view(app, closed)
    assert np.abs(view_closed[middle].astype(int) - view_before[middle]).mean() < 2.0


def test_the_badge_says_paused_then_stopped_and_the_legend_sits_in_a_corner(app):
    fresh(app, "t_handle")
    run_frames(app, 3)
    running, view = _view(app, _shot(app))
    region = (slice(int(0.8 * view.height), None), slice(int(0.3 * view.width), int(0.7 * view.width)))
    app.state.paused = True
    paused = _view(app, _shot(app))[0]
    # The ω arrow is amber too: the badge is what the paused frame has more of.
    assert _share_of(paused[region], PAUSED_RGBA) - _share_of(running[region], PAUSED_RGBA) > 0.01, "no PAUSED badge"
    app.state.error = "at t = 1 s, body 'handle': the state is not finite"
    stopped = _view(app, _shot(app))[0]
    assert _share_of(stopped[region], STOPPED_RGBA) - _share_of(running[region], STOPPED_RGBA) > 0.01, "no STOPPED"
    app.state.error, app.state.paused = None, False
    # The legend: a dark panel with the ω and L dots in the view's bottom-right corner.
    corner = stopped[int(0.6 * view.height) :, int(0.75 * view.width) :]
    from spinlab.render.legend import legend_entries

    omega_rgb = legend_entries(app.state.render)[0][1]
    assert _share_of(corner, (*omega_rgb, 1.0)) > 1e-4, "no ω dot in the legend"
