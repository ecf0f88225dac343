"""The renderer on real GL (EGL, offscreen): pixels where the camera says, background, anti-aliasing, labels.

Images are small (640×360) to keep the file fast on a CPU rasteriser; rows are read top-down.
"""

import dataclasses
import warnings

import numpy as np
import pytest
from imgui_bundle import imgui

from spinlab.render.camera import project
from spinlab.render.grid import grid_columns, grid_viewports
from spinlab.render.look import BACKGROUND_BOTTOM_SRGB, BACKGROUND_TOP_SRGB
from spinlab.render.offscreen import OffscreenTarget
from spinlab.render.renderer import Renderer, RenderOptions
from spinlab.render.run_view import RunView
from spinlab.render.text import TextOverlay
from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.model.run_model import Group, Session, Setup, default_integrators
from spinlab.scene.running.simulation import Simulation

WIDTH, HEIGHT = 640, 360
VIEWPORT = (0, 0, WIDTH, HEIGHT)
# A pixel this far (sum of |ΔRGB| in 8-bit levels) from the background is something drawn.
DRAWN_LEVELS = 40
BACKGROUND_LEVELS = 3  # the backdrop's gradient, quantised to 8 bits
BODIES_ONLY = RenderOptions(
    show_omega=False, show_momentum=False, show_axes=False, show_herpolhode=False, show_invariable_plane=False,
    show_floor=False,
)  # fmt: skip


def _background(rows: int) -> np.ndarray:
    """(rows, 3) float 8-bit levels of the backdrop's gradient, top row first, without the floor."""
    v = 1.0 - (np.arange(rows) + 0.5) / rows
    return 255.0 * (BACKGROUND_BOTTOM_SRGB + v[:, None] * (BACKGROUND_TOP_SRGB - BACKGROUND_BOTTOM_SRGB))


def _drawn(image: np.ndarray) -> np.ndarray:
    """(H, W) bool: pixels far from the backdrop's gradient."""
    return np.abs(image - _background(len(image))[:, None, :]).sum(axis=2) > DRAWN_LEVELS


def _render(ctx, scene, snapshot, options=BODIES_ONLY, samples=4, bodies=None):
    renderer = Renderer(ctx, scene, options=dataclasses.replace(options))
    target = OffscreenTarget(ctx, WIDTH, HEIGHT, samples=samples)
    camera = renderer.default_camera(snapshot, bodies, WIDTH / HEIGHT)
    renderer.draw(target.framebuffer, VIEWPORT, camera, snapshot, bodies)
    image = target.read().astype(float)
    renderer.release()
    target.release()
    return image, camera


@pytest.fixture(scope="module")
def t_handle():
    scene = load_scene("t_handle")
    return scene, Simulation(scene).snapshot()


@pytest.fixture(scope="module")
def compare_at_20_s():
    """The compare preset after the flip: every integrator's handle stepped to t = 20 s."""
    scene = load_scene("compare")
    simulation = Simulation(scene)
    energy_initial = simulation.snapshot().energy
    while simulation.t < 20.0 - 0.5 * simulation.h:
        simulation.step()
    return scene, simulation, energy_initial


def test_the_body_is_where_the_camera_projects_its_centre_of_mass(gl_context, t_handle):
    scene, snapshot = t_handle
    image, camera = _render(gl_context, scene, snapshot)
    x, y = project(camera.view_projection(WIDTH / HEIGHT), snapshot.position, VIEWPORT)[0]
    row, column = int(HEIGHT - y), int(x)
    assert _drawn(image)[row, column]
    # The handle's colour (scene colour orange: red above blue), not a shade of the grey backdrop.
    red, _, blue = image[row, column]
    assert red > blue + 40
    # The silhouette is a solid blob around that pixel, and the body fills a fair part of the frame.
    assert _drawn(image)[row - 2 : row + 3, column - 2 : column + 3].all()
    assert 0.015 < _drawn(image).mean() < 0.5


