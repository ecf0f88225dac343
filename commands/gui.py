"""``spinlab gui [SCENE]`` (and plain ``spinlab``): the window."""

from __future__ import annotations

import argparse

__all__ = ["gui_command"]


def gui_command(args: argparse.Namespace) -> int:
    from render.record import parse_size
    from ui.app import run_gui

    return run_gui(args.scene, size=parse_size(args.size), fullscreen=args.fullscreen)
