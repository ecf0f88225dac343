"""A video recorded in parts, a process each, then joined: ``record``'s way to keep every core busy.

One process leaves the cores idle part of the time: each frame is stepped, drawn, rasterised, read back, converted
and encoded, and these stages wait on one another (llvmpipe draws a frame only after the last was read back;
render/record.py). Processes each recording a contiguous stretch of the video fill each other's gaps.

Each part is the frames of the whole recording from its first on, bit for bit before encoding (``record --from``'s
guarantee: its process steps the run from t = 0 and draws from its first frame on; render/record.py's
``render_frames``). Its encoder starts afresh there, with a key frame, and the parts' packets are joined into one
file without encoding again (:func:`join_videos`): the frames decode as each part's did. The first part, which
holds the title card, is recorded by the calling process; the others by processes of their own (``python -m
spinlab.render.record_part``, a fresh interpreter: nothing of the caller's threads or main module comes with it),
which read their job from stdin and report their frames and result on stdout.

Every part writes into a temporary file the caller made beside the target (scene/files/atomic_file.py), and the
joined video appears at the target only whole. A stop signal reaches every part: the caller forwards it, each part
keeps what it wrote, and the video keeps the frames up to the first part that stopped early. Any other failure of a
part (a body blowing up, a full disk) is the recording's, raised once every part has stopped, and leaves no file.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import pickle
import signal
import struct
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from spinlab.sim.cores import WORKERS
from spinlab.sim.errors import SpinlabError

if TYPE_CHECKING:
    from spinlab.render.video_file import RecordResult
    from spinlab.scene.files.scene_file import SceneSpec

__all__ = [
    "part_count", "process_bytes", "available_memory", "part_ranges", "first_part_lead", "record_in_parts",
    "join_videos", "frame_seconds", "MIN_PART_SECONDS", "MAX_PARTS", "FIRST_PART_LEAD_S", "SPLIT_FORMATS",
]  # fmt: skip

MIN_PART_SECONDS = 2.5
"""The least work a part is given, by :func:`frame_seconds`' reckoning: a part's process takes a second or two of
CPU to start, read the scene, make its context and step to its first frame, which a shorter part would not pay
back."""
MAX_PARTS = 2
"""The most parts: measured on 2 cores (docs/performance.md); more parts than cores would only share them."""
FIRST_PART_LEAD_S = 2.5
"""How much longer the first part records than each other part, in seconds of a part's time: the other parts'
processes start once this one has read its scene, take ~1.7 s to their first frame (the interpreter, the scene, a
context, the kernels) and step through the frames before theirs. While the parts run side by side each has about one
core of two, so a frame takes about twice :func:`frame_seconds` of a part's time. (At 1080p, compare's and t_handle's
parts end together at 2.9 and 2.3 s, flip_story's, whose later frames cost more, at 3.5 s.)"""
SPLIT_FORMATS = ("mp4", "webm")
"""The formats a video may be recorded in parts in: a GIF's one palette is made from its first frames."""
PART_COMMAND = ("-m", "spinlab.render.record_part")
"""What a part's process runs, after the interpreter (its job comes on stdin: :func:`record_part`)."""
_STOP_WAIT_S = 30.0  # how long a stopped part may take to finalise its file before it is killed


def frame_seconds(size: tuple[int, int]) -> float:
    """A rough CPU time of one frame of ``size`` pixels recorded on 2 cores with llvmpipe (a T-handle, or a few views
    of one): a fixed part (the steps, the draw calls, encoding's own) and the rest by the pixel."""
    return 2e-3 + 10e-3 * size[0] * size[1] / (1920 * 1080)


def process_bytes(size: tuple[int, int]) -> float:
    """About the most memory a process recording frames of ``size`` pixels takes (its interpreter, libraries and
    kernels, then ~80 bytes a pixel: the multisampled target, the frames read back and queued for the encoder, the
    encoder's own): 0.31, 0.46 and 0.94 GB measured at 640×360, 1920×1080 and 3840×2160."""
    return 300e6 + 80.0 * size[0] * size[1]


