"""Frame time of the real window at 1280×720 and 1920×1080 (or the sizes asked for: ``bench --only gui --size WxH``):
the compare demo with every plot on, and variations.

The window runs under a private Xvfb when it is installed (else on ``DISPLAY``), so on a machine without a GPU
Mesa's llvmpipe rasterises on the CPU and the numbers scale with cores (and with whatever else is running).
Each workload runs the app's own loop (:meth:`ui.app.App.run`, no frame cap, vsync off) at time scale 1× after
``WARMUP_FRAMES`` frames, and reports the median and 90th percentile of the frame time (from one frame to the
next: events + update + show + draw) and the median of each part: ``events`` (pyglet's dispatch of the window's
events, which may wait for the X server), ``update`` (simulation steps, plot samples, panel and plots laid out by
ImGui), ``flip`` (the previous frame copied into the window, waiting for its rasterisation, and shown), ``draw`` (3D
view and ImGui draw calls issued, off screen),
and the CPU time per frame of every thread of the process (llvmpipe's rasteriser threads included): unlike the
wall time, it does not grow when other programs compete for the cores.
The ``sequential`` mode draws and waits for each frame before updating the next (no overlap), for comparison.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import Any

import numpy as np

from spinlab.scene.files.scene_file import load_scene
from spinlab.ui.panel import PanelEdits
from spinlab.ui.xvfb import virtual_display, xvfb_available

__all__ = ["run", "format_table", "WORKLOADS", "TARGET_MS", "SIZES"]

SIZES = ((1280, 720), (1920, 1080))  # the window's sizes measured unless others are asked for
TARGET_MS = 1000.0 / 60.0
WARMUP_FRAMES = 60
FRAMES = 600
FRAMES_QUICK = 150
# name: (scene, side by side, a view per integrator, plots shown, mode)
WORKLOADS = {
    "compare, all plots": ("compare", False, True, True, "pipelined"),
    "compare, all plots, sequential": ("compare", False, True, True, "sequential"),
    "compare, no plots": ("compare", False, True, False, "pipelined"),
    "compare, one view, all plots": ("compare", False, False, True, "pipelined"),
    "t_handle, all plots": ("t_handle", False, True, True, "pipelined"),
    "t_handle side by side, all plots": ("t_handle", True, True, True, "pipelined"),
    "cloud (1000 handles), all plots": ("cloud", False, True, True, "pipelined"),
}


def _measure(app, frames: int, mode: str) -> np.ndarray:
    """(frames, 4) seconds of events, update, flip and draw per frame."""
    app.frame_log.clear()
    if mode == "pipelined":
        app.run(max_fps=None, frames=frames)
        app.ctx.finish()
        return np.array(app.frame_log)
    parts, last = [], time.perf_counter()
    for _ in range(frames):
        begun = time.perf_counter()
        app.window.dispatch_events()
        start = time.perf_counter()
        app.update(start - last)
        last = start
        updated = time.perf_counter()
        app.draw()
        app.present()
        app.ctx.finish()
        drawn = time.perf_counter()
        app.window.flip()
        parts.append((start - begun, updated - start, time.perf_counter() - drawn, drawn - updated))
    return np.array(parts)


def _workload(app, name: str, frames: int, size: tuple[int, int]) -> dict[str, Any]:
    scene, side_by_side, split, plots, mode = WORKLOADS[name]
    app.pending = PanelEdits(scene=scene, side_by_side=side_by_side, split_views=split, show_plots=plots, reset=True)
    app.state.time_scale_exp, app.state.paused = 0, False
    _measure(app, WARMUP_FRAMES, mode)
    cpu_start, wall_start = time.process_time(), time.perf_counter()
    parts = _measure(app, frames, mode)
    cpu_s, wall_s = time.process_time() - cpu_start, time.perf_counter() - wall_start
    total_ms = 1e3 * parts.sum(axis=1)
    events_ms, update_ms, flip_ms, draw_ms = (1e3 * np.median(parts, axis=0)).tolist()
    return {
        "workload": name,
        "size": list(size),
        "scene": scene,
        "views": len(app.view.groups),
        "plots": plots,
        "mode": mode,
        "frames": frames,
        "median_ms": float(np.median(total_ms)),
        "p90_ms": float(np.percentile(total_ms, 90)),
        "events_ms": events_ms,
        "update_ms": update_ms,
        "flip_ms": flip_ms,
        "draw_ms": draw_ms,
        "frames_per_second": float(1e3 / np.median(total_ms)),
        "cpu_ms": 1e3 * cpu_s / frames,
        "cpu_cores_busy": cpu_s / wall_s,
    }


def run(
    quick: bool,
    *,
    progress: Callable[[str], None] | None = None,
    sizes: Sequence[tuple[int, int]] = SIZES,
) -> dict[str, Any]:
    """Measure every workload in a window of each of ``sizes`` (width, height) in turn. JSON-serialisable result:
    ``{"name", "quick", "sizes", "renderer", "display", "cpu_count", "load_average", "target_ms", "results":
    [...]}`` (see :func:`_workload`; each result says its ``size``), or with ``"skipped"`` (the reason) and no
    results when no X display can be had."""
    report = progress if progress is not None else (lambda message: None)
    frames = FRAMES_QUICK if quick else FRAMES
    sizes = [(int(width), int(height)) for width, height in sizes]
    base = {"name": "gui", "quick": quick, "sizes": [list(size) for size in sizes], "target_ms": TARGET_MS,
            "cpu_count": os.cpu_count()}  # fmt: skip
    display: AbstractContextManager[str]
    if xvfb_available():  # a screen that holds the largest window
        display = virtual_display(f"{max(w for w, _ in sizes)}x{max(h for _, h in sizes)}x24")
    elif os.environ.get("DISPLAY"):
        display = nullcontext(os.environ["DISPLAY"])
    else:
        return {**base, "skipped": "no X display: install Xvfb (apt-get install -y xvfb xauth)", "results": []}
    from spinlab.ui.app import App

    results, renderer = [], ""
    with display as name, tempfile.TemporaryDirectory() as folder:
        for size in sizes:
            app = App(load_scene("compare"), size=size, vsync=False, output_dir=folder)
            try:
                renderer = app.ctx.info["GL_RENDERER"]
                for workload in WORKLOADS:
                    report(f"{size[0]}x{size[1]}, {workload} ({frames} frames) ...")
                    results.append(_workload(app, workload, frames, size))
            finally:
                app.close()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    return {**base, "renderer": renderer, "display": name, "load_average": load, "results": results}


def format_table(result: dict[str, Any]) -> str:
    """One line per workload and window size: median and p90 frame time, and the parts' medians."""
    if result.get("skipped"):
        return f"gui benchmark skipped: {result['skipped']}"
    header = (
        f"{'workload':<34} {'size':>9} {'views':>5} {'median ms':>9} {'p90 ms':>7} {'fps':>6} {'events':>7} "
        f"{'update':>7} {'flip':>7} {'draw':>7} {'CPU ms':>7}"
    )
    lines = [
        f"{result['renderer']}, {result['cpu_count']} CPUs, load average {result['load_average']:.2f}; target "
        f"{result['target_ms']:.1f} ms",
        header,
        "-" * len(header),
    ]
    for row in result["results"]:
        size = "x".join(str(value) for value in row["size"])
        lines.append(
            f"{row['workload']:<34} {size:>9} {row['views']:>5} {row['median_ms']:>9.1f} {row['p90_ms']:>7.1f} "
            f"{row['frames_per_second']:>6.1f} {row.get('events_ms', float('nan')):>7.1f} {row['update_ms']:>7.1f} "
            f"{row['flip_ms']:>7.1f} {row['draw_ms']:>7.1f} {row['cpu_ms']:>7.1f}"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    print(format_table(run(quick=True, progress=print)))
