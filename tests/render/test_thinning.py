"""The compiled thinning (render/thinning.py, behind render/overlays.py ``trail_keep``) against the numpy
formulation it replaced (tests/render/thinning_reference.py): the same kept samples, bit for bit, on random walks,
on paths with tips behind the eye or not finite, on the shortest trails and with the plots' unbounded segments."""

from __future__ import annotations

import numpy as np
import pytest

from spinlab.render.overlays import trail_keep
from tests.render.thinning_reference import trail_keep_reference

PLOT_LIMITS = dict(segment_px=1e6, error_px=0.25, max_stride=32)  # ImPlot lines: only the curvature thins


def _walks(rng: np.random.Generator, count_polylines: int, count: int) -> np.ndarray:
    """(P, T, 2) px: random walks whose steps range from a hundredth of a pixel to several pixels, every third
    on whole pixels (so that path lengths and L² − c² land exactly on the thresholds)."""
    scale = 10.0 ** rng.uniform(-2.0, 0.7, size=(count_polylines, 1, 1))
    start = rng.uniform(-300.0, 300.0, size=(count_polylines, 1, 2))
    pixels = start + np.cumsum(rng.normal(scale=scale, size=(count_polylines, count, 2)), axis=1)
    pixels[::3] = np.round(pixels[::3])
    return pixels


def _indices(rng: np.random.Generator, count: int, stride: int, first_level: int) -> np.ndarray:
    """(T,) absolute indices: multiples of ``stride`` from ``first_level · stride``, the newest maybe not one."""
    index = stride * (first_level + np.arange(count))
    index[-1] -= rng.integers(0, stride)
    return index


def _assert_same_keep(pixels, in_front, index, stride, **limits) -> np.ndarray:
    keep = trail_keep(pixels, in_front, index, stride, **limits)
    with np.errstate(invalid="ignore"):  # inf − inf on the paths that are not finite
        expected = trail_keep_reference(pixels, in_front, index, stride, **limits)
    assert keep.dtype == np.bool_ and keep.shape == expected.shape
    assert np.array_equal(keep, expected), np.argwhere(keep != expected)[:5]
    return keep


@pytest.mark.parametrize(
    ("count_polylines", "count", "stride", "first_level"),
    [(8, 600, 1, 0), (8, 600, 1, 1234), (3, 300, 4, 77), (5, 150, 8, 5), (8, 100, 2, 2**20 + 3), (2, 64, 1, -40)],
)
@pytest.mark.parametrize(
    "limits",
    [
        dict(segment_px=4.0, error_px=0.25, max_stride=32),  # the herpolhode trails'
        dict(segment_px=16.0, error_px=2.0, max_stride=8),
        dict(segment_px=1.0, error_px=0.1, max_stride=64),
        dict(segment_px=0.0, error_px=0.0, max_stride=32),  # keeps every sample that moves
        PLOT_LIMITS,
    ],
)
def test_random_walks_keep_the_reference_samples(count_polylines, count, stride, first_level, limits):
    rng = np.random.default_rng(count * 1000 + stride * 10 + count_polylines)
    for _ in range(3):
        pixels = _walks(rng, count_polylines, count)
        in_front = np.ones((count_polylines, count), dtype=bool)
        keep = _assert_same_keep(pixels, in_front, _indices(rng, count, stride, first_level), stride, **limits)
        assert keep[:, 0].all() and keep[:, -1].all()


@pytest.mark.parametrize("limits", [dict(segment_px=4.0, error_px=0.25, max_stride=32), PLOT_LIMITS])
def test_tips_behind_the_eye_and_not_finite_keep_the_reference_samples(limits):
    rng = np.random.default_rng(5)
    count_polylines, count = 8, 400
    for _ in range(5):
        pixels = _walks(rng, count_polylines, count)
        flat = pixels.reshape(-1)
        for value in (np.nan, np.inf, -np.inf):
            flat[rng.choice(flat.size, size=6, replace=False)] = value
        pixels[1, 100:140] = np.nan  # a run, and a whole coordinate
        pixels[2, 200:210, 0] = np.inf
        pixels[3, -5:] = -np.inf  # at the newest end
        in_front = rng.random((count_polylines, count)) > 0.02
        in_front[4, :50] = False  # at the oldest end
        in_front[5] = False
        index = _indices(rng, count, 2, 31)
        keep = _assert_same_keep(pixels, in_front, index, 2, **limits)
        assert not keep[:, 1:-1].all(), "samples are still dropped"


