"""H.264 MP4 video from RGB numpy frames: written atomically, encoded on a worker thread.

Frames are ``(H, W, 3)`` uint8 RGB arrays with rows top-down (flip a GL read-back, which is bottom-up, first).
Frame ``i`` is stamped ``pts = i`` in time base ``1/fps``, so the file holds exactly the frames written, at exactly
``fps``. The encoder writes ``.spinlab-<pid>-<random>.tmp.mp4`` beside the target (scene/files/atomic_file.py:
the umask's permissions), and the file appears at ``path`` only when :meth:`VideoWriter.close` succeeds, so a
reader never sees a half-written video. A fault the OS reports while writing (disk full, a file-size limit,
permission) is raised as :class:`sim.errors.OutputError` naming ``path``, and leaves no temporary file and any
old file at ``path`` as it was.

The encoder is libx264 through PyAV (stack.md §4): yuv420p, BT.709 limited range (what players assume for HD, and
tagged in the stream so they need not guess), ``thread_type="FRAME"``, ``movflags=+faststart`` so the index sits at
the front of the file and a browser can start playing before the download ends.

Example::

    with VideoWriter("spin.mp4", *even_size(1280, 720), fps=60) as video:
        for frame_rgb in frames:
            video.write(frame_rgb)
"""

from __future__ import annotations

import contextlib
import math
import numbers
import os
import queue
import sys
import threading
from collections.abc import Iterable
from fractions import Fraction
from pathlib import Path

import av
import numpy as np
from av.video.reformatter import ColorPrimaries, ColorRange, ColorTrc, Interpolation

from spinlab.scene.files.atomic_file import commit_temporary, create_temporary, discard_temporary, output_error
from spinlab.sim.errors import InputError

__all__ = ["VideoWriter", "X264_PRESETS", "even_size", "read_video_info", "decode_frames"]

X264_PRESETS = ("ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow")
CRF_MAX = 51  # libx264's constant-rate-factor range is 0 (lossless) .. 51 for 8-bit video
# A float frame rate such as 29.97 or 30000/1001 becomes the nearest fraction with a denominator this small, which
# keeps the time base an exact, small rational.
FPS_MAX_DENOMINATOR = 1001
# swscale's default yuv -> rgb (no horizontal chroma interpolation, fast rounding) darkens by 1-2 levels and loses
# ~8 dB of PSNR on smooth gradients; decode_frames asks for the careful path, as a player's scaler does.
_DECODE_INTERPOLATION = Interpolation.BILINEAR | Interpolation.ACCURATE_RND | Interpolation.FULL_CHR_H_INT
AVCOL_SPC_BT709 = 1  # FFmpeg's AVColorSpace for BT.709; PyAV's Colorspace enum holds swscale's numbers instead

_STOP = object()  # queued by close() and abort(): the encoder thread flushes (or not) and ends


def even_size(width: int, height: int) -> tuple[int, int]:
    """``(width, height)`` rounded down to even numbers, as yuv420p needs (its chroma is sampled per 2x2 block)."""
    return width - width % 2, height - height % 2


