"""Split views: N viewports in a grid, each with its own camera and a text label.

:func:`session_views` makes a run's views (scene/run_model.py): one per :class:`~scene.run_model.Group` (one per
integrator side by side or in the compare preset), labelled by :func:`scene.run_model.view_labels` as the window
labels them. The grid of cells is render/grid.py's, the window's (ui/view3d.py) and the video's alike.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import moderngl
import numpy as np

from spinlab.render.camera import OrbitCamera
from spinlab.render.ghost import ghost_orientations
from spinlab.render.grid import GAP_PX, grid_columns, grid_viewports, grid_viewports_in, split_side_view
from spinlab.render.legend import key_place, legend_box
from spinlab.render.look import SEPARATOR_SRGB, linear_to_srgb
from spinlab.render.poinsot import TRACE_CAPACITY, PoinsotTraces, poinsot_body
from spinlab.render.poinsot_view import poinsot_camera, poinsot_label
from spinlab.render.renderer import REFERENCE_HEIGHT_PX, Renderer, Viewport
from spinlab.render.text import Color, TextBox, TextOverlay, panel_height_px
from spinlab.scene.history import Moment
from spinlab.scene.run_model import Group, Session, Steps, view_labels
from spinlab.scene.simulation import Snapshot

__all__ = [
    "View",
    "grid_viewports",
    "render_grid",
    "grid_columns",
    "session_views",
    "push_trails",
    "show_history",
    "legend_box",
    "GAP_PX",
    "draw_labelled_views",
    "view_batches",
    "LABEL_MARGIN_PX",
    "label_scale",
    "label_clearance",
    "default_cameras",
]

LABEL_MARGIN_PX = 14.0
LABEL_WIDTH_PX = 330.0  # a view's widest label line at scale 1 ("t = 10.00 s    |ΔE|/E = 1.2e-05"), with margins


@dataclass
class View:
    """One viewport's content: ``renderer`` draws ``snapshot`` (its ``bodies``, all by default) from ``camera``
    (``None``: the renderer's default camera for those bodies); ``label`` lines go top-left, ``accent`` (sRGB)
    is the label's colour dot."""

    renderer: Renderer
    snapshot: Snapshot
    bodies: Sequence[int] | None = None
    label: tuple[str, ...] = ()
    accent: Color | None = None
    camera: OrbitCamera | None = None


def render_grid(
    framebuffer: moderngl.Framebuffer,
    size: tuple[int, int],
    views: Sequence[View],
    text: TextOverlay | None,
    columns: int | None = None,
    *,
    legend: bool = False,
) -> list[Viewport]:
    """Draw ``views`` in a grid over the whole ``framebuffer`` (of ``size`` pixels) and their labels with
    ``text`` (none when ``None``), and with ``legend`` a key to the overlays where no body is
    (:func:`render.legend.key_place`).
    ``columns`` defaults to the grid whose cells are closest to ``CELL_ASPECT``. Returns the viewports used, in
    ``views``' order. When the first view's renderer shows the Poinsot view (``RenderOptions.show_poinsot``), it
    takes the right part of the target (:func:`render.grid.split_side_view`) and the grid the rest."""
    side = _side_view(views, size)
    grid_size = size if side is None else (side[0] - GAP_PX, size[1])
    fixed_columns = columns
    columns = columns or grid_columns(len(views), *grid_size)
    framebuffer.use()
    framebuffer.viewport = (0, 0, *size)
    framebuffer.clear(*SEPARATOR_SRGB, 1.0, depth=1.0)
    viewports = grid_viewports(grid_size, len(views), columns)
    scale = label_scale(size, viewports)
    key = None
    if legend and views:
        # Where no body is (render/legend.py's key_place): an empty cell, a wide view's corner, or a bottom strip;
        # no key when every overlay is off.
        planes = bool(views[0].renderer.layout.torque_free.any())  # an invariable plane to name
        place = key_place((0, 0, *grid_size), size[1], len(views), LABEL_MARGIN_PX * scale, scale, fixed_columns)
        key = place.box(views[0].renderer.options, planes=planes)
        if key.lines and place.grid != (0, 0, *grid_size):
            columns = fixed_columns or grid_columns(len(views), *place.grid[2:])
            viewports = grid_viewports_in(place.grid, len(views), columns)
    boxes = []
    for view, viewport in zip(views, viewports, strict=True):
        if view.label:
            top = size[1] - (viewport[1] + viewport[3])
            margin = LABEL_MARGIN_PX * scale
            boxes.append(TextBox(viewport[0] + margin, top + margin, tuple(view.label), (view.accent,)))
    if key is not None and key.lines:
        boxes.append(key)
    labelled = text is not None and bool(boxes)
    batches = []
    for indices in view_batches(views):
        first = views[indices[0]]
        bodies = [None if views[i].bodies is None else np.asarray(views[i].bodies) for i in indices]
        chosen = [views[i] for i in indices]
        cameras = default_cameras(chosen, [viewports[i] for i in indices], scale if text is not None else None)
        batches.append((first, [viewports[i] for i in indices], cameras, bodies))
    if len(batches) == 1:
        # A single batch owns the whole frame: its renderer may fill the separators too (one copy of its cache).
        ((first, batch_viewports, cameras, bodies),) = batches
        draw_labelled_views(
            first.renderer, framebuffer, size, first.snapshot, batch_viewports, cameras, bodies,
            text if labelled else None, boxes, scale, SEPARATOR_SRGB,
        )  # fmt: skip
    else:
        for first, batch_viewports, cameras, bodies in batches:
            first.renderer.draw_views(framebuffer, first.snapshot, batch_viewports, cameras, bodies)
        if labelled:
            text.draw(framebuffer, size, boxes, scale)
    if side is not None:
        _draw_side_view(views[0].renderer, framebuffer, size, side, text, size[1] / REFERENCE_HEIGHT_PX)
    return viewports


def label_scale(size: tuple[int, int], viewports: Sequence[Viewport]) -> float:
    """The scale of the views' labels in a target of ``size`` cut into ``viewports`` (a grid): the target's
    height against ``REFERENCE_HEIGHT_PX``, smaller for more than one row, and no label wider than its cell."""
    rows = len({viewport[1] for viewport in viewports})
    scale = size[1] / REFERENCE_HEIGHT_PX * (1.0 if rows <= 1 else 0.85)
    return min(scale, viewports[0][2] / LABEL_WIDTH_PX) if viewports else scale


def label_clearance(line_count: int, scale: float, viewport_height: float) -> float:
    """The fraction of a view's height its label of ``line_count`` lines at ``scale`` takes at the top, with the
    margin above it and as much again below: what the default camera keeps clear (``top_clear``)."""
    if line_count == 0 or viewport_height <= 0:
        return 0.0
    return (2.0 * LABEL_MARGIN_PX * scale + panel_height_px(line_count, scale)) / viewport_height


def default_cameras(views: Sequence[View], viewports: Sequence[Viewport], scale: float | None) -> list[OrbitCamera]:
    """Each view's camera: its own, else its renderer's default for its bodies in its viewport, framed below its
    label at label ``scale`` (``None``: the labels are not drawn)."""
    cameras = []
    for view, (_, _, width, height) in zip(views, viewports, strict=True):
        bodies = None if view.bodies is None else np.asarray(view.bodies)
        clear = 0.0 if scale is None else label_clearance(len(view.label), scale, height)
        cameras.append(view.camera or view.renderer.default_camera(view.snapshot, bodies, width / height, clear))
    return cameras


def _side_view(views: Sequence[View], size: tuple[int, int]) -> Viewport | None:
    """Where the Poinsot view goes in a target of ``size`` beside ``views``, or ``None`` when it is not shown."""
    renderer = views[0].renderer if views else None
    if renderer is None or not renderer.options.show_poinsot or not isinstance(renderer.poinsot_traces, PoinsotTraces):
        return None
    return split_side_view((0, 0, *size), len(views))[1]


def _draw_side_view(renderer: Renderer, framebuffer, size, viewport: Viewport, text: TextOverlay | None, scale):
    """The Poinsot view of ``renderer`` in ``viewport`` from its default camera, labelled with ``text``."""
    aspect = viewport[2] / viewport[3]
    label = poinsot_label(renderer.scene.bodies[renderer.poinsot_traces.body].integrator or "integrator", aspect)
    scale = min(scale, viewport[2] / 430.0)
    clear = 0.0 if text is None else label_clearance(len(label), scale, viewport[3])
    renderer.draw_poinsot(framebuffer, viewport, poinsot_camera(aspect, clear))
    if text is not None:
        margin = LABEL_MARGIN_PX * scale
        box = TextBox(viewport[0] + margin, size[1] - viewport[1] - viewport[3] + margin, label, (None,))
        text.draw(framebuffer, size, [box], scale)


def view_batches(views: Sequence[View]) -> list[list[int]]:
    """The indices of ``views`` grouped by renderer and snapshot, in order: each group is drawn in one batch of
    instanced draws (``Renderer.draw_views``)."""
    batches: dict[tuple[int, int], list[int]] = {}
    for index, view in enumerate(views):
        batches.setdefault((id(view.renderer), id(view.snapshot)), []).append(index)
    return list(batches.values())


def draw_labelled_views(
    renderer: Renderer,
    framebuffer: moderngl.Framebuffer,
    size: tuple[int, int],
    snapshot: Snapshot,
    viewports: Sequence[Viewport],
    cameras: Sequence[OrbitCamera],
    bodies: Sequence[np.ndarray | None],
    text: TextOverlay | None,
    boxes: Sequence[TextBox],
    scale: float,
    background: tuple[float, float, float],
) -> None:
    """``renderer.draw_views`` filling the rest of ``framebuffer`` (of ``size``) with ``background``, then the
    label ``boxes`` with ``text`` (none when ``None``). The labels' panels go into the renderer's cached backdrop
    while they stay where and how large they are (``TextOverlay.panel_rects``), and only their text is drawn each
    frame: on a CPU rasteriser the translucent panels cost more than the text over them."""
    underlay, key = None, None
    if text is not None and boxes:
        key = scale, text.panel_rects(size, boxes, scale)
        underlay = functools.partial(_draw_panels, text, size, list(boxes), scale)
    panels_cached = renderer.draw_views(
        framebuffer, snapshot, viewports, cameras, bodies, background=background, underlay=underlay, underlay_key=key
    )
    if underlay is not None:
        text.draw(framebuffer, size, boxes, scale, panels=not panels_cached)


def _draw_panels(text: TextOverlay, size: tuple[int, int], boxes: list[TextBox], scale: float, framebuffer) -> None:
    text.draw(framebuffer, size, boxes, scale, text=False)


def follow_session(renderer: Renderer, session: Session, preferred_body: int | None = None) -> None:
    """After each call of ``session.step``: give ``renderer`` the exact ghosts of the latest step
    (render/ghost.py) and append the steps to its Poinsot view's traces (render/poinsot.py), which show the body
    ``preferred_body`` of the session's scene when it can (the window's selected body; the traces start again when
    it changes), else the first that can."""
    renderer.set_ghost(ghost_orientations(session))
    traces = renderer.poinsot_traces
    moved = traces and preferred_body not in (None, traces.body) and _poinsot_can_show(session, preferred_body)
    if traces is None or moved:
        renderer.poinsot_traces = PoinsotTraces.of(session, preferred_body) or False
    elif traces is not False:
        traces.push(session.latest)


def _poinsot_can_show(session: Session, body: int) -> bool:
    """Whether the Poinsot view can show ``body`` of ``session``'s scene (torque-free, with a closed form)."""
    chosen = poinsot_body(session, body)
    return chosen is not None and chosen[0] == body


def show_history(renderer: Renderer, session: Session, step: int, preferred_body: int | None = None) -> None:
    """Set ``renderer``'s part of a run to what it was right after ``session``'s step ``step`` was drawn, from the
    run's history (scene/history.py): the trails hold the steps up to it, as pushed one per step since the start;
    the exact ghosts are the closed form's at it; the Poinsot view's traces hold its last steps (of
    ``preferred_body`` when it can, as :func:`follow_session` chooses)."""
    history, trail = session.history, renderer.trail
    kept = history.steps_until(step, trail.capacity)
    trail.refill(np.stack([snapshot.omega_world for snapshot in kept.snapshots]), pushed=step + 1)
    renderer.poinsot_traces = None
    follow_session(renderer, Moment(session, step, TRACE_CAPACITY), preferred_body)


def push_trails(renderer: Renderer, steps: Steps) -> None:
    """Append every step of ``steps`` (:attr:`scene.run_model.Session.latest`) to ``renderer``'s herpolhode
    trails, oldest first: the window and the video sample the trails per simulation step alike."""
    for snapshot in steps.snapshots:
        renderer.push_trail(snapshot)


def session_views(
    renderer: Renderer, session: Session, groups: Sequence[Group], snapshot: Snapshot | None = None
) -> list[View]:
    """One view of ``snapshot`` (by default ``session``'s, as drawn) per group, its bodies framed, labelled with
    :func:`~scene.run_model.view_labels` and its first body's colour as the accent; ``renderer`` gets the exact
    ghosts of the session's latest step (render/ghost.py)."""
    snapshot = session.drawable() if snapshot is None else snapshot
    renderer.set_ghost(ghost_orientations(session))
    labels = view_labels(session, tuple(groups))
    views = []
    for group, label in zip(groups, labels, strict=True):
        accent = tuple(float(c) for c in linear_to_srgb(renderer.layout.colors_rgba[group.bodies[0], :3]))
        views.append(View(renderer, snapshot, bodies=list(group.bodies), label=label, accent=accent))
    return views
