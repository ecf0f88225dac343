"""A video's title card (``record --title``): its text centred on the backdrop's dark gradient, drawn offscreen with
render/text.py's overlay, the labels' fonts, for :data:`TITLE_SECONDS` before the run.

The text's first line is the title (bold), any further lines (``\\n`` in the text) are smaller beneath it; a line too
wide for the card makes the whole text smaller, never cut.
"""

from __future__ import annotations

import math

import numpy as np

from spinlab.render.look import BACKGROUND_BOTTOM_SRGB, BACKGROUND_TOP_SRGB
from spinlab.render.run_view import reference_scale
from spinlab.sim.errors import InputError

__all__ = ["TITLE_SECONDS", "MAX_TITLE_LINES", "MAX_TITLE_CHARACTERS", "check_title", "title_frames", "title_card"]

TITLE_SECONDS = 3.0
MAX_TITLE_LINES = 4
MAX_TITLE_CHARACTERS = 200
TITLE_SCALE = 2.5  # times the labels' scale: a title line ~60 px high on a 720-pixel card
MARGIN = 0.08  # of the card's width, left free on either side


def check_title(text: str) -> tuple[str, ...]:
    """The lines of a title ``text`` (split at line breaks), or :class:`InputError` naming ``--title`` for one with
    no text, too many lines or characters, or a character a terminal would act on (a tab, an escape)."""
    lines = tuple(line.strip() for line in text.split("\n"))
    if not any(lines):
        raise InputError("a title card needs some text", where="--title", value=text)
    if len(lines) > MAX_TITLE_LINES or len(text) > MAX_TITLE_CHARACTERS:
        raise InputError(
            f"a title is at most {MAX_TITLE_LINES} lines and {MAX_TITLE_CHARACTERS} characters", where="--title",
            value=text,
        )  # fmt: skip
    if not all(line.isprintable() for line in lines):
        raise InputError("a title holds printable characters and line breaks only", where="--title", value=text)
    return lines


def title_frames(fps: float) -> int:
    """How many frames the card is shown for at ``fps``: :data:`TITLE_SECONDS`' worth, at least one."""
    return max(1, round(TITLE_SECONDS * fps))


def title_card(ctx, lines: tuple[str, ...], size: tuple[int, int]) -> np.ndarray:
    """The card of ``lines`` at ``size`` (width, height) drawn on ``ctx``: (H, W, 4) uint8 RGBA, rows bottom-up as
    GL reads them (render/offscreen.py's ``read_rgba``, what the video writer takes)."""
    from spinlab.render.offscreen import OffscreenTarget
    from spinlab.render.text import TextBox, TextOverlay

    width, height = size
    target = OffscreenTarget(ctx, width, height, samples=0)
    text = TextOverlay(ctx)
    try:
        target.framebuffer.use()
        _gradient(target.framebuffer, height)
        scale = TITLE_SCALE * reference_scale(height)
        room = (1.0 - 2.0 * MARGIN) * width
        box = TextBox(0.0, 0.0, lines, max_width_px=room, max_height_px=(1.0 - 2.0 * MARGIN) * height)
        x, y, box_width, box_height = text.panel_rects(size, [box], scale)[0]
        centred = TextBox((width - box_width) / 2.0, (height - box_height) / 2.0, lines, max_width_px=room,
                          max_height_px=box.max_height_px)  # fmt: skip
        text.draw(target.framebuffer, size, [centred], scale, panels=False)
        return target.read_rgba()
    finally:
        text.release()
        target.release()


def _gradient(framebuffer, height: int) -> None:
    """The backdrop's sky colours, lighter at the top, in horizontal bands a few pixels high (by scissored clears:
    no program of its own)."""
    bands = max(1, min(height, 64))
    top, bottom = np.asarray(BACKGROUND_TOP_SRGB, dtype=float), np.asarray(BACKGROUND_BOTTOM_SRGB, dtype=float)
    for band in range(bands):
        y0, y1 = math.floor(band * height / bands), math.floor((band + 1) * height / bands)
        colour = bottom + (top - bottom) * (band + 0.5) / bands
        framebuffer.scissor = (0, y0, framebuffer.size[0], y1 - y0)
        framebuffer.clear(*colour, 1.0)
    framebuffer.scissor = None
