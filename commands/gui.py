"""``spinlab gui [SCENE]`` (and plain ``spinlab``): the window."""

from __future__ import annotations

import argparse

__all__ = ["add_parser", "gui_command"]


def gui_command(args: argparse.Namespace) -> int:
    from render.record import parse_size
    from ui.gui import run_gui

    return run_gui(args.scene, size=parse_size(args.size), fullscreen=args.fullscreen)


def add_parser(commands) -> None:
    """Add ``gui`` to the ``commands`` of main.py's parser."""
    gui = commands.add_parser(
        "gui",
        help="open the window (the default command)",
        description="Open the spinlab window on SCENE (a preset name or a .toml path; default: compare, one "
        "T-handle per integrator). Space pauses, the right arrow steps, R resets, F12 saves a screenshot; drag to "
        "orbit, right-drag to pan, wheel to zoom.",
    )
    gui.add_argument("scene", nargs="?", metavar="SCENE", help="a preset name or a .toml path (default: compare)")
    gui.add_argument("--size", default="1280x720", metavar="WxH", help="window pixels (default: 1280x720)")
    gui.add_argument("--fullscreen", action="store_true", help="open the window full screen (--size is then ignored)")
    gui.set_defaults(handler=gui_command)
