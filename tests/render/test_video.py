"""render/video.py: exact frame count and rate, fidelity, atomic writes, Ctrl-C, encoder failures, validation."""

import errno
import os
import re
import stat
import threading
import time
from fractions import Fraction

import av
import numpy as np
import pytest

from spinlab.render.video import VideoWriter, decode_frames, even_size, read_video_info
from spinlab.sim.errors import InputError, OutputError
from tests.hang import HANG_S

FRAME_COUNT = 90
FPS = 30
SIZES = [(64, 48), (320, 180)]
# 4:2:0 chroma alone costs ~37 dB at 64x48 on this content (the square's edges cover a large share of the pixels),
# so the 35 dB bar of a faithful encode applies from 320x180 up.
MIN_PSNR_DB = {(64, 48): 28.0, (320, 180): 35.0}


def _synthetic_frames(count: int, width: int, height: int) -> list[np.ndarray]:
    """Smooth moving colour waves with a light square sliding 2 px per frame, so neighbouring frames differ."""
    y, x = np.mgrid[0:height, 0:width]
    side = max(4, (height // 4) & ~1)
    frames = []
    for i in range(count):
        phase = i / count
        frame = np.empty((height, width, 3))
        frame[..., 0] = 128 + 90 * np.sin(2 * np.pi * (x / width + phase))
        frame[..., 1] = 128 + 90 * np.sin(2 * np.pi * (y / height - phase))
        frame[..., 2] = 128 + 60 * np.cos(2 * np.pi * (x / width + y / height))
        frame = frame.astype(np.uint8)
        left, top = (2 * i) % (width - side), (height // 4) & ~1
        frame[top : top + side, left : left + side] = 235
        frames.append(frame)
    return frames


def _psnr_db(decoded: np.ndarray, written: np.ndarray) -> float:
    mse = np.mean((decoded.astype(np.float64) - written) ** 2)
    return float(10 * np.log10(255**2 / mse))


def _write(path, frames, fps=FPS, **options) -> None:
    height, width = frames[0].shape[:2]
    with VideoWriter(path, width, height, fps, **options) as video:
        buffer = np.empty_like(frames[0])
        for frame in frames:
            buffer[...] = frame  # one reused buffer, as a renderer's read-back would be: write() must copy it
            video.write(buffer)


def _temp_files(directory) -> list[str]:
    return [name for name in os.listdir(directory) if name.endswith(".tmp.mp4")]


@pytest.fixture(scope="module", params=SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
def clip(request, tmp_path_factory):
    width, height = request.param
    frames = _synthetic_frames(FRAME_COUNT, width, height)
    path = tmp_path_factory.mktemp("clip") / "clip.mp4"
    _write(path, frames)
    return path, frames


def test_the_file_holds_exactly_the_frames_written_at_exactly_fps(clip):
    path, frames = clip
    height, width = frames[0].shape[:2]
    assert read_video_info(path) == (FRAME_COUNT, width, height, Fraction(FPS))
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        assert stream.average_rate == FPS
        assert stream.duration * stream.time_base == Fraction(FRAME_COUNT, FPS)
        decoded = list(container.decode(stream))
        assert [frame.pts * frame.time_base for frame in decoded] == [Fraction(i, FPS) for i in range(FRAME_COUNT)]
        assert stream.codec_context.name == "h264" and decoded[0].format.name == "yuv420p"
        assert decoded[0].colorspace == 1 and decoded[0].color_range == 1  # tagged BT.709, limited range
    assert os.listdir(path.parent) == ["clip.mp4"]


def test_decoded_frames_are_close_to_the_written_ones_and_in_order(clip):
    path, frames = clip
    size = frames[0].shape[1::-1]
    indices = [0, 1, 45, FRAME_COUNT - 2, FRAME_COUNT - 1]
    for index, decoded in zip(indices, decode_frames(path, indices), strict=True):
        own = _psnr_db(decoded, frames[index])
        assert own > MIN_PSNR_DB[size], f"frame {index}: {own:.1f} dB"
        # A frame shifted by one would match a neighbour better than its own.
        for neighbour in (index - 1, index + 1):
            if 0 <= neighbour < FRAME_COUNT:
                assert own > _psnr_db(decoded, frames[neighbour]) + 3.0


def test_index_is_at_the_front_for_progressive_playback(clip):
    data = clip[0].read_bytes()
    assert 0 <= data.find(b"moov") < data.find(b"mdat")


def test_decode_frames_rejects_an_index_past_the_end(clip):
    with pytest.raises(IndexError, match=str(FRAME_COUNT)):
        decode_frames(clip[0], [0, FRAME_COUNT])


@pytest.mark.parametrize(("fps", "expected"), [(Fraction(30000, 1001), Fraction(30000, 1001)), (24, Fraction(24))])
def test_fractional_and_integer_frame_rates_are_exact(tmp_path, fps, expected):
    path = tmp_path / "rate.mp4"
    _write(path, _synthetic_frames(12, 64, 48), fps=fps)
    assert read_video_info(path) == (12, 64, 48, expected)


def _writer_over_an_old_file(directory, frame_count: int):
    """A writer at ``directory/out.mp4``, where an old file is, with ``frame_count`` frames written and still open."""
    path = directory / "out.mp4"
    path.write_bytes(b"previous video")
    video = VideoWriter(path, 64, 48, FPS)
    for frame in _synthetic_frames(frame_count, 64, 48):
        video.write(frame)
    return path, video


def test_the_file_appears_only_on_close_and_replaces_the_old_one(tmp_path):
    path, video = _writer_over_an_old_file(tmp_path, 10)
    assert path.read_bytes() == b"previous video"
    [temp_name] = _temp_files(tmp_path)
    assert temp_name.startswith(f".spinlab-{os.getpid()}-")
    video.close()
    assert _temp_files(tmp_path) == []
    assert read_video_info(path)[0] == 10
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask  # an ordinary file, not a private temp file
    video.close()  # a second close does nothing


def test_abort_removes_the_temporary_file_and_keeps_the_old_one(tmp_path):
    path, video = _writer_over_an_old_file(tmp_path, 5)
    video.abort()
    assert sorted(os.listdir(tmp_path)) == ["out.mp4"]
    assert path.read_bytes() == b"previous video"
    with pytest.raises(RuntimeError, match="aborted"):
        video.write(_synthetic_frames(1, 64, 48)[0])


def test_an_exception_in_the_with_block_leaves_nothing(tmp_path):
    path = tmp_path / "out.mp4"
    with pytest.raises(ZeroDivisionError), VideoWriter(path, 64, 48, FPS) as video:
        video.write(_synthetic_frames(1, 64, 48)[0])
        _ = 1 / 0
    assert os.listdir(tmp_path) == []


def test_ctrl_c_in_the_with_block_leaves_a_playable_file_of_the_frames_so_far(tmp_path):
    path = tmp_path / "out.mp4"
    frames = _synthetic_frames(20, 64, 48)
    with pytest.raises(KeyboardInterrupt), VideoWriter(path, 64, 48, FPS) as video:
        for frame in frames:
            video.write(frame)
        raise KeyboardInterrupt
    assert os.listdir(tmp_path) == ["out.mp4"]
    assert read_video_info(path) == (20, 64, 48, Fraction(FPS))
    assert _psnr_db(decode_frames(path, [19])[0], frames[19]) > MIN_PSNR_DB[(64, 48)]


def test_ctrl_c_before_any_frame_leaves_nothing(tmp_path):
    with pytest.raises(KeyboardInterrupt), VideoWriter(tmp_path / "out.mp4", 64, 48, FPS):
        raise KeyboardInterrupt
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("kind", ["mp4", "webm", "gif"])
def test_ctrl_c_while_the_encoder_thread_starts_leaves_nothing(tmp_path, monkeypatch, kind):
    # Thread.start waits for the new thread, so an interrupt can land there: the temporary file exists and the
    # writer is never returned to anyone who could remove it.
    start = threading.Thread.start

    def start_then_interrupt(thread):
        start(thread)
        raise KeyboardInterrupt

    monkeypatch.setattr(threading.Thread, "start", start_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        VideoWriter(tmp_path / f"out.{kind}", 64, 48, FPS)
    monkeypatch.undo()
    assert os.listdir(tmp_path) == []


def test_closing_with_no_frames_is_an_error_and_leaves_nothing(tmp_path):
    with pytest.raises(ValueError, match="no frames"):
        VideoWriter(tmp_path / "out.mp4", 64, 48, FPS).close()
    assert os.listdir(tmp_path) == []


class _EncoderBroke(Exception):
    pass


def _failing_encoder(fail_at_call: int):
    calls = []

    def encode_frame(frame):
        calls.append(frame)
        if len(calls) == fail_at_call:
            raise _EncoderBroke(f"call {fail_at_call}")

    return encode_frame


def test_an_encoder_failure_surfaces_on_a_later_write(tmp_path):
    video = VideoWriter(tmp_path / "out.mp4", 64, 48, FPS, queue_frames=2)
    video._encode_frame = _failing_encoder(fail_at_call=3)
    frame = _synthetic_frames(1, 64, 48)[0]
    with pytest.raises(_EncoderBroke, match="call 3"):
        for _ in range(1000):  # the encoder fails on the 3rd frame; a write soon after must report it
            video.write(frame)
    assert os.listdir(tmp_path) == []
    video.close()  # already cleaned up: nothing to do, nothing raised


def test_an_encoder_failure_while_flushing_surfaces_on_close(tmp_path):
    video = VideoWriter(tmp_path / "out.mp4", 64, 48, FPS)
    video._encode_frame = _failing_encoder(fail_at_call=4)  # 3 frames, then the flush (frame None) fails
    for frame in _synthetic_frames(3, 64, 48):
        video.write(frame)
    with pytest.raises(_EncoderBroke):
        video.close()
    assert os.listdir(tmp_path) == []


def test_write_blocks_while_the_queue_is_full(tmp_path):
    queue_frames = 3
    video = VideoWriter(tmp_path / "out.mp4", 64, 48, FPS, queue_frames=queue_frames)
    release = threading.Event()
    video._encode_frame = lambda frame: release.wait()  # a slow encoder: holds its first frame until released
    frame = _synthetic_frames(1, 64, 48)[0]
    producer = threading.Thread(target=lambda: [video.write(frame) for _ in range(20)])
    producer.start()
    # The encoder holds 1 frame and the queue the next 3; the 5th write waits for room.
    deadline = time.monotonic() + HANG_S
    while video.frames_written < 1 + queue_frames and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.2)
    assert video.frames_written == 1 + queue_frames and producer.is_alive()
    assert video._queue.qsize() == video._queue.maxsize == queue_frames
    release.set()
    producer.join(timeout=HANG_S)
    assert video.frames_written == 20
    video.abort()
    assert os.listdir(tmp_path) == []


def test_write_checks_the_frame_and_copies_it(tmp_path):
    with VideoWriter(tmp_path / "out.mp4", 64, 48, FPS) as video:
        for bad in (np.zeros((48, 64, 2), np.uint8), np.zeros((64, 48, 3), np.uint8), np.zeros((48, 64, 3))):
            with pytest.raises(ValueError, match=r"\(48, 64, 3\) RGB or \(48, 64, 4\) RGBA uint8"):
                video.write(bad)
        video.write(np.zeros((48, 64, 3), np.uint8))
    with pytest.raises(RuntimeError, match="closed"):
        video.write(np.zeros((48, 64, 3), np.uint8))


def test_rgba_bottom_up_frames_make_the_same_video_as_rgb_top_down(tmp_path):
    rng = np.random.default_rng(5)
    frames = [rng.integers(0, 256, size=(48, 64, 3), dtype=np.uint8) for _ in range(3)]
    with VideoWriter(tmp_path / "rgb.mp4", 64, 48, FPS) as video:
        for frame in frames:
            video.write(frame)
    with VideoWriter(tmp_path / "rgba.mp4", 64, 48, FPS) as video:
        for frame in frames:
            rgba = np.dstack([frame, np.full(frame.shape[:2], 7, np.uint8)])[::-1]  # as GL reads it
            video.write(np.ascontiguousarray(rgba), bottom_up=True, copy=False)
    rgb, rgba = (decode_frames(tmp_path / name, range(3)) for name in ("rgb.mp4", "rgba.mp4"))
    for a, b in zip(rgb, rgba, strict=True):
        assert np.array_equal(a, b)


def test_even_size_rounds_down():
    assert even_size(1281, 721) == (1280, 720)
    assert even_size(1280, 720) == (1280, 720)


@pytest.mark.parametrize("size", [(65, 48), (64, 47)])
def test_an_odd_size_is_a_value_error_that_points_at_even_size(tmp_path, size):
    with pytest.raises(ValueError, match=r"odd.*even_size"):
        VideoWriter(tmp_path / "out.mp4", *size)
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize(
    ("arguments", "options", "message"),
    [
        ((0, 48), {}, "key 'width': video size must be a positive"),
        ((64, -2), {}, "key 'height': video size must be a positive"),
        ((64.0, 48), {}, "key 'width'"),
        ((64, 48, 0), {}, "key 'fps': frame rate must be a positive number"),
        ((64, 48, -30), {}, "key 'fps'"),
        ((64, 48, float("nan")), {}, "key 'fps'"),
        ((64, 48), {"crf": 52}, "key 'crf': crf must be a number from 0 to 51"),
        ((64, 48), {"preset": "fastest"}, "key 'preset': preset must be one of ultrafast"),
    ],
)
def test_bad_settings_are_input_errors_naming_the_file_and_key(tmp_path, arguments, options, message):
    path = tmp_path / "out.mp4"
    with pytest.raises(InputError, match=message) as raised:
        VideoWriter(path, *arguments, **options)
    assert str(raised.value).startswith(str(path))
    assert os.listdir(tmp_path) == []


def test_bad_paths_are_input_errors_before_any_file_is_made(tmp_path, monkeypatch):
    (tmp_path / "folder.mp4").mkdir()
    cases = {
        tmp_path / "folder.mp4": "is a directory",
        tmp_path / "out.avi": r"must end in \.mp4, \.webm, \.gif \(got '\.avi'\)",
        tmp_path / "out": r"must end in \.mp4, \.webm, \.gif \(got 'no extension'\)",
        tmp_path / "missing" / "out.mp4": "directory '.*missing' does not exist",
    }
    for path, message in cases.items():
        with pytest.raises(InputError, match=message):
            VideoWriter(path, 64, 48)
    # Root may write anywhere, so a read-only directory is simulated rather than made.
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    with pytest.raises(InputError, match="is not writable"):
        VideoWriter(tmp_path / "out.mp4", 64, 48)
    assert os.listdir(tmp_path) == ["folder.mp4"]


def test_an_os_fault_in_the_encoder_is_an_output_error_naming_the_target(tmp_path):
    path = tmp_path / "out.mp4"
    path.write_bytes(b"previous video")
    video = VideoWriter(path, 64, 48, FPS, queue_frames=2)

    def disk_full(frame):
        raise OSError(errno.ENOSPC, "No space left on device", str(video._tmp_path))

    video._encode_frame = disk_full
    frame = _synthetic_frames(1, 64, 48)[0]
    with pytest.raises(OutputError, match=rf"^{re.escape(str(path))}: cannot be written: the disk is full$"):
        for _ in range(1000):
            video.write(frame)
    assert os.listdir(tmp_path) == ["out.mp4"] and path.read_bytes() == b"previous video"


def test_a_directory_made_at_the_target_while_writing_is_an_output_error(tmp_path):
    path = tmp_path / "out.mp4"
    video = VideoWriter(path, 64, 48, FPS)
    for frame in _synthetic_frames(3, 64, 48):
        video.write(frame)
    path.mkdir()  # the rename onto the target fails now
    with pytest.raises(OutputError, match=rf"^{re.escape(str(path))}: cannot be written"):
        video.close()
    assert os.listdir(tmp_path) == ["out.mp4"] and path.is_dir() and os.listdir(path) == []


def test_the_temporary_file_has_the_umask_permissions(tmp_path):
    umask = os.umask(0o027)
    try:
        video = VideoWriter(tmp_path / "out.mp4", 64, 48, FPS)
    finally:
        os.umask(umask)
    assert stat.S_IMODE(video._tmp_path.stat().st_mode) == 0o640
    video.write(_synthetic_frames(1, 64, 48)[0])
    video.close()
    assert stat.S_IMODE((tmp_path / "out.mp4").stat().st_mode) == 0o640


def test_an_interrupt_between_queueing_and_counting_a_frame_is_counted_as_the_file_holds_it(tmp_path):
    """Ctrl-C can land after a frame is queued and before write() counts it: the closed writer's count is the
    encoder's, so `record` reports the frames the file holds."""
    path = tmp_path / "cut.mp4"
    frames = _synthetic_frames(4, 32, 16)
    writer = VideoWriter(path, 32, 16, fps=30)
    queue_put = writer._queue.put

    def put_then_interrupt(item):
        queue_put(item)
        if isinstance(item, tuple) and item[0] == 3:
            raise KeyboardInterrupt

    writer._queue.put = put_then_interrupt
    with pytest.raises(KeyboardInterrupt), writer:
        for frame in frames:
            writer.write(frame)
    assert writer.committed
    assert writer.frames_written == 4 == read_video_info(path)[0]


def _niceness_of(thread_id: int) -> int:
    """A thread's niceness, from /proc (field 19 of its stat, after the command's closing parenthesis)."""
    with open(f"/proc/self/task/{thread_id}/stat") as stat_file:
        return int(stat_file.read().rsplit(")", 1)[1].split()[16])


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="reads threads' niceness from /proc (Linux)")
def test_the_encoder_and_x264s_threads_run_at_the_niceness_asked_and_the_caller_does_not(tmp_path):
    # The window's recordings: the encoder behind the window's frames in the cores' queue, with x264's threads (a
    # new thread takes its creator's niceness), while the caller keeps its own.
    own = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    before = set(os.listdir("/proc/self/task"))
    video = VideoWriter(tmp_path / "out.mp4", 320, 180, FPS, niceness=3)
    try:
        for frame in _synthetic_frames(4, 320, 180):
            video.write(frame)
        deadline = time.monotonic() + HANG_S
        while video._frames_encoded < 4 and time.monotonic() < deadline:
            time.sleep(0.01)
        started = set(os.listdir("/proc/self/task")) - before
        assert str(video.encoder_thread_id) in started
        assert len(started) > 1  # x264's frame threads
        assert {_niceness_of(int(thread)) for thread in started} == {min(own + 3, 19)}
        assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == own
    finally:
        video.close()
    assert read_video_info(tmp_path / "out.mp4")[0] == 4


def test_frames_read_into_the_writers_own_buffers_are_each_encoded_as_written(tmp_path):
    """buffer() hands out a few arrays again and again (no new 8 MB array a 1080p frame), and none is handed out
    again before its frame is encoded: every frame decodes as written."""
    frames = _synthetic_frames(24, 64, 48)
    path = tmp_path / "pooled.mp4"
    arrays = set()
    with VideoWriter(path, 64, 48, FPS, queue_frames=2) as video:
        for frame in frames:
            pixels = video.buffer()
            arrays.add(id(pixels))
            pixels[..., :3], pixels[..., 3] = frame, 255
            video.write(pixels, copy=False)
    assert len(arrays) <= 2 + 2
    decoded = decode_frames(path, range(len(frames)))
    assert all(_psnr_db(d, f) > MIN_PSNR_DB[(64, 48)] for d, f in zip(decoded, frames, strict=True))


@pytest.mark.parametrize("suffix", ["mp4", "webm"])
def test_each_frame_decodes_as_its_own_though_one_yuv_frame_is_reused(tmp_path, suffix):
    """Every frame is converted into the same yuv420p frame (render/video_formats.py): the encoder must have
    taken each one's pixels before the next overwrites them. A frame shifted by one would match a neighbour."""
    frames = _synthetic_frames(12, 64, 48)
    path = tmp_path / f"clip.{suffix}"
    _write(path, frames)
    for index, decoded in enumerate(decode_frames(path, range(12))):
        own = _psnr_db(decoded, frames[index])
        assert own > 30.0, f"frame {index}: {own:.1f} dB"
        for neighbour in (index - 1, index + 1):
            if 0 <= neighbour < 12:
                assert own > _psnr_db(decoded, frames[neighbour]) + 3.0, (index, neighbour)
