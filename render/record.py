"""Recording a scene to MP4 without a window: ``python main.py record``.

Simulation time advances in the scene's own fixed steps ``h``, independent of the video's frame rate: frame ``k``
shows the state at the step nearest ``k / fps`` (several steps per frame when ``h`` is small, the same step
repeated when it is large). The video holds exactly ``round(fps · T)`` frames. Each frame is rendered
offscreen (EGL) and handed to :class:`render.video.VideoWriter`, whose encoder thread overlaps encoding with
rendering and whose bounded queue keeps memory flat for any duration.

Before any work: the frame rate must lie in [``MIN_FPS``, ``MAX_FPS``], the frame count and the simulation's step
count within scene/limits.py's (``SPINLAB_NO_LIMITS=1`` lifts those two), and the output must not be the scene file
being read. While recording, every frame's state is checked finite (a body that blew up ends the recording with
:class:`sim.errors.NumericalError` and no file); an overflowing value on its way to the screen is drawn as it is,
without numpy's warnings.

Layouts: a scene whose bodies use different integrators (``compare``) is drawn one view per body; ``integrator``
``"all"`` runs one simulation per integrator in lock step from the same initial state and draws one view per
simulation (``exact`` left out in a scene with torque, where the closed form does not hold); anything else is one
view of the whole scene. Cameras are framed on the first frame and then held, so the picture does not breathe as
the bodies turn.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from render.look import linear_to_srgb
from render.offscreen import OffscreenTarget, create_offscreen_context, flush
from render.renderer import Renderer
from render.text import TextOverlay
from render.video import VideoWriter, even_size
from render.viewports import View, compare_views, energy_error_text, render_grid, view_batches
from scene.atomic_file import refuse_overwriting
from scene.interrupts import deferred_interrupts
from scene.limits import MAX_FRAMES, check_count
from scene.runner import check_finite, step_count
from scene.scene_file import SceneSpec
from scene.simulation import Simulation
from sim.errors import InputError
from sim.integrators import INTEGRATORS

__all__ = ["RecordResult", "record_scene", "render_frames", "parse_size", "frame_count", "MIN_FPS", "MAX_FPS"]

MSAA_SAMPLES = 0  # the renderer anti-aliases the solids' silhouettes itself, far cheaper on llvmpipe (renderer.py)
# x264 shares the two cores with llvmpipe: ultrafast takes ~40 % less CPU a frame than veryfast at the same crf,
# with the same PSNR against the rendered frames (43 dB t_handle, 39 dB compare, where yuv420p's chroma
# subsampling is most of the loss), for files ~3.5x larger (~4-10 Mbit/s at 1280x720, 60 fps).
X264_PRESET = "ultrafast"
X264_CRF = 18
# Frame rates: 1000 frames/s is twice the fastest displays' refresh and, played back at 60, a 16x slow motion; past
# it a frame is rendered far more often than anything changes on screen (and MP4's 32-bit time scale ends at ~4e9).
# 0.01 is a frame every 100 s, a time-lapse of the slowest precession; the writer's time base (fractions with a
# denominator up to 1001) is exact there, and below 1/1001 it would round the rate to zero.
MIN_FPS = 0.01
MAX_FPS = 1000.0
# An overflowing state drawn on its way to the NumericalError that ends the recording (or a huge but finite one,
# drawn as float32 infinities) is not worth numpy's warnings on stderr: the finite check reports it.
_QUIET_NUMPY = {"over": "ignore", "invalid": "ignore", "divide": "ignore", "under": "ignore"}


@dataclass(frozen=True)
class RecordResult:
    """What was written: ``frames`` at ``fps`` of ``size`` pixels, simulated to ``simulated_seconds``."""

    path: Path
    frames: int
    fps: float
    size: tuple[int, int]
    simulated_seconds: float
    interrupted: bool


def parse_size(text: str) -> tuple[int, int]:
    """``"1280x720"`` → ``(1280, 720)``, rounded down to even (H.264 in yuv420p needs even sizes)."""
    try:
        width_text, height_text = text.lower().split("x")
        width, height = int(width_text), int(height_text)
    except ValueError:
        raise InputError("size must be WIDTHxHEIGHT, e.g. 1280x720", where="--size", value=text) from None
    if not (16 <= width <= 7680 and 16 <= height <= 4320):
        raise InputError("size must be between 16x16 and 7680x4320", where="--size", value=text)
    return even_size(width, height)


def frame_count(duration: float, fps: float) -> int:
    """The video's frame count, ``round(fps · duration)`` and at least 1, for ``duration`` seconds at ``fps``.

    Raises :class:`InputError` naming ``--fps`` when the rate is not in [``MIN_FPS``, ``MAX_FPS``], ``--duration``
    when it is not a finite positive number, and both when the count is more than ``scene.limits.MAX_FRAMES``
    (unless ``SPINLAB_NO_LIMITS`` is set): cheap, so callers check it before loading anything.
    """
    if not (isinstance(fps, int | float) and MIN_FPS <= fps <= MAX_FPS):
        raise InputError(f"must be between {MIN_FPS:g} and {MAX_FPS:g} frames per second", where="--fps", value=fps)
    if not (isinstance(duration, int | float) and 0.0 < duration < math.inf):
        raise InputError("must be a finite number of seconds > 0", where="--duration", value=duration)
    frames = max(1, round(float(fps) * float(duration)))
    shown = frames if frames < 10**15 else float(frames)  # a count past any limit is shown as 1e+20, not 21 digits
    check_count(shown, MAX_FRAMES, "video frames", where="--duration × --fps", value=f"{duration:g} s × {fps:g} fps")
    return frames


class _Scenes:
    """The simulations a video shows, their renderers and how their views are laid out."""

    def __init__(self, ctx, scene: SceneSpec, integrator: str | None, gyroscopic: bool) -> None:
        names = list(INTEGRATORS) if integrator == "all" else [integrator]
        if integrator == "all" and scene.has_torque:
            names.remove("exact")  # the closed form holds only without torque (as run leaves it out)
        self.simulations = [Simulation(scene, integrator=name, gyroscopic=gyroscopic) for name in names]
        self.renderers = [Renderer(ctx, scene) for _ in self.simulations]
        self.energy_initial = [simulation.snapshot().energy for simulation in self.simulations]
        distinct = {name for name in self.simulations[0].body_integrators if name is not None}
        self.per_body = len(self.simulations) == 1 and len(distinct) > 1
        self.cameras: list | None = None
        self.viewports: list | None = None  # where render_grid put the views last

    @property
    def t(self) -> float:
        return self.simulations[0].t

    @property
    def h(self) -> float:
        return self.simulations[0].h

    def step(self) -> None:
        for simulation, renderer in zip(self.simulations, self.renderers, strict=True):
            simulation.step()
            renderer.push_trail(simulation.snapshot())

    def advance_to(self, t: float) -> list[View]:
        """Step to the step nearest ``t`` seconds (none if already there) and return the views of that state, their
        instance data prepared."""
        while self.t + 0.5 * self.h <= t:
            self.step()
        snapshots = [simulation.snapshot() for simulation in self.simulations]
        for simulation, snapshot in zip(self.simulations, snapshots, strict=True):
            check_finite(simulation, snapshot)  # a label or a matrix made of an overflowed state: the run stops
        views = self.views(snapshots)
        for indices in view_batches(views):  # as render_grid draws them
            first = views[indices[0]]
            if self.cameras is None or self.viewports is None or None in self.cameras:
                first.renderer.prepare(first.snapshot)
                continue
            first.renderer.prepare(
                first.snapshot,
                [self.viewports[index] for index in indices],
                [self.cameras[index] for index in indices],
                [None if views[index].bodies is None else np.asarray(views[index].bodies) for index in indices],
            )
        return views

    def views(self, snapshots: list | None = None) -> list[View]:
        """The views of ``snapshots`` (one per simulation; by default each simulation's state now)."""
        if snapshots is None:
            snapshots = [simulation.snapshot() for simulation in self.simulations]
        if self.per_body:
            simulation, renderer = self.simulations[0], self.renderers[0]
            views = compare_views(renderer, snapshots[0], self.energy_initial[0], simulation.body_integrators)
        else:
            views = [self._whole_scene_view(i, snapshot) for i, snapshot in enumerate(snapshots)]
        if self.cameras is None:
            self.cameras = [None] * len(views)
        for view, camera in zip(views, self.cameras, strict=True):
            view.camera = camera
        return views

    def hold_cameras(self, cameras: list) -> None:
        """Keep the cameras the first frame chose for the rest of the video."""
        self.cameras = cameras

    def _whole_scene_view(self, index: int, snapshot) -> View:
        simulation, renderer = self.simulations[index], self.renderers[index]
        integrators = sorted({name for name in simulation.body_integrators if name is not None}) or ["kinematic"]
        error = energy_error_text(float(snapshot.energy.sum()), float(self.energy_initial[index].sum()))
        label = (", ".join(integrators), f"t = {snapshot.t:.2f} s    {error}")
        accent = tuple(float(c) for c in linear_to_srgb(renderer.layout.colors_rgba[0, :3]))
        return View(renderer, snapshot, label=label, accent=accent)

    def release(self) -> None:
        for renderer in self.renderers:
            renderer.release()


def render_frames(
    scene: SceneSpec,
    *,
    duration: float,
    fps: float = 60.0,
    size: tuple[int, int] = (1280, 720),
    integrator: str | None = None,
    gyroscopic: bool = True,
    raw: bool = False,
) -> Iterator[tuple[np.ndarray, float]]:
    """The video's frames, :func:`frame_count` of them: ``(image (H, W, 3) uint8 top-down, simulated t)``; with
    ``raw`` the image is (H, W, 4) RGBA with rows bottom-up, as GL reads it fastest (for the video writer).

    Offscreen (EGL). Frame k's drawing is flushed to the driver, then frame k + 1 is simulated and its instance
    data prepared, and only then is frame k read back: on llvmpipe the rasteriser's threads finish frame k while
    Python works on the next one. The GL objects are released when the generator is closed or exhausted.
    """
    frames = frame_count(duration, fps)
    width, height = even_size(*size)
    ctx = create_offscreen_context()
    target = OffscreenTarget(ctx, width, height, samples=MSAA_SAMPLES)
    text = TextOverlay(ctx)
    scenes = None
    try:
        # numpy's error state is set around each stretch of work, never across a yield (it would leak to the caller).
        with np.errstate(**_QUIET_NUMPY):
            scenes = _Scenes(ctx, scene, integrator, gyroscopic)
            views = scenes.advance_to(0.0)
        for frame in range(frames):
            with np.errstate(**_QUIET_NUMPY):
                viewports = render_grid(target.framebuffer, target.size, views, text, legend=True)
                if any(view.camera is None for view in views):
                    scenes.hold_cameras(_first_frame_cameras(views, viewports))
                scenes.viewports = viewports
                flush()
                t = scenes.t
                if frame + 1 < frames:
                    views = scenes.advance_to((frame + 1) / fps)
            yield (target.read_rgba() if raw else target.read()), t
    finally:
        if scenes is not None:
            scenes.release()
        target.release()
        ctx.release()


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
) -> RecordResult:
    """Record ``duration`` seconds of ``scene`` to ``out`` (MP4, written atomically).

    An interrupt (Ctrl-C; SIGTERM and SIGHUP, which main.py raises as ``KeyboardInterrupt``) stops the recording
    and leaves a playable file of the frames written so far (``interrupted``); before the first frame, or if the
    file cannot be finalised, it leaves nothing and the interrupt propagates. Raises :class:`InputError` before any
    work for a bad path, size or frame rate, too many frames or steps, or ``out`` being the scene file itself;
    :class:`sim.errors.NumericalError` when a body blows up and :class:`sim.errors.OutputError` when the file
    cannot be written (no file is left then, and a file already at ``out`` is kept).
    """
    refuse_overwriting(out, scene.path, "--out")
    total = frame_count(duration, fps)
    step_count(duration, scene.h)
    width, height = even_size(*size)
    interrupted, simulated = False, 0.0
    frames = render_frames(
        scene, duration=duration, fps=fps, size=(width, height), integrator=integrator, gyroscopic=gyroscopic, raw=True
    )
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
    return RecordResult(Path(out), writer.frames_written, fps, (width, height), simulated, interrupted)


def _first_frame_cameras(views: list[View], viewports: list) -> list:
    """The cameras render_grid chose for ``views`` in ``viewports`` (each renderer's default framing)."""
    cameras = []
    for view, viewport in zip(views, viewports, strict=True):
        bodies = None if view.bodies is None else np.asarray(view.bodies)
        cameras.append(view.renderer.default_camera(view.snapshot, bodies, viewport[2] / viewport[3]))
    return cameras


def _exact_fps(fps: float):
    """An integer frame rate stays an int; others go to the writer as they are (it makes them exact fractions)."""
    return int(fps) if math.isclose(fps, round(fps)) else fps