class VideoWriter:
    """Encode RGB frames to an H.264 MP4 file at ``path``, on a worker thread with a bounded queue.

    ``width``, ``height``: pixels, positive and even. ``fps``: frames per second, positive (an int, Fraction or
    float). ``crf``: libx264 quality, 0 (lossless) .. 51; 18 is visually lossless. ``preset``: one of
    :data:`X264_PRESETS`. ``queue_frames``: frames waiting for the encoder at most; :meth:`write` blocks while the
    queue is full, so memory stays flat however long the recording. ``niceness``: on Linux, how much lower than the
    process's the encoder thread's priority is, and that of x264's threads, which it starts (Linux keeps a niceness
    per thread, and a new thread takes its creator's): the window's recordings take a few (ui/capture.py), so that the
    window's frames come first (x264 emptied its look-ahead on every core at a recording's stop, beside a frame).

    Bad user input (path, size, fps, crf, preset) raises :class:`sim.errors.InputError` before any file is made; an
    odd size raises ``ValueError`` (the caller rounds, with :func:`even_size`). An exception in the encoder thread
    is re-raised by the next :meth:`write` or :meth:`close`, and the temporary file is removed; the OS refusing a
    write (disk full, file too large, permission) is raised as :class:`sim.errors.OutputError` naming ``path``.

    As a context manager: a normal exit closes; ``KeyboardInterrupt`` also closes, so Ctrl-C leaves a playable file
    of the frames written so far (or nothing, if no frame was written); any other exception aborts and leaves
    nothing behind.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        width: int,
        height: int,
        fps: float | Fraction = 60,
        *,
        crf: float = 18,
        preset: str = "veryfast",
        queue_frames: int = 8,
        niceness: int = 0,
    ) -> None:
        self.path = Path(path)
        self._niceness = niceness
        where = str(self.path)
        _check_size(width, height, where)
        self.fps = _check_fps(fps, where)
        _check_encoding(crf, preset, queue_frames, where)
        _check_output_path(self.path)

        self.width, self.height = int(width), int(height)
        self.frames_written = 0
        self._frames_encoded = 0  # counted by the encoder thread: the truth once it has stopped
        self._time_base = 1 / self.fps
        self._tmp_path: Path | None = None
        self._container: av.container.OutputContainer | None = None
        try:
            # The temporary file keeps the .mp4 suffix, so FFmpeg picks the MP4 muxer from its name.
            self._tmp_path = create_temporary(self.path, suffix=".tmp.mp4")
            self._container = av.open(str(self._tmp_path), "w", container_options={"movflags": "+faststart"})
            self._stream = _add_h264_stream(self._container, self.width, self.height, self.fps, crf, preset)
        except OSError as error:
            self._close_container_and_remove_file()
            raise output_error(error, self.path) from None
        except BaseException:
            self._close_container_and_remove_file()
            raise
        self._queue: queue.Queue = queue.Queue(maxsize=queue_frames)
        self._error: BaseException | None = None
        self._cancel = threading.Event()
        self._stop_sent = False
        self.encoder_thread_id: int | None = None  # the encoder thread's system id, once it runs
        self._state = "open"  # then "closed" (file at path) or "aborted" (nothing left behind)
        self._thread = threading.Thread(target=self._encode_loop, name=f"VideoWriter {self.path.name}", daemon=True)
        self._thread.start()

    def __enter__(self) -> VideoWriter:
        return self

    def __exit__(self, exc_type, exc, traceback) -> None:
        interrupted = exc_type is not None and issubclass(exc_type, KeyboardInterrupt)
        if exc_type is None or (interrupted and self.frames_written > 0):
            self.close()
        else:
            self.abort()

    def write(self, frame_rgb: np.ndarray, *, bottom_up: bool = False, copy: bool = True) -> None:
        """Queue one frame, blocking while the queue is full.

        ``frame_rgb``: (height, width, 3) uint8 RGB, or (height, width, 4) RGBA (alpha ignored, the cheapest: a GL
        read-back's native layout), rows top-down, or bottom-up (as GL reads them) with ``bottom_up``. It is
        copied, so the caller may reuse the buffer at once, unless ``copy`` is false (the caller hands it over).
        Raises the encoder thread's exception if it has failed (the temporary file is then gone).
        """
        self._raise_if_failed()
        if self._state != "open":
            raise RuntimeError(f"VideoWriter for {self.path} is {self._state}; cannot write")
        shapes = ((self.height, self.width, 3), (self.height, self.width, 4))
        if not isinstance(frame_rgb, np.ndarray) or frame_rgb.shape not in shapes or frame_rgb.dtype != np.uint8:
            got = f"{frame_rgb.shape} {frame_rgb.dtype}" if isinstance(frame_rgb, np.ndarray) else type(frame_rgb)
            raise ValueError(f"frame must be a {shapes[0]} RGB or {shapes[1]} RGBA uint8 array, got {got}")
        pixels = np.array(frame_rgb, order="C") if copy else np.ascontiguousarray(frame_rgb)
        self._queue.put((self.frames_written, pixels, bottom_up))
        self.frames_written += 1

    def close(self) -> None:
        """Encode what is queued, flush the encoder, finalise the MP4 and move it onto ``path``.

        Re-raises the encoder thread's exception if it failed, leaving no file. With no frames written there is
        no video to make: it raises ``ValueError`` and leaves no file. Closing twice, or after :meth:`abort`, does
        nothing.
        """
        if self._state != "open":
            return
        if self.frames_written == 0 and self._error is None:
            self._discard()
            raise ValueError(f"no frames were written to {self.path}; a video needs at least one")
        try:
            self._send_stop()
            self._thread.join()
            # An interrupt between a frame's queueing and its count in write() leaves one frame queued and
            # uncounted: the encoder's count is the file's.
            self.frames_written = self._frames_encoded
            if self._error is None:
                container, self._container = self._container, None
                assert container is not None and self._tmp_path is not None, "made by __init__, kept while open"
                container.close()  # writes the index, and moves it to the front (+faststart): it may fail too
                commit_temporary(self._tmp_path, self.path)
        except OSError as error:
            self._discard()
            raise output_error(error, self.path) from None
        except BaseException:
            self._discard()
            raise
        if self._error is not None:
            self._discard()
            raise self._error
        self._state = "closed"

    @property
    def committed(self) -> bool:
        """Whether :meth:`close` succeeded: the video is at ``path``."""
        return self._state == "closed"

    def abort(self) -> None:
        """Stop encoding and remove the temporary file; ``path`` is left as it was. Does nothing once closed."""
        if self._state == "open":
            self._discard()

    def _encode_loop(self) -> None:
        """The worker thread: encode queued frames until ``_STOP``, then flush unless cancelled."""
        self.encoder_thread_id = threading.get_native_id()
        _lower_this_threads_priority(self._niceness)
        stopped = False
        try:
            while not stopped:
                item = self._queue.get()
                stopped = item is _STOP
                if not self._cancel.is_set():
                    self._encode_frame(None if stopped else item)
        except BaseException as error:
            # A write the OS refused (disk full, file too large, permission) is an output fault naming the target.
            self._error = output_error(error, self.path) if isinstance(error, OSError) else error
            # Keep taking frames until the stop, so that a write() blocked on a full queue always wakes up.
            while not stopped:
                stopped = self._queue.get() is _STOP

    def _encode_frame(self, item: tuple[int, np.ndarray, bool] | None) -> None:
        """Convert one ``(index, RGB(A) frame, bottom up)`` to BT.709 yuv420p (render/yuv.py: 2-12x faster than
        swscale here), encode and mux it; ``None`` flushes the encoder."""
        frame = None
        if item is not None:
            index, rgb, bottom_up = item
            # Compiled once its kernels are loaded, numpy's loops until then (render/yuv.py): never numba's compiler.
            from spinlab.render.yuv import rgb_to_yuv420p_bt709

            frame = av.VideoFrame(self.width, self.height, "yuv420p")
            # A plane has the buffer protocol (its stub does not say so).
            planes = [
                np.frombuffer(plane, np.uint8).reshape(plane.height, plane.line_size)  # type: ignore[call-overload]
                for plane in frame.planes
            ]
            rgb_to_yuv420p_bt709(rgb, *planes, flip=bottom_up)
            frame.pts = index
            frame.time_base = self._time_base
        assert self._container is not None, "close() lets go of the container after this thread has ended"
        self._container.mux(self._stream.encode(frame))
        self._frames_encoded += item is not None

    def _raise_if_failed(self) -> None:
        if self._error is not None:
            if self._state == "open":
                self._discard()
            raise self._error

    def _send_stop(self) -> None:
        if not self._stop_sent:
            self._stop_sent = True
            self._queue.put(_STOP)

    def _discard(self) -> None:
        """Cancel the encoder, wait for its thread and remove the temporary file."""
        self._state = "aborted"
        self._cancel.set()
        self._send_stop()
        self._thread.join()
        self._close_container_and_remove_file()

    def _close_container_and_remove_file(self) -> None:
        if self._container is not None:
            try:
                self._container.close()
            except Exception:  # noqa: BLE001 - the file is being thrown away; failing to finalise it is moot
                pass
            self._container = None
        discard_temporary(self._tmp_path)


def read_video_info(path: str | os.PathLike[str]) -> tuple[int, int, int, Fraction | None]:
    """``(frame_count, width, height, fps)`` of the first video stream (fps ``None`` if the stream states none);
    frames are counted by decoding them all."""
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        stream.thread_type = "AUTO"
        frame_count = sum(1 for _ in container.decode(stream))
        return frame_count, stream.codec_context.width, stream.codec_context.height, stream.average_rate


def decode_frames(path: str | os.PathLike[str], indices: Iterable[int]) -> list[np.ndarray]:
    """The frames at ``indices`` (in presentation order, from 0) as (H, W, 3) uint8 RGB arrays, in the order asked.

    Raises ``IndexError`` if an index is past the last frame.
    """
    indices = list(indices)
    wanted = set(indices)
    found: dict[int, np.ndarray] = {}
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        stream.thread_type = "AUTO"
        for index, frame in enumerate(container.decode(stream)):
            if index in wanted:
                found[index] = frame.to_ndarray(format="rgb24", interpolation=_DECODE_INTERPOLATION)
                if len(found) == len(wanted):
                    break
    missing = sorted(wanted - found.keys())
    if missing:
        raise IndexError(f"{path} has no frame {missing[0]} (it holds {len(found)} of the frames asked for)")
    return [found[index] for index in indices]


def _check_size(width: int, height: int, where: str) -> None:
    for key, value in (("width", width), ("height", height)):
        if isinstance(value, bool) or not _is_a(value, numbers.Integral) or value <= 0:
            raise InputError("video size must be a positive whole number of pixels", where=where, key=key, value=value)
    if width % 2 or height % 2:
        raise ValueError(
            f"video size {width}x{height} is odd: H.264 in yuv420p needs even sizes; round with even_size(w, h)"
        )


def _is_a(value: object, kind: type) -> bool:
    """``isinstance(value, kind)``, for a value whose annotation is a promise the caller may not keep; mypy takes
    an ``int`` for never an ``Integral`` (the numbers ABCs are registered, not inherited) and would skip the rest."""
    return isinstance(value, kind)


def _check_encoding(crf: float, preset: str, queue_frames: int, where: str) -> None:
    """Refuse a ``crf`` or ``preset`` outside libx264's (:class:`InputError`), or a queue of no frames."""
    if not (_is_a(crf, numbers.Real) and 0 <= crf <= CRF_MAX):
        raise InputError(f"crf must be a number from 0 to {CRF_MAX}", where=where, key="crf", value=crf)
    if preset not in X264_PRESETS:
        raise InputError(f"preset must be one of {', '.join(X264_PRESETS)}", where=where, key="preset", value=preset)
    if not (_is_a(queue_frames, numbers.Integral) and queue_frames >= 1):
        raise ValueError(f"queue_frames must be a positive integer, got {queue_frames!r}")


def _check_fps(fps: float | Fraction, where: str) -> Fraction:
    if isinstance(fps, bool) or not isinstance(fps, numbers.Real) or not math.isfinite(fps) or fps <= 0:
        raise InputError("frame rate must be a positive number", where=where, key="fps", value=fps)
    return Fraction(fps).limit_denominator(FPS_MAX_DENOMINATOR)


def _check_output_path(path: Path) -> None:
    where = str(path)
    if path.is_dir():
        raise InputError("is a directory; give a file name ending in .mp4", where=where)
    if path.suffix.lower() != ".mp4":
        raise InputError("video file name must end in .mp4", where=where, value=path.suffix or "no extension")
    directory = path.parent
    if not directory.is_dir():
        raise InputError(f"directory '{directory}' does not exist", where=where)
    if not os.access(directory, os.W_OK | os.X_OK):
        raise InputError(f"directory '{directory}' is not writable", where=where)


def _lower_this_threads_priority(niceness: int) -> None:
    """Make the calling thread ``niceness`` lower in priority than it is, on Linux (elsewhere a niceness is the
    whole process's: nothing is done); a system that refuses is left as it is."""
    if niceness <= 0 or not sys.platform.startswith("linux"):
        return
    thread = threading.get_native_id()
    with contextlib.suppress(OSError):
        os.setpriority(os.PRIO_PROCESS, thread, min(os.getpriority(os.PRIO_PROCESS, thread) + niceness, 19))


def _add_h264_stream(
    container: av.container.OutputContainer, width: int, height: int, fps: Fraction, crf: float, preset: str
) -> av.VideoStream:
    stream = container.add_stream("libx264", rate=fps)
    stream.width, stream.height, stream.pix_fmt = width, height, "yuv420p"
    codec = stream.codec_context
    codec.time_base = 1 / fps
    # Tag BT.709 limited range, matching the conversion in _encode_frame, so every player decodes the same colours.
    codec.colorspace = AVCOL_SPC_BT709
    codec.color_primaries = ColorPrimaries.BT709
    codec.color_trc = ColorTrc.BT709
    codec.color_range = ColorRange.MPEG
    codec.thread_type = "FRAME"  # stack.md §4: +20-60 % on 2 cores
    stream.options = {"crf": f"{crf:g}", "preset": preset}
    return stream
