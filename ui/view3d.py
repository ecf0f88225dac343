"""The 3D view of the window: where the panel, plots and view go, and the view's grid of linked cameras.

Rectangles are in window coordinates (top-left origin, y down, logical pixels, as ImGui and the mouse use);
viewports are in framebuffer pixels with GL's bottom-left origin (on a HiDPI display the framebuffer is larger
than the window by ``pixel_ratio``). The view shows one viewport per :class:`~scene.run_model.Group` (one per
integrator side by side), each with its own :class:`OrbitCamera`, all turned, panned and zoomed together; with
``RenderOptions.show_poinsot`` the Poinsot view (render/poinsot_view.py) takes the right part of the area
(render/grid.py's split_side_view), turned and zoomed with the others.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import moderngl
import numpy as np

from spinlab.render.camera import CameraFollower, OrbitCamera
from spinlab.render.grid import grid_columns, grid_viewports_in, split_side_view
from spinlab.render.legend import key_place
from spinlab.render.look import linear_to_srgb
from spinlab.render.poinsot import PoinsotTraces
from spinlab.render.poinsot_view import poinsot_camera, poinsot_label
from spinlab.render.renderer import REFERENCE_HEIGHT_PX, Renderer, Viewport
from spinlab.render.text import TextBox, TextOverlay
from spinlab.render.viewports import (
    LABEL_MARGIN_PX,
    LABEL_WIDTH_PX,
    draw_labelled_views,
    label_clearance,
)
from spinlab.scene.run_model import Group
from spinlab.scene.simulation import Snapshot

__all__ = ["Rect", "Layout", "window_layout", "SceneView", "PANEL_WIDTH", "PLOTS_HEIGHT_FRACTION"]

PANEL_WIDTH = 340.0
PLOTS_HEIGHT_FRACTION = 0.36
ENLARGED_PLOTS_HEIGHT_FRACTION = 0.5  # with one plot enlarged (ui/plot_focus.py): the strip is taller too
MIN_PLOTS_HEIGHT = 200.0
ORBIT_DEG_PER_PX = 0.35
MIN_VIEW_PX = 32  # a smaller view (a window being minimised) is not drawn
LEGEND_SIZE = 0.75  # the overlays' key, in the labels' scale: compact in a corner of the view
ROW_LEGEND_SIZE = 0.9  # the key along a strip, in a single view's labels' scale: as large as the panel's text


@dataclass(frozen=True)
class Rect:
    """x, y of the top-left corner and the size, in window coordinates."""

    x: float
    y: float
    width: float
    height: float

    def contains(self, x: float, y: float) -> bool:
        return self.x <= x < self.x + self.width and self.y <= y < self.y + self.height


@dataclass(frozen=True)
class Layout:
    """Where the panel and the plots go (``None`` when hidden) and the rest, the 3D view."""

    panel: Rect | None
    plots: Rect | None
    view: Rect


def window_layout(
    width: float, height: float, *, panel: bool, plots: bool, ui_scale: float = 1.0, enlarged: bool = False
) -> Layout:
    """The panel down the left side, the plots along the bottom right (taller with a plot ``enlarged``), the 3D
    view above them."""
    panel_width = min(PANEL_WIDTH * ui_scale, 0.5 * width) if panel else 0.0
    fraction = ENLARGED_PLOTS_HEIGHT_FRACTION if enlarged else PLOTS_HEIGHT_FRACTION
    plots_height = max(fraction * height, MIN_PLOTS_HEIGHT * ui_scale) if plots else 0.0
    plots_height = min(plots_height, 0.6 * height)
    return Layout(
        panel=Rect(0.0, 0.0, panel_width, height) if panel else None,
        plots=Rect(panel_width, height - plots_height, width - panel_width, plots_height) if plots else None,
        view=Rect(panel_width, 0.0, width - panel_width, height - plots_height),
    )


def to_viewport(rect: Rect, window_height: float, pixel_ratio: float) -> Viewport:
    """The framebuffer viewport (GL's bottom-left origin) covering ``rect``."""
    x0, x1 = round(rect.x * pixel_ratio), round((rect.x + rect.width) * pixel_ratio)
    y0 = round((window_height - rect.y - rect.height) * pixel_ratio)
    y1 = round((window_height - rect.y) * pixel_ratio)
    return (x0, y0, max(x1 - x0, 1), max(y1 - y0, 1))


class SceneView:
    """Draws a session's groups with ``renderer`` into a viewport of the window's framebuffer."""

    def __init__(self, renderer: Renderer, text: TextOverlay, groups: tuple[Group, ...]) -> None:
        self.renderer = renderer
        self.text = text
        self.groups = groups
        self.cameras: list[OrbitCamera] | None = None
        self.viewports: list[Viewport] = []
        self.poinsot_camera: OrbitCamera | None = None
        self.poinsot_viewport: Viewport | None = None  # where the Poinsot view went last (None: not shown)
        self.key_strip_px = 0  # the strip (framebuffer px) the overlays' key took at the bottom of the view
        self.follower = CameraFollower()  # the cameras moved with the selected body (Choices.follow)
        self.accents = [
            tuple(float(c) for c in linear_to_srgb(renderer.layout.colors_rgba[group.bodies[0], :3]))
            for group in groups
        ]

    def reset_cameras(self) -> None:
        """Frame every group again at the next draw (the default view)."""
        self.cameras = None
        self.poinsot_camera = None
        self.follower.reset()

    def follow(self, snapshot: Snapshot, body: int | None) -> None:
        """Move each view's camera with its copy of the scene's body ``body`` (``None``: follow nothing): by the
        body's displacement since the last frame (render/camera.py's :class:`CameraFollower`)."""
        if body is None or self.cameras is None or len(self.cameras) != len(self.groups):
            self.follower.reset()
            return
        rows = [group.bodies[body] if body < len(group.bodies) else -1 for group in self.groups]
        positions = np.where(np.array(rows)[:, None] >= 0, snapshot.position[rows], np.nan)
        self.follower.follow(self.cameras, positions)

    def orbit(self, dx_px: float, dy_px: float) -> None:
        """Turn every camera for a mouse drag of (dx, dy) pixels (x right, y up)."""
        for camera in [*(self.cameras or []), *([self.poinsot_camera] if self.poinsot_camera else [])]:
            camera.orbit(-ORBIT_DEG_PER_PX * dx_px, -ORBIT_DEG_PER_PX * dy_px)

    def pan(self, dx_px: float, dy_px: float, pixel_ratio: float) -> None:
        for camera, viewport in zip(self.cameras or [], self.viewports, strict=False):
            camera.pan(dx_px * pixel_ratio, dy_px * pixel_ratio, viewport[3])

    def zoom(self, steps: float, at: tuple[float, float] | None = None) -> None:
        """Zoom in by ``steps`` (mouse wheel clicks): the Poinsot view alone when ``at`` (framebuffer pixels, GL's
        bottom-left origin) is over it, it has a zoom of its own; else the grid's cameras, together."""
        if at is not None and self.poinsot_viewport is not None and self.poinsot_camera is not None:
            x, y, width, height = self.poinsot_viewport
            if x <= at[0] < x + width and y <= at[1] < y + height:
                self.poinsot_camera.zoom(steps)
                return
        for camera in self.cameras or []:
            camera.zoom(steps)

    def prepare(self, snapshot: Snapshot) -> None:
        """Let the renderer compute what drawing ``snapshot`` with the last frame's viewports and cameras needs."""
        if self.cameras is not None and len(self.viewports) == len(self.cameras):
            bodies = [np.array(group.bodies) for group in self.groups]
            self.renderer.prepare(snapshot, self.viewports, self.cameras, bodies)
        else:
            self.renderer.prepare(snapshot)

    def draw(
        self,
        screen: moderngl.Framebuffer,
        framebuffer_size: tuple[int, int],
        area: Viewport,
        snapshot: Snapshot,
        labels: list[tuple[str, ...]] | None,
        background: tuple[float, float, float] | None = None,
    ) -> None:
        """Draw ``snapshot`` into ``area`` of the window's ``screen`` (of ``framebuffer_size``), one viewport per
        group, with ``labels`` (one tuple of lines per group; ``None`` for none). With a ``background`` (sRGB), the
        rest of the screen may be filled with it (the renderer's ``draw_views``)."""
        x0, y0, width, height = area
        if width < MIN_VIEW_PX or height < MIN_VIEW_PX:
            return
        self.poinsot_viewport = None
        if self.renderer.options.show_poinsot and isinstance(self.renderer.poinsot_traces, PoinsotTraces):
            (x0, y0, width, height), self.poinsot_viewport = split_side_view(area, len(self.groups))
        cells = len(self.groups)
        columns = grid_columns(cells, width, height)
        self.viewports = grid_viewports_in((x0, y0, width, height), cells, columns)
        boxes, scale, base = [], 1.0, 1.0
        self.key_strip_px = 0
        if labels:
            base = framebuffer_size[1] / REFERENCE_HEIGHT_PX * 0.85
            scale = min(base * (1.0 if cells <= columns else 0.82), self.viewports[0][2] / LABEL_WIDTH_PX)
            margin = LABEL_MARGIN_PX * scale
            top = framebuffer_size[1]
            # The key to the overlays (render/legend.py's, as the video draws it), where no body is: an empty cell,
            # the corner of a wide view, or a strip the grid leaves at the bottom.
            place = key_place(
                (x0, y0, width, height), top, cells, margin, scale * LEGEND_SIZE, row_scale=base * ROW_LEGEND_SIZE
            )
            planes = bool(self.renderer.layout.torque_free.any())
            # In a strip or an empty cell, the key is not bound by a label's size: as large as the room allows, up to
            # the panel's text.
            size = ROW_LEGEND_SIZE * base / scale if place.row or place.max_height_px < math.inf else LEGEND_SIZE
            legend = place.box(self.renderer.options, size, planes=planes)
            if legend.lines:
                if place.grid != (x0, y0, width, height):
                    self.key_strip_px = place.grid[1] - y0
                    columns = grid_columns(cells, *place.grid[2:])
                    self.viewports = grid_viewports_in(place.grid, cells, columns)
            boxes = [
                TextBox(viewport[0] + margin, top - viewport[1] - viewport[3] + margin, lines, (accent,))
                for viewport, lines, accent in zip(self.viewports, labels, self.accents, strict=True)
            ]
            if legend.lines:
                boxes.append(legend)
        if self.cameras is None:
            # Each view framed below its label (the label's lines can grow later: a kick, a failure).
            self.cameras = [
                self.renderer.default_camera(
                    snapshot,
                    np.array(group.bodies),
                    viewport[2] / viewport[3],
                    label_clearance(len(lines), scale, viewport[3]),
                )
                for group, viewport, lines in zip(self.groups, self.viewports, labels or [()] * cells, strict=True)
            ]
        bodies = [np.array(group.bodies) for group in self.groups]
        if background is None:
            self.renderer.draw_views(screen, snapshot, self.viewports, self.cameras, bodies)
            if boxes:
                self.text.draw(screen, framebuffer_size, boxes, scale)
        else:
            draw_labelled_views(
                self.renderer, screen, framebuffer_size, snapshot, self.viewports, self.cameras, bodies,
                self.text if boxes else None, boxes, scale, background,
            )  # fmt: skip
        if self.poinsot_viewport is not None:
            width_scale = self.poinsot_viewport[2] / (1.3 * LABEL_WIDTH_PX)  # its lines are longer
            self._draw_poinsot(screen, framebuffer_size, min(base, width_scale) if labels else None)

    def _draw_poinsot(self, screen: moderngl.Framebuffer, framebuffer_size: tuple[int, int], scale) -> None:
        """The Poinsot view in its cell, labelled at ``scale`` (none when ``None``)."""
        viewport = self.poinsot_viewport
        aspect = viewport[2] / viewport[3]
        traces = self.renderer.poinsot_traces
        label = poinsot_label(self.renderer.scene.bodies[traces.body].integrator or "integrator", aspect)
        if self.poinsot_camera is None:
            clear = 0.0 if scale is None else label_clearance(len(label), scale, viewport[3])
            self.poinsot_camera = poinsot_camera(aspect, clear)
        self.renderer.draw_poinsot(screen, viewport, self.poinsot_camera)
        if scale is not None:
            margin = LABEL_MARGIN_PX * scale
            top = framebuffer_size[1] - viewport[1] - viewport[3] + margin
            box = TextBox(viewport[0] + margin, top, label, (None,))
            self.text.draw(screen, framebuffer_size, [box], scale)
