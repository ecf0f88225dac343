"""Several views in one batch of instanced draws (Renderer.draw_views, assets/shaders/views.glsl), on real GL.

Each view is placed in its rectangle by an affine map of clip coordinates and clipped to it by user clip planes;
these tests hold that to what one view drawn alone gives, pixel for pixel, and check that nothing spills over.
"""

import dataclasses

import numpy as np
import pytest

from spinlab.render.offscreen import OffscreenTarget
from spinlab.render.renderer import MAX_VIEWS, Renderer, RenderOptions
from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.running.simulation import Simulation

WIDTH, HEIGHT = 480, 240
LEFT, RIGHT = (0, 0, 238, 240), (242, 0, 238, 240)
EVERYTHING = RenderOptions()
GAP_SRGB = (1.0, 0.0, 1.0)  # a colour nothing else has


@pytest.fixture(scope="module")
def compare():
    scene = load_scene("compare")
    simulation = Simulation(scene)
    for _ in range(30):
        simulation.step()
    return scene, simulation.snapshot()


def _image(target: OffscreenTarget) -> np.ndarray:
    return target.read().astype(int)


def _separately(ctx, scene, snapshot, viewports, cameras, bodies) -> np.ndarray:
    """Each view drawn by its own draw call, with a fresh renderer (no cache) per view."""
    target = OffscreenTarget(ctx, WIDTH, HEIGHT, samples=0)
    target.framebuffer.use()
    target.framebuffer.clear(*GAP_SRGB, 1.0)
    for viewport, camera, chosen in zip(viewports, cameras, bodies, strict=True):
        renderer = Renderer(ctx, scene, options=dataclasses.replace(EVERYTHING))
        renderer.draw(target.framebuffer, viewport, camera, snapshot, chosen)
        renderer.release()
    image = _image(target)
    target.release()
    return image


def _cameras(ctx, scene, snapshot, viewports, bodies):
    renderer = Renderer(ctx, scene)
    cameras = [
        renderer.default_camera(snapshot, chosen, viewport[2] / viewport[3])
        for viewport, chosen in zip(viewports, bodies, strict=True)
    ]
    renderer.release()
    return cameras


def test_a_batch_of_views_draws_what_each_view_alone_draws(gl_context, compare):
    scene, snapshot = compare
    viewports, bodies = [LEFT, RIGHT], [np.array([0]), np.array([3])]
    cameras = _cameras(gl_context, scene, snapshot, viewports, bodies)
    alone = _separately(gl_context, scene, snapshot, viewports, cameras, bodies)

    renderer = Renderer(gl_context, scene, options=dataclasses.replace(EVERYTHING))
    target = OffscreenTarget(gl_context, WIDTH, HEIGHT, samples=0)
    target.framebuffer.use()
    target.framebuffer.clear(*GAP_SRGB, 1.0)
    renderer.draw_views(target.framebuffer, snapshot, viewports, cameras, bodies)
    batched = _image(target)
    # The same pixels but for rounding: clip-space positions go through one more affine map.
    difference = np.abs(batched - alone).max(axis=2)
    assert difference.max() <= 24 and (difference > 2).sum() <= 0.002 * WIDTH * HEIGHT
    # Each view shows its own body: the two views differ (different integrators, colours).
    assert np.abs(batched[:, : LEFT[2]] - batched[:, RIGHT[0] : RIGHT[0] + RIGHT[2]]).max() > 100
    # The gap between the views keeps what was there.
    assert (batched[:, LEFT[2] : RIGHT[0]] == np.array(GAP_SRGB) * 255).all()
    renderer.release()
    target.release()


