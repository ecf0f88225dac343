"""The plots and the panel shown from their layers (ui/window_layer.py): the frames that show what a frame laid out
(from the next on) have the pixels the window drew when it drew ImGui's windows straight into the window;
they are laid out again while the pointer is over them, after an edit, and when a twentieth of a second has passed;
and the panel keeps its scroll position while it is held."""

import numpy as np
import pytest

from spinlab.ui import panel, window_layer
from spinlab.ui.capture import read_pixels
from tests.ui.window_frames import run_frames


@pytest.fixture
def paused_compare(app):
    """The module's compare window, run for a second and paused, its plots full of data."""
    from spinlab.ui.controller_state import PanelEdits

    app.pending = PanelEdits(scene="compare", reset=True, show_plots=True)
    run_frames(app, 1)
    app.state.paused, app.state.time_scale_exp = False, 0
    run_frames(app, 60)
    app.state.paused = True
    run_frames(app, 2)
    return app


def _frame(app, monkeypatch, now: float, *, layer: bool = True, which: str = "plots_layer") -> tuple[np.ndarray, bool]:
    """The window's pixels after one frame drawn at ``now`` s on the layers' clock (a test's own: it begins each
    test's frames with a refresh, which no clock holds back), and whether it laid out the window of ``which`` layer
    (``"plots_layer"``, ``"panel_layer"``); ``layer`` False: ImGui's windows drawn straight into the window (no
    layers). The panel's line of the frame's budget, which tells each frame's time, says the same in every frame."""
    for name in ("plots_layer", "panel_layer"):
        monkeypatch.setattr(getattr(app, name), "clock", lambda: now)
    monkeypatch.setattr(panel, "budget_line", lambda status: ("frame: the same", "tip"))
    held = getattr(app, which)
    laid_out = []
    real = held.lay_out

    def spy(*args):
        laid_out.append(real(*args))
        return laid_out[-1]

    monkeypatch.setattr(held, "lay_out", spy)
    if not layer:
        for name in ("plots_layer", "panel_layer"):
            monkeypatch.setattr(getattr(app, name).layer, "owns", lambda owner: False)
    app.window.dispatch_events()
    app.frame(1.0 / 60.0)
    width, height = app.window.get_framebuffer_size()
    pixels = read_pixels(app.window_frame.framebuffer, (0, 0, width, height)).copy()
    app.window.flip()
    monkeypatch.undo()
    return pixels, laid_out[0] and held.layer.fresh


def _refresh(app) -> None:
    app.plots_layer.refresh()
    app.panel_layer.refresh()


def test_frames_from_the_layer_are_the_plots_drawn_into_the_window(paused_compare, monkeypatch):
    app = paused_compare
    window_layer.imgui.get_io().add_mouse_pos_event(app.window_layout().plots.x + 20.0, 5.0)  # over the views
    # ImPlot fits a plot's axes to the data the frame before drew: the second of two frames laid out in a row.
    for now in (999.0, 1000.0):
        _refresh(app)
        direct, _ = _frame(app, monkeypatch, now, layer=False)
    _refresh(app)
    _, was_laid = _frame(app, monkeypatch, 2000.0)  # laid out because time passed: into the layer alone
    late = app.plots_layer.layer.late
    held, was_held = _frame(app, monkeypatch, 2000.01)  # what it laid out, from the texture
    held_again, _ = _frame(app, monkeypatch, 2000.02)
    assert was_laid and late and not was_held, (was_laid, late, was_held, window_layer.imgui.get_io().mouse_pos)
    x, y, width, height = app.plots_layer.layer.rect_px
    plots = (slice(y, y + height), slice(x, x + width))
    assert np.ptp(direct[plots]) > 100  # text and lines, not an empty panel
    # The plots' pixels (the panel's status line beside them tells each frame's time, and differs). The frames that
    # show the texture have the pixels drawn without the layer, but a level apart at a few, two where two blends each
    # rounded: llvmpipe takes its fixed-point path for some of a frame's tiles, and the texture's tiles lie elsewhere
    # on the plots than the frame's (53 of 730 380 values here, one of them two apart).
    np.testing.assert_array_equal(held_again[plots], held[plots])
    apart = np.abs(held[plots].astype(int) - direct[plots])
    assert apart.max() <= 2 and np.count_nonzero(apart) < 1e-3 * apart.size
    # A twentieth of a second on (and three frames), the plots are laid out again.
    _, again = _frame(app, monkeypatch, 2000.0 + 1.0 / window_layer.REFRESH_HZ)
    assert again


