"""`record`'s outputs for where videos go: MP4, WebM and GIF decoded back and counted, a title card before the
run, 4K accepted and more refused, and bad formats, sizes, rates and titles refused in one line, exit 2, leaving
nothing behind. Tiny videos (160x90, half a second) keep it cheap."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from spinlab.render import video_file
from spinlab.render.offscreen import create_offscreen_context
from spinlab.render.record import parse_size
from spinlab.render.title_card import TITLE_SECONDS, title_card
from spinlab.render.video import decode_frames, read_video_info
from spinlab.render.video_file import record_scene
from spinlab.scene.files.scene_file import load_scene
from spinlab.sim.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
SIZE = (160, 90)
FPS = 20
DURATION = 0.5
RUN_FRAMES = round(FPS * DURATION)
TITLE_FRAMES = round(FPS * TITLE_SECONDS)


def _main(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "main.py"), *args], capture_output=True, text=True, cwd=ROOT)


@pytest.mark.parametrize("kind", ["mp4", "webm", "gif"])
def test_each_format_decodes_to_the_frames_asked_for(tmp_path, kind):
    out = tmp_path / f"clip.{kind}"
    result = record_scene(load_scene("t_handle"), out, duration=DURATION, fps=FPS, size=SIZE)
    assert (result.format, result.frames) == (kind, RUN_FRAMES)
    assert read_video_info(out) == (RUN_FRAMES, *SIZE, FPS)
    frames = decode_frames(out, [0, RUN_FRAMES - 1])
    assert all(frame.shape == (SIZE[1], SIZE[0], 3) for frame in frames)
    assert np.abs(frames[0].astype(int) - frames[1]).mean() > 0.5  # the handle turned
    assert sorted(path.name for path in tmp_path.iterdir()) == [out.name]


def test_a_gif_keeps_the_colours_of_the_run(tmp_path):
    """One palette of 256 made from the run's colours, dithered: the decoded frame is close to the rendered one."""
    out = tmp_path / "clip.gif"
    record_scene(load_scene("t_handle"), out, duration=DURATION, fps=FPS, size=(320, 180))
    mp4 = tmp_path / "clip.mp4"
    record_scene(load_scene("t_handle"), mp4, duration=DURATION, fps=FPS, size=(320, 180))
    gif_frame, mp4_frame = decode_frames(out, [5])[0], decode_frames(mp4, [5])[0]
    mse = np.mean((gif_frame.astype(float) - mp4_frame) ** 2)
    assert 10 * np.log10(255**2 / mse) > 30.0


@pytest.mark.parametrize("kind", ["mp4", "gif"])
def test_a_title_card_comes_before_the_run(tmp_path, kind):
    out = tmp_path / f"titled.{kind}"
    result = record_scene(load_scene("t_handle"), out, duration=DURATION, fps=FPS, size=SIZE, title="Spin\nsub")
    assert (result.frames, result.title_frames) == (TITLE_FRAMES + RUN_FRAMES, TITLE_FRAMES)
    assert read_video_info(out)[0] == TITLE_FRAMES + RUN_FRAMES
    ctx = create_offscreen_context()
    try:
        blank = title_card(ctx, ("",), SIZE)[::-1, :, :3].astype(int)  # no text: the card's backdrop alone
    finally:
        ctx.release()
    first, last, run = decode_frames(out, [0, TITLE_FRAMES - 1, TITLE_FRAMES])
    for card in (first, last):
        text = np.abs(card.astype(int) - blank).max(axis=2) > 60
        assert text.sum() > 30, "the card shows its text"
        rows, columns = np.nonzero(text)
        assert abs(columns.mean() - SIZE[0] / 2) < 0.15 * SIZE[0] and abs(rows.mean() - SIZE[1] / 2) < 0.2 * SIZE[1]
        assert np.abs(card.astype(int) - blank)[~text].mean() < 6.0  # elsewhere the clean backdrop
    assert np.abs(run.astype(int) - first).mean() > 5.0  # then the run


