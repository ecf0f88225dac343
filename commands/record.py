"""``spinlab record SCENE --out OUT.mp4``: render a scene offscreen (render/record.py's frames) and encode it as an
H.264 MP4 with render/video.py's writer, whose encoder thread overlaps encoding with rendering and whose bounded
queue keeps memory flat for any duration. The file is written atomically; an interrupt keeps a playable file of the
frames written so far."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from spinlab.commands.arguments import (
    DEFAULT_DURATION_S,
    add_scene_arguments,
    nonnegative_float,
    positive_float,
    writable_path,
)
from spinlab.commands.progress import ProgressBar
from spinlab.scene.process.interrupts import EXIT_INTERRUPTED
from spinlab.sim.errors import InputError, printable

if TYPE_CHECKING:
    from spinlab.scene.files.scene_file import SceneSpec
    from spinlab.scene.model.failures import Failure

__all__ = ["add_parser", "record_command", "record_scene", "RecordResult"]

# x264 shares the two cores with llvmpipe: ultrafast takes ~40 % less CPU a frame than veryfast at the same crf,
# with the same PSNR against the rendered frames (43 dB t_handle, 39 dB compare, where yuv420p's chroma
# subsampling is most of the loss), for files ~3.5x larger (~4-10 Mbit/s at 1280x720, 60 fps).
X264_PRESET = "ultrafast"
X264_CRF = 18


@dataclass(frozen=True)
class RecordResult:
    """What was written: ``frames`` at ``fps`` of ``size`` pixels, simulated to ``simulated_seconds``."""

    path: Path
    frames: int
    fps: float
    size: tuple[int, int]
    simulated_seconds: float
    interrupted: bool
    failures: tuple[str, ...] = ()
    """The views frozen on the way (several views only), e.g. ``"euler_body: diverged at t = 7.85 s: …"``."""


def record_scene(
    scene: SceneSpec,
    out: Path,
    *,
    duration: float,
    fps: float = 60.0,
    size: tuple[int, int] = (1280, 720),
    integrator: str | None = None,
    gyroscopic: bool = True,
    progress: Callable[[int, int], None] | None = None,
    ghost: bool = True,
    poinsot: bool = False,
    follow: str | None = None,
    start: float = 0.0,
    catch_up: Callable[[int, int], None] | None = None,
) -> RecordResult:
    """Record ``duration`` seconds of ``scene`` to ``out`` (MP4, written atomically).

    An interrupt (Ctrl-C; SIGTERM and SIGHUP, which main.py raises as ``KeyboardInterrupt``) stops the recording
    and leaves a playable file of the frames written so far (``interrupted``); before the first frame, or if the
    file cannot be finalised, it leaves nothing and the interrupt propagates. Raises :class:`InputError` before any
    work for a bad path, size or frame rate, too many frames or steps, or ``out`` being the scene file itself;
    :class:`sim.errors.NumericalError` when a body blows up and :class:`sim.errors.OutputError` when the file
    cannot be written (no file is left then, and a file already at ``out`` is kept). ``ghost`` False leaves out
    the exact ghosts (render/ghost.py); ``poinsot`` adds the Poinsot view (render/poinsot_view.py); ``follow`` (a
    body's name) moves each view's camera with its copy of that body (:class:`InputError` for a name not in the
    scene). ``start`` s (``--from``): the video holds the frames of the whole recording from that time on, bit for
    bit (render/record.py's :func:`render_frames`), and ``duration`` is then the time it ends at; ``catch_up``
    (done, total) follows the frames stepped through before it, which are not written.
    """
    from spinlab.render.record import first_frame, frame_count, render_frames
    from spinlab.render.video import VideoWriter, even_size
    from spinlab.scene.files.atomic_file import refuse_overwriting
    from spinlab.scene.model.runner import step_count
    from spinlab.scene.process.interrupts import deferred_interrupts

    refuse_overwriting(out, scene.path, "--out")
    followed = None if follow is None else followed_body(scene, follow)
    total = frame_count(duration, fps) - first_frame(start, duration, fps)
    step_count(duration, scene.h)
    width, height = even_size(*size)
    interrupted, simulated = False, 0.0
    failures: list[tuple[str, Failure]] = []
    frames = render_frames(
        scene, duration=duration, fps=fps, size=(width, height), integrator=integrator, gyroscopic=gyroscopic, raw=True,
        failures=failures, ghost=ghost, poinsot=poinsot, follow=followed, start=start, skipped=catch_up,
    )  # fmt: skip
    writer = None
    try:
        with deferred_interrupts():  # an interrupt finds the writer (and its temporary file) in `writer`
            writer = VideoWriter(out, width, height, fps=_exact_fps(fps), crf=X264_CRF, preset=X264_PRESET)
        with writer:
            for index, (image, t) in enumerate(frames):
                writer.write(image, bottom_up=True, copy=False)
                simulated = t
                if progress is not None:
                    progress(index + 1, total)
    except KeyboardInterrupt:
        if writer is None or not writer.committed:
            raise  # no frame yet, or a second interrupt while finalising: nothing was written
        interrupted = True  # the writer has finalised what was recorded
    finally:
        if writer is not None:
            writer.abort()  # nothing once closed; an interrupt that came before the with block leaves no file
        frames.close()
    failed = tuple(f"{label}: {failure.label()}" for label, failure in failures)
    return RecordResult(Path(out), writer.frames_written, fps, (width, height), simulated, interrupted, failed)


def followed_body(scene: SceneSpec, name: str) -> int:
    """The index of the body ``name`` of ``scene`` (``--follow``), or :class:`InputError` naming the choices."""
    from spinlab.scene.files.validation import did_you_mean

    names = [body.name for body in scene.bodies]
    if name not in names:
        raise InputError(
            f"no body of that name in {scene.name}{did_you_mean(name, names)}", where="--follow", value=name
        )
    return names.index(name)


def _exact_fps(fps: float):
    """An integer frame rate stays an int; others go to the writer as they are (it makes them exact fractions)."""
    return int(fps) if math.isclose(fps, round(fps)) else fps


def record_command(args: argparse.Namespace) -> int:
    from spinlab.render.record import first_frame, parse_size
    from spinlab.scene.files.scene_file import load_scene
    from spinlab.scene.model.run_model import integrators_for
    from spinlab.sim.integrators import FAMILIES

    size = parse_size(args.size)
    end = recorded_end(args)
    # A rate, a frame count or a start out of range: refused before loading anything.
    first_frame(args.start, end, args.fps)
    scene = load_scene(args.scene)
    result = record_scene(
        scene,
        args.out,
        duration=end,
        start=args.start,
        fps=args.fps,
        size=size,
        integrator=args.integrator,
        gyroscopic=not args.no_gyroscopic,
        progress=ProgressBar(f"recording {scene.name}", unit="frames"),
        catch_up=ProgressBar(f"stepping to t = {args.start:g} s", unit="frames") if args.start else None,
        ghost=not args.no_ghost,
        poinsot=args.poinsot,
        follow=args.follow,
    )
    stopped = " (interrupted: the file holds what was recorded)" if result.interrupted else ""
    width, height = result.size
    span = f", from t = {args.start:g} s" if args.start else ""
    print(
        f"wrote {printable(str(result.path))}: {result.frames} frames at {result.fps:g} fps, {width}x{height}, "
        f"{result.simulated_seconds:.6g} s simulated{span}{stopped}"
    )
    family = FAMILIES.get(args.integrator)
    if family is not None:  # as `run --integrator all` says them
        kept = integrators_for(scene, family)
        for name in (name for name in family if name not in kept):
            print(f"left out: {name} (it takes no torque, and this scene has one)")
    for failure in result.failures:
        print(f"failed: {printable(failure)}")
    # As `run --integrator all`: the video holds every view, and a view that failed is a numerical failure (1).
    return EXIT_INTERRUPTED if result.interrupted else (1 if result.failures else 0)


def recorded_end(args: argparse.Namespace) -> float:
    """The time the video ends at: ``--to``, else ``--duration`` (10 s by default); both given is refused."""
    if args.to is not None and args.duration is not None:
        raise InputError("give the end as --to or as --duration, not both", where="--to", value=args.to)
    if args.to is not None:
        return args.to
    return DEFAULT_DURATION_S if args.duration is None else args.duration


def add_parser(commands) -> None:
    """Add ``record`` to the ``commands`` of main.py's parser."""
    record = commands.add_parser(
        "record",
        help="record a scene to an MP4 video, without a window",
        description="Render SCENE offscreen and encode it as H.264 MP4 (yuv420p). Simulation time advances in the "
        "scene's own steps, independent of the frame rate; the video holds exactly fps x T frames. A scene with "
        "several integrators (compare), or --integrator all, is drawn one view per integrator, in lock step. "
        "The file is written atomically; Ctrl-C stops and keeps a playable file of what was recorded.",
    )
    add_scene_arguments(
        record,
        "override every body's integrator; 'all' (the maths' methods), 'engines' (the engines' steps) or 'axes' "
        "(the principal-axes splittings): one view per integrator, in lock step",
    )
    record.add_argument("--out", required=True, type=writable_path, metavar="OUT.mp4", help="the video file")
    record.add_argument("--fps", type=positive_float, default=60.0, help="frames per second (default: 60)")
    record.add_argument("--size", default="1280x720", metavar="WxH", help="pixels, rounded to even (default: 1280x720)")
    record.add_argument(
        "--no-ghost", action="store_true", help="leave out the exact ghost (the closed form's translucent copy)"
    )
    record.add_argument(
        "--poinsot",
        action="store_true",
        help="add the Poinsot view: the energy ellipsoid rolling on the invariable plane",
    )
    record.add_argument(
        "--follow",
        metavar="BODY",
        help="move each view's camera with this body (its copy in each view of a comparison), as the window's "
        "'follow the selected body' does",
    )
    record.add_argument(
        "--from",
        dest="start",
        type=nonnegative_float,
        default=0.0,
        metavar="T0",
        help="start the video at T0 seconds: the frames a whole recording shows from then on, bit for bit "
        "(the run is simulated from t = 0 all the same)",
    )
    record.add_argument(
        "--to", type=positive_float, metavar="T1", help="end the video at T1 seconds (instead of --duration)"
    )
    record.set_defaults(handler=record_command, duration=None)
