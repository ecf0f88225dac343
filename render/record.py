"""A scene's video frames rendered offscreen, for ``python main.py record`` (render/video_file.py encodes them).

Simulation time advances in the scene's own fixed steps ``h``, independent of the video's frame rate: frame ``k``
shows the state at the step nearest ``k / fps`` (several steps per frame when ``h`` is small, the same step
repeated when it is large). The video holds exactly ``round(fps · T)`` frames. Each frame is rendered
offscreen (EGL) and handed to :class:`render.video.VideoWriter`, whose encoder thread overlaps encoding with
rendering and whose bounded queue keeps memory flat for any duration.

Before any work: the frame rate must lie in [``MIN_FPS``, ``MAX_FPS``], the frame count and the simulation's step
count within scene/files/limits.py's (``SPINLAB_NO_LIMITS=1`` lifts those two), and the output must not be the scene
file being read. While recording, every frame's state is checked finite (a body that blew up ends the recording with
:class:`sim.errors.NumericalError` and no file); an overflowing value on its way to the screen is drawn as it is,
without numpy's warnings. With several views (``--integrator all``, ``compare``), a view that fails or diverges is
frozen with its "diverged at …" label and the others go on (scene/model/failures.py); only when every view has failed
does the recording end so. ``failures``, when given, receives ``(view label, Failure)`` as each view fails.

The run is the window's run model (scene/model/run_model.py, :func:`video_setup`), drawn by the window's
:class:`~render.run_view.RunView`: the same views, labels, key and trails sampled per step as the window shows for the
same setup. A scene whose bodies use different integrators
(``compare``) is drawn one view per integrator; ``integrator`` ``"all"`` runs every integrator side by side in lock
step from the same initial state, one view each (``exact`` left out in a scene with torque, where the closed form
does not hold); anything else is one view of the whole scene. Cameras are framed on the first frame and then held,
so the picture does not breathe as the bodies turn, unless the scene's camera keys move them (``[[camera]]``,
scene/model/camera_path.py), in every view alike. ``follow`` (``record --follow``) is a person's choice of camera
and wins: the cameras move with the body and the keys are not played.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from spinlab.render.offscreen import EglCurrent, OffscreenTarget, create_offscreen_context, flush
from spinlab.render.renderer import Renderer, RenderOptions
from spinlab.render.run_view import RunView, reference_scale
from spinlab.render.text import TextOverlay
from spinlab.render.video import even_size
from spinlab.scene.files.limits import MAX_FRAMES, check_count
from spinlab.scene.files.scene_file import SceneSpec
from spinlab.scene.model.camera_path import CameraDirector
from spinlab.scene.model.run_model import Session, Setup, default_integrators
from spinlab.scene.model.runner import check_finite
from spinlab.scene.running.pacing import steps_to
from spinlab.sim.errors import InputError, NumericalError
from spinlab.sim.integrators import FAMILIES

__all__ = ["render_frames", "parse_size", "frame_count", "first_frame", "frame_range", "video_setup", "VideoRun",
           "MIN_FPS", "MAX_FPS", "MAX_SIZE"]  # fmt: skip

MSAA_SAMPLES = 0  # the renderer anti-aliases the solids' silhouettes itself, far cheaper on llvmpipe (renderer.py)
# Frame rates: 1000 frames/s is twice the fastest displays' refresh and, played back at 60, a 16x slow motion; past
# it a frame is rendered far more often than anything changes on screen (and MP4's 32-bit time scale ends at ~4e9).
# 0.01 is a frame every 100 s, a time-lapse of the slowest precession; the writer's time base (fractions with a
# denominator up to 1001) is exact there, and below 1/1001 it would round the rate to zero.
MIN_FPS = 0.01
MAX_FPS = 1000.0
MAX_SIZE = (3840, 2160)  # 4K UHD, the largest frame a video site or a projector takes


def parse_size(text: str) -> tuple[int, int]:
    """``"1280x720"`` → ``(1280, 720)``, rounded down to even (H.264 in yuv420p needs even sizes): at least 16
    pixels a side and at most 4K UHD, :data:`MAX_SIZE` (or the same on its side, a portrait 2160x3840)."""
    try:
        width_text, height_text = text.lower().split("x")
        width, height = int(width_text), int(height_text)
    except ValueError:
        raise InputError("size must be WIDTHxHEIGHT, e.g. 1280x720", where="--size", value=text) from None
    longest, shortest = MAX_SIZE
    if not (16 <= min(width, height) and max(width, height) <= longest and min(width, height) <= shortest):
        raise InputError(
            f"size must be from 16x16 up to {longest}x{shortest} (4K UHD; or {shortest}x{longest})", where="--size",
            value=text,
        )  # fmt: skip
    return even_size(width, height)


def frame_count(duration: float, fps: float) -> int:
    """The video's frame count, ``round(fps · duration)`` and at least 1, for ``duration`` seconds at ``fps``:
    :func:`frame_range` from t = 0 (the same checks)."""
    return len(frame_range(0.0, duration, fps))


def first_frame(start: float, duration: float, fps: float) -> int:
    """The index of the first frame of a video of ``duration`` seconds at ``fps`` that starts at ``start`` seconds
    (``record --from``): :func:`frame_range`'s start (the same checks)."""
    return frame_range(start, duration, fps).start