def test_background_corners_are_the_background_colour(gl_context, t_handle):
    scene, snapshot = t_handle
    expected = _background(HEIGHT)
    bodies_only, _ = _render(gl_context, scene, snapshot)
    everything, _ = _render(gl_context, scene, snapshot, options=RenderOptions())
    for row in (0, HEIGHT - 1):
        for column in (0, WIDTH - 1):
            assert np.abs(bodies_only[row, column] - expected[row]).max() <= BACKGROUND_LEVELS
    # With the floor grid on, the sky's corners are still the bare gradient.
    for column in (0, WIDTH - 1):
        assert np.abs(everything[0, column] - expected[0]).max() <= BACKGROUND_LEVELS


@pytest.mark.parametrize("samples", [4, 0], ids=["msaa4", "silhouette_fringes"])
def test_anti_aliasing_blends_the_silhouette_edges(gl_context, t_handle, samples):
    scene, snapshot = t_handle
    no_aa = dataclasses.replace(BODIES_ONLY, antialias=False)
    aliased, _ = _render(gl_context, scene, snapshot, options=no_aa, samples=0)
    smooth, _ = _render(gl_context, scene, snapshot, samples=samples)
    inside = _drawn(aliased)
    # The silhouette band: drawn pixels with a background pixel beside them, and background pixels with a drawn
    # one beside them (4-neighbourhood). MSAA blends the first, the fringes the second.
    padded = np.pad(inside, 1)
    neighbours = np.stack([padded[:-2, 1:-1], padded[2:, 1:-1], padded[1:-1, :-2], padded[1:-1, 2:]])
    band = (inside & ~neighbours.all(axis=0)) | (~inside & neighbours.any(axis=0))
    band[[0, -1], :] = band[:, [0, -1]] = False
    assert band.sum() > 100
    # Where each band pixel falls between the backdrop (0) and the body's aliased colour beside it (1).
    padded_colors = np.pad(aliased * inside[..., None], ((1, 1), (1, 1), (0, 0)))
    neighbour_colors = np.stack(
        [padded_colors[:-2, 1:-1], padded_colors[2:, 1:-1], padded_colors[1:-1, :-2], padded_colors[1:-1, 2:]]
    )
    body = np.where(
        inside[..., None], aliased, neighbour_colors.sum(axis=0) / np.maximum(neighbours.sum(axis=0), 1)[..., None]
    )
    background = _background(HEIGHT)[:, None, :].repeat(WIDTH, axis=1)
    span = body - background
    blend = ((smooth - background) * span).sum(axis=2) / np.maximum((span * span).sum(axis=2), 1.0)
    intermediate = (blend[band] > 0.1) & (blend[band] < 0.9)
    assert intermediate.mean() > 0.2, "anti-aliasing should leave partly covered edge pixels between the two colours"
    assert not np.array_equal(aliased, smooth)


def test_overlays_draw_arrows_trail_and_floor(gl_context, t_handle):
    scene, snapshot = t_handle
    bodies_only, _ = _render(gl_context, scene, snapshot)
    everything, _ = _render(gl_context, scene, snapshot, options=RenderOptions())
    assert (_drawn(everything) & ~_drawn(bodies_only)).mean() > 0.01


def test_different_states_give_different_viewports(gl_context, compare_at_20_s):
    scene, simulation, _ = compare_at_20_s
    snapshot = simulation.snapshot()
    names = simulation.body_integrators
    silhouettes = {
        name: _drawn(_render(gl_context, scene, snapshot, bodies=[names.index(name)])[0])
        for name in ("euler", "implicit_midpoint", "trapezoidal")
    }

    def overlap(a, b):
        return (silhouettes[a] & silhouettes[b]).sum() / (silhouettes[a] | silhouettes[b]).sum()

    # Explicit Euler has drifted far from the others; two second-order conservative methods still agree.
    assert overlap("euler", "implicit_midpoint") < 0.6
    assert overlap("trapezoidal", "implicit_midpoint") > 0.9