def available_memory() -> float | None:
    """The bytes of memory the system can give without swapping (Linux's ``MemAvailable``), ``None`` unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return 1024.0 * float(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


def part_count(
    kind: str, frames: int, size: tuple[int, int], workers: int = WORKERS, memory: float | None = None
) -> int:
    """How many parts a video of ``frames`` frames of ``size`` in format ``kind`` is recorded in: one a core, up to
    :data:`MAX_PARTS`, each at least :data:`MIN_PART_SECONDS` of work, and no more processes than three quarters of
    the ``memory`` available (bytes; by default :func:`available_memory`) holds besides this one; 1 for a GIF."""
    if kind not in SPLIT_FORMATS:
        return 1
    count = min(workers, MAX_PARTS, int(frames * frame_seconds(size) // MIN_PART_SECONDS))
    memory = available_memory() if memory is None else memory
    if memory is not None:
        count = min(count, 1 + int(0.75 * memory // process_bytes(size)))
    return max(1, count)


def part_ranges(frames: range, parts: int, lead: int = 0) -> list[range]:
    """``frames`` cut into ``parts`` contiguous ranges, in order: the first ``lead`` frames longer than each of the
    others (as far as each keeps a frame), the others alike but for one frame."""
    first = min(len(frames) - (parts - 1), (len(frames) + lead * (parts - 1)) // parts)
    size, extra = divmod(len(frames) - first, parts - 1) if parts > 1 else (0, 0)
    ranges, start = [range(frames.start, frames.start + first)], frames.start + first
    for part in range(parts - 1):
        end = start + size + (part < extra)
        ranges.append(range(start, end))
        start = end
    return ranges


def first_part_lead(size: tuple[int, int]) -> int:
    """How many frames of ``size`` longer the first part is than the others: :data:`FIRST_PART_LEAD_S` of them."""
    return round(FIRST_PART_LEAD_S / (2.0 * frame_seconds(size)))


def record_in_parts(
    record: Callable[..., RecordResult],
    scene: SceneSpec,
    out: Path,
    *,
    kind: str,
    frames: range,
    fps: float,
    parts: int,
    options: dict[str, Any],
    title: str | None,
    progress: Callable[[int, int], None] | None,
    catch_up: Callable[[int, int], None] | None,
    title_frames: int,
) -> RecordResult:
    """``record`` (render/video_file.py's ``record_scene``) of ``frames`` in ``parts`` processes (this one records the
    first, after the title card), joined into ``out``. ``options`` are record's for every part (size, integrator,
    views); ``progress(done, total)`` counts every part's frames."""
    from spinlab.scene.files.atomic_file import create_temporary, discard_temporary
    from spinlab.scene.process.interrupts import deferred_interrupts

    ranges = part_ranges(frames, parts, first_part_lead(options["size"]))
    total = title_frames + len(frames)
    temporaries: list[Path] = []
    workers: list[_Part] = []

    def counted(done: int, _part_total: int) -> None:
        if progress is not None:
            progress(done + sum(worker.frames for worker in workers), total)

    def first_part(end: int, into: Path | None) -> RecordResult:
        return record(
            scene, out, duration=end / fps, start=frames.start / fps, fps=fps, format=kind, title=title,
            progress=counted, catch_up=catch_up, parts=1, into=into, **options,
        )  # fmt: skip

    try:
        try:
            with deferred_interrupts():  # each temporary file and process is in a list the moment it exists
                for _ in ranges:
                    temporaries.append(create_temporary(out, suffix=f".tmp.{kind}"))
                for stretch, into in zip(ranges[1:], temporaries[1:], strict=True):
                    job = dict(options, duration=stretch.stop / fps, start=stretch.start / fps, fps=fps, format=kind)
                    workers.append(_Part.start(scene, out, into, job))
        except OSError:  # no process to be had (a limit on processes, no interpreter to run): this one records all
            _stop(workers)
            workers.clear()
            return first_part(frames.stop, None)
        try:
            first = first_part(ranges[0].stop, temporaries[0])
        except BaseException:
            _stop(workers)
            raise
        stopped = first.interrupted
        if stopped:
            _stop(workers)
        try:
            while any(worker.running() for worker in workers):
                counted(first.frames, 0)
                for worker in workers:
                    worker.wait(0.1)
        except KeyboardInterrupt:  # what was recorded is kept, as a stop during the first part keeps it
            stopped = True
            _stop(workers)
        kept = _kept([first, *(worker.result(stopped) for worker in workers)])
        join_videos([(temporaries[k], result.frames) for k, result in enumerate(kept)], fps, out)
        last = kept[-1]
        return dataclasses.replace(
            first, path=Path(out), frames=sum(result.frames for result in kept),
            simulated_seconds=last.simulated_seconds, interrupted=stopped or last.interrupted, failures=last.failures,
        )  # fmt: skip
    finally:
        for worker in workers:
            worker.close()
        for temporary in temporaries:
            discard_temporary(temporary)