def test_4k_is_the_largest_size():
    assert parse_size("3840x2160") == (3840, 2160)
    assert parse_size("2160x3840") == (2160, 3840)
    for text in ("3842x2160", "3840x2162", "7680x4320", "4000x1000"):
        with pytest.raises(InputError, match=r"--size: .*up to 3840x2160"):
            parse_size(text)


def test_a_4k_frame_is_recorded(tmp_path):
    out = tmp_path / "uhd.mp4"
    record_scene(load_scene("t_handle"), out, duration=0.05, fps=20, size=(3840, 2160))
    assert read_video_info(out)[:3] == (1, 3840, 2160)


def test_bad_formats_sizes_rates_and_titles_are_one_line_and_exit_2(tmp_path):
    out = str(tmp_path / "clip.mp4")
    cases = [
        (("--out", str(tmp_path / "clip.avi")), "must end in .mp4, .webm, .gif"),
        (("--out", out, "--format", "gif"), "--format: gif, but clip.mp4 ends in .mp4"),
        (("--out", out, "--format", "mkv"), "--format: must be one of mp4, webm, gif"),
        (("--out", str(tmp_path / "clip.gif"), "--fps", "60"), "--fps: a GIF shows at most 50 frames per second"),
        (("--out", out, "--size", "3842x2160"), "--size: size must be from 16x16 up to 3840x2160"),
        (("--out", out, "--title", " \n "), "--title: a title card needs some text"),
        (("--out", out, "--title", "a\tb"), "--title: a title holds printable characters"),
        (("--out", out, "--title", "\n".join("abcde")), "--title: a title is at most 4 lines"),
    ]
    for args, message in cases:
        bad = _main("record", "t_handle", "--duration", "0.1", *args)
        assert bad.returncode == 2, (args, bad.stderr)
        assert bad.stderr.count("\n") == 1 and message in bad.stderr and "Traceback" not in bad.stderr, bad.stderr
    assert list(tmp_path.iterdir()) == []


def test_the_command_writes_a_titled_gif_at_the_slide_defaults(tmp_path, monkeypatch):
    """A GIF without --size or --fps: 960x540 at 20 fps, the title card's frames first (checked in process, with
    the recording itself stubbed: only the arguments it gets matter here)."""
    from spinlab.commands import cli

    seen = {}

    def fake_record(scene, out, **options):
        seen.update(options)
        return video_file.RecordResult(Path(out), 80, options["fps"], options["size"], 1.0, False, (), 60, "gif")

    monkeypatch.setattr(video_file, "record_scene", fake_record)
    assert cli.main(["record", "t_handle", "--out", str(tmp_path / "s.gif"), "--duration", "1", "--title", "T"]) == 0
    assert (seen["size"], seen["fps"], seen["format"], seen["title"]) == ((960, 540), 20.0, "gif", "T")


@pytest.mark.parametrize("kind", ["webm", "gif"])
def test_a_failure_half_way_leaves_nothing_behind(tmp_path, monkeypatch, kind):
    from spinlab.render import record  # record_scene imports render_frames from there when called

    frames = record.render_frames

    def failing(*args, **options):
        for index, frame in enumerate(frames(*args, **options)):
            if index == 3:
                raise OSError(28, "No space left on device")
            yield frame

    monkeypatch.setattr(record, "render_frames", failing)
    out = tmp_path / f"clip.{kind}"
    with pytest.raises(OSError):
        record_scene(load_scene("t_handle"), out, duration=DURATION, fps=FPS, size=SIZE, title="T")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a niceness per thread is Linux's")
def test_the_encoder_runs_behind_the_renderer(tmp_path, monkeypatch):
    import os
    import threading

    from spinlab.render import video

    seen = []
    original = video.VideoWriter._encode_frame

    def encode_frame(self, item):
        seen.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
        original(self, item)

    monkeypatch.setattr(video.VideoWriter, "_encode_frame", encode_frame)
    renderer = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    record_scene(load_scene("t_handle"), tmp_path / "clip.mp4", duration=0.1, fps=FPS, size=SIZE)
    # The encoder's own thread, while it encodes, that much lower in priority than the renderer's.
    assert video.ENCODER_NICENESS > 0 and seen and set(seen) == {min(renderer + video.ENCODER_NICENESS, 19)}