def test_grid_labels_are_drawn_as_text(gl_context, compare_at_20_s):
    scene, simulation, energy_initial = compare_at_20_s
    snapshot = simulation.snapshot()
    target = OffscreenTarget(gl_context, 1280, 720)
    session = Session(Setup(scene, default_integrators(scene), h=scene.h))
    options = dataclasses.replace(BODIES_ONLY, show_ghost=False)  # no overlay: no key, the labels alone
    text = TextOverlay(gl_context)
    window_context = imgui.create_context()  # stands for the window's own ImGui context, current while we draw
    imgui.set_current_context(window_context)
    labelled_view = RunView(gl_context, session, text, options=options)
    area = (0, 0, *target.size)
    labelled_view.draw(target.framebuffer, target.size, area, session, text_scale=1.0, snapshot=snapshot)
    labelled = target.read()
    assert imgui.get_current_context() is window_context, "the overlay must leave the caller's ImGui context current"
    imgui.destroy_context(window_context)
    # The same views with the cameras the labelled grid chose (below each label): only the labels differ.
    unlabelled_view = RunView(gl_context, session, None, options=options)
    unlabelled_view.cameras = labelled_view.cameras
    unlabelled_view.draw(target.framebuffer, target.size, area, session, text_scale=1.0, snapshot=snapshot)
    unlabelled = target.read()
    viewports = labelled_view.viewports
    cells = len(session.groups)
    assert viewports == unlabelled_view.viewports == grid_viewports(target.size, cells, grid_columns(cells, 1280, 720))
    for x, y, _, height in viewports:  # no body under a label: its corner is the backdrop, a vertical gradient
        top = 720 - (y + height)
        corner = unlabelled[top : top + 70, x : x + 260].astype(int)
        assert np.ptp(corner, axis=1).max() <= 2
    for x, y, _, height in viewports:
        top = 720 - (y + height)
        corner = (slice(top, top + 70), slice(x, x + 260))
        changed = np.abs(labelled[corner].astype(int) - unlabelled[corner]).sum(axis=2) > DRAWN_LEVELS
        white = (labelled[corner] > 200).all(axis=2)  # glyphs of the title
        assert changed.mean() > 0.2 and white.sum() > 100
        # Anti-aliased glyph edges: grey levels between the white text and the dark panel.
        assert np.unique(labelled[corner][..., 0]).size > 30
    # Nothing outside the label panels changes.
    outside = np.ones((720, 1280), dtype=bool)
    for x, y, _, height in viewports:
        top = 720 - (y + height)
        outside[top : top + 100, x : x + 400] = False
    assert np.array_equal(labelled[outside], unlabelled[outside])
    text.release()
    labelled_view.release()
    unlabelled_view.release()
    target.release()


def test_views_of_one_run_in_a_grid(gl_context, t_handle):
    scene, snapshot = t_handle
    session = Session(Setup(scene, default_integrators(scene), h=scene.h))
    every = tuple(range(len(scene.bodies)))
    view = RunView(gl_context, session, None, options=dataclasses.replace(BODIES_ONLY),
                   groups=[Group("a", every), Group("b", every)])  # fmt: skip
    target = OffscreenTarget(gl_context, WIDTH, HEIGHT, samples=0)
    view.draw(target.framebuffer, target.size, (0, 0, WIDTH, HEIGHT), session, text_scale=1.0, snapshot=snapshot)
    image = target.read().astype(float)
    (x0, _, w0, _), (x1, _, w1, _) = view.viewports
    assert x1 >= x0 + w0 and x1 + w1 <= WIDTH
    # The same view twice: equal but for rounding in a few fringe pixels (rasterised at other window positions).
    difference = np.abs(image[:, x0 : x0 + w0] - image[:, x1 : x1 + w1])
    assert difference.max() <= 2 and (difference > 0).any(axis=2).sum() <= 20
    view.release()
    target.release()


