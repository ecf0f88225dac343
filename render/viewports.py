"""A run's per-run drawing state fed and rebuilt, and the labelled views drawn with one renderer.

What render/run_view.py's :class:`~render.run_view.RunView` composes a run on screen from: :func:`push_trails` and
:func:`follow_session` feed a run's steps to its renderer (trails, exact ghosts, Poinsot traces), :func:`show_history`
sets them to a past step from the run's history, and :func:`draw_labelled_views` draws the views with their label
panels cached in the renderer's backdrop. The grid of cells is render/grid.py's.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import cast

import moderngl
import numpy as np

from spinlab.render.camera import OrbitCamera
from spinlab.render.ghost import ghost_orientations
from spinlab.render.poinsot import TRACE_CAPACITY, PoinsotTraces, poinsot_body
from spinlab.render.renderer import Renderer, Viewport
from spinlab.render.text import TextBox, TextOverlay, panel_height_px
from spinlab.scene.model.run_model import Session, Steps
from spinlab.scene.model.step_record import Moment
from spinlab.scene.running.simulation import Snapshot

__all__ = [
    "push_trails",
    "show_history",
    "follow_session",
    "draw_labelled_views",
    "LABEL_MARGIN_PX",
    "LABEL_WIDTH_PX",
    "LABEL_LINE",
    "label_clearance",
]

LABEL_MARGIN_PX = 14.0
LABEL_WIDTH_PX = 330.0  # a view's widest label line at scale 1 ("t = 10.00 s    |ΔE|/E = 1.2e−05"), with margins
# A view's usual widest label line: its label's panel is at least this wide, so it stays one size while the run's
# numbers change (the error's text keeps one width, scene/model/run_model.py's error_text, but the time's grows),
# and the cached backdrop that holds it stays valid (it widens once at t = 10 s, and at 100 s).
LABEL_LINE = "t = 0.00 s    |ΔE|/E = 1.2e−05"


def label_clearance(line_count: int, scale: float, viewport_height: float) -> float:
    """The fraction of a view's height its label of ``line_count`` lines at ``scale`` takes at the top, with the
    margin above it and as much again below: what the default camera keeps clear (``top_clear``)."""
    if line_count == 0 or viewport_height <= 0:
        return 0.0
    return (2.0 * LABEL_MARGIN_PX * scale + panel_height_px(line_count, scale)) / viewport_height


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
    background: tuple[float, float, float] | None,
    fixed: Sequence[TextBox] = (),
) -> None:
    """``renderer.draw_views`` filling the rest of ``framebuffer`` (of ``size``) with ``background`` (``None``:
    only the viewports are drawn), then the label ``boxes`` and the ``fixed`` boxes (whose text does not change from
    frame to frame: the overlays' key) with ``text`` (none when ``None``). The panels, and the fixed boxes' text, go
    into the renderer's cached backdrop while they stay where and how large they are (``TextOverlay.panel_rects``)
    and say the same, and only the labels' text is drawn each frame: on a CPU rasteriser the translucent panels
    cost more than the text over them, and every line of text costs."""
    underlay, key = None, None
    every = [*boxes, *fixed]
    if text is not None and every:
        key = scale, text.panel_rects(size, every, scale), tuple(box.lines for box in fixed)
        underlay = functools.partial(_draw_underlay, text, size, list(boxes), list(fixed), scale)
    cached = renderer.draw_views(
        framebuffer, snapshot, viewports, cameras, bodies, background=background, underlay=underlay, underlay_key=key
    )
    if text is not None and underlay is not None:
        if cached:
            text.draw(framebuffer, size, boxes, scale, panels=False)
        else:
            text.draw(framebuffer, size, every, scale)


def _draw_underlay(
    text: TextOverlay, size: tuple[int, int], boxes: list[TextBox], fixed: list[TextBox], scale: float, framebuffer
) -> None:
    text.draw(framebuffer, size, boxes, scale, text=False)
    text.draw(framebuffer, size, fixed, scale)


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
    run's history (scene/model/step_record.py): the trails hold the steps up to it, as pushed one per step since the
    start; the exact ghosts are the closed form's at it; the Poinsot view's traces hold its last steps (of
    ``preferred_body`` when it can, as :func:`follow_session` chooses)."""
    record, trail = session.record, renderer.trail
    assert record is not None, "a session that keeps its step record"
    kept = record.snapshots_until(step, trail.capacity)
    trail.refill(np.stack([snapshot.omega_world for snapshot in kept]), pushed=step + 1)
    renderer.poinsot_traces = None
    # A moment reads as the session it is of (Moment.__getattr__), at its step.
    follow_session(renderer, cast(Session, Moment(session, step, TRACE_CAPACITY)), preferred_body)


def push_trails(renderer: Renderer, steps: Steps) -> None:
    """Append every step of ``steps`` (:attr:`scene.model.run_model.Session.latest`) to ``renderer``'s herpolhode
    trails, oldest first: the window and the video sample the trails per simulation step alike."""
    for snapshot in steps.snapshots:
        renderer.push_trail(snapshot)