def test_a_view_does_not_spill_into_its_neighbour(gl_context, compare):
    scene, snapshot = compare
    viewports, bodies = [LEFT, RIGHT], [np.array([0]), np.array([1])]
    cameras = _cameras(gl_context, scene, snapshot, viewports, bodies)
    # The left camera looks past its body, which then sticks out of the view's right edge, towards the other view.
    cameras[0] = dataclasses.replace(cameras[0], distance=0.5 * cameras[0].distance)
    cameras[0].pan(0.45 * LEFT[2], 0.0, LEFT[3])
    renderer = Renderer(gl_context, scene, options=dataclasses.replace(EVERYTHING))
    target = OffscreenTarget(gl_context, WIDTH, HEIGHT, samples=0)

    def right_view(chosen_left):
        target.framebuffer.use()
        target.framebuffer.clear(*GAP_SRGB, 1.0)
        renderer.draw_views(target.framebuffer, snapshot, viewports, cameras, [chosen_left, bodies[1]])
        return _image(target)

    with_left, without_left = right_view(bodies[0]), right_view(np.array([], dtype=int))
    left_edge = with_left[:, LEFT[2] - 3 : LEFT[2]]
    assert (np.abs(left_edge - without_left[:, LEFT[2] - 3 : LEFT[2]]).sum(axis=2) > 40).any(), (
        "the left body should reach its view's right edge"
    )
    assert np.array_equal(with_left[:, LEFT[2] :], without_left[:, LEFT[2] :])
    renderer.release()
    target.release()


def test_more_views_than_one_batch_holds(gl_context, compare):
    scene, snapshot = compare
    count = MAX_VIEWS + 2
    width = WIDTH // count
    viewports = [(index * width, 0, width - 1, HEIGHT) for index in range(count)]
    bodies = [np.array([index % len(scene.bodies)]) for index in range(count)]
    cameras = _cameras(gl_context, scene, snapshot, viewports, bodies)
    renderer = Renderer(gl_context, scene, options=dataclasses.replace(EVERYTHING))
    target = OffscreenTarget(gl_context, WIDTH, HEIGHT, samples=0)
    target.framebuffer.use()
    target.framebuffer.clear(*GAP_SRGB, 1.0)
    renderer.draw_views(target.framebuffer, snapshot, viewports, cameras, bodies, background=GAP_SRGB)
    image = _image(target)
    for x, _, w, _ in viewports:  # every view drawn: its backdrop replaced the gap colour
        assert not (image[:, x : x + w] == np.array(GAP_SRGB) * 255).all(axis=2).any()
    renderer.release()
    target.release()


def test_the_whole_frame_backdrop_from_the_cache_is_the_shaded_one(gl_context, compare):
    scene, snapshot = compare
    viewports, bodies = [LEFT, RIGHT], [np.array([0]), np.array([3])]
    cameras = _cameras(gl_context, scene, snapshot, viewports, bodies)
    renderer = Renderer(gl_context, scene, options=dataclasses.replace(EVERYTHING))
    target = OffscreenTarget(gl_context, WIDTH, HEIGHT, samples=0)
    frames = []
    for _ in range(3):  # shaded, shaded into the cache and copied, copied
        target.framebuffer.use()
        target.framebuffer.clear(0.0, 0.0, 0.0, 1.0)
        renderer.draw_views(target.framebuffer, snapshot, viewports, cameras, bodies, background=GAP_SRGB)
        frames.append(_image(target))
    assert renderer.backdrop.whole_key is not None, "the third frame should come from the cache"
    for frame in frames:  # shaded, then copied: a background fills the gap either way
        assert (frame[:, LEFT[2] : RIGHT[0]] == np.array(GAP_SRGB) * 255).all()
    for x, _, w, _ in viewports:
        assert np.array_equal(frames[0][:, x : x + w], frames[1][:, x : x + w])
        assert np.array_equal(frames[0][:, x : x + w], frames[2][:, x : x + w])
    renderer.release()
    target.release()


