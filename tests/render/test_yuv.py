"""RGB → yuv420p BT.709 limited range (render/yuv.py): exact on primaries, close to swscale's on a real frame."""

import av
import numpy as np
import pytest
from av.video.reformatter import VideoReformatter

from spinlab.render.bt709 import KB, KR
from spinlab.render.yuv import rgb_to_yuv420p_bt709


def _planes(width, height):
    frame = av.VideoFrame(width, height, "yuv420p")
    return frame, [np.frombuffer(plane, np.uint8).reshape(plane.height, plane.line_size) for plane in frame.planes]


def _convert(rgb, flip=False):
    height, width = rgb.shape[:2]
    _, (y, u, v) = _planes(width, height)
    rgb_to_yuv420p_bt709(rgb, y, u, v, flip=flip)
    return y[:, :width].astype(int), u[:, : width // 2].astype(int), v[:, : width // 2].astype(int)


@pytest.mark.parametrize(
    ("rgb", "expected"),
    [
        ((255, 255, 255), (235, 128, 128)),
        ((0, 0, 0), (16, 128, 128)),
        ((128, 128, 128), (126, 128, 128)),
        # BT.709 §3: red Y' = Kr, Cb = −Kr / (2 (1 − Kb)), Cr = ½; in 8-bit limited range, rounded.
        ((255, 0, 0), (round(16 + 219 * KR), round(128 - 224 * KR / (2 * (1 - KB))), 240)),
        ((0, 0, 255), (round(16 + 219 * KB), 240, round(128 - 224 * KB / (2 * (1 - KR))))),
    ],
)
def test_flat_colours_convert_to_the_standard_levels(rgb, expected):
    y, u, v = _convert(np.broadcast_to(np.array(rgb, np.uint8), (4, 6, 3)))
    assert (y == expected[0]).all() and (u == expected[1]).all() and (v == expected[2]).all()


def test_chroma_is_the_mean_of_each_two_by_two_block_and_flip_reads_rows_upwards():
    rng = np.random.default_rng(3)
    rgb = rng.integers(0, 256, size=(6, 8, 3), dtype=np.uint8)
    y, u, v = _convert(rgb)
    flipped = _convert(np.ascontiguousarray(rgb[::-1]), flip=True)
    for plane, other in zip((y, u, v), flipped, strict=True):
        assert np.array_equal(plane, other)
    # Block (1, 2) from its four pixels' mean, in floating point.
    mean = rgb[2:4, 4:6].reshape(4, 3).mean(axis=0)
    luma = KR * mean[0] + (1 - KR - KB) * mean[1] + KB * mean[2]
    assert abs(u[1, 2] - (128 + 224 / 255 * (mean[2] - luma) / (2 * (1 - KB)))) <= 0.5 + 1e-9
    assert abs(v[1, 2] - (128 + 224 / 255 * (mean[0] - luma) / (2 * (1 - KR)))) <= 0.5 + 1e-9
    assert np.abs(y - (16 + 219 / 255 * (rgb @ np.array([KR, 1 - KR - KB, KB])))).max() <= 0.5 + 1e-9


def test_a_rendered_like_frame_matches_swscale():
    # Smooth gradients and hard edges, as a rendered frame has.
    height, width = 72, 128
    rows, columns = np.mgrid[0:height, 0:width]
    rgb = np.stack([columns * 2, rows * 3, (rows + columns) % 256], axis=2).astype(np.uint8)
    rgb[20:40, 30:60] = (250, 180, 40)
    y, u, v = _convert(rgb)
    reference = VideoReformatter().reformat(
        av.VideoFrame.from_ndarray(rgb, format="rgb24"), format="yuv420p", dst_colorspace="ITU709",
        dst_color_range="MPEG",
    )  # fmt: skip
    for ours, plane, limit in zip((y, u, v), reference.planes, (1, 16, 16), strict=True):
        theirs = np.frombuffer(plane, np.uint8).reshape(plane.height, plane.line_size)[:, : plane.width].astype(int)
        difference = np.abs(ours - theirs)
        assert difference.max() <= limit  # chroma siting differs at hard edges
        assert difference.mean() < 0.6


def test_rgba_words_convert_exactly_as_rgb():
    rng = np.random.default_rng(8)
    rgb = rng.integers(0, 256, size=(10, 16, 3), dtype=np.uint8)
    rgba = np.dstack([rgb, rng.integers(0, 256, size=(10, 16), dtype=np.uint8)])  # alpha is ignored
    for flip in (False, True):
        source = np.ascontiguousarray(rgb[::-1]) if flip else rgb
        for plane, other in zip(
            _convert(source, flip), _convert(np.ascontiguousarray(rgba[::-1]) if flip else rgba, flip), strict=True
        ):
            assert np.array_equal(plane, other)


def test_odd_sizes_are_refused():
    _, planes = _planes(6, 4)
    with pytest.raises(ValueError, match="even"):
        rgb_to_yuv420p_bt709(np.zeros((3, 6, 3), np.uint8), *planes)
