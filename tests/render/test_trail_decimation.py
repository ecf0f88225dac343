"""Thinning the herpolhode trails: strides anchored to absolute sample indices (render/trail.py), then per view on
screen (render/overlays.py ``trail_keep``, ``Renderer._upload_trails``). The kept samples stay put from one pushed
sample to the next, the drawn line stays within ``TRAIL_ERROR_PX`` of the full polyline, far fewer segments are
drawn, and a frame of the compare scene looks as it does with every sample.
"""

import numpy as np
import pytest

from spinlab.render import trail_lines as trail_lines_module
from spinlab.render.grid import grid_viewports
from spinlab.render.offscreen import OffscreenTarget
from spinlab.render.overlays import trail_keep, trail_tips_px
from spinlab.render.renderer import Renderer
from spinlab.render.trail import HerpolhodeTrail
from spinlab.render.trail_lines import TRAIL_ERROR_PX, TRAIL_MAX_STRIDE, TRAIL_SEGMENT_PX
from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.running.simulation import Simulation

WIDTH, HEIGHT = 1280, 720  # the compare scene's video: 8 views of one body each, 3 columns
COLUMNS = 3
STEPS = 600  # a full trail (TRAIL_CAPACITY)
LIMITS = dict(segment_px=TRAIL_SEGMENT_PX, error_px=TRAIL_ERROR_PX, max_stride=TRAIL_MAX_STRIDE)
# Measured on the compare scene after 600 steps: 4792 segments with every sample, 1049 kept (22 %), the farthest
# dropped tip 0.30 px from the line drawn.
MAX_KEPT_FRACTION = 0.35
# A frame with thinned trails against one with every sample: of the pixels the trails touch, the fraction that
# differ by more than 24 and by more than 48 levels. Measured 5.7 % and 2.1 %; coarse thinning (16 px segments,
# 2 px error) gives 34 % and 6.7 %. Even 1 px segments and a 0.1 px error give 1.6 % and 0.9 %: segments are drawn
# as quads without joins, so where a trail curls tightly (a few pixels across), the overlaps of many short
# translucent quads and the gaps at the outer corners of longer ones differ, whatever the geometric error.
MAX_DIFFERING_24 = 0.08
MAX_DIFFERING_48 = 0.035
TRAIL_LEVELS = 8  # a pixel a trail changes by more than this many levels is the trail's


