"""The renderer's lifetimes on real GL (EGL, offscreen): programs and meshes once per context, shared by every
renderer on it and freed with the last; each renderer's own state (backdrop cache, trail lines) apart; the cache
sized from its target."""

import dataclasses

import numpy as np
import pytest

from spinlab.render import meshes
from spinlab.render.gpu_resources import GpuResources
from spinlab.render.offscreen import OffscreenTarget
from spinlab.render.renderer import Renderer, RenderOptions
from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.running.simulation import Simulation

WIDTH, HEIGHT = 480, 270
EVERYTHING = RenderOptions()
MESH_BUILDERS = ("unit_mesh", "disc", "axes_lines", "cylinder", "cone", "box", "uv_sphere")


@pytest.fixture
def ctx(fresh_gl_context):
    return fresh_gl_context


def _running(name: str, steps: int = 60):
    """The scene ``name`` and its first ``steps`` snapshots."""
    scene = load_scene(name)
    simulation = Simulation(scene)
    snapshots = []
    for _ in range(steps):
        simulation.step()
        snapshots.append(simulation.snapshot())
    return scene, snapshots


def _draw(renderer: Renderer, snapshots, target: OffscreenTarget, camera=None, push: bool = True) -> np.ndarray:
    """Push ``snapshots``' trail (unless not ``push``) and draw the last of them over black."""
    for snapshot in snapshots if push else ():
        renderer.push_trail(snapshot)
    snapshot = snapshots[-1]
    camera = camera or renderer.default_camera(snapshot, None, WIDTH / HEIGHT)
    target.framebuffer.use()
    target.framebuffer.clear(0.0, 0.0, 0.0, 1.0)
    renderer.draw(target.framebuffer, (0, 0, WIDTH, HEIGHT), camera, snapshot)
    return target.read()


def _count_calls(monkeypatch, owner, name: str, counts: dict) -> None:
    original = getattr(owner, name)

    def counted(*args, **kwargs):
        counts[name] = counts.get(name, 0) + 1
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)


def test_a_new_renderer_on_a_context_compiles_no_program_and_builds_no_mesh(ctx, monkeypatch):
    t_handle, t_snapshots = _running("t_handle")
    compare, c_snapshots = _running("compare")
    target = OffscreenTarget(ctx, WIDTH, HEIGHT, samples=0)
    first = Renderer(ctx, t_handle, options=dataclasses.replace(EVERYTHING))
    before = _draw(first, t_snapshots, target)
    counts: dict[str, int] = {}
    _count_calls(monkeypatch, ctx, "program", counts)
    for name in MESH_BUILDERS:
        _count_calls(monkeypatch, meshes, name, counts)
    # A GUI reset (the same scene: the new renderer is made, then the old one released), then a new scene; both
    # draw, with everything on.
    reset = Renderer(ctx, t_handle, options=dataclasses.replace(EVERYTHING))
    first.release()
    after = _draw(reset, t_snapshots, target)
    other = Renderer(ctx, compare, options=dataclasses.replace(EVERYTHING))
    compared = _draw(other, c_snapshots, target)
    assert counts == {}, f"a new renderer rebuilt GL resources: {counts}"
    assert reset.resources is other.resources is GpuResources.of(ctx)
    assert np.array_equal(before, after), "the renderer after a reset draws another picture"
    assert compared.std() > 10.0, "the second scene's view is blank"
    reset.release()
    other.release()
    target.release()


def test_renderers_that_share_a_context_draw_what_each_draws_alone(ctx):
    """The programs' per-view uniforms are shared state: a renderer whose views are unchanged since its last frame
    must still draw its own after another renderer drew other views in between."""
    scene, snapshots = _running("t_handle")
    target = OffscreenTarget(ctx, WIDTH, HEIGHT, samples=0)
    one = Renderer(ctx, scene, options=dataclasses.replace(EVERYTHING))
    two = Renderer(ctx, scene, options=dataclasses.replace(EVERYTHING))
    camera = one.default_camera(snapshots[-1], None, WIDTH / HEIGHT)
    turned = dataclasses.replace(camera, azimuth_deg=camera.azimuth_deg + 70.0, elevation_deg=-10.0)
    alone = _draw(one, snapshots, target, camera)
    other = _draw(two, snapshots, target, turned)
    again = _draw(one, snapshots, target, camera, push=False)
    assert not np.array_equal(alone, other)
    assert np.array_equal(alone, again)
    one.release()
    two.release()
    target.release()