def test_the_plots_are_laid_out_while_pointed_at_or_edited(paused_compare, monkeypatch):
    app = paused_compare
    layer = app.plots_layer
    layer.refresh()
    _frame(app, monkeypatch, 3000.0)
    assert not _frame(app, monkeypatch, 3000.01)[1]
    rect = app.window_layout().plots
    io = window_layer.imgui.get_io()
    # The pointer over the plots: every frame, and the frame after it left.
    io.add_mouse_pos_event(rect.x + rect.width / 2, rect.y + rect.height / 2)
    pointed = [_frame(app, monkeypatch, 3000.02 + 0.001 * k)[1] for k in range(3)]
    io.add_mouse_pos_event(rect.x + rect.width / 2, 5.0)  # over the 3D views
    after = [_frame(app, monkeypatch, 3000.03 + 0.001 * k)[1] for k in range(3)]
    assert pointed == [True, True, True]
    assert after == [True, False, False]
    # The plots' options changed (the span of their time axis): laid out and drawn at once.
    app.state.plots.seconds = 10.0
    assert _frame(app, monkeypatch, 3000.04)[1] and not layer.layer.late
    assert not _frame(app, monkeypatch, 3000.05)[1]
    assert layer.layer.framebuffer is not None


def test_frames_from_the_layer_are_the_panel_drawn_into_the_window(paused_compare, monkeypatch):
    app = paused_compare
    window_layer.imgui.get_io().add_mouse_pos_event(app.window_layout().view.x + 20.0, 5.0)  # over the views
    _refresh(app)
    direct, _ = _frame(app, monkeypatch, 5000.0, layer=False, which="panel_layer")
    _refresh(app)
    _, was_laid = _frame(app, monkeypatch, 6000.0, which="panel_layer")  # into the layer alone
    late = app.panel_layer.layer.late
    held, was_held = _frame(app, monkeypatch, 6000.01, which="panel_layer")
    held_again, _ = _frame(app, monkeypatch, 6000.02, which="panel_layer")
    assert was_laid and late and not was_held
    x, y, width, height = app.panel_layer.layer.rect_px
    shown = (slice(y, y + height), slice(x, x + width))
    assert (x, y, height) == (0, 0, direct.shape[0]) and np.ptp(direct[shown]) > 100  # the panel's text
    np.testing.assert_array_equal(held_again[shown], held[shown])
    apart = np.abs(held[shown].astype(int) - direct[shown])
    assert apart.max() <= 1 and np.count_nonzero(apart) < 1e-3 * apart.size


def test_the_panel_keeps_its_scroll_while_held_and_is_laid_out_while_pointed_at(paused_compare, monkeypatch):
    app = paused_compare
    rect = app.window_layout().panel
    io = window_layer.imgui.get_io()
    io.add_mouse_pos_event(rect.x + rect.width / 2, rect.y + rect.height / 2)
    io.add_mouse_wheel_event(0.0, -5.0)  # scrolled down, pointed at: laid out
    pointed = [_frame(app, monkeypatch, 7000.0 + 0.001 * k, which="panel_layer")[1] for k in range(3)]
    window = window_layer.imgui.internal.find_window_by_name(panel.PANEL_WINDOW)
    scrolled = window.scroll.y
    io.add_mouse_pos_event(app.window_layout().view.x + 20.0, 5.0)  # over the views: held
    after = [_frame(app, monkeypatch, 7000.01 + 0.001 * k, which="panel_layer")[1] for k in range(3)]
    held_scroll = window.scroll.y
    _refresh(app)
    assert _frame(app, monkeypatch, 7001.0, which="panel_layer")[1]
    assert pointed == [True, True, True] and after == [True, False, False]
    assert scrolled > 0.0 and held_scroll == scrolled and window.scroll.y == scrolled
