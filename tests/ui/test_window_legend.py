"""Where the window puts the overlays' key: in the grid's first empty cell, at its top left, when the grid has one
(clear of the bodies and of the PAUSED badge at the bottom centre), else in the view's bottom-right corner."""

import dataclasses
import os

import pytest

from spinlab.scene.scene_file import load_scene
from spinlab.ui import view3d
from spinlab.ui.controller_state import PanelEdits


@pytest.fixture
def window(x_display, tmp_path):
    from spinlab.ui.app import App

    os.environ["DISPLAY"] = x_display
    made = []

    def open_app(preset):  # one window at a time: the one before is closed
        while made:
            made.pop().close()
        made.append(App(load_scene(preset), vsync=False, output_dir=str(tmp_path)))
        return made[-1]

    yield open_app
    while made:
        made.pop().close()


def _legend_corners(app, monkeypatch) -> list[tuple[float, float, str]]:
    corners = []
    real = view3d.legend_box

    def spy(options, x, y, anchor, *args, **kwargs):
        corners.append((x, y, anchor))
        return real(options, x, y, anchor, *args, **kwargs)

    monkeypatch.setattr(view3d, "legend_box", spy)
    for _ in range(2):  # the Poinsot view splits the area from the frame after it is asked for
        corners.clear()
        app.window.dispatch_events()
        app.frame(1 / 60)
    return corners


def test_the_key_sits_at_the_top_left_of_the_empty_cell_of_a_grid(window, monkeypatch):
    app = window("compare")
    app.controller.apply(PanelEdits(render=dataclasses.replace(app.state.render, show_poinsot=True)))
    ((x, y, anchor),) = _legend_corners(app, monkeypatch)
    viewports = app.view.viewports
    assert len(viewports) == 8 and len({v[1] for v in viewports}) == 3  # 3 × 3 beside the Poinsot view: one empty
    assert anchor == "top_left"
    # In the cell right of the last view, near its top (framebuffer pixels, y down from the top).
    last_x, last_y, last_width, last_height = viewports[-1]
    height = app.window.get_framebuffer_size()[1]
    assert last_x + last_width < x < last_x + 2 * last_width
    assert height - (last_y + last_height) < y < height - last_y - 0.5 * last_height


def test_a_full_grid_or_a_single_view_has_its_key_in_the_bottom_right_corner(window, monkeypatch):
    for preset, views in (("t_handle", 1), ("compare", 8)):  # compare without the Poinsot view: 4 × 2, full
        app = window(preset)
        ((x, y, anchor),) = _legend_corners(app, monkeypatch)
        assert len(app.view.viewports) == views
        assert anchor == "bottom_right"
        width, height = app.window.get_framebuffer_size()
        assert x > 0.8 * width and y > 0.5 * height
