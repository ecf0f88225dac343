"""One run on screen, composed once for the window, the video and the stills, so that they show the same.

A :class:`RunView` holds everything of a run that is drawn: its renderer (the bodies and, per run, their trails,
exact ghosts and Poinsot traces), its views (one per :class:`~scene.model.run_model.Group`: one per integrator side by
side or in the compare preset), their cameras (framed at the first draw and then held; turned, panned and zoomed
together, moved with a body, or set by a scene's camera keys: :meth:`steer`), the labels and the overlays' key, and
the Poinsot view's cell. A driver feeds it a
run's steps (:meth:`feed`, after each step call, or :meth:`show`, a past step rebuilt from the run's step record,
scene/model/step_record.py) and draws a run, or a moment of it, into an area of a framebuffer (:meth:`draw`). The window
(ui/app.py), ``record`` (render/record.py) and the stills (commands/stills.py) are such drivers: what the
window shows is what ``record`` writes because both draw through here; they differ only in the text scale they ask
for and the background around the views.

Areas and viewports are framebuffer pixels with GL's bottom-left origin.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Sequence

import moderngl
import numpy as np

from spinlab.render.camera import CameraFollower, OrbitCamera
from spinlab.render.captions import CaptionLayer, PointedView
from spinlab.render.grid import grid_columns, grid_viewports_in, split_side_view
from spinlab.render.legend import EVERY_OVERLAY, key_place
from spinlab.render.look import SEPARATOR_SRGB, linear_to_srgb
from spinlab.render.poinsot import PoinsotTraces
from spinlab.render.poinsot_view import poinsot_camera, poinsot_label
from spinlab.render.renderer import REFERENCE_HEIGHT_PX, Renderer, RenderOptions, Viewport
from spinlab.render.text import TextBox, TextOverlay
from spinlab.render.viewports import (
    LABEL_LINE,
    LABEL_MARGIN_PX,
    LABEL_WIDTH_PX,
    draw_labelled_views,
    follow_session,
    label_clearance,
    push_trails,
    show_history,
)
from spinlab.scene.model.camera_path import CameraDirector, CameraState
from spinlab.scene.model.captions import captions_at
from spinlab.scene.model.palette import rgb_triple
from spinlab.scene.model.run_model import Group, Session, view_labels
from spinlab.scene.running.simulation import Snapshot

__all__ = ["RunView", "MIN_VIEW_PX", "ROWS_LABEL_SCALE", "LEGEND_SIZE", "ROW_LEGEND_SIZE", "reference_scale"]

MIN_VIEW_PX = 32  # a smaller area (a window being minimised) is not drawn
ROWS_LABEL_SCALE = 0.82  # the labels of a grid of several rows, against a single row's
LEGEND_SIZE = 0.75  # the overlays' key, in the labels' scale: compact in a corner of the view
ROW_LEGEND_SIZE = 0.9  # the key along a strip, in the labels' base scale
POINSOT_LABEL_WIDTH_PX = 1.3 * LABEL_WIDTH_PX  # the Poinsot view's label lines are longer


def reference_scale(height_px: float) -> float:
    """The text scale of a target ``height_px`` high: 1 at :data:`REFERENCE_HEIGHT_PX` (720)."""
    return height_px / REFERENCE_HEIGHT_PX


class RunView:
    """``session``'s run drawn with a :class:`Renderer` on ``ctx`` (``options``: its overlays), one view per group
    (the session's by default), labelled with ``text`` (none when ``None``)."""

    def __init__(
        self,
        ctx: moderngl.Context,
        session: Session,
        text: TextOverlay | None,
        *,
        options: RenderOptions | None = None,
        groups: Sequence[Group] | None = None,
    ) -> None:
        self.renderer = Renderer(ctx, session.scene, options=options)
        self.text = text
        self.captions = None if text is None else CaptionLayer(ctx, text)  # the scene's, when options show them
        self.cameras: list[OrbitCamera] | None = None
        self.viewports: list[Viewport] = []
        self.poinsot_camera: OrbitCamera | None = None
        self.poinsot_viewport: Viewport | None = None  # where the Poinsot view went last (None: not shown)
        self.key_strip_px = 0  # the strip the overlays' key took at the bottom of the area
        self._key: tuple[tuple[int, int], TextBox, float] | None = None  # (target size, key, scale) last drawn
        self.caption_rects: list[tuple[float, float, float, float]] = []  # the placed captions' panels last drawn
        self.follower = CameraFollower()  # the cameras moved with a body (the window's follow, record --follow)
        self.place = session.place  # a scene body's place among each view's bodies
        self._row, self._scene_body = session.row, session.scene_body
        self._index = {body.name: index for index, body in enumerate(session.setup.scene.bodies)}
        self._steering: tuple[CameraDirector | None, float] = (None, 0.0)  # the camera keys and the time shown
        self._framed: list[CameraState] = []  # each view's own framing, where the keys start from
        self.set_groups(session.groups if groups is None else groups)

    def set_groups(self, groups: Sequence[Group]) -> None:
        """Show the run in one view per group of ``groups``; the cameras are framed again at the next draw."""
        self.groups = tuple(groups)
        colors = self.renderer.layout.colors_rgba
        self.accents = [rgb_triple(linear_to_srgb(colors[group.bodies[0], :3])) for group in self.groups]
        self._copies: dict[str, list[int]] = {}  # a body's copy in each view (-1: none), by name
        self.reset_cameras()

    def release(self) -> None:
        self.renderer.release()
        if self.captions is not None:
            self.captions.release()

    # -- the run's steps ------------------------------------------------------------------------------------------

    def feed(self, shown, preferred_body: int | None = None) -> None:
        """After a step call of ``shown`` (a :class:`Session`, or a :class:`~scene.model.step_record.Moment` of the
        steps played on through a step record): its steps into the trails, its exact ghosts, and its steps into the
        Poinsot view's traces, of ``preferred_body`` when it can (render/viewports.py's :func:`follow_session`)."""
        push_trails(self.renderer, shown.latest)
        follow_session(self.renderer, shown, preferred_body)

    def show(self, session: Session, step: int, preferred_body: int | None = None) -> None:
        """The run's trails, ghosts and Poinsot traces as they were right after ``session``'s step ``step`` was
        drawn, from its history (render/viewports.py's :func:`show_history`)."""
        show_history(self.renderer, session, step, preferred_body)

    # -- the cameras ---------------------------------------------------------------------------------------------

    def reset_cameras(self) -> None:
        """Frame every view again at the next draw (the default view), and give the cameras back to the camera keys
        if a person held them."""
        if self._steering[0] is not None:
            self._steering[0].let_go()
        self.cameras = None
        self.poinsot_camera = None
        self.follower.reset()

    def follow(self, snapshot: Snapshot, body: int | None) -> None:
        """Move each view's camera with its copy of the scene's body ``body`` (``None``: follow nothing; side by side,
        the copy of the body that stands for it, scene/model/run_model.py's ``stand_ins``): by the
        body's displacement since the last call (render/camera.py's :class:`CameraFollower`)."""
        if body is None or self.cameras is None or len(self.cameras) != len(self.groups):
            self.follower.reset()
            return
        body = self.place(body)
        rows = [group.bodies[body] if body < len(group.bodies) else -1 for group in self.groups]
        positions = np.where(np.array(rows)[:, None] >= 0, snapshot.position[rows], np.nan)
        self.follower.follow(self.cameras, positions)

    def steer(self, snapshot: Snapshot, t: float, director: CameraDirector | None) -> None:
        """Set every view's camera (not the Poinsot view's) as ``director``'s camera keys say at ``t`` s
        (scene/model/camera_path.py), from each view's own framing, a body target each view's copy of the body
        (in a view without one, its body in the same place among its view's bodies; else its own target); nothing
        when ``None``, not playing, or held by a person. Before the first draw the cameras are set as they are
        framed."""
        self._steering = director, t
        if director is None or self.cameras is None or len(self._framed) != len(self.cameras):
            return
        if not director.steers(t):
            return
        for view, (camera, start) in enumerate(zip(self.cameras, self._framed, strict=True)):
            camera.set_state(director.path.at(t, start, functools.partial(self._copy_at, snapshot, view=view)))

    def _copy_at(self, snapshot: Snapshot, name: str, view: int) -> np.ndarray | None:
        """Where view ``view``'s copy of the scene's body ``name`` is in ``snapshot`` (``None``: it has none)."""
        rows = self._copies.get(name)
        if rows is None and name not in self._index:  # keys of a scene loaded since, for a frame
            return None
        if rows is None:
            stand_in = self._scene_body(self._row(self._index[name]))
            rows = [next((row for row in group.bodies if self._scene_body(row) == stand_in), -1)
                    for group in self.groups]  # fmt: skip
            # A view without a copy (the compare preset's: a body per integrator) aims at its body in the place the
            # named body has in its own view: each view at its own T-handle, alike.
            place = next((group.bodies.index(row) for group, row in zip(self.groups, rows, strict=True) if row >= 0),
                         None)  # fmt: skip
            rows = [row if row >= 0 or place is None or place >= len(group.bodies) else group.bodies[place]
                    for group, row in zip(self.groups, rows, strict=True)]  # fmt: skip
            self._copies[name] = rows
        return None if rows[view] < 0 else snapshot.position[rows[view]]

    def _grab(self) -> None:
        """A person moved the cameras: the camera keys let go of them until the next key."""
        director, t = self._steering
        if director is not None:
            director.grab(t)

    def orbit(self, degrees_x: float, degrees_y: float) -> None:
        """Turn every camera (the Poinsot view's too) by these angles."""
        self._grab()
        for camera in [*(self.cameras or []), *([self.poinsot_camera] if self.poinsot_camera else [])]:
            camera.orbit(degrees_x, degrees_y)

    def pan(self, dx_px: float, dy_px: float) -> None:
        """Move the grid's cameras for a drag of (dx, dy) framebuffer pixels."""
        self._grab()
        for camera, viewport in zip(self.cameras or [], self.viewports, strict=False):
            camera.pan(dx_px, dy_px, viewport[3])

    def zoom(self, steps: float, at: tuple[float, float] | None = None) -> None:
        """Zoom in by ``steps`` (mouse wheel clicks): the Poinsot view alone when ``at`` (framebuffer pixels) is over
        it, it has a zoom of its own; else the grid's cameras, together."""
        if at is not None and self.poinsot_viewport is not None and self.poinsot_camera is not None:
            x, y, width, height = self.poinsot_viewport
            if x <= at[0] < x + width and y <= at[1] < y + height:
                self.poinsot_camera.zoom(steps)
                return
        self._grab()
        for camera in self.cameras or []:
            camera.zoom(steps)

    # -- drawing -------------------------------------------------------------------------------------------------

    def prepare(self, snapshot: Snapshot) -> None:
        """Let the renderer compute now (no GL) what drawing ``snapshot`` with the last draw's viewports and
        cameras needs."""
        if self.cameras is not None and len(self.viewports) == len(self.cameras):
            self.renderer.prepare(snapshot, self.viewports, self.cameras, self._bodies())
        else:
            self.renderer.prepare(snapshot)

    def draw(
        self,
        framebuffer: moderngl.Framebuffer,
        size: tuple[int, int],
        area: Viewport,
        shown,
        *,
        text_scale: float,
        labels: Sequence[tuple[str, ...]] | None = None,
        background: tuple[float, float, float] = SEPARATOR_SRGB,
        snapshot: Snapshot | None = None,
        shares_target: bool = False,
        key: bool = True,
        key_span: Viewport | None = None,
    ) -> None:
        """Draw ``shown`` (a session, or a moment of it) into ``area`` of ``framebuffer`` (of ``size`` pixels), one
        viewport per group, each labelled (``labels``, one tuple of lines per group; by default
        :func:`~scene.model.run_model.view_labels`) at ``text_scale`` (1: a 720-pixel-high target's size; several rows
        of views take :data:`ROWS_LABEL_SCALE` of it), with the overlays' key where no body is, and the Poinsot view
        in the right part of the area when it is shown. The rest of ``framebuffer`` is filled with ``background``
        (sRGB; the renderer keeps one cached copy of it), unless ``shares_target``: another view
        draws beside it (a branch and its original), and only ``area`` is drawn. ``snapshot``: the bodies drawn, if
        not ``shown``'s own. Two runs side by side show one key: the one without (``key`` False) keeps the strip the
        key would take, so that their views are alike, and the other's key along a strip runs across ``key_span``
        (both their areas, given to both; drawn after the other)."""
        x0, y0, width, height = area
        framebuffer.use()
        if width < MIN_VIEW_PX or height < MIN_VIEW_PX:
            if not shares_target:  # no renderer fills it: the background alone
                framebuffer.scissor = None  # type: ignore[assignment]  # None (no scissor test) is allowed
                framebuffer.clear(*background, 1.0, depth=1.0)
            return
        if shares_target:
            # An empty cell of the grid is the background, whatever was there before; else the renderer fills the
            # whole framebuffer (once: its backdrop, copied from its cache, sets every pixel).
            framebuffer.scissor = area
            framebuffer.clear(*background, 1.0, depth=1.0)
            framebuffer.scissor = None  # type: ignore[assignment]  # None (no scissor test) is allowed; the stub omits it
        snapshot = shown.drawable() if snapshot is None else snapshot
        labels = view_labels(shown, self.groups) if labels is None else labels
        self.poinsot_viewport = None
        if self.renderer.options.show_poinsot and isinstance(self.renderer.poinsot_traces, PoinsotTraces):
            (x0, y0, width, height), self.poinsot_viewport = split_side_view(area, len(self.groups))
        boxes, scale = self._layout((x0, y0, width, height), size, labels, text_scale, key, key_span)
        if self.cameras is None:
            # Each view framed below its label (the label's lines can grow later: a kick, a failure).
            self.cameras = [
                self.renderer.default_camera(
                    snapshot, np.array(group.bodies), viewport[2] / viewport[3],
                    label_clearance(len(lines), scale, viewport[3]) if self.text is not None else 0.0,
                )
                for group, viewport, lines in zip(self.groups, self.viewports, labels, strict=True)
            ]  # fmt: skip
            self._framed = [camera.state() for camera in self.cameras]
            self.steer(snapshot, self._steering[1], self._steering[0])
        fixed = boxes[-1:] if self._key is not None else []  # the overlays' key, last when shown
        draw_labelled_views(
            self.renderer, framebuffer, size, snapshot, self.viewports, self.cameras, self._bodies(),
            self.text if boxes else None, boxes[: len(boxes) - len(fixed)], scale,
            None if shares_target else background, fixed,
        )  # fmt: skip
        if self.poinsot_viewport is not None:
            self._draw_poinsot(framebuffer, size, min(text_scale, self.poinsot_viewport[2] / POINSOT_LABEL_WIDTH_PX))
        self.caption_rects = []
        if self.captions is not None and self.renderer.options.show_captions:
            self._draw_captions(framebuffer, size, area, shown, snapshot, boxes, scale, text_scale)

    def _draw_captions(
        self, framebuffer: moderngl.Framebuffer, size: tuple[int, int], area: Viewport, shown, snapshot: Snapshot,
        boxes: list[TextBox], scale: float, text_scale: float,
    ) -> None:  # fmt: skip
        """The captions shown at ``shown``'s step (scene/model/captions.py) over ``area``, clear of the labels and
        key (``boxes`` at ``scale``); one naming a body beside its copy in each view (side by side, the copy of the
        body copied for it, as :meth:`follow` finds it)."""
        captions = captions_at(shown)
        if not captions or self.captions is None or self.cameras is None:
            return
        side_by_side = shown.setup.side_by_side
        rows_of: dict[int, list[int | None]] = {}
        for body in {caption.body for caption in captions if caption.body is not None}:
            place = self.place(body)
            rows_of[body] = [
                (group.bodies[place] if place < len(group.bodies) else None)
                if side_by_side
                else (body if body in group.bodies else None)
                for group in self.groups
            ]
        views = [PointedView(viewport, camera) for viewport, camera in zip(self.viewports, self.cameras, strict=False)]
        avoid = self.text.panel_rects(size, boxes, scale) if self.text is not None and boxes else ()
        self.caption_rects = self.captions.draw(
            framebuffer, size, area, captions, text_scale, label_scale=scale, avoid=avoid,
            bottom_clear_px=self.key_strip_px, views=views, rows_of=rows_of, positions=snapshot.position,
            radii=self.renderer.layout.radius,
        )  # fmt: skip

    def _layout(
        self, area: Viewport, size: tuple[int, int], labels, text_scale: float, shown_key: bool, span: Viewport | None
    ) -> tuple[list, float]:
        """The views' viewports in ``area`` (:attr:`viewports`, below the key's strip when it takes one) and the
        text boxes to draw: each view's label and the key (unless not ``shown_key``; along a strip, across ``span``
        when given); the labels' scale."""
        cells = len(self.groups)
        columns = grid_columns(cells, *area[2:])
        self.viewports = grid_viewports_in(area, cells, columns)
        self.key_strip_px = 0
        self._key = None
        if self.text is None:
            return [], 1.0
        rows_scale = text_scale * (1.0 if cells <= columns else ROWS_LABEL_SCALE)
        scale = min(rows_scale, self.viewports[0][2] / LABEL_WIDTH_PX)
        margin = LABEL_MARGIN_PX * scale
        # The key to the overlays (render/legend.py), where no body is: an empty cell, the corner of a wide view, or
        # a strip the grid leaves at the bottom; there, not bound by a label's size, as large as the room allows.
        place = key_place(area, size[1], cells, margin, scale * LEGEND_SIZE, row_scale=text_scale * ROW_LEGEND_SIZE)
        roomy = place.row or place.max_height_px < math.inf
        if place.row and span is not None:
            right, room = span[0] + span[2] - margin, max(span[2] - 2.0 * margin, 1.0)
            place = dataclasses.replace(place, x_px=right, max_width_px=room)
        planes = bool(self.renderer.layout.torque_free.any())  # an invariable plane to name
        key = place.box(
            self.renderer.options, ROW_LEGEND_SIZE * text_scale / scale if roomy else LEGEND_SIZE, planes=planes
        )
        if key.lines and place.row:
            # The key keeps its size and goes on over more lines where the strip is narrow (beside the Poinsot
            # view): the strip grows to hold them, all of them, so that the views stay where they are as overlays are
            # turned on and off.
            largest = place.box(EVERY_OVERLAY, key.size, planes=planes)  # the strip's room whatever is shown
            strip = math.ceil(self.text.panel_rects(size, [largest], scale)[0][3] + margin)
            place = dataclasses.replace(place, grid=(area[0], area[1] + strip, area[2], max(area[3] - strip, 1)))
        if key.lines and place.grid != tuple(area):
            self.key_strip_px = place.grid[1] - area[1]
            self.viewports = grid_viewports_in(place.grid, cells, grid_columns(cells, *place.grid[2:]))
        top = size[1]
        boxes = [
            TextBox(
                viewport[0] + margin,
                top - viewport[1] - viewport[3] + margin,
                tuple(lines),
                (accent,),
                width_of=LABEL_LINE,
            )
            for viewport, lines, accent in zip(self.viewports, labels, self.accents, strict=True)
            if lines
        ]
        if key.lines and shown_key:
            boxes.append(key)
            self._key = size, key, scale
        return boxes, scale

    @property
    def key_rect(self) -> tuple[float, float, float, float] | None:
        """The overlays' key's panel (x, y, width, height; pixels from the target's top left) at the last draw, if
        it was drawn: measured when asked (the window asks only while a badge must keep clear of it)."""
        if self._key is None or self.text is None:
            return None
        size, key, scale = self._key
        return self.text.panel_rects(size, [key], scale)[0]

    @property
    def clear_rect(self) -> tuple[float, float, float, float] | None:
        """The panel that holds the overlays' key and the placed captions at the last draw (x, y, width, height;
        pixels from the target's top left), if any: what the window's badge keeps clear of."""
        rects = [rect for rect in (self.key_rect, *self.caption_rects) if rect is not None]
        if not rects:
            return None
        left, top = min(rect[0] for rect in rects), min(rect[1] for rect in rects)
        right, bottom = max(rect[0] + rect[2] for rect in rects), max(rect[1] + rect[3] for rect in rects)
        return left, top, right - left, bottom - top

    def _bodies(self) -> list[np.ndarray]:
        return [np.array(group.bodies) for group in self.groups]

    def _draw_poinsot(self, framebuffer: moderngl.Framebuffer, size: tuple[int, int], scale: float) -> None:
        """The Poinsot view in its cell, labelled at ``scale`` (unlabelled without text)."""
        viewport = self.poinsot_viewport
        assert viewport is not None, "the Poinsot cell is placed before it is drawn"
        aspect = viewport[2] / viewport[3]
        traces = self.renderer.poinsot_traces
        label = poinsot_label(self.renderer.scene.bodies[traces.body].integrator or "integrator", aspect)
        if self.poinsot_camera is None:
            clear = 0.0 if self.text is None else label_clearance(len(label), scale, viewport[3])
            self.poinsot_camera = poinsot_camera(aspect, clear, traces)
        self.renderer.draw_poinsot(framebuffer, viewport, self.poinsot_camera)
        if self.text is not None:
            margin = LABEL_MARGIN_PX * scale
            top = size[1] - viewport[1] - viewport[3] + margin
            self.text.draw(framebuffer, size, [TextBox(viewport[0] + margin, top, label, (None,))], scale)
