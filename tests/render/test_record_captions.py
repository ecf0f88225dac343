"""Captions burnt into a video (``record``, decoded back with PyAV): each caption is in the frames of its time and in
no other, where it belongs (centred at the bottom, at the top, beside its body), and nowhere else does the frame differ
from the same scene's without captions; a frame of any size holds it whole, its text sized with the frame's height."""

import av
import numpy as np
import pytest

from spinlab.render.captions import MIN_CAPTION_PX, caption_scale
from spinlab.render.record import render_frames
from spinlab.render.run_view import reference_scale
from spinlab.render.text import BODY_PX
from spinlab.render.video_file import record_scene
from tests.scene.test_run_changes import changed_scene

SIZE = (640, 360)
FPS = 10  # a frame every 6 steps of 1/60 s
BOTTOM = '\n[[caption]]\ntime = 0.5\nduration = 0.3\ntext = "Watch the handle turn over"\n'  # frames 5, 6, 7
DIFFERS = 40  # a pixel's largest channel difference that is a drawn thing, not the encoder's noise


def decoded(path) -> list[np.ndarray]:
    with av.open(str(path)) as container:
        return [frame.to_ndarray(format="rgb24") for frame in container.decode(video=0)]


def _apart(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.abs(a.astype(int) - b.astype(int)).max(axis=2) > DIFFERS


def test_a_video_shows_a_caption_in_the_frames_of_its_time_only(tmp_path):
    captioned = changed_scene(tmp_path, BOTTOM)
    plain = changed_scene(tmp_path, "")  # the same file without the table
    record_scene(captioned, tmp_path / "captioned.mp4", duration=1.0, fps=FPS, size=SIZE)
    record_scene(plain, tmp_path / "plain.mp4", duration=1.0, fps=FPS, size=SIZE)
    with_caption, without = decoded(tmp_path / "captioned.mp4"), decoded(tmp_path / "plain.mp4")
    assert len(with_caption) == len(without) == 10
    apart = [_apart(a, b) for a, b in zip(with_caption, without, strict=True)]
    assert [int(mask.sum() > 200) for mask in apart] == [0, 0, 0, 0, 0, 1, 1, 1, 0, 0]
    for frame in (5, 6, 7):
        rows, columns = np.nonzero(apart[frame])
        # A panel centred at the bottom, above the key's strip: its text one line, a fair part of the width.
        assert rows.min() > 0.6 * SIZE[1] and rows.max() < SIZE[1] - 10, (rows.min(), rows.max())
        middle = 0.5 * (columns.min() + columns.max())
        assert abs(middle - 0.5 * SIZE[0]) < 0.05 * SIZE[0] and columns.max() - columns.min() > 0.15 * SIZE[0]
    # The text is there, light on the panel: bright pixels in the caption's rows that the plain frame lacks.
    rows = slice(int(0.6 * SIZE[1]), SIZE[1] - 10)
    bright = with_caption[6][rows].min(axis=2) > 150
    assert (bright & ~(without[6][rows].min(axis=2) > 150)).sum() > 50


def _frame(scene, size, t, **options) -> np.ndarray:
    frames = list(render_frames(scene, duration=t + 0.1, fps=10, size=size, start=t, **options))
    return frames[0][0]


def test_a_caption_pointing_at_a_body_goes_beside_it_and_captions_can_be_left_out(tmp_path):
    scene = changed_scene(tmp_path, '\n[[caption]]\ntime = 0\nduration = 1\ntext = "the handle"\nposition = "handle"\n')
    size = (320, 180)
    captioned, off = _frame(scene, size, 0.0), _frame(scene, size, 0.0, captions=False)
    plain = _frame(changed_scene(tmp_path, ""), size, 0.0)
    assert np.array_equal(off, plain), "captions left out: the frame without them"
    rows, columns = np.nonzero(_apart(captioned, plain))
    assert rows.size > 100
    # Up and to the right of the handle, which the camera frames in the middle of the view, and inside the frame.
    assert rows.min() >= 0 and columns.max() < size[0]
    assert np.median(columns) > 0.5 * size[0] and np.median(rows) < 0.5 * size[1], (np.median(columns), np.median(rows))


@pytest.mark.parametrize("height", [180, 720, 2160])
def test_a_captions_text_grows_with_the_frames_height(height):
    pixels = BODY_PX * caption_scale(reference_scale(height))
    assert pixels >= MIN_CAPTION_PX
    if height >= 720:
        assert pixels == pytest.approx(BODY_PX * 1.3 * height / 720)