@pytest.mark.parametrize("count", [1, 2, 3])
@pytest.mark.parametrize("limits", [dict(segment_px=4.0, error_px=0.25, max_stride=32), PLOT_LIMITS])
def test_the_shortest_trails_keep_the_reference_samples(count, limits):
    rng = np.random.default_rng(count)
    for stride, first_level in ((1, 0), (1, 7), (4, 12), (8, 3)):
        pixels = _walks(rng, 4, count)
        in_front = np.ones((4, count), dtype=bool)
        in_front[3, 0] = False
        keep = _assert_same_keep(pixels, in_front, _indices(rng, count, stride, first_level), stride, **limits)
        assert keep[:, [0, -1]].all()


def test_the_plots_large_segment_thins_by_curvature_alone():
    # A plot line: 8 series of 150 points, nearly straight runs and sharp turns; all of it in front.
    rng = np.random.default_rng(17)
    count = 150
    t = np.arange(count, dtype=float)
    value = np.cumsum(rng.normal(size=(8, count)) * (rng.random((8, count)) < 0.1), axis=1) * 40.0
    pixels = np.stack([np.broadcast_to(3.0 * t, value.shape), value], axis=2)
    in_front = np.ones((8, count), dtype=bool)
    keep = _assert_same_keep(pixels, in_front, np.arange(5000, 5000 + count), 1, **PLOT_LIMITS)
    assert keep.sum() < 0.5 * keep.size, "straight runs are thinned"


def _error_px_on(curve_px2: float) -> float | None:
    """An ``error_px`` whose limit ``2 error_px²``, as trail_keep rounds it, is ``curve_px2`` exactly, if any."""
    error_px = float(np.sqrt(curve_px2 / 2.0))
    for candidate in error_px + np.spacing(error_px) * np.arange(-4, 5):  # its neighbours, a few floats apart
        if 2.0 * float(candidate) ** 2 == curve_px2:
            return float(candidate)
    return None


def test_thresholds_on_the_last_bit_of_a_length_or_a_curve_keep_the_reference_samples():
    # Three samples, the middle one (level 1, half a window of 1) judged on the path (0, 0) → a → b, with the
    # limit set on the value itself (dropped: not greater) and one step below it (kept): a step length or an
    # L² − c² off by one rounding would flip one of the two. The lengths by hand: L = |a| + |b − a|.
    rng = np.random.default_rng(29)
    index, in_front = np.arange(3), np.ones((1, 3), dtype=bool)
    a, b = rng.uniform(-9.0, 9.0, size=(2, 400, 2))
    for corner in a:
        # The path's length alone: b on a (a zero second step), no curvature limit.
        length_px = float(np.hypot(*corner))
        pixels = np.array([[[0.0, 0.0], corner, corner]])
        for segment_px, kept in ((length_px, False), (float(np.nextafter(length_px, 0.0)), True)):
            keep = _assert_same_keep(pixels, in_front, index, 1, segment_px=segment_px, error_px=1e3, max_stride=4)
            assert keep[0, 1] == kept
    checked = 0
    for corner, end in zip(a, b, strict=True):
        # The curvature alone.
        length_px = np.hypot(*corner) + np.hypot(*(end - corner))
        curve_px2 = length_px**2 - end[0] ** 2 - end[1] ** 2
        below_px2 = float(np.nextafter(curve_px2, -np.inf))
        on, below = _error_px_on(float(curve_px2)), _error_px_on(below_px2)
        if on is None or below is None:
            continue
        pixels = np.array([[[0.0, 0.0], corner, end]])
        for error_px, kept in ((on, False), (below, True)):
            keep = _assert_same_keep(pixels, in_front, index, 1, segment_px=1e6, error_px=error_px, max_stride=4)
            assert keep[0, 1] == kept
        checked += 1
    assert checked >= 20


def test_inputs_are_converted_as_the_reference_reads_them():
    rng = np.random.default_rng(23)
    pixels = _walks(rng, 4, 401)[:, ::2]  # not contiguous
    in_front = (rng.random((4, 201)) > 0.05).astype(np.int8)
    index = _indices(rng, 201, 1, 99).astype(np.int32)
    _assert_same_keep(pixels, in_front.astype(bool), index, np.int64(1), **PLOT_LIMITS)
    assert np.array_equal(
        trail_keep(pixels, in_front, index, 1, **PLOT_LIMITS),
        trail_keep_reference(pixels, in_front.astype(bool), index, 1, **PLOT_LIMITS),
    )


def test_mismatched_shapes_and_strides_are_refused():
    pixels, in_front, index = np.zeros((2, 5, 2)), np.ones((2, 5), dtype=bool), np.arange(5)
    for arguments in (
        (pixels[..., 0], in_front, index, 1),
        (pixels, in_front[:, :4], index, 1),
        (pixels, in_front, index[:4], 1),
        (pixels, in_front, index, 0),
    ):
        with pytest.raises(ValueError, match="trail_keep needs"):
            trail_keep(*arguments, **PLOT_LIMITS)
