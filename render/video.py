"""Video files (MP4, WebM, GIF) from RGB numpy frames: written atomically, encoded on a worker thread.

Frames are ``(H, W, 3)`` uint8 RGB arrays with rows top-down (flip a GL read-back, which is bottom-up, first).
Frame ``i`` is stamped ``pts = i`` in time base ``1/fps``, so the file holds exactly the frames written, at exactly
``fps``. The encoder writes ``.spinlab-<pid>-<random>.tmp.<format>`` beside the target (scene/files/atomic_file.py:
the umask's permissions), and the file appears at ``path`` only when :meth:`VideoWriter.close` succeeds, so a
reader never sees a half-written video. A fault the OS reports while writing (disk full, a file-size limit,
permission) is raised as :class:`sim.errors.OutputError` naming ``path``, and leaves no temporary file and any
old file at ``path`` as it was.

The format is the file name's suffix (or ``format``, which must agree with it), each with its codec through PyAV
(render/video_formats.py): MP4 is libx264 (stack.md §4), yuv420p, BT.709 limited range (what players assume for HD,
and tagged in the stream so they need not guess), ``movflags=+faststart`` so the index sits at the front of the
file and a browser can start playing before the download ends; WebM is VP9; GIF one palette of 256 colours.

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
from av.video.reformatter import Interpolation

from spinlab.render.video_formats import CONTAINER_OPTIONS, FORMATS, check_gif_rate, encoding_for, format_of
from spinlab.scene.files.atomic_file import commit_temporary, create_temporary, discard_temporary, output_error
from spinlab.sim.errors import InputError, printable

__all__ = ["VideoWriter", "X264_PRESETS", "even_size", "read_video_info", "decode_frames", "check_video_path",
           "ENCODER_NICENESS", "exact_fps"]  # fmt: skip

X264_PRESETS = ("ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow")
CRF_MAX = 51  # libx264's constant-rate-factor range is 0 (lossless) .. 51 for 8-bit video
# A float frame rate such as 29.97 or 30000/1001 becomes the nearest fraction with a denominator this small, which
# keeps the time base an exact, small rational.
FPS_MAX_DENOMINATOR = 1001
# swscale's default yuv -> rgb (no horizontal chroma interpolation, fast rounding) darkens by 1-2 levels and loses
# ~8 dB of PSNR on smooth gradients; decode_frames asks for the careful path, as a player's scaler does.
_DECODE_INTERPOLATION = Interpolation.BILINEAR | Interpolation.ACCURATE_RND | Interpolation.FULL_CHR_H_INT

# The encoder and x264's threads this much lower in priority than the frames' renderer, the window's or record's:
# they fill the cores' gaps instead of slowing the drawing that every frame waits for (in the window, x264 emptying
# its look-ahead on both cores at a recording's stop held a frame up). Not more: with the encoder starved, the
# frames queued for it fill up and the renderer waits to hand it the next one. Nor where others share the cores:
# `record` at 19 kept an idle machine's cores busier (flip_story 1.70-1.72 of 2 against 1.62-1.65, 4-8 % faster)
# but beside two busy processes took 4.6 times as long, at 10 1.3 times (docs/performance.md).
ENCODER_NICENESS = 5
_STOP = object()  # queued by close() and abort(): the encoder thread flushes (or not) and ends


def even_size(width: int, height: int) -> tuple[int, int]:
    """``(width, height)`` rounded down to even numbers, as yuv420p needs (its chroma is sampled per 2x2 block)."""
    return width - width % 2, height - height % 2


class VideoWriter:
    """Encode RGB frames to a video file at ``path``, on a worker thread with a bounded queue.

    ``format``: ``"mp4"``, ``"webm"`` or ``"gif"`` (render/video_formats.py); by default the one ``path``'s suffix
    names, and it must agree with it. ``width``, ``height``: pixels, positive and even. ``fps``: frames per second,
    positive (an int, Fraction or float; a GIF's at most ``GIF_MAX_FPS``). ``crf``: libx264 quality, 0 (lossless)
    .. 51; 18 is visually lossless. ``preset``: one of :data:`X264_PRESETS` (both MP4 only). A GIF's palette is
    made from its first frame, or from :meth:`palette_images`.
    ``queue_frames``: frames waiting for the encoder at most; :meth:`write` blocks while the queue is full, so
    memory stays flat however long the recording. ``niceness``: on Linux, how much lower than the
    process's the encoder thread's priority is, and that of x264's threads, which it starts (Linux keeps a niceness
    per thread, and a new thread takes its creator's): the window's recordings take a few (ui/capture.py), so that the
    window's frames come first (x264 emptied its look-ahead on every core at a recording's stop, beside a frame).

    Bad user input (path, size, fps, crf, preset) raises :class:`sim.errors.InputError` before any file is made; an
    odd size raises ``ValueError`` (the caller rounds, with :func:`even_size`). An exception in the encoder thread
    is re-raised by the next :meth:`write` or :meth:`close`, and the temporary file is removed; the OS refusing a
    write (disk full, file too large, permission) is raised as :class:`sim.errors.OutputError` naming ``path``.

    ``into``: a temporary file beside ``path`` that the caller made (scene/files/atomic_file.py's
    ``create_temporary``) and will commit or discard itself (render/video_parts.py joins a video's parts so): the
    video is written there and left there by :meth:`close`; messages still name ``path``. A failure removes it.

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
        format: str | None = None,
        into: Path | None = None,
    ) -> None:
        self.path = Path(path)
        self._into = into
        self._niceness = niceness
        where = str(self.path)
        _check_size(width, height, where)
        self.format = check_video_path(self.path, format)
        self.fps = _check_fps(fps, where, self.format)
        _check_encoding(crf, preset, queue_frames, where)

        self.width, self.height = int(width), int(height)
        self.frames_written = 0
        self._frames_encoded = 0  # counted by the encoder thread: the truth once it has stopped
        self._queue: queue.Queue = queue.Queue(maxsize=queue_frames)
        # buffer()'s arrays: at most one a queued frame, the one encoding and the one being drawn.
        self._free: queue.Queue = queue.Queue()
        self._pooled: set[int] = set()
        self._pool_size = queue_frames + 2
        self._error: BaseException | None = None
        self._cancel = threading.Event()
        self._stop_sent = False
        self.encoder_thread_id: int | None = None  # the encoder thread's system id, once it runs
        self._state = "open"  # then "closed" (file at path) or "aborted" (nothing left behind)
        self._thread = threading.Thread(target=self._encode_loop, name=f"VideoWriter {self.path.name}", daemon=True)
        self._tmp_path: Path | None = None
        self._container: av.container.OutputContainer | None = None
        # Anything that stops this once the temporary file exists (an interrupt included, even one that lands while
        # the thread starts) discards it: the writer is not returned, so no caller could.
        with self._discarded_on_failure():
            # The temporary file keeps the format's suffix, so FFmpeg picks the muxer from its name.
            self._tmp_path = into or create_temporary(self.path, suffix=f".tmp.{self.format}")
            self._container = av.open(str(self._tmp_path), "w", container_options=CONTAINER_OPTIONS[self.format])
            self._encoding = encoding_for(self.format, self._container, self.width, self.height, self.fps, crf, preset)
            self._thread.start()

    @contextlib.contextmanager
    def _discarded_on_failure(self):
        """Anything raised inside discards the temporary file: an ``OSError`` as an output fault naming the target,
        anything else (an interrupt too) as it is."""
        try:
            yield
        except OSError as error:
            self._discard()
            raise output_error(error, self.path) from None
        except BaseException:
            self._discard()
            raise

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

    def palette_images(self, images: Iterable[np.ndarray]) -> None:
        """Make a GIF's palette from ``images`` (RGB(A) of the video's width, any row order) rather than its first
        frame: call before the first :meth:`write`. Other formats have no palette: nothing is done."""
        if self.frames_written:
            raise RuntimeError("a GIF's palette is made before its first frame is written")
        self._encoding.palette_images = [np.ascontiguousarray(image) for image in images]

    def buffer(self) -> np.ndarray:
        """A (height, width, 4) uint8 array to read a frame into, then :meth:`write` with ``copy=False``: one of the
        writer's own few, each back once its frame is encoded (blocking while all are out), so a recording allocates
        none a frame (a fresh 8 MB array a 1080p frame cost its page faults, ~0.5 ms of CPU)."""
        self._raise_if_failed()
        if self._state != "open":
            raise RuntimeError(f"VideoWriter for {self.path} is {self._state}; no buffer to write")
        try:
            return self._free.get_nowait()
        except queue.Empty:
            pass
        if len(self._pooled) < self._pool_size:
            pixels = np.empty((self.height, self.width, 4), dtype=np.uint8)
            self._pooled.add(id(pixels))
            return pixels
        return self._free.get()

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
        with self._discarded_on_failure():
            self._send_stop()
            self._thread.join()
            # An interrupt between a frame's queueing and its count in write() leaves one frame queued and
            # uncounted: the encoder's count is the file's.
            self.frames_written = self._frames_encoded
            if self._error is None:
                container, self._container = self._container, None
                assert container is not None and self._tmp_path is not None, "made by __init__, kept while open"
                container.close()  # writes the index, and moves it to the front (+faststart): it may fail too
                if self._into is None:
                    commit_temporary(self._tmp_path, self.path)
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
                self._recycle(item)
        except BaseException as error:
            # A write the OS refused (disk full, file too large, permission) is an output fault naming the target.
            self._error = output_error(error, self.path) if isinstance(error, OSError) else error
            # Keep taking frames until the stop, so that a write() blocked on a full queue, or a buffer() waiting
            # for an array, always wakes up.
            while not stopped:
                item = self._queue.get()
                stopped = item is _STOP
                self._recycle(item)

    def _recycle(self, item) -> None:
        """Hand a queued frame's array back to :meth:`buffer` once done with, if it came from there."""
        if item is not _STOP and id(item[1]) in self._pooled:
            self._free.put(item[1])

    def _encode_frame(self, item: tuple[int, np.ndarray, bool] | None) -> None:
        """Encode and mux one ``(index, RGB(A) frame, bottom up)`` (render/video_formats.py); ``None`` flushes the
        encoder."""
        packets = self._encoding.flush() if item is None else self._encoding.encode(item[1], item[2], item[0])
        assert self._container is not None, "close() lets go of the container after this thread has ended"
        self._container.mux(packets)
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
        """Cancel the encoder, wait for its thread (if it runs: one that has yet to start takes the stop and ends,
        touching nothing) and remove the temporary file."""
        self._state = "aborted"
        self._cancel.set()
        self._send_stop()
        if self._thread.is_alive():
            self._thread.join()
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