def test_silhouette_fringes_leave_the_backdrop_away_from_the_bodies_alone(gl_context, t_handle):
    scene, snapshot = t_handle
    no_aa = dataclasses.replace(BODIES_ONLY, antialias=False)
    aliased, _ = _render(gl_context, scene, snapshot, options=no_aa, samples=0)
    smooth, _ = _render(gl_context, scene, snapshot, samples=0)
    # Pixels within two of a drawn one (the fringe reaches one pixel out) may change; the rest must not.
    near = _drawn(aliased)
    for _ in range(2):
        padded = np.pad(near, 1)
        near = near | padded[:-2, 1:-1] | padded[2:, 1:-1] | padded[1:-1, :-2] | padded[1:-1, 2:]
    changed = np.abs(smooth - aliased).sum(axis=2) > 0
    assert changed.any()
    assert not (changed & ~near).any(), "the fringes should leave flat regions away from the bodies alone"


@pytest.mark.parametrize("viewport", [VIEWPORT, (40, 30, 400, 300)], ids=["whole", "part"])
def test_cached_backdrop_follows_the_camera(gl_context, t_handle, viewport):
    scene, snapshot = t_handle
    renderer = Renderer(gl_context, scene, options=dataclasses.replace(BODIES_ONLY, show_floor=True))
    target = OffscreenTarget(gl_context, WIDTH, HEIGHT, samples=0)
    camera = renderer.default_camera(snapshot, None, viewport[2] / viewport[3])
    moved = dataclasses.replace(camera, elevation_deg=camera.elevation_deg + 15.0)

    def frame(cam):
        target.framebuffer.use()
        target.framebuffer.clear(0.0, 0.0, 0.0, 1.0)
        renderer.draw(target.framebuffer, viewport, cam, snapshot)
        return target.read()

    first, other, again = frame(camera), frame(moved), frame(camera)
    fresh = Renderer(gl_context, scene, options=renderer.options)
    fresh._floor = renderer._floor  # the same floor, fixed at the first draw
    target.framebuffer.use()
    target.framebuffer.clear(0.0, 0.0, 0.0, 1.0)
    fresh.draw(target.framebuffer, viewport, camera, snapshot)
    uncached = target.read()
    renderer.release()
    fresh.release()
    target.release()
    assert np.array_equal(first, again)
    assert np.array_equal(first, uncached)
    assert not np.array_equal(first, other)
    # Outside the viewport the target is untouched.
    x, y, w, h = viewport
    outside = np.ones((HEIGHT, WIDTH), dtype=bool)
    outside[HEIGHT - (y + h) : HEIGHT - y, x : x + w] = False
    assert not first[outside].any()


def test_a_huge_but_finite_state_draws_without_warnings(gl_context, tmp_path):
    # |ω| = 1e50 rad/s and L ~ 1e100 make a valid scene (scene/files/limits.py, moments at most 1e50); drawn, they
    # overflow float32 and the squares of norms.
    path = tmp_path / "fast.toml"
    path.write_text(
        '[[body]]\nname = "a"\nshape = "box"\nmass = 1e50\nsize = [1e49, 2e49, 3e49]\n'
        "inertia = [5e49, 6e49, 1e50]\nangular_velocity = [1e50, 1e49, 0]\n"
    )
    scene = load_scene(path)
    snapshot = Simulation(scene).snapshot()
    everything = RenderOptions()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        renderer = Renderer(gl_context, scene, options=everything)
        renderer.push_trail(snapshot)
        renderer.push_trail(snapshot)
        target = OffscreenTarget(gl_context, WIDTH, HEIGHT, samples=0)
        camera = renderer.default_camera(snapshot, None, WIDTH / HEIGHT)
        renderer.prepare(snapshot, [VIEWPORT], [camera])
        renderer.draw(target.framebuffer, VIEWPORT, camera, snapshot)
        target.read()
    renderer.release()
    target.release()


