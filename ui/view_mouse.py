"""The mouse on the window's 3D view, as a person uses it: drag to orbit, right-drag (or Shift+drag) to pan, a click
(a press and release that barely move) selects the body under it, and Ctrl+drag strikes the body the drag starts on
(the selected one when it starts on none), the impulse drawn as an arrow with its value while the drag lasts.

:class:`ViewMouse` holds a gesture in progress and turns it into the app's edits (``PanelEdits.select_body``,
``PanelEdits.kick``) and camera moves; :meth:`ViewMouse.draw` draws the arrow and the ring round the selected body
with ImGui over the view. Mouse positions are pyglet's (window pixels, origin bottom left); ImGui's have the
origin top left; the views' viewports are framebuffer pixels (ui/picking.py).
"""

from __future__ import annotations

import numpy as np
from imgui_bundle import imgui

from spinlab.ui.kick_controls import drag_kick
from spinlab.ui.picking import Circles, body_at, body_circles

__all__ = ["ViewMouse", "CLICK_SLOP_PX", "ARROW_RGBA", "RING_RGBA"]

ORBIT_DEG_PER_PX = 0.35  # a drag turns every camera this much per window pixel
CLICK_SLOP_PX = 4.0  # a press and release this close (summed |dx| + |dy|, window px) are a click, not a drag
ARROW_RGBA = (1.0, 0.85, 0.3, 0.95)
RING_RGBA = (1.0, 1.0, 1.0, 0.55)
PLATE_RGBA = (0.06, 0.065, 0.075, 0.85)  # under the arrow's text, as the views' labels


