"""Render frames per second at 1280×720: 1 to 10⁴ T-handles, instanced, with and without 4× MSAA.

Offscreen through EGL (on these machines Mesa's llvmpipe: the CPU rasterises, so the numbers scale with cores).
Each T-handle is two instanced cylinders. Two workloads per body count:

- ``bodies``: the bodies, the background, the floor grid and contact shadows; arrows, axes, trails and planes off.
- ``full``: everything on: ω and L arrows, principal axes, invariable planes and a full 600-sample herpolhode
  trail per body (thinned in time above the renderer's segment budget).

A frame is ``Renderer.draw`` plus the read-back of the pixels (``OffscreenTarget.read``: MSAA resolve, 1280×720
RGB to numpy), what ``record`` does per frame. Frames/s is the best of ``REPEATS`` runs of at least ``MIN_FRAMES``
frames each, after one warm-up frame (shader compilation). The camera frames all the bodies, so 10⁴ of them are
a few pixels each and take the coarsest level of detail.

End to end: ``record`` (render/record.py: simulate, draw, read back, encode on the writer's thread) of the
``t_handle`` and ``compare`` presets for ``RECORD_SECONDS`` of 60 frames/s video at 1280×720, frames/s of video
made per second of wall time (above 60 is faster than real time), the best of ``RECORD_REPEATS``: ``overall``
includes starting the context, compiling the shaders and the encoder's flush at the end; ``steady``
is from the first frame to the last one handed to the encoder, the rate a long recording runs at.
"""

from __future__ import annotations

import dataclasses
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from spinlab.render.offscreen import OffscreenTarget, create_offscreen_context
from spinlab.render.renderer import Renderer, RenderOptions
from spinlab.render.video_file import record_scene
from spinlab.scene.files.scene_file import SceneSpec, load_scene
from spinlab.scene.running.simulation import Snapshot
from spinlab.sim.integrators.state import rotational_energy
from spinlab.sim.quaternion import quat_normalize, quat_rotate

__all__ = ["run", "format_table", "BODY_COUNTS", "WORKLOADS"]

SIZE = (1280, 720)
BODY_COUNTS = (1, 4, 100, 10_000)
SAMPLES = (0, 4)
WORKLOADS = ("bodies", "full")
MIN_FRAMES = 3
REPEATS = 3
SECONDS = 2.0
SECONDS_QUICK = 0.5
SPACING_M = 1.6
SEED = 7
RECORD_SCENES = ("t_handle", "compare")
RECORD_SECONDS = 10.0
RECORD_SECONDS_QUICK = 3.0
RECORD_REPEATS = 3
RECORD_FPS = 60.0