def test_far_solids_take_fringes_on_their_smooth_edges_only(gl_context, t_handle, monkeypatch):
    # A T-handle so far away that its cylinders are at the coarsest level (under a pixel in radius): their fringes
    # come from the sides (one edge per segment), not the caps' rims; a near one's from every edge.
    from spinlab.render.gpu import InstancedDraw
    from spinlab.render.gpu_resources import ROUND_SEGMENTS, SMOOTH_FRINGES_SEGMENTS

    scene, snapshot = t_handle
    renderer = Renderer(gl_context, scene, options=dataclasses.replace(BODIES_ONLY))
    target = OffscreenTarget(gl_context, WIDTH, HEIGHT, samples=0)
    drawn = []
    edges = renderer.resources.edges["cylinder"]
    original = InstancedDraw.draw_written

    def spy(draw, count, vertices=-1, first=0):
        if count and draw in edges:
            drawn.append((edges.index(draw), vertices))
        original(draw, count, vertices, first)

    monkeypatch.setattr(InstancedDraw, "draw_written", spy)
    camera = renderer.default_camera(snapshot, None, WIDTH / HEIGHT)
    renderer.draw(target.framebuffer, VIEWPORT, camera, snapshot)
    assert drawn and all(ROUND_SEGMENTS[level] > SMOOTH_FRINGES_SEGMENTS and v == -1 for level, v in drawn), drawn
    drawn.clear()
    renderer.draw(target.framebuffer, VIEWPORT, dataclasses.replace(camera, distance=400.0 * camera.distance), snapshot)
    coarsest = len(ROUND_SEGMENTS) - 1
    assert drawn == [(coarsest, 6 * ROUND_SEGMENTS[coarsest])]  # 6 indices an edge, one side edge a segment
    renderer.release()
    target.release()


def test_views_without_a_background_clear_the_depth_whole_and_leave_the_colour_alone(gl_context, t_handle, monkeypatch):
    # Views drawn without a background (a branch beside its original shares the target) clear the whole depth
    # buffer once, the colour masked, not each view's depth within its scissor (a rectangle a CPU rasteriser
    # shades); the colour outside the views is left as it was.
    import moderngl

    scene, snapshot = t_handle
    renderer = Renderer(gl_context, scene, options=dataclasses.replace(BODIES_ONLY, show_floor=True))
    target = OffscreenTarget(gl_context, WIDTH, HEIGHT, samples=0)
    viewports = [(20, 20, 280, 300), (340, 20, 280, 300)]
    cameras = [renderer.default_camera(snapshot, None, 280 / 300)] * 2
    clears = []
    original = moderngl.Framebuffer.clear

    def spy(framebuffer, *args, **kwargs):
        clears.append((tuple(framebuffer.scissor), kwargs.get("viewport"), tuple(framebuffer.color_mask)))
        original(framebuffer, *args, **kwargs)

    marker = np.array([255, 0, 255])
    for _ in range(3):  # shaded, then into the cache and copied
        target.framebuffer.use()
        original(target.framebuffer, *(marker / 255.0), 1.0)
        monkeypatch.setattr(moderngl.Framebuffer, "clear", spy)
        clears.clear()
        renderer.draw_views(target.framebuffer, snapshot, viewports, cameras)
        monkeypatch.setattr(moderngl.Framebuffer, "clear", original)
        assert clears == [((0, 0, WIDTH, HEIGHT), None, (False, False, False, False))]
        image = target.read()
        assert np.array_equal(image[HEIGHT - 5, 5], marker) and np.array_equal(image[HEIGHT - 100, 320], marker)
        assert not np.array_equal(image[HEIGHT - 100, 100], marker)  # a view's backdrop
    renderer.release()
    target.release()
