"""Where the window puts the overlays' key (render/legend.py's key_place), never over a body: in the grid's first
empty cell, at its top left, when the grid has one (clear of the PAUSED badge at the bottom centre); in the
bottom-right corner of a single wide view; else on a strip below a full grid, which no cell covers."""

import dataclasses

import pytest

from spinlab.render import run_view
from spinlab.scene.files.scene_file import load_scene
from spinlab.ui.controller_state import PanelEdits


@pytest.fixture
def window(x_display, tmp_path):
    from spinlab.ui.app import App

    made = []

    def open_app(preset):  # one window at a time: the one before is closed
        while made:
            made.pop().close()
        made.append(App(load_scene(preset), vsync=False, output_dir=str(tmp_path)))
        return made[-1]

    yield open_app
    while made:
        made.pop().close()


def _key_rect(app, monkeypatch) -> tuple[object, tuple[float, float, float, float]]:
    """The key's box and its panel (x, y, width, height; framebuffer pixels from the top-left) as last drawn."""
    drawn = []
    real = app.view.text.panel_rects

    def spy(size, boxes, scale=1.0):
        rects = real(size, boxes, scale)
        drawn.append((boxes[-1], rects[-1]))
        return rects

    monkeypatch.setattr(app.view.text, "panel_rects", spy)
    for _ in range(2):  # the Poinsot view splits the area from the frame after it is asked for
        app.window.dispatch_events()
        app.frame(1 / 60)
    box, rect = drawn[-1]
    assert box.accents and not box.title, box  # the key: colour dots, no title
    return box, rect


def _top_down(viewport, height):
    """A viewport (GL's bottom-left origin) as (left, top, right, bottom) from the top-left."""
    x, y, width, cell_height = viewport
    return x, height - y - cell_height, x + width, height - y


def _overlaps(rect, cell) -> bool:
    x, y, width, height = rect
    left, top, right, bottom = cell
    return x < right and left < x + width and y < bottom and top < y + height


def test_the_key_sits_in_the_empty_cell_of_a_grid(window, monkeypatch):
    app = window("compare")
    app.controller.apply(PanelEdits(render=dataclasses.replace(app.state.render, show_poinsot=True)))
    box, rect = _key_rect(app, monkeypatch)
    viewports = app.view.viewports
    assert len(viewports) == 8 and len({v[1] for v in viewports}) == 3  # 3 × 3 beside the Poinsot view: one empty
    assert not box.row
    height = app.window.get_framebuffer_size()[1]
    last_left, last_top, last_right, last_bottom = _top_down(viewports[-1], height)
    empty = (last_right, last_top, 2 * last_right - last_left, last_bottom)  # the cell right of the last view
    x, y, width, key_height = rect
    assert empty[0] <= x and x + width <= empty[2] and empty[1] <= y and y + key_height <= empty[3]
    assert key_height / len(box.lines) >= 13.0 * height / 720, "readable: about 12 px text or more at 720 px"
    assert not any(_overlaps(rect, _top_down(viewport, height)) for viewport in viewports)
    # Paused (as looking back in the run's history is), the PAUSED badge stays clear of the key.
    app.state.paused = True
    app.window.dispatch_events()
    app.frame(1 / 60)
    badge, ratio = app.state_badge, app.pixel_ratio
    assert badge is not None and app.view.key_rect == rect
    assert not _overlaps(tuple(value * ratio for value in (badge.x, badge.y, badge.width, badge.height)),
                         (x, y, x + width, y + key_height)), (badge, rect)  # fmt: skip


def test_a_full_grid_has_its_key_on_a_strip_below_the_views(window, monkeypatch):
    app = window("compare")  # without the Poinsot view: 4 × 2, full
    box, rect = _key_rect(app, monkeypatch)
    viewports = app.view.viewports
    assert len(viewports) == 8 and len({v[1] for v in viewports}) == 2
    assert box.row
    width, height = app.window.get_framebuffer_size()
    assert not any(_overlaps(rect, _top_down(viewport, height)) for viewport in viewports), (rect, viewports)
    assert rect[1] + rect[3] <= height and rect[0] >= min(v[0] for v in viewports)  # inside the view area
    assert rect[3] >= 0.7 * run_view.ROW_LEGEND_SIZE * 19.0 * height / 720  # readable: not shrunk below ~12 px text
    assert app.view.key_strip_px > rect[3]


def test_a_single_wide_view_has_its_key_in_its_bottom_right_corner(window, monkeypatch):
    app = window("t_handle")
    box, rect = _key_rect(app, monkeypatch)
    ((x0, y0, cell_width, cell_height),) = app.view.viewports
    width, height = app.window.get_framebuffer_size()
    assert not box.row and app.view.key_strip_px == 0
    view_bottom = height - y0
    # Right of the middle, where the single view frames its body, and down at the view's bottom.
    assert rect[0] > x0 + 0.6 * cell_width and view_bottom - 0.1 * cell_height < rect[1] + rect[3] <= view_bottom