def _scene(count: int) -> SceneSpec:
    """``count`` copies of the t_handle preset's body on a square grid in the plane z = 0."""
    base = load_scene("t_handle")
    body = base.bodies[0]
    side = int(np.ceil(np.sqrt(count)))
    bodies = tuple(
        dataclasses.replace(body, name=f"handle{i}", position=np.array([i % side, i // side, 0.0]) * SPACING_M)
        for i in range(count)
    )
    return SceneSpec(base.path, base.gravity, base.h, bodies, f"{count} T-handles")


def _snapshot(scene: SceneSpec, rng: np.random.Generator) -> Snapshot:
    """Random orientations, each body spinning at 5 rad/s about its intermediate axis (body y)."""
    count = len(scene.bodies)
    q = quat_normalize(rng.normal(size=(count, 4)))
    omega_world = quat_rotate(q, np.tile([0.05, 5.0, 0.05], (count, 1)))
    L_world = quat_rotate(q, np.tile([0.065, 7.0, 0.125], (count, 1)))
    position = np.array([body.position for body in scene.bodies])
    energy = rotational_energy(omega_world, L_world)
    return Snapshot(0.0, q, position, omega_world, L_world, energy)


def _options(workload: str) -> RenderOptions:
    on = workload == "full"
    return RenderOptions(
        show_omega=on, show_momentum=on, show_axes=on, show_herpolhode=on, show_invariable_plane=on, show_floor=True
    )


def _frames_per_second(renderer: Renderer, target: OffscreenTarget, snapshot: Snapshot, seconds: float) -> float:
    """The best of ``REPEATS`` runs, each of at least ``MIN_FRAMES`` frames and ``seconds / REPEATS`` seconds (the
    best, as timeit does: a run's wall time only grows when the machine does something else meanwhile)."""
    camera = renderer.default_camera(snapshot, aspect=SIZE[0] / SIZE[1])
    viewport = (0, 0, *SIZE)
    renderer.draw(target.framebuffer, viewport, camera, snapshot)
    target.read()
    best = 0.0
    for _ in range(REPEATS):
        frames, start = 0, time.perf_counter()
        while frames < MIN_FRAMES or time.perf_counter() - start < seconds / REPEATS:
            renderer.draw(target.framebuffer, viewport, camera, snapshot)
            target.read()
            frames += 1
        best = max(best, frames / (time.perf_counter() - start))
    return best


def _note_time(handed: list[float], done: int, total: int) -> None:
    """A recording's progress callback: the time each frame is handed to the encoder, appended to ``handed``."""
    handed.append(time.perf_counter())


def _record_frames_per_second(scene_name: str, seconds: float, repeats: int) -> tuple[float, float]:
    """Video frames made per wall-clock second by ``record_scene``, ``(overall, steady)`` (best of ``repeats``;
    see the module docstring)."""
    best_overall = best_steady = 0.0
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(repeats):
            handed: list[float] = []
            start = time.perf_counter()
            result = record_scene(
                load_scene(scene_name), Path(folder) / "bench.mp4", duration=seconds, fps=RECORD_FPS, size=SIZE,
                progress=partial(_note_time, handed),
            )  # fmt: skip
            best_overall = max(best_overall, result.frames / (time.perf_counter() - start))
            if len(handed) > 1:
                best_steady = max(best_steady, (len(handed) - 1) / (handed[-1] - handed[0]))
    return best_overall, best_steady


def run(quick: bool, *, progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Measure every (body count, MSAA samples, workload), then ``record`` end to end. JSON-serialisable result:
    ``{"name", "quick", "size", "renderer", "results": [{"bodies", "samples", "workload", "frames_per_second",
    "ms_per_frame"}], "record": [{"scene", "video_seconds", "video_fps", "frames_per_second",
    "realtime_factor", "steady_frames_per_second"}]}``."""
    report = progress if progress is not None else (lambda message: None)
    seconds = SECONDS_QUICK if quick else SECONDS
    rng = np.random.default_rng(SEED)
    ctx = create_offscreen_context()
    results = []
    try:
        targets = {samples: OffscreenTarget(ctx, *SIZE, samples=samples) for samples in SAMPLES}
        for count in BODY_COUNTS:
            scene = _scene(count)
            snapshot = _snapshot(scene, rng)
            renderer = Renderer(ctx, scene)
            wobble = np.tile([0.3, 5.0, 0.2], (count, 1))
            for _ in range(renderer.trail.capacity):
                jitter = quat_normalize(snapshot.q + 0.02 * rng.normal(size=snapshot.q.shape))
                renderer.push_trail(dataclasses.replace(snapshot, omega_world=quat_rotate(jitter, wobble)))
            for workload in WORKLOADS:
                renderer.options = _options(workload)
                for samples, target in targets.items():
                    report(f"{count} bodies, {workload}, MSAA {samples or 'off'} ...")
                    fps = _frames_per_second(renderer, target, snapshot, seconds)
                    results.append(
                        {
                            "bodies": count,
                            "samples": samples,
                            "workload": workload,
                            "frames_per_second": fps,
                            "ms_per_frame": 1e3 / fps,
                        }
                    )
            renderer.release()
        for target in targets.values():
            target.release()
        renderer_name = ctx.info["GL_RENDERER"]
    finally:
        ctx.release()
    record = []
    seconds = RECORD_SECONDS_QUICK if quick else RECORD_SECONDS
    for scene_name in RECORD_SCENES:
        report(f"record {scene_name}, {seconds:g} s of video ...")
        fps, steady = _record_frames_per_second(scene_name, seconds, 1 if quick else RECORD_REPEATS)
        record.append(
            {
                "scene": scene_name,
                "video_seconds": seconds,
                "video_fps": RECORD_FPS,
                "frames_per_second": fps,
                "realtime_factor": fps / RECORD_FPS,
                "steady_frames_per_second": steady,
            }
        )
    return {
        "name": "render",
        "quick": quick,
        "size": list(SIZE),
        "renderer": renderer_name,
        "results": results,
        "record": record,
    }


def format_table(result: dict[str, Any]) -> str:
    """Frames/s (and ms per frame) per body count, for each workload without and with MSAA ×4."""
    fps = {(row["bodies"], row["workload"], row["samples"]): row["frames_per_second"] for row in result["results"]}
    columns = [(workload, samples) for workload in WORKLOADS for samples in SAMPLES]
    names = [f"{workload}, MSAA {samples}x" if samples else f"{workload}, no MSAA" for workload, samples in columns]
    header = f"{'bodies':>8}" + "".join(f"{name:>22}" for name in names)
    width, height = result["size"]
    lines = [
        f"{width}x{height}, frames/s (ms/frame), draw + read back, {result['renderer']}",
        header,
        "-" * len(header),
    ]
    for count in BODY_COUNTS:
        cells = [fps[count, workload, samples] for workload, samples in columns]
        lines.append(f"{count:>8}" + "".join(f"{f'{value:.1f} ({1e3 / value:.1f})':>22}" for value in cells))
    if result.get("record"):
        lines += ["", f"record end to end ({width}x{height}, render + read back + x264), frames/s of video made:"]
        for row in result["record"]:
            lines.append(
                f"{row['scene']:>10}: {row['frames_per_second']:6.1f} frames/s overall "
                f"({row['realtime_factor']:.2f}x real time at {row['video_fps']:g} fps, {row['video_seconds']:g} s), "
                f"{row.get('steady_frames_per_second', float('nan')):.1f} steady"
            )
    return "\n".join(lines)
