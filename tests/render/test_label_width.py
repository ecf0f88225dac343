"""A view's label keeps its panel while its energy error changes, even to exactly 0 and back (a method that keeps
the energy does so from step to step): the views' cached backdrop holds the panels (render/viewports.py), and a
panel whose width flickered had every view's backdrop shaded again each frame (compare: most of a recording's CPU)."""

import pytest

from spinlab.render import backdrop
from spinlab.render.record import render_frames
from spinlab.render.run_view import reference_scale
from spinlab.render.text import TextBox, TextOverlay
from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.model.run_model import error_text

ERRORS = [0.0, 2.2e-16, 1.2e-05, 3.4, 7.0e12]


@pytest.mark.parametrize("height", [90, 360, 720, 1080, 2160])
def test_a_label_keeps_its_panel_whatever_its_error(gl_context, height):
    text = TextOverlay(gl_context)
    try:
        size, scale = (height * 16 // 9, height), reference_scale(height)
        boxes = [[TextBox(10, 10, ("implicit_midpoint", f"t = 2.50 s    |ΔE|/E = {error_text(e)}"))] for e in ERRORS]
        rects = {text.panel_rects(size, box, scale) for box in boxes}
    finally:
        text.release()
    assert len(rects) == 1, rects


def test_a_recording_of_compare_shades_its_backdrops_only_at_the_start(monkeypatch):
    """Counted, not timed: the backdrop shader runs per view, and the frames after the first few come from the
    cache in one copy."""
    shaded = []
    shade = backdrop.Backdrop._shade
    monkeypatch.setattr(backdrop.Backdrop, "_shade", lambda self, *a, **k: (shaded.append(1), shade(self, *a, **k))[1])
    frames = list(render_frames(load_scene("compare"), duration=1.0, fps=30, size=(640, 360), raw=True))
    assert len(frames) == 30
    views = 6
    assert len(shaded) <= 3 * views, len(shaded)  # the first frame shaded straight, the second into the cache


def test_a_moving_camera_shades_its_floors_over_one_cached_sky(monkeypatch):
    """Counted: flip_story's camera moves from t = 2 s to 3.2 s; each frame's floor is shaded afresh, but the sky,
    which depends on the viewports alone, once into its cache (and once more into the whole frame's cache when the
    camera stops)."""
    shades, skies = [], []
    shade, sky = backdrop.Backdrop._shade, backdrop.Backdrop._shade_sky

    def shade_counted(self, *args, **kwargs):
        shades.append(1)
        shade(self, *args, **kwargs)

    monkeypatch.setattr(backdrop.Backdrop, "_shade", shade_counted)
    monkeypatch.setattr(backdrop.Backdrop, "_shade_sky", lambda self: (skies.append(1), sky(self))[1])
    frames = list(render_frames(load_scene("flip_story"), duration=3.5, fps=10, size=(320, 180), start=2.0))
    assert len(frames) == 15
    assert len(shades) >= 10, len(shades)  # the moving frames' floors
    assert len(skies) <= 3, len(skies)