def frame_range(start: float, duration: float, fps: float) -> range:
    """The indices of the frames a video to ``duration`` seconds at ``fps`` writes from ``start`` seconds on
    (``record --from``): frame ``k`` shows t = k / fps, a whole video has ``round(fps · duration)`` of them (at
    least 1), and one from ``start`` begins at ``round(fps · start)``, the frame a whole recording shows then.

    Raises :class:`InputError` naming ``--fps`` when the rate is not in [``MIN_FPS``, ``MAX_FPS``], ``--duration``
    when it is not a finite positive number, ``--from`` unless it is a finite time before the end whose span holds
    a frame, and the span when the frames written are more than ``scene.files.limits.MAX_FRAMES`` (unless
    ``SPINLAB_NO_LIMITS`` is set; the frames before ``start`` are stepped through, not drawn, and the steps have a
    limit of their own): cheap, so callers check it before loading anything.
    """
    if not (isinstance(fps, int | float) and MIN_FPS <= fps <= MAX_FPS):
        raise InputError(f"must be between {MIN_FPS:g} and {MAX_FPS:g} frames per second", where="--fps", value=fps)
    if not (isinstance(duration, int | float) and 0.0 < duration < math.inf):
        raise InputError("must be a finite number of seconds > 0", where="--duration", value=duration)
    if not (isinstance(start, int | float) and 0.0 <= start < math.inf):
        raise InputError("must be a finite number of seconds >= 0", where="--from", value=start)
    frames = max(1, round(float(fps) * float(duration)))
    first = round(float(fps) * float(start))
    if first >= frames and start < duration:
        raise InputError(
            f"{start:g} s to the end at {duration:g} s holds no frame at {fps:g} fps (one every {1.0 / fps:.3g} s): "
            "end the video later or raise --fps",
            where="--from",
        )
    if first >= frames:
        raise InputError(f"must come before the end of the video ({duration:g} s)", where="--from", value=start)
    written = frames - first
    shown = written if written < 10**15 else float(written)  # a count past any limit is shown as 1e+20, not 21 digits
    span = f"{duration:g} s" if first == 0 else f"({duration:g} − {start:g}) s"
    check_count(shown, MAX_FRAMES, "video frames", where="--duration × --fps", value=f"{span} × {fps:g} fps")
    return range(first, frames)


def video_setup(scene: SceneSpec, integrator: str | None, gyroscopic: bool) -> Setup:
    """The run model's setup a video of ``scene`` shows: a family, ``integrator`` ``"all"`` (the maths' methods)
    or ``"engines"`` (the engines' steps), side by side (``exact`` left out under torque), ``None`` the scene's own
    integrators (one view per integrator in the compare preset), else that integrator for every dynamic body; at
    the scene's ``h``."""
    if integrator in FAMILIES:
        return Setup(scene, default_integrators(scene), True, FAMILIES[integrator], scene.h, gyroscopic)
    if integrator is None:
        integrators = default_integrators(scene)
    else:
        integrators = tuple(None if body.kinematic else integrator for body in scene.bodies)
    return Setup(scene, integrators, h=scene.h, gyroscopic=gyroscopic)


