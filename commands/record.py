"""``spinlab record SCENE --out OUT.mp4``: render a scene offscreen into an MP4, without a window."""

from __future__ import annotations

import argparse

from commands.progress import ProgressBar
from scene.interrupts import EXIT_INTERRUPTED
from sim.errors import printable

__all__ = ["record_command"]


def record_command(args: argparse.Namespace) -> int:
    from render.record import frame_count, parse_size, record_scene
    from scene.scene_file import load_scene

    size = parse_size(args.size)
    frame_count(args.duration, args.fps)  # a rate or a frame count out of range: refused before loading anything
    scene = load_scene(args.scene)
    result = record_scene(
        scene,
        args.out,
        duration=args.duration,
        fps=args.fps,
        size=size,
        integrator=args.integrator,
        gyroscopic=not args.no_gyroscopic,
        progress=ProgressBar(f"recording {scene.name}", unit="frames"),
    )
    stopped = " (interrupted: the file holds what was recorded)" if result.interrupted else ""
    width, height = result.size
    print(
        f"wrote {printable(str(result.path))}: {result.frames} frames at {result.fps:g} fps, {width}x{height}, "
        f"{result.simulated_seconds:.6g} s simulated{stopped}"
    )
    return EXIT_INTERRUPTED if result.interrupted else 0