def test_shadows_in_the_cached_backdrop_follow_the_bodies(gl_context, compare):
    scene, snapshot = compare
    viewports, bodies = [LEFT, RIGHT], [np.array([0]), np.array([3])]
    cameras = _cameras(gl_context, scene, snapshot, viewports, bodies)
    raised = dataclasses.replace(snapshot, position=snapshot.position + [0.0, 0.0, 0.15])
    renderer = Renderer(gl_context, scene, options=dataclasses.replace(EVERYTHING))
    target = OffscreenTarget(gl_context, WIDTH, HEIGHT, samples=0)

    def frame(drawer, shown):
        target.framebuffer.use()
        target.framebuffer.clear(0.0, 0.0, 0.0, 1.0)
        drawer.draw_views(target.framebuffer, shown, viewports, cameras, bodies, background=GAP_SRGB)
        return _image(target)

    for _ in range(3):
        resting = frame(renderer, snapshot)  # the last from the cache, shadows included
    moved = [frame(renderer, raised) for _ in range(3)]
    fresh = Renderer(gl_context, scene, options=dataclasses.replace(EVERYTHING))
    fresh._floor = renderer._floor  # the same floor, fixed at the first draw
    expected = frame(fresh, raised)
    views = np.zeros((HEIGHT, WIDTH), dtype=bool)  # the gap is filled only by frames from the cache
    for x, _, w, _ in viewports:
        views[:, x : x + w] = True
    assert not np.array_equal(resting[views], expected[views])
    for image in moved:
        assert np.array_equal(image[views], expected[views])
    renderer.release()
    fresh.release()
    target.release()


def test_label_panels_from_the_cache_give_the_frame_drawn_in_full(gl_context, compare):
    from spinlab.render.run_view import RunView
    from spinlab.render.text import TextOverlay
    from spinlab.scene.model.run_model import Session, Setup, default_integrators

    scene, snapshot = compare
    text = TextOverlay(gl_context)
    target = OffscreenTarget(gl_context, 640, 360, samples=0)
    session = Session(Setup(scene, default_integrators(scene), h=scene.h))
    view = RunView(gl_context, session, text, options=dataclasses.replace(EVERYTHING))
    renderer = view.renderer
    frames = []
    for _ in range(3):  # drawn in full; panels drawn into the cache; panels from the cache
        view.draw(target.framebuffer, target.size, (0, 0, *target.size), session, text_scale=0.5, snapshot=snapshot)
        frames.append(_image(target))
    assert renderer.backdrop.whole_key is not None and renderer.backdrop.whole_key[-1] is not None
    # Under the panels a line of the 3D view may pass: drawn over the panel when the panel is in the cache,
    # under it when the panel is drawn last. Everywhere else the frames are the same.
    outside = np.ones((360, 640), dtype=bool)
    for x, y, width, height in renderer.backdrop.whole_key[-1][1]:
        outside[int(y) : int(np.ceil(y + height)) + 1, int(x) : int(np.ceil(x + width)) + 1] = False
    assert outside.mean() > 0.8
    assert np.array_equal(frames[0][outside], frames[1][outside])
    assert np.array_equal(frames[1], frames[2])
    text.release()
    renderer.release()
    target.release()


def test_a_label_panel_is_as_wide_as_its_text_whatever_came_before(gl_context):
    """A label's panel is a function of its text (a run shown again at a past step is drawn as it first was), and
    keeps its width while only its digits change (Roboto's digits are all as wide: the panel cache holds)."""
    from spinlab.render.text import TextBox, TextOverlay

    text = TextOverlay(gl_context)
    wide = TextBox(10.0, 10.0, ("name", "t = 10.00 s    |ΔE|/E = 1.0e-04"))
    narrow = TextBox(10.0, 10.0, ("name", "t = 1.00 s"))
    (first,) = text.panel_rects((640, 360), [narrow])
    (second,) = text.panel_rects((640, 360), [wide])
    (third,) = text.panel_rects((640, 360), [narrow])
    assert third == first and second[2] > first[2]
    widths = {
        text.panel_rects((640, 360), [TextBox(10.0, 10.0, ("name", f"t = {t:.2f} s    |ΔE|/E = {e:.1e}"))])[0][2]
        for t, e in [(1.23, 4.5e-4), (4.56, 7.8e-9), (7.89, 1.1e-1), (9.99, 9.9e-12)]
    }
    assert len(widths) == 1
    text.release()


