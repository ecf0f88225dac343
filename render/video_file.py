"""A scene recorded to a video file: render/record.py's frames, after a title card if asked for
(render/title_card.py), encoded as MP4, WebM or GIF by render/video.py's writer, whose encoder thread overlaps
encoding with rendering and whose bounded queue keeps memory flat for any duration. The file is written atomically;
an interrupt keeps a playable file of the frames written so far. A long video is recorded in parts, a process a core,
and joined (render/video_parts.py). ``record`` is its command (commands/record.py); the benchmarks time it end to
end."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from spinlab.sim.errors import InputError

if TYPE_CHECKING:
    from spinlab.scene.files.scene_file import SceneSpec
    from spinlab.scene.model.failures import Failure

__all__ = ["record_scene", "RecordResult", "followed_body", "X264_PRESET", "X264_CRF"]

# x264 shares the two cores with llvmpipe: ultrafast takes markedly less CPU a frame than veryfast at the same crf,
# with the same PSNR against the rendered frames (yuv420p's chroma subsampling is most of the loss), for files a
# few times larger.
X264_PRESET = "ultrafast"
X264_CRF = 18


@dataclass(frozen=True)
class RecordResult:
    """What was written: ``frames`` at ``fps`` of ``size`` pixels (the title card's ``title_frames`` first), simulated
    to ``simulated_seconds``, as ``format``."""

    path: Path
    frames: int
    fps: float
    size: tuple[int, int]
    simulated_seconds: float
    interrupted: bool
    failures: tuple[str, ...] = ()
    """The views frozen on the way (several views only), e.g. ``"euler_body: diverged at t = 7.85 s: …"``."""
    title_frames: int = 0
    format: str = "mp4"


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
    format: str | None = None,
    title: str | None = None,
    parts: int | None = None,
    into: Path | None = None,
) -> RecordResult:
    """Record ``duration`` seconds of ``scene`` to ``out`` (written atomically) as ``format``: ``"mp4"``, ``"webm"``
    or ``"gif"``, by default the one ``out``'s suffix names (render/video_formats.py). ``title``: the text of a
    title card shown for ``TITLE_SECONDS`` before the run (render/title_card.py); a GIF's palette is made from the
    card and the run's first frame.

    An interrupt (Ctrl-C; SIGTERM and SIGHUP, which main.py raises as ``KeyboardInterrupt``) stops the recording
    and leaves a playable file of the frames written so far (``interrupted``); before the first frame, or if the
    file cannot be finalised, it leaves nothing and the interrupt propagates. Raises :class:`InputError` before any
    work for a bad path, size or frame rate, too many frames or steps, or ``out`` being the scene file itself;
    :class:`sim.errors.NumericalError` when a body blows up and :class:`sim.errors.OutputError` when the file
    cannot be written (no file is left then, and a file already at ``out`` is kept). ``ghost`` False leaves out
    the exact ghosts (render/ghost.py); ``poinsot`` adds the Poinsot view (render/poinsot_view.py); ``follow`` (a
    body's name) moves each view's camera with its copy of that body (:class:`InputError` for a name not in the
    scene). ``start`` s (``--from``): the video holds the frames of the whole recording from that time on, the same
    images before encoding, bit for bit (render/record.py's :func:`render_frames`), though not the same bytes once
    encoded (the encoder starts afresh there: decoded, they differ slightly, PSNR ~50 dB); ``duration`` is then the
    time it ends at; ``catch_up``
    (done, total) follows the frames stepped through before it, which are not written.

    ``parts``: how many processes record the video, each a contiguous stretch of it, joined into ``out`` at the end
    (render/video_parts.py: the same frames; the cores kept busier); by default its ``part_count``, 1 for a short
    video; a GIF, whose one palette is the whole file's, in one. ``into``: where a part is written (render/video.py's
    :class:`VideoWriter`).
    """
    from spinlab.render.offscreen import create_offscreen_context
    from spinlab.render.record import frame_range, render_frames
    from spinlab.render.title_card import check_title, title_card, title_frames
    from spinlab.render.video import ENCODER_NICENESS, VideoWriter, check_video_path, even_size
    from spinlab.render.video_parts import SPLIT_FORMATS, part_count, record_in_parts
    from spinlab.scene.files.atomic_file import refuse_overwriting
    from spinlab.scene.model.runner import step_count
    from spinlab.scene.process.interrupts import deferred_interrupts

    refuse_overwriting(out, scene.path, "--out")
    kind = check_video_path(Path(out), format)
    lines = None if title is None else check_title(title)
    followed = None if follow is None else followed_body(scene, follow)
    card_frames = 0 if lines is None else title_frames(fps)
    written = frame_range(start, duration, fps)
    total = card_frames + len(written)
    step_count(duration, scene.h)
    width, height = even_size(*size)
    if kind not in SPLIT_FORMATS:
        parts = 1
    elif parts is None:
        parts = part_count(kind, len(written), (width, height))
    parts = min(parts, len(written))
    if parts > 1:
        options = dict(size=(width, height), integrator=integrator, gyroscopic=gyroscopic, ghost=ghost,
                       poinsot=poinsot, follow=follow)  # fmt: skip
        return record_in_parts(
            record_scene, scene, Path(out), kind=kind, frames=written, fps=fps, parts=parts, options=options,
            title=title, progress=progress, catch_up=catch_up, title_frames=card_frames,
        )  # fmt: skip
    card = None
    if lines is not None:
        ctx = create_offscreen_context()
        try:
            card = title_card(ctx, lines, (width, height))
        finally:
            ctx.release()
    interrupted, simulated = False, 0.0
    failures: list[tuple[str, Failure]] = []
    frames = render_frames(
        scene, duration=duration, fps=fps, size=(width, height), integrator=integrator, gyroscopic=gyroscopic, raw=True,
        failures=failures, ghost=ghost, poinsot=poinsot, follow=followed, start=start, skipped=catch_up,
        buffers=lambda: None if writer is None else writer.buffer(),  # read into the writer's own arrays
    )  # fmt: skip
    writer: VideoWriter | None = None
    try:
        with deferred_interrupts():  # an interrupt finds the writer (and its temporary file) in `writer`
            writer = VideoWriter(
                out, width, height, fps=_exact_fps(fps), crf=X264_CRF, preset=X264_PRESET, format=kind,
                niceness=ENCODER_NICENESS, into=into,
            )  # fmt: skip
        with writer:
            first = next(frames)
            # A GIF's palette is made from the run's first frame and the card (a video's encoder ignores this).
            writer.palette_images([image for image in (card, first[0]) if image is not None])
            for index in range(card_frames):
                assert card is not None, "made when there are card frames"
                writer.write(card, bottom_up=True, copy=False)  # the same pixels each time, never written to
                if progress is not None:
                    progress(index + 1, total)
            for index, (image, t) in enumerate(itertools.chain([first], frames), start=card_frames):
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
    return RecordResult(
        Path(out), writer.frames_written, fps, (width, height), simulated, interrupted, failed, card_frames, kind
    )


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