class VideoRun:
    """A video's run (scene/model/run_model.py's :class:`Session` of ``setup``) and its
    :class:`~render.run_view.RunView` (labelled with ``text``; none when ``None``). Every step is fed to the view as it
    is taken, as the window does. ``ghost`` False leaves out the exact ghosts the renderer draws by default
    (render/ghost.py); ``poinsot`` adds the Poinsot view beside the views (render/poinsot_view.py); ``follow``, a
    scene's body index, moves each view's camera with its copy of it; else the scene's camera keys move the cameras.
    ``captions`` False leaves out the scene's captions (render/captions.py). The cameras are framed at the first
    :meth:`draw`."""

    def __init__(
        self, ctx, setup: Setup, failures: list | None = None, ghost: bool = True, poinsot: bool = False,
        follow: int | None = None, text: TextOverlay | None = None, captions: bool = True,
    ):  # fmt: skip
        self.session = Session(setup)
        self.follow = follow  # the scene's body the cameras move with (None: they stay, or the keys move them)
        self.director = CameraDirector(setup.scene.camera) if follow is None else None
        self.failures = failures
        options = RenderOptions.for_bodies(len(self.session.scene.bodies))
        options.show_ghost = options.show_ghost and ghost
        options.show_poinsot = poinsot
        options.show_captions = captions
        self.view = RunView(ctx, self.session, text, options=options)
        self.view.feed(self.session)

    @property
    def t(self) -> float:
        return self.session.t

    @property
    def renderer(self) -> Renderer:
        return self.view.renderer

    def advance_to(self, t: float, prepare: bool = True) -> None:
        """Step to the step nearest ``t`` seconds (none if already there), feed the steps to the view and, with
        ``prepare``, prepare the next draw (not for a frame stepped through undrawn). A step that fails raises
        :class:`NumericalError`."""
        session = self.session
        count = steps_to(session.simulation.step_index, session.h, t)
        if count:
            report = session.step(count)
            if report.steps:
                self.view.feed(session)
            if self.failures is not None:
                self.failures += [(session.groups[n].label, session.failures[n]) for n in report.failed]
            if report.error is not None:
                raise NumericalError(report.error)
        check_finite(session.simulation, session.snapshot)  # a label or a matrix made of an overflowed state
        snapshot = session.drawable()
        self.view.follow(snapshot, self.follow)
        self.view.steer(snapshot, session.t, self.director)
        if prepare:
            self.view.prepare(snapshot)

    def draw(self, framebuffer, size: tuple[int, int]) -> None:
        """The run now over the whole of ``framebuffer`` (of ``size`` pixels), labelled at the size's own scale."""
        self.view.draw(framebuffer, size, (0, 0, *size), self.session, text_scale=reference_scale(size[1]))

    def release(self) -> None:
        self.view.release()


