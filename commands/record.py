"""``spinlab record SCENE --out OUT.mp4``: render a scene offscreen into an MP4, without a window."""

from __future__ import annotations

import argparse

from commands.arguments import add_scene_arguments, positive_float, writable_path
from commands.progress import ProgressBar
from scene.interrupts import EXIT_INTERRUPTED
from sim.errors import printable

__all__ = ["add_parser", "record_command"]


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
    add_scene_arguments(record, "override every body's integrator; 'all': one view per integrator, in lock step")
    record.add_argument("--out", required=True, type=writable_path, metavar="OUT.mp4", help="the video file")
    record.add_argument("--fps", type=positive_float, default=60.0, help="frames per second (default: 60)")
    record.add_argument("--size", default="1280x720", metavar="WxH", help="pixels, rounded to even (default: 1280x720)")
    record.set_defaults(handler=record_command)