class ViewMouse:
    """A mouse gesture on ``app``'s 3D view (ui/app.py's App: its window, view, renderer, session, choices)."""

    def __init__(self, app) -> None:
        self.app = app
        self.drag: str | None = None  # "orbit", "pan" or "kick" while a button is held on the view
        self.kick_drag = np.zeros(2)  # px (y up): a Ctrl+drag so far
        self.kick_body: int | None = None  # the scene body a Ctrl+drag strikes
        self._press = np.zeros(2)  # window px where the button went down
        self._now = np.zeros(2)  # window px where the mouse is now
        self._moved = 0.0

    # -- the gestures ---------------------------------------------------------------------------------------

    def press(self, x: float, y: float, *, inside: bool, pan: bool, kick: bool) -> None:
        """A button went down at ``(x, y)``: on the view (``inside``) it starts panning, striking or orbiting."""
        self._press[:] = self._now[:] = (x, y)
        self._moved = 0.0
        self.drag = None if not inside else ("pan" if pan else "kick" if kick else "orbit")
        if self.drag == "kick":
            picked = self.body_at(x, y)
            self.kick_body = self.app.state.selected_body if picked is None else picked
            self.kick_drag = np.zeros(2)
            if picked is not None:
                self.app.pending.select_body = picked

    def move(self, x: float, y: float, dx: float, dy: float) -> None:
        """The mouse moved by ``(dx, dy)`` to ``(x, y)`` with the button held."""
        self._now[:] = (x, y)
        self._moved += abs(dx) + abs(dy)
        app = self.app
        if self.drag == "kick":
            self.kick_drag += (dx, dy)
        elif self.drag == "orbit":
            app.view.orbit(-ORBIT_DEG_PER_PX * dx, -ORBIT_DEG_PER_PX * dy)
        elif self.drag == "pan":
            ratio = app.window.get_framebuffer_size()[0] / max(app.window.width, 1)
            app.view.pan(dx * ratio, dy * ratio)

    def release(self, x: float, y: float) -> None:
        """The button came up at ``(x, y)``: a strike ends, and a click selects the body under it."""
        if self.drag == "kick":
            kick = self._kick()
            if kick is not None:
                self.app.pending.kick = kick
        elif self.drag == "orbit" and self._moved <= CLICK_SLOP_PX:
            picked = self.body_at(x, y)
            if picked is not None:
                self.app.pending.select_body = picked
        self.drag = None

    def _kick(self):
        app = self.app
        dx, dy = self.kick_drag
        return drag_kick(app.view.cameras, app.timeline.session, app.state, dx, dy, app.window.height, self.kick_body)

    # -- where the bodies are ----------------------------------------------------------------------------------

    def circles(self, only_index: int | None = None) -> Circles:
        """Every body of every view (with ``only_index``, each view's body at that place) as drawn in the last frame
        (ui/picking.py); none before the first frame."""
        view, app = self.app.view, self.app
        if view is None or not view.cameras or len(view.cameras) != len(view.viewports):
            view_rows, viewports, cameras = [], [], []
        else:
            view_rows, viewports, cameras = [group.bodies for group in view.groups], view.viewports, view.cameras
        # The positions as drawn are the snapshot's (drawable() clamps only the ω and L arrows): no copy made.
        positions, radii = app.timeline.shown.snapshot.position, app.renderer.layout.radius
        return body_circles(viewports, cameras, view_rows, positions, radii, only_index)

    def body_at(self, x: float, y: float) -> int | None:
        """The scene index of the body drawn under the window point ``(x, y)`` in the last frame (ui/picking.py's
        rays against the drawn parts), or ``None``."""
        view, app, ratio = self.app.view, self.app, self._pixel_ratio()
        if view is None or not view.cameras or len(view.cameras) != len(view.viewports):
            return None
        rows = [group.bodies for group in view.groups]
        hit = body_at(
            x * ratio, y * ratio, view.viewports, view.cameras, rows, app.renderer.layout, app.timeline.shown.snapshot
        )
        return None if hit is None else app.timeline.session.scene_body(hit[0])

    def _pixel_ratio(self) -> float:
        window = self.app.window
        return window.get_framebuffer_size()[0] / max(window.width, 1)

    # -- what is drawn over the view ---------------------------------------------------------------------------

    def draw(self) -> None:
        """Over the view (ImGui's foreground): a ring round each copy of the selected body where a view holds more
        than one body, and during a Ctrl+drag the arrow from the press to the mouse with the impulse it strikes."""
        app = self.app
        draw_list = imgui.get_foreground_draw_list()
        ratio, height = self._pixel_ratio(), app.window.height
        groups = app.view.groups if app.view is not None else ()
        if any(len(group.bodies) > 1 for group in groups):
            color = imgui.get_color_u32(imgui.ImVec4(*RING_RGBA))
            rings = self.circles(only_index=app.timeline.session.place(app.state.selected_body))
            for x, y, radius in zip(rings.x, rings.y, rings.radius, strict=True):
                centre = imgui.ImVec2(float(x) / ratio, height - float(y) / ratio)
                draw_list.add_circle(centre, max(float(radius) / ratio, 6.0), color, 0, 1.5)
        if self.drag != "kick":
            return
        start = imgui.ImVec2(float(self._press[0]), height - float(self._press[1]))
        end = imgui.ImVec2(float(self._now[0]), height - float(self._now[1]))
        color = imgui.get_color_u32(imgui.ImVec4(*ARROW_RGBA))
        draw_list.add_line(start, end, color, 2.5)
        _arrow_head(draw_list, start, end, color)
        kick = self._kick()
        name = app.state.scene.bodies[self.kick_body].name if self.kick_body is not None else "?"
        size = 0.0 if kick is None else float(np.linalg.norm(kick[1]))
        per_100_px = _impulse_per_100_px(app, self.kick_body)
        text = f"kick {name}: |J| = {size:.3g} N·m·s ({per_100_px:.3g} per 100 px)"
        # Below the arrow's tip (clear of its shaft however it points), on a dark plate, kept inside the window.
        size_px = imgui.calc_text_size(text)
        x = max(min(end.x - 0.5 * size_px.x, app.window.width - size_px.x - 10.0), 10.0)
        below, above = end.y + 16.0, end.y - 16.0 - size_px.y
        fits_below, fits_above = below + size_px.y <= height - 10.0, above >= 10.0
        y = below if (end.y >= start.y and fits_below) or not fits_above else above
        plate = imgui.get_color_u32(imgui.ImVec4(*PLATE_RGBA))
        top_left, bottom_right = imgui.ImVec2(x - 6.0, y - 3.0), imgui.ImVec2(x + size_px.x + 6.0, y + size_px.y + 3.0)
        draw_list.add_rect_filled(top_left, bottom_right, plate, 4.0)
        draw_list.add_text(imgui.ImVec2(x, y), color, text)


def _arrow_head(draw_list, start: imgui.ImVec2, end: imgui.ImVec2, color: int) -> None:
    dx, dy = end.x - start.x, end.y - start.y
    length = float(np.hypot(dx, dy))
    if length < 1.0:
        return
    ux, uy = dx / length, dy / length
    size = min(12.0, 0.5 * length)
    left = imgui.ImVec2(end.x - size * ux + 0.5 * size * uy, end.y - size * uy - 0.5 * size * ux)
    right = imgui.ImVec2(end.x - size * ux - 0.5 * size * uy, end.y - size * uy + 0.5 * size * ux)
    draw_list.add_triangle_filled(end, left, right, color)


def _impulse_per_100_px(app, index: int | None) -> float:
    """N·m·s a 100 px drag strikes the body ``index`` with (ui/kick_controls.py's scale: a drag the view's height
    strikes the body's |L|, or its largest moment × 1 rad/s)."""
    if index is None or app.window.height <= 0:
        return 0.0
    kick = drag_kick(app.view.cameras, app.timeline.session, app.state, 100.0, 0.0, app.window.height, index)
    return 0.0 if kick is None else float(np.linalg.norm(kick[1]))