def render_frames(
    scene: SceneSpec,
    *,
    duration: float,
    fps: float = 60.0,
    size: tuple[int, int] = (1280, 720),
    integrator: str | None = None,
    gyroscopic: bool = True,
    raw: bool = False,
    failures: list | None = None,
    ghost: bool = True,
    poinsot: bool = False,
    follow: int | None = None,
    start: float = 0.0,
    skipped: Callable[[int, int], None] | None = None,
    captions: bool = True,
    buffers: Callable[[], np.ndarray | None] | None = None,
) -> Generator[tuple[np.ndarray, float], None, None]:
    """The video's frames, :func:`frame_count` of them: ``(image (H, W, 3) uint8 top-down, simulated t)``; with
    ``raw`` the image is (H, W, 4) RGBA with rows bottom-up, as GL reads it fastest (for the video writer).
    ``ghost`` False: no exact ghosts; ``poinsot``: the Poinsot view beside the views; ``follow``: the scene's body
    each view's camera moves with (render/camera.py's :class:`CameraFollower`; else the scene's camera keys move
    the cameras). ``start`` s > 0 (``record --from``) yields only the frames from :func:`first_frame` on, bit for
    bit those of the whole video: the run is stepped and its trails fed from t = 0 all the same, and the first frame
    drawn (the cameras are framed on it), but the frames before ``start`` are neither drawn nor read back;
    ``skipped(done, first)`` is told of each (a progress bar: stepping to ``start`` takes time with nothing to
    show). ``captions``: the scene's captions burnt in, each on the frames of its steps (render/captions.py), sized
    with the frame's height. ``buffers``: with ``raw``, where each image is read into (the video writer's
    ``buffer``; ``None``, and without it, a new array each).

    Offscreen (EGL). Frame k is drawn and flushed (``glFlush`` hands it to llvmpipe's rasteriser threads), then frame
    k + 1 is simulated, and what its draw computes prepared (its instance data, its views' rows), on a thread of its
    own while frame k is rasterised; the read-back waits for the rasteriser in a ctypes ``glFinish``, which holds no
    GIL (offscreen.py), so the next frame's Python and the encoder's run meanwhile. Nothing else touches the run or
    its view while that thread works on them; the GL calls stay on the caller's thread, with this context current
    while a frame is made and the caller's own (if any) between frames. The GL objects are released when the
    generator is closed or exhausted.
    """
    written = frame_range(start, duration, fps)
    frames, first = written.stop, written.start
    width, height = even_size(*size)
    caller = EglCurrent()
    ctx = create_offscreen_context()
    # moderngl makes its new context current and never gives the caller's back: the caller's own context (if any)
    # is current between frames, this one while a frame is made.
    caller.restore()
    with caller.drawing_with(ctx):
        target = OffscreenTarget(ctx, width, height, samples=MSAA_SAMPLES)
        text = TextOverlay(ctx)
    scenes = None
    # The next frame's steps are taken on this thread while the frame is rasterised (see the docstring); its
    # shutdown, when the generator ends or is closed, waits for a step under way before the GL objects go.
    stepper = ThreadPoolExecutor(max_workers=1, thread_name_prefix="record steps")
    try:
        # numpy's error state is set around each stretch of work, never across a yield (it would leak to the caller).
        # An overflowing state drawn on its way to the NumericalError that ends the recording (or a huge but finite
        # one, drawn as float32 infinities) is not worth numpy's warnings on stderr: the finite check reports it.
        with caller.drawing_with(ctx), np.errstate(all="ignore"):
            setup = video_setup(scene, integrator, gyroscopic)
            scenes = VideoRun(ctx, setup, failures, ghost, poinsot, follow, text, captions)
            scenes.advance_to(0.0)
        for frame in range(frames):
            shown = frame >= first
            drawn = shown or frame == 0  # the first frame frames the cameras
            with caller.drawing_with(ctx):
                if drawn:
                    with np.errstate(all="ignore"):
                        scenes.draw(target.framebuffer, target.size)
                t = scenes.t
                if frame + 1 < frames:
                    steps = stepper.submit(_quietly, scenes.advance_to, (frame + 1) / fps, frame + 1 >= first)
                    if drawn:
                        flush()
                    steps.result()  # its NumericalError, or an interrupt that came while waiting
                image = None
                if shown:
                    image = target.read_rgba(buffers() if buffers else None) if raw else target.read()
            if not shown and skipped is not None:
                skipped(frame + 1, first)
            if image is not None:
                yield image, t
    finally:
        stepper.shutdown(wait=True, cancel_futures=True)
        with caller.drawing_with(ctx):
            if scenes is not None:
                scenes.release()
            target.release()
        ctx.release()
        caller.restore()  # releasing a context unbinds whichever is current


def _quietly(work: Callable[..., None], *args) -> None:
    """``work(*args)`` without numpy's warnings (its error state is the calling thread's own)."""
    with np.errstate(all="ignore"):
        work(*args)
