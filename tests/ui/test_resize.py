"""The window resized: every frame is drawn at the window's framebuffer size, the backdrop
cache follows it, and the 3D view is covered to its last pixel at 1600×1000, 1920×1080, back at 1280×720 and
at 800×600 (Xvfb's screen is 1920×1080, ui/xvfb.py). Also ``gui --size`` and ``gui --fullscreen``."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from spinlab.render.look import BACKGROUND_BOTTOM_SRGB, BACKGROUND_TOP_SRGB, GRID_LINE_SRGB
from spinlab.ui.capture import read_pixels
from spinlab.ui.view3d import to_viewport
from spinlab.ui.xvfb import SCREEN
from tests.hang import HANG_S

FRAME_S = 1.0 / 60.0
ROOT = Path(__file__).resolve().parents[2]
CORNER_PX = 48
EDGE_PX = 4  # within the legend's margin from the view's edges
MAX_RESIZE_FRAMES = 300  # the X server answers a resize within a few dispatches; never loop for ever


def run_frames(app, count):
    for _ in range(count):
        app.window.dispatch_events()
        app.frame(FRAME_S)
        app.window.flip()


def resize(app, size):
    """Ask for ``size`` and draw frames until the framebuffer has it, then a few more (shaded, into the backdrop
    cache, copied from it)."""
    app.window.set_size(*size)
    for _ in range(MAX_RESIZE_FRAMES):
        run_frames(app, 1)
        if app.window.get_framebuffer_size() == size:
            break
    assert app.window.get_framebuffer_size() == size, "the X server did not resize the window"
    run_frames(app, 4)


def last_frame(app):
    """The whole window as drawn by one more frame (rows top-down), and the 3D view's viewport."""
    app.window.dispatch_events()
    app.frame(FRAME_S)
    width, height = app.window.get_framebuffer_size()
    image = read_pixels(app.window_frame.framebuffer, (0, 0, width, height))
    app.window.flip()
    area = to_viewport(app._layout.view, app.window.height, width / max(app.window.width, 1))
    return image, area


def crop(image, viewport):
    """The pixels of ``viewport`` (GL's bottom-left origin) of a top-down ``image``."""
    x, y, width, height = viewport
    rows = image.shape[0]
    return image[rows - y - height : rows - y, x : x + width]


def assert_view_drawn(app, size):
    image, area = last_frame(app)
    assert image.shape == (size[1], size[0], 3)
    view = crop(image, area)
    black = np.all(view == 0, axis=2)
    assert black.mean() == 0.0, f"{black.mean():.1%} of the 3D view is black at {size}"
    # The bottom corners of the view: the floor under the backdrop's gradient, its grid lines at most a quarter
    # opaque, between the gradient's darkest and the grid's colour (the bottom-left corner, and the last pixels of
    # the bottom-right one, outside the overlays' legend that sits there).
    corners = [view[-CORNER_PX:, :CORNER_PX], view[-EDGE_PX:, -CORNER_PX:], view[-CORNER_PX:, -EDGE_PX:]]
    corner = np.concatenate([part.reshape(-1, 3) for part in corners]).astype(float)
    low = np.round(255 * BACKGROUND_BOTTOM_SRGB) - 4
    high = np.round(255 * np.maximum(BACKGROUND_TOP_SRGB, GRID_LINE_SRGB)) + 4
    inside = np.all((corner >= low) & (corner <= high), axis=1)
    assert inside.mean() > 0.99, f"the view's bottom-right corner is not the backdrop at {size}"
    assert corner.mean() > np.mean(low), "the view's bottom-right corner is dark"
    # Each body in its cell, near the middle: its bright pixels (the labels at the top left left out).
    for viewport in app.view.viewports:
        cell = crop(image, viewport).astype(int)
        below_label = cell[int(0.3 * cell.shape[0]) :]
        ys, xs = np.nonzero(below_label.max(axis=2) > 120)
        assert len(xs) > 0.002 * below_label.shape[0] * below_label.shape[1], f"a cell is empty at {size}"
        cx, cy = xs.mean() / below_label.shape[1], ys.mean() / below_label.shape[0]
        assert 0.2 < cx < 0.8 and 0.1 < cy < 0.9, f"a body is off its cell's centre at {size}: ({cx:.2f}, {cy:.2f})"
    cache = app.renderer._backdrop_cache
    assert cache is None or tuple(cache.size) == size, "the backdrop cache keeps another size"
    return image


@pytest.mark.parametrize("size", [(1600, 1000), (1920, 1080), (1280, 720), (800, 600)])
def test_a_resized_window_is_drawn_to_its_last_pixel(app, size, tmp_path):
    assert tuple(int(v) for v in SCREEN.split("x")[:2]) >= (1920, 1080), "Xvfb's screen is too small for the test"
    state = app.state
    state.paused, state.time_scale_exp = True, 0
    run_frames(app, 2)
    resize(app, size)
    assert_view_drawn(app, size)
    # A camera that moves (shaded straight into the window, no cache) covers the view too.
    app.view.orbit(40.0, 0.0)
    image, area = last_frame(app)
    assert not np.all(crop(image, area) == 0, axis=2).any(), f"a moving camera leaves black at {size}"


@pytest.mark.parametrize("size", ["big", "1280", "10x10", "99999x720", "0x0"])
def test_gui_refuses_a_bad_size_before_any_window(size):
    result = subprocess.run(
        [sys.executable, str(ROOT / "main.py"), "gui", "--size", size],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=HANG_S,
        env={"PATH": "/usr/bin:/bin"},
    )
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "--size" in lines[0] and size in lines[0], result.stderr
    assert "Traceback" not in result.stderr
