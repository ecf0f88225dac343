"""An ImGui window laid out again at most :data:`REFRESH_HZ` times a second while nobody points at it, and shown
from a texture in the frames between (render/imgui_draw.py's :class:`ImGuiLayer`): the plots' and the panel's.

Laying out the plots (ImPlot) and handing their ~25 000 indices to llvmpipe cost the window's thread ~3.5 ms a frame
of compare's ~15 at 1280×720, and the rasteriser as much again; the panel, its thousands of glyphs, ~3.5 ms of CPU a
frame of side by side's. At 60 frames a second a plot's 20 s window moves by a tenth of a pixel from one frame to
the next, and the panel's figures are read at a glance. So each is laid out at most :data:`REFRESH_HZ` times a second
and on one frame in :data:`REFRESH_FRAMES` at most (at 60 Hz, one in three); that frame draws it into the layer's
framebuffer alone and still shows the texture, which shows the new layout from the next frame on: the figures reach
the screen a frame later, and llvmpipe rasterises them once, not twice. The frames between ask ImGui to keep the
window as it was (its refresh policy ``try_to_avoid_refresh``: ``begin`` returns False, and the window keeps its
place, focus, scroll and last draw list), and draw the layer's texture in place of that list (the same pixels, a
level apart at a few). A window is laid out every frame, and drawn straight (at once), while the pointer is over
it, a mouse button is down, a widget is active, a popup is open or an edit came that frame (and the frame after
that, which captures it again), and when its ``key`` changes (the run, the plots' options, the text's size) or the
rectangle it covers does.
"""

from __future__ import annotations

import math
import time
from collections.abc import Hashable, Iterator
from contextlib import contextmanager

from imgui_bundle import imgui

from spinlab.render.imgui_draw import ImGuiLayer
from spinlab.ui.view3d import Rect

__all__ = ["WindowLayer", "REFRESH_HZ", "REFRESH_FRAMES"]

REFRESH_HZ = 20.0
REFRESH_FRAMES = 3  # and at least this many frames apart: a slow frame's window costs it less, not more


class WindowLayer:
    """When the ImGui window ``name`` (its ID: ``"plots"``, ``"###panel"``) is laid out, and the texture it is shown
    from (``layer``). Nothing is drawn under the window but the window's ``background`` (sRGB)."""

    def __init__(self, name: str, background: tuple[float, float, float]) -> None:
        self.name = name
        self.layer = ImGuiLayer(self.owns, background)
        self._owner = name  # the window's whole name (its title and ID), as its draw lists are owned
        self._key: Hashable = None
        self._laid_out_at = -math.inf
        self._engaged = False
        self._held = 0  # frames shown from the texture since the window was laid out
        self.clock = time.perf_counter  # s

    def lay_out(self, rect: Rect, pixel_ratio: float, key: Hashable, edited: bool) -> bool:
        """Whether this frame lays the window out at ``rect`` (display units; ``pixel_ratio`` pixels each), else asks
        ImGui to keep it and shows the texture. ``key``: what, changed, makes the texture stale; ``edited``: an edit
        was applied this frame. Call after ``imgui.new_frame()``, just before the window's ``begin``; then
        :meth:`begun` (:meth:`around` does both)."""
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
            or imgui.is_popup_open("", imgui.PopupFlags_.any_popup_id)
        )
        now = self.clock()
        layer = self.layer
        changed = engaged or self._engaged or moved or key != self._key or (layer.shown is None and not layer.captured)
        # A frame's jitter: one in three at 60 Hz.
        due = now - self._laid_out_at >= 1.0 / REFRESH_HZ - 1e-3 and self._held >= REFRESH_FRAMES - 1
        stale = changed or due
        self._engaged = engaged
        layer.fresh, layer.capture = stale, not engaged  # pointed at, laid out every frame: nothing to hold
        layer.late = stale and not changed and layer.shown is not None  # its last layout shown once more
        if stale:
            self._key, self._laid_out_at, self._held = key, now, 0
        else:
            self._held += 1
            imgui.internal.set_next_window_refresh_policy(imgui.internal.WindowRefreshFlags_.try_to_avoid_refresh)
        return stale

    @contextmanager
    def around(self, rect: Rect, pixel_ratio: float, key: Hashable, edited: bool) -> Iterator[None]:
        """Around the window's ``begin`` … ``end``: :meth:`lay_out` just before, :meth:`begun` after."""
        self.lay_out(rect, pixel_ratio, key, edited)
        yield
        self.begun()

    def begun(self) -> None:
        """After the window's ``end``: what its draw lists are owned as, and whether ImGui kept it as asked (it lays
        out a window that was hidden or is appearing: that frame is then drawn as laid out, and captured)."""
        window = imgui.internal.find_window_by_name(self.name)  # there: begun this frame
        self._owner = window.name
        if not self.layer.fresh and not window.skip_refresh:
            self.layer.fresh = self.layer.capture = True
            self.layer.late = False
            self._laid_out_at, self._held = self.clock(), 0

    def owns(self, owner: str) -> bool:
        """Whether a draw list of ``owner`` (a window's name) is this window's or one of its children's."""
        return owner == self._owner or owner.startswith(self._owner + "/")

    def refresh(self) -> None:
        """Have the next frame lay the window out."""
        self._laid_out_at, self._held = -math.inf, REFRESH_FRAMES

    def release(self) -> None:
        """Free the texture."""
        self.layer.release()


def _pixels(rect: Rect, pixel_ratio: float) -> tuple[int, int, int, int]:
    """The pixels whose centres ``rect`` (display units) holds, all that ImGui draws of a window there: (x, y,
    width, height) from the framebuffer's top-left. (The views' area above the plots may end within a pixel row,
    which is theirs when its centre is.)"""
    left, top = math.ceil(rect.x * pixel_ratio - 0.5), math.ceil(rect.y * pixel_ratio - 0.5)
    right = math.ceil((rect.x + rect.width) * pixel_ratio - 0.5)
    bottom = math.ceil((rect.y + rect.height) * pixel_ratio - 0.5)
    return left, top, max(right - left, 1), max(bottom - top, 1)
