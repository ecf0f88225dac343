"""A video recorded in parts, a process each (render/video_parts.py): the same frames as one process records, joined
without encoding again, and nothing left behind when a part fails."""

import math
import os
import sys
from fractions import Fraction

import av
import numpy as np
import pytest

from spinlab.render import video_parts
from spinlab.render.video import VideoWriter, decode_frames, read_video_info
from spinlab.render.video_file import record_scene
from spinlab.render.video_parts import first_part_lead, frame_seconds, join_videos, part_count, part_ranges
from spinlab.scene.files.atomic_file import create_temporary
from spinlab.scene.files.scene_file import load_scene
from spinlab.sim.errors import NumericalError, SpinlabError

SIZE = (160, 90)
FPS = 20


def _leftovers(folder) -> list[str]:
    return sorted(name for name in os.listdir(folder) if name.startswith(".spinlab-"))


def _psnr(a: np.ndarray, b: np.ndarray) -> float:
    error = np.mean((a.astype(float) - b.astype(float)) ** 2)
    return float("inf") if error == 0 else 10 * np.log10(255.0**2 / error)


def test_a_long_video_takes_a_part_a_core_and_a_gif_or_a_short_one_one():
    hd, small = (1920, 1080), (160, 90)
    assert part_count("mp4", 1080, hd, workers=2) == 2 and part_count("webm", 600, hd, workers=2) == 2
    assert part_count("mp4", 1080, hd, workers=64) == video_parts.MAX_PARTS
    assert part_count("gif", 1080, hd, workers=2) == 1  # one palette for the whole file
    assert part_count("mp4", 1080, hd, workers=1) == 1
    assert part_count("mp4", 1080, small, workers=2) == 1  # cheap frames: a part's start would not pay back
    assert part_count("mp4", 60 * 600, small, workers=2) == 2
    # Just enough work for two parts, and a frame less.
    least = math.ceil(2 * video_parts.MIN_PART_SECONDS / frame_seconds(hd))
    assert (part_count("mp4", least, hd, workers=2), part_count("mp4", least - 1, hd, workers=2)) == (2, 1)


def test_no_more_processes_than_the_memory_holds():
    uhd = (3840, 2160)
    second = video_parts.process_bytes(uhd)  # the second process's, beside this one
    assert part_count("mp4", 10_000, uhd, workers=2, memory=second / 0.75) == 2
    assert part_count("mp4", 10_000, uhd, workers=2, memory=0.99 * second / 0.75) == 1
    assert 0.8e9 < second < 1.2e9  # measured: 0.94 GB at 3840x2160
    available = video_parts.available_memory()
    assert available is None or available > 0


@pytest.mark.parametrize(
    "count, parts, lead", [(1080, 2, 104), (601, 2, 0), (7, 3, 2), (2, 2, 5), (5, 1, 3), (9, 3, 50)]
)
def test_the_parts_cover_the_frames_in_order_the_first_lead_frames_longer(count, parts, lead):
    frames = range(3, 3 + count)
    ranges = part_ranges(frames, parts, lead)
    assert len(ranges) == parts and all(len(r) > 0 for r in ranges)
    assert [i for r in ranges for i in r] == list(frames)
    rest = [len(r) for r in ranges[1:]]
    if rest:
        assert max(rest) - min(rest) <= 1
        assert len(ranges[0]) - max(rest) in (lead, lead - 1) or min(rest) == 1  # a lead too long leaves one frame


def test_the_first_part_leads_by_the_same_time_at_any_size():
    for size in ((3840, 2160), (1920, 1080), (1280, 720), (160, 90)):
        lead_s = first_part_lead(size) * 2 * frame_seconds(size)
        assert lead_s == pytest.approx(video_parts.FIRST_PART_LEAD_S, rel=0.02)


def _solid_video(path, colours, fps=FPS, kind="mp4"):
    with VideoWriter(path, *SIZE, fps=fps, preset="ultrafast", format=kind) as video:
        for colour in colours:
            video.write(np.full((SIZE[1], SIZE[0], 3), colour, dtype=np.uint8))


@pytest.mark.parametrize("kind", ["mp4", "webm"])
def test_joined_videos_are_their_packets_in_turn_each_frame_one_frame_after_the_last(tmp_path, kind):
    first, second = tmp_path / f"a.{kind}", tmp_path / f"b.{kind}"
    _solid_video(first, [(200, 30, 30)] * 5, kind=kind)
    _solid_video(second, [(30, 30, 200)] * 4, kind=kind)
    out = tmp_path / f"joined.{kind}"
    join_videos([(first, 5), (second, 4)], FPS, out)
    assert read_video_info(out) == (9, *SIZE, Fraction(FPS))
    with av.open(str(out)) as container:
        stream = container.streams.video[0]
        seconds = [float(frame.pts * stream.time_base) for frame in container.decode(stream)]
    assert seconds == pytest.approx([k / FPS for k in range(9)], abs=1e-3)
    joined = decode_frames(out, range(9))
    parts = decode_frames(first, range(5)) + decode_frames(second, range(4))
    for k, (frame, part) in enumerate(zip(joined, parts, strict=True)):
        assert np.array_equal(frame, part), k  # not encoded again: decoded as each part was
    assert _leftovers(tmp_path) == []