def _kept(results: Sequence[RecordResult | None]) -> list[RecordResult]:
    """The parts that go into the video: in order, up to and with the first that stopped early (a part that
    stopped before its first frame, ``None``, ends it before)."""
    kept = []
    for result in results:
        if result is None:
            break
        kept.append(result)
        if result.interrupted:
            break
    return kept


def _stop(workers: list[_Part]) -> None:
    """Ask every part still running to stop (a stop signal: each keeps what it wrote) and wait for them."""
    for worker in workers:
        worker.interrupt()
    for worker in workers:
        worker.wait(_STOP_WAIT_S)
        worker.close()


class _Part:
    """A part recorded by a process of its own: its frames so far (:attr:`frames`, read from its reports as they
    come) and, once it has ended, its result or failure."""

    def __init__(self, process: subprocess.Popen) -> None:
        self.process = process
        self.frames = 0
        self._message: tuple[str, Any] | None = None
        self._stderr = b""
        self._reader = threading.Thread(target=self._read, name="record part", daemon=True)
        self._reader.start()

    @classmethod
    def start(cls, scene: SceneSpec, out: Path, into: Path, options: dict[str, Any]) -> _Part:
        package = sys.modules["spinlab"].__file__  # loaded: this module is in it
        assert package is not None, "spinlab is a regular package"
        root = str(Path(package).resolve().parents[1])  # where `spinlab` imports from, installed or not
        path = os.environ.get("PYTHONPATH")
        env = dict(os.environ, PYTHONPATH=root if not path else os.pathsep.join([root, path]))
        process = subprocess.Popen(
            [sys.executable, *PART_COMMAND], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=env,
        )  # fmt: skip
        part = cls(process)
        assert process.stdin is not None, "piped"
        with contextlib.suppress(BrokenPipeError):  # it ended at once: its result says why
            process.stdin.write(pickle.dumps((scene, out, into, options)))
            process.stdin.close()
        return part

    def _read(self) -> None:
        stdout, stderr = self.process.stdout, self.process.stderr
        assert stdout is not None and stderr is not None, "piped"
        errors = threading.Thread(target=lambda: setattr(self, "_stderr", stderr.read()), daemon=True)
        errors.start()
        # A report cut short or one that cannot be read back (a failure of a class that will not unpickle): none.
        with contextlib.suppress(OSError, EOFError, pickle.UnpicklingError, struct.error, TypeError, AttributeError):
            while header := stdout.read(4):
                kind, value = pickle.loads(stdout.read(struct.unpack("<I", header)[0]))
                if kind == "frames":
                    self.frames = value
                else:
                    self._message = (kind, value)
        errors.join()

    def running(self) -> bool:
        return self.process.poll() is None or self._reader.is_alive()

    def wait(self, seconds: float) -> None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(seconds)
        self._reader.join(seconds)

    def interrupt(self) -> None:
        if self.process.poll() is None:
            with contextlib.suppress(OSError):
                self.process.send_signal(signal.SIGTERM)

    def close(self) -> None:
        """Kill the process if it is still running (a stop it did not heed), and reap it."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self._reader.join()

    def result(self, stopped: bool) -> RecordResult | None:
        """What the part recorded (``None``: stopped before its first frame); its failure raised, unless the
        recording was ``stopped`` (a part stopped, or killed, on the way has no result to give then)."""
        if self._message is not None and self._message[0] == "done":
            return self._message[1]
        if stopped:
            return None
        if self._message is not None:
            raise self._message[1]
        said = self._stderr.decode(errors="replace").strip().splitlines()
        why = f": {said[-1]}" if said else ""
        status = self.process.poll()
        raise SpinlabError(f"a part of the recording ended without a result (exit status {status}){why}")


def _report(stream, kind: str, value: object) -> None:
    data = pickle.dumps((kind, value))
    stream.write(struct.pack("<I", len(data)) + data)
    stream.flush()


def record_part(record: Callable[..., RecordResult]) -> int:
    """A part's process (render/record_part.py): ``record`` (render/video_file.py's ``record_scene``) the job on
    stdin, and report on stdout: the frames as they are written, then the result (``None`` for a stop before the
    first frame) or the failure. Returns the exit status."""
    from spinlab.scene.process.interrupts import install_handlers

    install_handlers()  # the rest as the caller set it up: the environment (one BLAS thread) is the caller's
    report = sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing else is written where the reports go
    scene, out, into, options = pickle.loads(sys.stdin.buffer.read())

    def frames(done: int, _total: int) -> None:
        _report(report, "frames", done)  # the caller gone (a closed pipe) stops the part

    try:
        result = record(scene, out, parts=1, into=into, progress=frames, **options)
    except KeyboardInterrupt:
        result = None
    except Exception as error:  # noqa: BLE001 - every failure goes to the caller, who reports it
        with contextlib.suppress(OSError):
            try:
                _report(report, "failed", error)
            except (pickle.PicklingError, TypeError, AttributeError):
                _report(report, "failed", SpinlabError(str(error)))
        return 1
    with contextlib.suppress(OSError):
        _report(report, "done", result)
    return 0


def join_videos(parts: Sequence[tuple[Path, int]], fps: float, out: Path) -> None:
    """Join the videos ``parts`` (in order, ``(path, frames)``: each one video stream of the same codec and settings,
    as the parts' encoders make them, at ``fps``) into ``out``, atomically: their packets in turn, not encoded again,
    each part's time stamps moved by the frames before it (frame ``i`` of the whole shows at ``i / fps`` s, as
    render/video.py stamps a video's frames). A single part, one of the caller's temporary files, is moved there."""
    import av

    from spinlab.render.video import exact_fps
    from spinlab.render.video_formats import CONTAINER_OPTIONS, format_of
    from spinlab.scene.files.atomic_file import commit_temporary, create_temporary, removed_on_failure

    if len(parts) == 1:
        commit_temporary(parts[0][0], out)
        return
    kind = format_of(Path(out)) or "mp4"
    rate = exact_fps(fps)
    joined = create_temporary(out, suffix=f".tmp.{kind}")
    with removed_on_failure(joined, out):
        with av.open(str(joined), "w", container_options=CONTAINER_OPTIONS[kind]) as container:
            stream, before = None, 0
            for path, frames in parts:
                with av.open(str(path)) as part:
                    source = part.streams.video[0]
                    if stream is None:
                        stream = container.add_stream_from_template(source)
                    assert source.time_base is not None, "a stream read from a file has its time base"
                    offset = round(before / (rate * source.time_base))
                    for packet in part.demux(source):
                        if packet.dts is None or packet.pts is None:  # the demuxer's empty packet at the end
                            continue
                        packet.pts += offset
                        packet.dts += offset
                        packet.stream = stream
                        container.mux(packet)
                before += frames
    commit_temporary(joined, out)
