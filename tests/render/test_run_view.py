"""A run on screen (render/run_view.py) on real GL (EGL, offscreen): the overlays' key keeps its size beside the
Poinsot view, going on over more lines of a strip below the views that grows to hold them."""

import pytest

from spinlab.render.offscreen import OffscreenTarget
from spinlab.render.record import VideoRun, video_setup
from spinlab.render.run_view import ROW_LEGEND_SIZE
from spinlab.render.text import TextOverlay
from spinlab.scene.files.scene_file import load_scene

SIZE = (1280, 720)
# The record's whole frame at its own scale, and the window's view area (beside the panel) at its labels' scale.
LAYOUTS = [((0, 0, 1280, 720), 1.0), ((0, 200, 940, 460), 0.85)]


@pytest.fixture(scope="module")
def drawn(gl_context):
    text, target = TextOverlay(gl_context), OffscreenTarget(gl_context, *SIZE)
    yield lambda *args: _draw(gl_context, text, target, *args)
    text.release()
    target.release()


def _draw(ctx, text, target, preset, poinsot, area, text_scale):
    run = VideoRun(ctx, video_setup(load_scene(preset), None, True), None, True, poinsot, None, text)
    run.advance_to(0.0)
    for _ in range(2):  # the Poinsot view is placed from the second frame
        run.view.draw(target.framebuffer, SIZE, area, run.session, text_scale=text_scale)
    size, key, scale = run.view._key
    result = text.drawn_scale(size, key, scale), run.view.key_rect, list(run.view.viewports), run.view
    run.release()
    return result


@pytest.mark.parametrize(("area", "text_scale"), LAYOUTS)
def test_the_key_keeps_its_size_beside_the_poinsot_view(drawn, area, text_scale):
    drawn_scale, (x, y, width, height), viewports, view = drawn("t_handle", True, area, text_scale)
    assert view.poinsot_viewport is not None
    assert drawn_scale == pytest.approx(ROW_LEGEND_SIZE * text_scale)  # not made smaller to fit the narrow strip
    # On the strip below the views, inside the area, under no view.
    top = SIZE[1] - area[1] - area[3]
    assert area[0] <= x and x + width <= viewports[0][0] + viewports[0][2]
    assert top <= y and y + height <= top + area[3]
    assert y >= SIZE[1] - viewports[0][1] and view.key_strip_px >= height