def test_the_last_renderer_released_frees_the_shared_resources_and_a_new_one_builds_them_again(ctx):
    scene, snapshots = _running("t_handle", steps=5)
    target = OffscreenTarget(ctx, WIDTH, HEIGHT, samples=0)
    one, two = Renderer(ctx, scene), Renderer(ctx, scene)
    shared = one.resources
    one.release()
    one.release()  # a second release does nothing: it must not let go of what two holds
    assert GpuResources.of(ctx) is shared and shared.users == 1, "a renderer's release freed what another holds"
    assert _draw(two, snapshots, target).std() > 10.0
    two.release()
    assert shared.users == 0
    renderer = Renderer(ctx, scene)
    assert renderer.resources is not shared, "the last renderer's release kept the shared resources"
    assert renderer.resources is GpuResources.of(ctx)
    assert _draw(renderer, snapshots, target).std() > 10.0
    renderer.release()
    target.release()


def test_the_backdrop_cache_follows_the_size_of_the_framebuffer_it_is_given(ctx):
    scene, snapshots = _running("t_handle", steps=5)
    renderer = Renderer(ctx, scene)
    snapshot = snapshots[-1]
    for width, height in ((320, 180), (800, 500), (320, 180)):
        target = OffscreenTarget(ctx, width, height, samples=0)
        camera = renderer.default_camera(snapshot, None, width / height)
        images = []
        for _ in range(3):  # shaded, shaded into the cache and copied, copied
            renderer.draw_views(
                target.framebuffer, snapshot, [(0, 0, width, height)], [camera], background=(0.0, 0.0, 0.0)
            )
            images.append(target.read())
        assert renderer.backdrop.whole_key is not None, "the last frames should come from the cache"
        assert tuple(renderer._backdrop_cache.size) == (width, height)
        assert all(np.array_equal(images[0], image) for image in images[1:])
        assert not np.all(images[-1] == 0, axis=2).any(), f"black pixels in the view at {width}×{height}"
        target.release()
    renderer.release()


def test_each_round_part_takes_the_fewest_segments_within_the_silhouette_error():
    # A part of radius r px drawn with N segments is off its circle by r (1 − cos π/N) at most: the level of detail
    # keeps that within SILHOUETTE_ERROR_PX and takes the fewest segments that do, down to 4 for a part under a pixel
    # (a cloud of handles far away).
    from spinlab.render.gpu_resources import ROUND_SEGMENTS
    from spinlab.render.views import SILHOUETTE_ERROR_PX, levels_of_detail

    radii_px = np.geomspace(0.05, 400.0, 300)
    rows = np.zeros((len(radii_px), 21))
    rows[:, 0] = rows[:, 5] = radii_px  # the model's round axes scaled to r m, at 1 m in a view of 1 px per m
    rows[:, 15] = 1.0
    depth_rows = np.array([[0.0, 0.0, 0.0, 1.0]])
    segments = np.array(ROUND_SEGMENTS)[levels_of_detail(rows, depth_rows, np.array([1.0]), ROUND_SEGMENTS, 2)]
    error = radii_px * (1.0 - np.cos(np.pi / segments))
    within = radii_px <= SILHOUETTE_ERROR_PX / (1.0 - np.cos(np.pi / ROUND_SEGMENTS[0]))
    assert np.all(error[within] <= SILHOUETTE_ERROR_PX * (1 + 1e-12))
    # Where a coarser level exists, it would be off by more.
    coarser = np.array([max([s for s in ROUND_SEGMENTS if s < n] or [0]) for n in segments])
    has_coarser = coarser > 0
    coarser_error = radii_px[has_coarser] * (1.0 - np.cos(np.pi / coarser[has_coarser]))
    assert np.all(coarser_error > SILHOUETTE_ERROR_PX)
    assert segments[np.searchsorted(radii_px, 0.8)] == 4