def _check_fps(fps: float | Fraction, where: str, kind: str) -> Fraction:
    if isinstance(fps, bool) or not isinstance(fps, numbers.Real) or not math.isfinite(fps) or fps <= 0:
        raise InputError("frame rate must be a positive number", where=where, key="fps", value=fps)
    if kind == "gif":
        check_gif_rate(fps, where, key="fps")
    return exact_fps(fps)


def exact_fps(fps: float | Fraction) -> Fraction:
    """The frame rate a video is stamped at: ``fps`` as the nearest fraction of denominator at most
    :data:`FPS_MAX_DENOMINATOR` (frame ``i`` at ``i / exact_fps(fps)`` s)."""
    return Fraction(fps).limit_denominator(FPS_MAX_DENOMINATOR)


def check_video_path(path: Path, kind: str | None = None, option: str = "format") -> str:
    """The format of a video at ``path`` (``kind``, or the one its suffix names, which must agree), or
    :class:`InputError` naming ``path``, or ``option`` for a ``kind`` that is wrong."""
    where = str(path)
    suffixes = ", ".join(f".{name}" for name in FORMATS)
    if path.is_dir():
        raise InputError(f"is a directory; give a file name ending in {suffixes}", where=where)
    named = format_of(path)
    if kind is not None and kind not in FORMATS:
        raise InputError(f"must be one of {', '.join(FORMATS)}", where=option, value=kind)
    if named is None:
        raise InputError(f"video file name must end in {suffixes}", where=where, value=path.suffix or "no extension")
    if kind is not None and kind != named:
        raise InputError(f"{kind}, but {printable(path.name)} ends in {path.suffix}: they must agree", where=option)
    directory = path.parent
    if not directory.is_dir():
        raise InputError(f"directory '{directory}' does not exist", where=where)
    if not os.access(directory, os.W_OK | os.X_OK):
        raise InputError(f"directory '{directory}' is not writable", where=where)
    return named


def _lower_this_threads_priority(niceness: int) -> None:
    """Make the calling thread ``niceness`` lower in priority than it is, on Linux (elsewhere a niceness is the
    whole process's: nothing is done); a system that refuses is left as it is."""
    if niceness <= 0 or not sys.platform.startswith("linux"):
        return
    thread = threading.get_native_id()
    with contextlib.suppress(OSError):
        os.setpriority(os.PRIO_PROCESS, thread, min(os.getpriority(os.PRIO_PROCESS, thread) + niceness, 19))
