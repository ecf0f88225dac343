"""``spinlab record SCENE --out OUT.mp4``: the arguments checked, the scene recorded (render/video_file.py's
``record_scene``) under a progress bar, and what was written said in one line.

The format is ``--out``'s suffix (``--format``, if given, must agree with it). A GIF is for a slide: unless asked
otherwise it is :data:`GIF_SIZE` and :data:`GIF_FPS` frames per second, a few times smaller than a video's
defaults."""

from __future__ import annotations

import argparse

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

__all__ = ["add_parser", "record_command", "VIDEO_SIZE", "VIDEO_FPS", "GIF_SIZE", "GIF_FPS"]

VIDEO_SIZE, VIDEO_FPS = "1280x720", 60.0
GIF_SIZE, GIF_FPS = "960x540", 20.0


def record_command(args: argparse.Namespace) -> int:
    from spinlab.render.record import first_frame, parse_size
    from spinlab.render.title_card import check_title
    from spinlab.render.video import check_video_path
    from spinlab.render.video_file import record_scene  # not at the top: every command's parser is built from here
    from spinlab.render.video_formats import check_gif_rate
    from spinlab.scene.files.scene_file import load_scene
    from spinlab.scene.model.run_model import integrators_for
    from spinlab.sim.integrators import FAMILIES

    kind = check_video_path(args.out, args.format, "--format")
    gif = kind == "gif"
    size = parse_size(args.size or (GIF_SIZE if gif else VIDEO_SIZE))
    fps = args.fps or (GIF_FPS if gif else VIDEO_FPS)
    if gif:
        check_gif_rate(fps, "--fps")
    if args.title is not None:
        check_title(args.title)
    end = recorded_end(args)
    # A rate, a frame count or a start out of range: refused before loading anything.
    first_frame(args.start, end, fps)
    scene = load_scene(args.scene)
    if args.to is None and args.duration is None and scene.duration is not None:
        end = scene.duration  # the scene's own length
        first_frame(args.start, end, fps)
    result = record_scene(
        scene,
        args.out,
        duration=end,
        start=args.start,
        fps=fps,
        size=size,
        format=kind,
        title=args.title,
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
    span += f", after a {result.title_frames / result.fps:g} s title card" if result.title_frames else ""
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
    """The time the video ends at: ``--to``, else ``--duration`` (by default the scene's ``duration``, checked once
    it is loaded, else 10 s); both given is refused."""
    if args.to is not None and args.duration is not None:
        raise InputError("give the end as --to or as --duration, not both", where="--to", value=args.to)
    if args.to is not None:
        return args.to
    return DEFAULT_DURATION_S if args.duration is None else args.duration


def add_parser(commands) -> None:
    """Add ``record`` to the ``commands`` of main.py's parser."""
    record = commands.add_parser(
        "record",
        help="record a scene to an MP4, WebM or GIF video, without a window",
        description="Render SCENE offscreen and encode it as MP4 (H.264), WebM (VP9) or GIF, as --out's suffix "
        "says. Simulation time advances in the scene's own steps, independent of the frame rate; the video holds "
        "exactly fps x T frames (and a title card's before them). A scene with "
        "several integrators (compare), or --integrator all, is drawn one view per integrator, in lock step. "
        "The file is written atomically; Ctrl-C stops and keeps a playable file of what was recorded.",
    )
    add_scene_arguments(
        record,
        "override every body's integrator; 'all' (the maths' methods), 'engines' (the engines' steps) or 'axes' "
        "(the principal-axes splittings): one view per integrator, in lock step",
    )
    record.add_argument(
        "--out", required=True, type=writable_path, metavar="OUT.mp4", help="the video file: .mp4, .webm or .gif"
    )
    record.add_argument(
        "--format", metavar="mp4|webm|gif", help="the video's format; by default --out's suffix, which it must match"
    )
    record.add_argument(
        "--fps", type=positive_float, help=f"frames per second (default: {VIDEO_FPS:g}; a GIF's {GIF_FPS:g}, <= 50)"
    )
    record.add_argument(
        "--size",
        metavar="WxH",
        help=f"pixels, rounded to even, up to 3840x2160 (default: {VIDEO_SIZE}; a GIF's {GIF_SIZE}, for a slide)",
    )
    record.add_argument(
        "--title",
        metavar="TEXT",
        help="show a title card of TEXT for 3 s before the run (a line break in TEXT starts a smaller line)",
    )
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
        "'follow the selected body' does; the scene's camera keys ([[camera]]) are then not played",
    )
    record.add_argument(
        "--from",
        dest="start",
        type=nonnegative_float,
        default=0.0,
        metavar="T0",
        help="start the video at T0 seconds with the frames a whole recording shows from then on: the same images "
        "before encoding, bit for bit; the encoder, starting afresh at T0, compresses them a little differently, so "
        "decoded they differ slightly (PSNR ~50 dB). The run is simulated from t = 0 all the same",
    )
    record.add_argument(
        "--to", type=positive_float, metavar="T1", help="end the video at T1 seconds (instead of --duration)"
    )
    record.set_defaults(handler=record_command, duration=None)
