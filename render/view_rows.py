"""What one frame's batch of views draws, selected per view and split by level of detail: numpy alone, no GL.

The renderer makes it ahead of the draw when it can (``Renderer.prepare``: a recording's next frame is stepped and
prepared on a thread of its own while the last one is rasterised), so that the draw, on the GL thread, only uploads
and draws; else at the draw. Rows are render/gpu.py's instance rows with their view in the view column
(render/views.py's :func:`rows_in_views`), split finest level first.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from spinlab.render.body_layout import BodyLayout
from spinlab.render.frame_instances import FrameInstances, axes_rows, plane_rows
from spinlab.render.ghost import ghost_solids
from spinlab.render.gpu_resources import PLANE_SEGMENTS, ROUND_SEGMENTS
from spinlab.render.trail import HerpolhodeTrail
from spinlab.render.views import ViewSet, levels_of_detail, rows_in_views, split_by_level

__all__ = ["ViewRows", "view_rows", "MAX_PLANE_SAMPLES"]

# Many bodies: the planes' extents are measured on at most this many trail samples.
MAX_PLANE_SAMPLES = 50_000


@dataclass(frozen=True)
class ViewRows:
    """One batch of views' rows: the contact ``shadows`` (``None``: no floor), per mesh kind the ``solids``' rows
    per level of :data:`ROUND_SEGMENTS`, the invariable ``planes``' per level of :data:`PLANE_SEGMENTS` (``None``:
    not shown), the principal ``axes``' (``None``: not shown) and the exact ``ghosts``' solids like ``solids``
    (empty: none)."""

    shadows: np.ndarray | None
    solids: dict[str, list[np.ndarray]]
    planes: list[np.ndarray] | None
    axes: np.ndarray | None
    ghosts: dict[str, list[np.ndarray]]


def view_rows(
    frame: FrameInstances,
    layout: BodyLayout,
    trail: HerpolhodeTrail,
    views: ViewSet,
    *,
    floor: bool,
    planes: bool,
    axes: bool,
    ghost_q: np.ndarray | None,
) -> ViewRows:
    """The rows of ``frame`` (its bodies' instances) the ``views`` show: the shadows with the ``floor``, the
    ``planes`` (their extents from ``trail``) and ``axes`` when asked for, and the ghosts at the orientations
    ``ghost_q`` (N, 4) unless ``None``."""
    projection = views.projection()
    chosen = views.chosen
    snapshot = frame.snapshot
    shadows = rows_in_views(frame.shadows, None, chosen)[0] if floor and frame.shadows is not None else None
    plane_levels = None
    if planes:
        torque_free = chosen & layout.torque_free
        stride = trail.stride(int(torque_free.any(axis=0).sum()), MAX_PLANE_SAMPLES)
        rows = rows_in_views(plane_rows(frame, layout, trail, stride), None, torque_free)[0]
        levels = levels_of_detail(rows, *projection, PLANE_SEGMENTS, round_columns=2)
        plane_levels = split_by_level(rows, levels, len(PLANE_SEGMENTS))
    ghosts = {}
    if ghost_q is not None:
        ghosts = _solid_levels(ghost_solids(layout, snapshot.position, snapshot.q, ghost_q), projection, chosen)
    return ViewRows(
        shadows=shadows,
        solids=_solid_levels(frame.solids, projection, chosen),
        planes=plane_levels,
        axes=rows_in_views(axes_rows(frame, layout), None, chosen)[0] if axes else None,
        ghosts=ghosts,
    )


def _solid_levels(
    solids: dict[str, tuple[np.ndarray, np.ndarray]], projection: tuple[np.ndarray, np.ndarray], chosen: np.ndarray
) -> dict[str, list[np.ndarray]]:
    """Per kind, the rows of ``solids`` (per kind: instance rows and the body of each) of the bodies ``chosen``
    (V, N) in each view, split by the segments their projected size needs (``projection``:
    :meth:`ViewSet.projection`)."""
    levels_by_kind = {}
    for kind, (rows, owner) in solids.items():
        rows, _, _ = rows_in_views(rows, owner, chosen)
        levels = levels_of_detail(rows, *projection, ROUND_SEGMENTS, round_columns=3 if kind == "sphere" else 2)
        levels_by_kind[kind] = split_by_level(rows, levels, len(ROUND_SEGMENTS))
    return levels_by_kind
