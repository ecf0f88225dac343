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

End to end: ``python -m spinlab record SCENE --size 1920x1080 --fps 60`` as a user runs it, a process of its own
from start to exit (imports, the scene, the context and shaders, simulating, drawing, reading back, encoding on
the writer's thread, the encoder's flush), for the ``RECORD_SCENES`` presets at their own length (the scene's
``duration``, else 10 s; 3 s with ``--quick``): the video's seconds per second of the process's wall time (above
1 is faster than real time) and its CPU seconds (user + system, from ``wait4``), the best of ``RECORD_REPEATS``.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from spinlab.benchmarks.scaling import timed_child
from spinlab.render.offscreen import OffscreenTarget, create_offscreen_context
from spinlab.render.renderer import Renderer, RenderOptions
from spinlab.render.video import read_video_info
from spinlab.scene.files.scene_file import SceneSpec, load_scene
from spinlab.scene.running.simulation import Snapshot
from spinlab.sim.integrators.state import rotational_energy
from spinlab.sim.quaternion import quat_normalize, quat_rotate

__all__ = ["run", "format_table", "record_lines", "BODY_COUNTS", "WORKLOADS"]

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
RECORD_SCENES = ("t_handle", "compare", "flip_story")
RECORD_SIZE = (1920, 1080)
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


def _record_process(scene_name: str, quick: bool, folder: Path) -> dict[str, Any]:
    """One ``record`` of ``scene_name`` in a process of its own (see the module docstring): its wall and CPU seconds
    and the video's length, read back from the file."""
    out = folder / f"{scene_name}.mp4"
    command = [sys.executable, "-m", "spinlab", "record", scene_name, "--out", str(out), "--fps", f"{RECORD_FPS:g}"]
    command += ["--size", "x".join(map(str, RECORD_SIZE))]
    if quick:
        command += ["--duration", f"{RECORD_SECONDS_QUICK:g}"]
    figures = timed_child(command, subprocess.DEVNULL, folder)
    if figures["status"] != 0:
        raise RuntimeError(f"{' '.join(command)} exited with status {figures['status']}")
    frames, _, _, fps = read_video_info(out)
    video_seconds = frames / float(fps or RECORD_FPS)
    return {
        "scene": scene_name,
        "video_seconds": video_seconds,
        "video_fps": RECORD_FPS,
        "size": list(RECORD_SIZE),
        "process_s": figures["process_s"],
        "cpu_s": figures["cpu_s"],
        "realtime_factor": video_seconds / figures["process_s"],
    }


def run(quick: bool, *, progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Measure every (body count, MSAA samples, workload), then ``record`` end to end. JSON-serialisable result:
    ``{"name", "quick", "size", "renderer", "results": [{"bodies", "samples", "workload", "frames_per_second",
    "ms_per_frame"}], "record": [{"scene", "video_seconds", "video_fps", "size", "process_s", "cpu_s",
    "realtime_factor"}]}``."""
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
    with tempfile.TemporaryDirectory() as folder:
        for scene_name in RECORD_SCENES:
            report(f"record {scene_name} at {RECORD_SIZE[0]}x{RECORD_SIZE[1]}, {RECORD_FPS:g} fps, whole process ...")
            runs = [_record_process(scene_name, quick, Path(folder)) for _ in range(1 if quick else RECORD_REPEATS)]
            record.append(min(runs, key=lambda row: row["process_s"]))
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
        lines += ["", *record_lines(result["record"])]
    return "\n".join(lines)


def record_lines(rows: list[dict[str, Any]]) -> list[str]:
    """The whole-process ``record`` figures, a line each (a run file's rows of the in-process measure this
    replaced are left out)."""
    lines = ["record, the whole process (python -m spinlab record SCENE --size WxH --fps FPS):"]
    for row in rows:
        if "process_s" in row:
            lines.append(
                f"{row['scene']:>10}: {row['video_seconds']:g} s of {row['size'][0]}x{row['size'][1]} at "
                f"{row['video_fps']:g} fps in {row['process_s']:.1f} s ({row['cpu_s']:.1f} CPU s): "
                f"{row['realtime_factor']:.2f}x real time"
            )
    return lines