def test_one_part_is_moved_into_place(tmp_path):
    out = tmp_path / "one.mp4"
    part = create_temporary(out, suffix=".tmp.mp4")
    _solid_video(part, [(10, 200, 10)] * 3)
    join_videos([(part, 3)], FPS, out)
    assert read_video_info(out)[0] == 3 and _leftovers(tmp_path) == []


@pytest.mark.parametrize("kind", ["mp4", "webm"])
def test_a_video_in_two_processes_shows_what_one_process_records(tmp_path, kind):
    scene = load_scene("t_handle")
    options = dict(duration=3.0, fps=FPS, size=SIZE, title="Two\nparts")
    whole = record_scene(scene, tmp_path / f"whole.{kind}", parts=1, **options)
    split = record_scene(scene, tmp_path / f"split.{kind}", parts=2, **options)
    card = whole.title_frames
    assert card > 0 and split.title_frames == card
    assert (split.frames, split.simulated_seconds, split.interrupted) == (whole.frames, whole.simulated_seconds, False)
    assert read_video_info(split.path) == read_video_info(whole.path) == (card + 60, *SIZE, Fraction(FPS))
    # The second part's first frame: its encoder's key frame.
    boundary = card + part_ranges(range(60), 2, first_part_lead(SIZE))[0].stop
    indices = list(range(card + 60))
    ones, twos = decode_frames(whole.path, indices), decode_frames(split.path, indices)
    for k, (one, two) in enumerate(zip(ones, twos, strict=True)):
        if k < boundary:
            assert np.array_equal(one, two), k  # the first part is the same encoding of the same frames
        else:
            # The same frame, encoded from a key frame of its own: within the codec's loss (VP9 at its default
            # quality loses most), and nearer this frame of the whole than the ones before and after it.
            near = _psnr(one, two)
            neighbours = [ones[j] for j in (k - 1, k + 1) if j < len(ones)]
            assert near > 30 and near > max(_psnr(other, two) for other in neighbours), k
    assert sorted(os.listdir(tmp_path)) == [f"split.{kind}", f"whole.{kind}"]


def test_a_part_that_ends_without_a_result_fails_the_recording_and_leaves_nothing(tmp_path, monkeypatch):
    dying = "import sys; print('no such luck', file=sys.stderr); sys.exit(3)"
    monkeypatch.setattr(video_parts, "PART_COMMAND", ("-c", dying))
    out = tmp_path / "clip.mp4"
    out.write_bytes(b"old")
    with pytest.raises(SpinlabError, match=r"ended without a result \(exit status 3\): no such luck"):
        record_scene(load_scene("t_handle"), out, duration=1.0, fps=FPS, size=SIZE, parts=2)
    assert out.read_bytes() == b"old" and _leftovers(tmp_path) == []


def test_a_part_that_fails_fails_the_recording_with_its_message(tmp_path, monkeypatch):
    failing = (
        "import sys; from spinlab.render import video_parts as v; from spinlab.sim.errors import NumericalError; "
        "v._report(sys.stdout.buffer, 'failed', NumericalError('at t = 2 s, body 0: not finite', bodies=[0]))"
    )
    monkeypatch.setattr(video_parts, "PART_COMMAND", ("-c", failing))
    out = tmp_path / "clip.mp4"
    with pytest.raises(NumericalError, match="at t = 2 s, body 0: not finite"):
        record_scene(load_scene("t_handle"), out, duration=1.0, fps=FPS, size=SIZE, parts=2)
    assert not out.exists() and _leftovers(tmp_path) == []


def test_a_gif_is_one_part_whatever_is_asked(tmp_path, monkeypatch):
    monkeypatch.setattr(video_parts, "record_in_parts", None)  # never called
    result = record_scene(load_scene("t_handle"), tmp_path / "clip.gif", duration=1.0, fps=FPS, size=SIZE, parts=2)
    assert result.frames == 20 and read_video_info(result.path)[0] == 20


def test_without_a_process_to_be_had_one_process_records_it_all(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "executable", str(tmp_path / "no-python-here"))
    result = record_scene(load_scene("t_handle"), tmp_path / "clip.mp4", duration=1.0, fps=FPS, size=SIZE, parts=2)
    assert result.frames == 20 and read_video_info(result.path)[0] == 20
    assert _leftovers(tmp_path) == []