def _chord_error_px(pixels: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """(P, T) px: each sample's distance to the segment between the kept samples around it (0 where kept), at
    least its distance to the kept polyline."""
    count = keep.shape[1]
    position = np.arange(count)
    before = np.maximum.accumulate(np.where(keep, position, 0), axis=1)
    after = np.minimum.accumulate(np.where(keep, position, count - 1)[:, ::-1], axis=1)[:, ::-1]
    pair = np.arange(len(keep))[:, None]
    start, chord = pixels[pair, before], pixels[pair, after] - pixels[pair, before]
    along = np.einsum("ptk,ptk->pt", pixels - start, chord) / np.maximum(np.einsum("ptk,ptk->pt", chord, chord), 1e-300)
    return np.linalg.norm(pixels - start - np.clip(along, 0.0, 1.0)[..., None] * chord, axis=2)


def _paths_between_kept_px(pixels: np.ndarray, keep: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The length (S,) px of the full polyline between consecutive kept samples, and how many samples apart (S,)."""
    travelled = np.concatenate(
        [np.zeros((len(pixels), 1)), np.cumsum(np.linalg.norm(np.diff(pixels, axis=1), axis=2), axis=1)], axis=1
    )
    pair, sample = np.nonzero(keep)
    same = pair[1:] == pair[:-1]
    lengths = travelled[pair[1:], sample[1:]] - travelled[pair[:-1], sample[:-1]]
    return lengths[same], (sample[1:] - sample[:-1])[same]


# --- the ring buffer's anchored stride ----------------------------------------------------------------------------


@pytest.mark.parametrize("stride", [1, 2, 4, 8])
def test_the_anchored_stride_keeps_the_older_samples_when_one_is_pushed(stride):
    capacity = 10
    trail = HerpolhodeTrail(n_bodies=2, capacity=capacity)
    previous = None
    for k in range(27):  # past the capacity: the buffer wraps
        trail.push(np.full((2, 3), float(k)))  # sample k holds k
        history, age = trail.omega_world(stride=stride)
        index = trail.sample_index(age)
        assert np.array_equal(history[:, 1, 0], index), "the ages point at the samples of those indices"
        assert index[-1] == k and np.all(index[:-1] % stride == 0) and index[0] > k - capacity
        assert len(index) == len(set(index.tolist())) and np.all(np.diff(index) > 0)
        multiples = index[index % stride == 0]
        expected = np.arange(max(k - capacity + 1, 0), k + 1)
        assert np.array_equal(multiples, expected[expected % stride == 0]), "every multiple the buffer holds"
        if previous is not None:
            # What was kept and is still held is kept again: nothing shifts with the newest sample.
            assert np.array_equal(multiples[multiples < k], previous[previous > k - capacity])
        previous = multiples
    trail.clear()
    assert trail.pushed == 0 and len(trail.omega_world(stride=stride)[1]) == 0


@pytest.mark.parametrize(("count", "n_bodies", "max_values"), [(600, 8, 40_000), (600, 100, 40_000), (7, 3, 4)])
def test_the_time_stride_is_the_smallest_power_of_two_within_the_budget(count, n_bodies, max_values):
    trail = HerpolhodeTrail(n_bodies=n_bodies, capacity=600)
    for k in range(count):
        trail.push(np.full((n_bodies, 3), float(k)))
    stride = trail.stride(n_bodies, max_values)
    assert stride & (stride - 1) == 0
    assert count * n_bodies <= stride * max_values and (stride == 1 or count * n_bodies > stride // 2 * max_values)
    history, _ = trail.omega_world(max_values=max_values)
    assert len(history) * n_bodies <= max_values + 2 * n_bodies  # the trail's two ends aside


# --- trail_keep on synthetic paths (no GL) ----------------------------------------------------------------------


def _random_paths(rng: np.random.Generator, count: int) -> np.ndarray:
    """(4, count, 2) px: a random walk, a tight spiral, a slow line and a fast wobble."""
    t = np.arange(count)
    walk = np.cumsum(rng.normal(scale=0.4, size=(count, 2)), axis=0)
    angle, radius = 0.05 * t, 2.0 + 0.01 * t
    spiral = np.column_stack([radius * np.cos(angle), radius * np.sin(angle)])
    line = np.column_stack([0.07 * t, -0.03 * t])
    wobble = np.column_stack([0.8 * t, 6.0 * np.sin(0.3 * t)])
    return np.stack([walk, spiral, line, wobble])


@pytest.mark.parametrize(("stride", "first"), [(1, 0), (1, 1234), (4, 4 * 77), (8, 8 * 5)])
def test_kept_samples_keep_every_path_short_and_close_to_its_chord(stride, first):
    rng = np.random.default_rng(11)
    count = 300
    pixels = _random_paths(rng, count)
    in_front = np.ones(pixels.shape[:2], dtype=bool)
    in_front[0, 40:43] = False  # a few tips behind the eye
    index = first + stride * np.arange(count)
    index[-1] -= 1  # the newest sample need not be a multiple of the stride
    keep = trail_keep(pixels, in_front, index, stride, **LIMITS)

    assert keep[:, 0].all() and keep[:, -1].all()
    assert keep[0, 39:44].all(), "tips behind the eye and their neighbours are kept"
    assert keep.sum() < 0.6 * keep.size, "most samples go"
    lengths, apart = _paths_between_kept_px(pixels, keep)
    assert np.all((lengths <= TRAIL_SEGMENT_PX + 1e-9) | (apart == 1))
    assert apart.max() <= TRAIL_MAX_STRIDE
    assert _chord_error_px(pixels, keep).max() <= TRAIL_ERROR_PX + 1e-9


def test_a_straight_line_keeps_the_multiples_of_the_local_stride():
    # Speed v px per sample: the local stride is the largest power of two 2^k with 2^k · v <= TRAIL_SEGMENT_PX.
    count = 512
    for speed, local_stride in ((0.3, 8), (1.1, 2), (3.0, 1), (0.01, TRAIL_MAX_STRIDE)):
        pixels = speed * np.column_stack([np.arange(count), np.zeros(count)])[None]
        keep = trail_keep(pixels, np.ones((1, count), dtype=bool), np.arange(count), 1, **LIMITS)[0]
        inner = np.arange(TRAIL_MAX_STRIDE, count - TRAIL_MAX_STRIDE)  # the ends' paths are cut short
        assert np.array_equal(keep[inner], inner % local_stride == 0), speed


def test_kept_samples_are_anchored_to_absolute_indices():
    # The same path seen from one more sample on: every sample away from the ends keeps its fate.
    rng = np.random.default_rng(3)
    path = _random_paths(rng, 401)
    in_front = np.ones((4, 400), dtype=bool)
    before = trail_keep(path[:, :400], in_front, np.arange(1000, 1400), 1, **LIMITS)
    after = trail_keep(path[:, 1:], in_front, np.arange(1001, 1401), 1, **LIMITS)
    inner = slice(TRAIL_MAX_STRIDE, 400 - TRAIL_MAX_STRIDE)
    assert np.array_equal(before[:, 1:][:, inner], after[:, :-1][:, inner])


# --- the compare scene ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def compare(gl_context):
    """The compare scene after ``STEPS`` steps with a full trail, its views' viewports and cameras."""
    scene = load_scene("compare")
    simulation = Simulation(scene)
    renderer = Renderer(gl_context, scene)
    for _ in range(STEPS):
        simulation.step()
        renderer.push_trail(simulation.snapshot())
    snapshot = simulation.snapshot()
    viewports = grid_viewports((WIDTH, HEIGHT), len(scene.bodies), COLUMNS)
    cameras = [
        renderer.default_camera(snapshot, np.array([body]), viewport[2] / viewport[3])
        for body, viewport in enumerate(viewports)
    ]
    yield scene, snapshot, renderer, viewports, cameras
    renderer.release()


def _full_trail_px(
    trail: HerpolhodeTrail, omega_scale: float, snapshot, viewports, cameras
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every sample of each view's body's trail (view i shows body i) on screen, as the renderer places them:
    pixels (P, T, 2), in front (P, T), absolute indices (T,)."""
    history, age = trail.omega_world(stride=1)
    tips = (snapshot.position + omega_scale * history).transpose(1, 0, 2)
    view_projections = np.array([c.view_projection(v[2] / v[3]) for c, v in zip(cameras, viewports, strict=True)])
    pixels, in_front = trail_tips_px(tips, view_projections, np.array(viewports, dtype=float)[:, 2:])
    return pixels, in_front, trail.sample_index(age)


def test_compare_trails_keep_few_segments_close_to_the_full_polyline(compare):
    scene, snapshot, renderer, viewports, cameras = compare
    pixels, in_front, index = _full_trail_px(renderer.trail, renderer.layout.omega_scale, snapshot, viewports, cameras)
    keep = trail_keep(pixels, in_front, index, 1, **LIMITS)
    full_segments, kept_segments = keep.size - len(keep), int(keep.sum()) - len(keep)
    assert full_segments == len(scene.bodies) * (STEPS - 1)
    assert kept_segments <= MAX_KEPT_FRACTION * full_segments
    assert _chord_error_px(pixels, keep).max() <= TRAIL_ERROR_PX
    # The renderer uploads those segments: one view per body, each its own camera's.
    target = OffscreenTarget(renderer.ctx, WIDTH, HEIGHT, samples=0)
    renderer.draw_views(target.framebuffer, snapshot, viewports, cameras, [[body] for body in range(len(viewports))])
    assert renderer.trail_lines.vertices == 2 * kept_segments
    target.release()


def test_compare_trails_keep_their_samples_when_one_is_pushed(compare):
    scene, snapshot, renderer, viewports, cameras = compare
    trail = HerpolhodeTrail(len(scene.bodies), renderer.trail.capacity)
    history, _ = renderer.trail.omega_world(stride=1)
    fates = []
    for end in (len(history) - 1, len(history)):  # the trail a sample ago, and now
        trail.clear()
        for sample in history[:end]:
            trail.push(sample)
        pixels, in_front, index = _full_trail_px(trail, renderer.layout.omega_scale, snapshot, viewports, cameras)
        keep = trail_keep(pixels, in_front, index, 1, **LIMITS)
        fates.append(dict(zip(index.tolist(), keep.T.tolist(), strict=True)))  # absolute index: kept in each view
    inner = range(TRAIL_MAX_STRIDE, len(history) - 1 - TRAIL_MAX_STRIDE)
    assert all(fates[0][i] == fates[1][i] for i in inner)


def test_the_segment_budget_still_thins_many_trails_in_time(gl_context, compare, monkeypatch):
    scene, snapshot, shared, viewports, cameras = compare
    budget = 600  # a stride of 8 for 8 trails of 600 samples
    monkeypatch.setattr(trail_lines_module, "MAX_TRAIL_SEGMENTS", budget)
    segments = {}
    for segment_px in (0.0, TRAIL_SEGMENT_PX):
        monkeypatch.setattr(trail_lines_module, "TRAIL_SEGMENT_PX", segment_px)
        renderer = Renderer(gl_context, scene)
        renderer.trail = shared.trail
        _frame(gl_context, renderer, snapshot, viewports, cameras)
        segments[segment_px] = renderer.trail_lines.vertices // 2
        renderer.release()
    assert budget // 2 < segments[0.0] <= budget + 2 * len(viewports)
    assert segments[TRAIL_SEGMENT_PX] < segments[0.0]


def _frame(ctx, renderer: Renderer, snapshot, viewports, cameras) -> np.ndarray:
    target = OffscreenTarget(ctx, WIDTH, HEIGHT, samples=0)
    target.framebuffer.use()
    target.framebuffer.clear(0.0, 0.0, 0.0, 1.0)
    renderer.draw_views(target.framebuffer, snapshot, viewports, cameras, [[body] for body in range(len(viewports))])
    image = target.read().astype(int)
    target.release()
    return image


def test_a_compare_frame_with_thinned_trails_looks_like_one_with_every_sample(gl_context, compare, monkeypatch):
    scene, snapshot, shared, viewports, cameras = compare

    def frame(segment_px: float, error_px: float, herpolhode: bool = True) -> np.ndarray:
        monkeypatch.setattr(trail_lines_module, "TRAIL_SEGMENT_PX", segment_px)
        monkeypatch.setattr(trail_lines_module, "TRAIL_ERROR_PX", error_px)
        renderer = Renderer(gl_context, scene)  # a fresh one: no cached trail upload
        renderer.trail = shared.trail
        renderer.options.show_herpolhode = herpolhode
        image = _frame(gl_context, renderer, snapshot, viewports, cameras)
        renderer.release()
        return image

    every_sample = frame(0.0, 0.0)  # keeps every sample that moves
    trail_pixels = np.abs(every_sample - frame(0.0, 0.0, herpolhode=False)).max(axis=2) > TRAIL_LEVELS
    assert trail_pixels.sum() > 2000, "the trails are drawn"

    def differing(image: np.ndarray) -> tuple[float, float]:
        difference = np.abs(image - every_sample).max(axis=2)
        return (difference > 24).sum() / trail_pixels.sum(), (difference > 48).sum() / trail_pixels.sum()

    thinned = frame(TRAIL_SEGMENT_PX, TRAIL_ERROR_PX)
    assert not np.array_equal(thinned, every_sample)
    differ_24, differ_48 = differing(thinned)
    assert differ_24 <= MAX_DIFFERING_24 and differ_48 <= MAX_DIFFERING_48
    # The measure sees coarse thinning: longer segments, a larger error.
    coarse_24, coarse_48 = differing(frame(16.0, 2.0))
    assert coarse_24 > MAX_DIFFERING_24 and coarse_48 > MAX_DIFFERING_48