def test_a_label_whose_error_changes_length_keeps_the_cached_backdrop(gl_context, compare):
    """A view's label goes from ``|ΔE|/E = 0`` to ``2.0e-16`` and back between frames (a run near round-off): its panel
    keeps one size (render/viewports.py's ``LABEL_LINE``), so every frame's backdrop, panels included, is the cached
    one, not shaded again per view with the panels drawn over it."""
    from spinlab.render.run_view import RunView
    from spinlab.render.text import TextOverlay
    from spinlab.scene.model.run_model import Session, Setup, default_integrators

    scene, snapshot = compare
    text = TextOverlay(gl_context)
    target = OffscreenTarget(gl_context, 640, 360, samples=0)
    session = Session(Setup(scene, default_integrators(scene), h=scene.h))
    view = RunView(gl_context, session, text, options=dataclasses.replace(EVERYTHING))
    backdrop = view.renderer.backdrop
    from_cache = []
    for frame in range(6):
        error = "0" if frame % 2 else "2.0e-16"
        labels = [(group.label, f"t = 2.0{frame} s    |ΔE|/E = {error}") for group in view.groups]
        view.draw(target.framebuffer, target.size, (0, 0, *target.size), session, text_scale=0.5, snapshot=snapshot,
                  labels=labels)  # fmt: skip
        from_cache.append(backdrop.whole_key is not None and backdrop.whole_key == backdrop.whole_request)
    assert from_cache[2:] == [True] * 4
    text.release()
    view.release()
    target.release()


def test_the_overlays_key_is_drawn_once_into_the_cached_backdrop(gl_context, compare, monkeypatch):
    """The key's text says the same frame after frame: it goes into the cached backdrop with the panels, and a
    frame from the cache draws only the labels' text (the same picture, fewer lines of text a frame)."""
    from spinlab.render.run_view import RunView
    from spinlab.render.text import TextOverlay
    from spinlab.scene.model.run_model import Session, Setup, default_integrators

    scene, snapshot = compare
    text = TextOverlay(gl_context)
    target = OffscreenTarget(gl_context, 640, 360, samples=0)
    session = Session(Setup(scene, default_integrators(scene), h=scene.h))
    view = RunView(gl_context, session, text, options=dataclasses.replace(EVERYTHING))
    labels = [(group.label, "t = 2.00 s    |ΔE|/E = 1.0e-05") for group in view.groups]
    drawn_text: list[list[tuple[str, ...]]] = []
    original = TextOverlay.draw

    def draw(self, framebuffer, size, boxes, scale=1.0, *, panels=True, text=True):
        if text:
            drawn_text[-1].extend(box.lines for box in boxes)
        return original(self, framebuffer, size, boxes, scale, panels=panels, text=text)

    monkeypatch.setattr(TextOverlay, "draw", draw)
    frames = []
    for _ in range(4):  # drawn in full; panels and key into the cache; twice from the cache
        drawn_text.append([])
        view.draw(target.framebuffer, target.size, (0, 0, *target.size), session, text_scale=0.5, snapshot=snapshot,
                  labels=labels)  # fmt: skip
        frames.append(_image(target))
    key_lines = [lines for lines in drawn_text[0] if lines not in labels]
    assert len(key_lines) == 1, "the first frame draws the key's text with the labels"
    assert drawn_text[1].count(key_lines[0]) == 1, "into the cache"
    assert drawn_text[3] == labels, "a frame from the cache draws the labels' text alone"
    assert np.array_equal(frames[2], frames[3])
    monkeypatch.undo()
    text.release()
    view.release()
    target.release()
