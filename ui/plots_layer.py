"""The plots' window laid out again at most :data:`REFRESH_HZ` times a second while nobody points at it, shown from a
texture in the frames between (render/imgui_draw.py's :class:`ImGuiLayer`).

Laying out the plots (ImPlot) and handing their ~25 000 indices to llvmpipe cost the window's thread ~3.5 ms a frame
of compare's ~15 at 1280×720, and the rasteriser as much again; at 60 frames a second a plot's 20 s window moves by
a tenth of a pixel from one frame to the next. So the plots are laid out at most :data:`REFRESH_HZ` times a second
and on one frame in :data:`REFRESH_FRAMES` at most (at 60 Hz, one in three); that frame draws them as ever and into
the layer's framebuffer too, and the frames between copy the layer's texture in their place (the same pixels, a
level apart at a few). They are laid out every frame, and drawn only straight, while the pointer is over them, a
mouse button is down, a widget is active or an edit came that frame (and the frame after that, which captures them
again), and at once when the run, the plots' options or the text's size change, or the window's (the rectangle
the layer covers).
"""

from __future__ import annotations

import math
import time
from collections.abc import Hashable

from imgui_bundle import imgui

from spinlab.render.imgui_draw import ImGuiLayer
from spinlab.ui.view3d import Rect

__all__ = ["PlotsLayer", "REFRESH_HZ"]

REFRESH_HZ = 20.0
REFRESH_FRAMES = 3  # and at least this many frames apart: a slow frame's plots cost it less, not more
PLOTS_WINDOW = "plots"  # ui/plots.py's window: its draw list's owner, and its children's ("plots/...")


class PlotsLayer:
    """When the plots' window is laid out, and the texture it is shown from (``layer``)."""

    def __init__(self, background: tuple[float, float, float]) -> None:
        # The plots' window has no background of its own: under it is the window's ``background`` (sRGB).
        self.layer = ImGuiLayer(_plots_list, background)
        self._key: Hashable = None
        self._laid_out_at = -math.inf
        self._engaged = False
        self._held = 0  # frames shown from the texture since the plots were laid out
        self.clock = time.perf_counter  # s

    def lay_out(self, rect: Rect, pixel_ratio: float, key: Hashable, edited: bool) -> bool:
        """Whether this frame lays the plots out at ``rect`` (display units; ``pixel_ratio`` pixels each), else
        leaves their window empty and shows the texture. ``key``: what, changed, makes the texture stale (the run,
        the plots' options, the text's size; the rectangle is compared too); ``edited``: an edit was applied this
        frame. Call after ``imgui.new_frame()``."""
        rect_px = _pixels(rect, pixel_ratio)
        moved, self.layer.rect_px = rect_px != self.layer.rect_px, rect_px
        io = imgui.get_io()
        mouse = io.mouse_pos
        engaged = (
            edited
            or rect.x <= mouse.x < rect.x + rect.width
            and rect.y <= mouse.y < rect.y + rect.height
            or any(io.mouse_down[button] for button in range(3))
            or imgui.is_any_item_active()
        )
        now = self.clock()
        layer = self.layer
        stale = (
            engaged
            or self._engaged
            or moved
            or key != self._key
            or (layer.shown is None and not layer.captured)
            # A frame's jitter: one in three at 60 Hz.
            or now - self._laid_out_at >= 1.0 / REFRESH_HZ - 1e-3
            and self._held >= REFRESH_FRAMES - 1
        )
        self._engaged = engaged
        layer.fresh, layer.capture = stale, not engaged  # pointed at, laid out every frame: nothing to hold
        if stale:
            self._key, self._laid_out_at, self._held = key, now, 0
        else:
            self._held += 1
        return stale

    def refresh(self) -> None:
        """Have the next frame lay the plots out."""
        self._laid_out_at, self._held = -math.inf, REFRESH_FRAMES

    def release(self) -> None:
        """Free the texture."""
        self.layer.release()


def _plots_list(owner: str) -> bool:
    """Whether a draw list of ``owner`` (a window's name) is the plots' window's or one of its children's."""
    return owner == PLOTS_WINDOW or owner.startswith(PLOTS_WINDOW + "/")


def _pixels(rect: Rect, pixel_ratio: float) -> tuple[int, int, int, int]:
    """The pixels whose centres ``rect`` (display units) holds, all that ImGui draws of a window there: (x, y,
    width, height) from the framebuffer's top-left. (The views' area above the plots may end within a pixel row,
    which is theirs when its centre is.)"""
    left, top = math.ceil(rect.x * pixel_ratio - 0.5), math.ceil(rect.y * pixel_ratio - 0.5)
    right = math.ceil((rect.x + rect.width) * pixel_ratio - 0.5)
    bottom = math.ceil((rect.y + rect.height) * pixel_ratio - 0.5)
    return left, top, max(right - left, 1), max(bottom - top, 1)
