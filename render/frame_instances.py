"""The instance rows of every body of one snapshot: computed once per snapshot (and trail sample, and set of
overlays), then only selected from by each view that shows it (render/views.py, rows_in_views).

Rows are render/gpu.py's layout (a model matrix column-major, linear RGBA, the view), world frame, metres. ``q`` is
body → world, (w, x, y, z); a body is drawn around its centre of mass.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from spinlab.render import overlays
from spinlab.render.body_layout import POST_LINEAR, BodyLayout, Parts
from spinlab.render.gpu import INSTANCE_FLOATS
from spinlab.render.instances import body_model_matrices, instance_rows
from spinlab.render.look import MOMENTUM_LINEAR, OMEGA_LINEAR, PLANE_LINEAR
from spinlab.render.meshes import UNIT_MESHES
from spinlab.render.trail import HerpolhodeTrail
from spinlab.scene.running.simulation import Snapshot

__all__ = ["FrameInstances", "frame_instances", "axes_rows", "plane_rows", "chunked_rows", "CHUNK_ROWS"]

AXES_ALPHA = 0.85
PLANE_ALPHA = 0.09
PLANE_MARGIN = 1.2  # the disc reaches this far beyond the farthest trail point from its centre
SHADOW_ALPHA = 0.5
MOMENTUM_THICKNESS = 0.6  # L's arrow is slimmer than ω's: ω circles the conserved L closely


# Instance rows are computed this many at a time: their float64 temporaries ((R, 4, 4) matrices and the like, ~1 MB
# each) stay small whatever the number of bodies.
CHUNK_ROWS = 8192


@dataclass
class FrameInstances:
    """Instance rows of every body of one ``snapshot``; ``key`` is what else they were computed from. ``solids``:
    per mesh kind, rows (M, 21) and the body (M,) of each; ``shadows`` (N, 21) (``None`` before the floor is known);
    ``axes`` (N, 21) once :func:`axes_rows` made them; ``planes``: (N, 21) per trail stride (:func:`plane_rows`)."""

    snapshot: Snapshot
    key: tuple
    solids: dict[str, tuple[np.ndarray, np.ndarray]]
    shadows: np.ndarray | None
    axes: np.ndarray | None = None
    planes: dict[int, np.ndarray] = field(default_factory=dict)


def frame_instances(
    layout: BodyLayout,
    snapshot: Snapshot,
    key: tuple,
    *,
    show_omega: bool,
    show_momentum: bool,
    floor_z: float | None,
) -> FrameInstances:
    """The rows of ``snapshot``'s bodies (their parts, then the ω and L arrows shown) and of their contact shadows
    on the floor at ``floor_z`` m (none when ``None``); their principal axes' when asked for (:func:`axes_rows`)."""
    count = len(layout.radius)
    every = np.arange(count)
    # Per kind: instance rows and the body each belongs to, the parts first, then the arrows.
    batches: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {kind: [] for kind in UNIT_MESHES}
    for kind, parts in layout.parts.items():
        batches[kind].append((chunked_rows(len(parts.owner), _part_rows(layout, snapshot, parts)), parts.owner))
    post_body, post_matrix = layout.post_matrices(snapshot.q, snapshot.position)
    if len(post_body):  # the fixed posts under the pivots (a heavy top's), each with its body's view
        batches["cone"].append(
            (instance_rows(post_matrix, np.tile([*POST_LINEAR, 1.0], (len(post_body), 1))), post_body)
        )
    arrows = []
    if show_omega:
        arrows.append((snapshot.omega_world * layout.omega_scale, OMEGA_LINEAR, 1.0))
    if show_momentum:
        arrows.append((snapshot.L_world * layout.momentum_scale, MOMENTUM_LINEAR, MOMENTUM_THICKNESS))
    if arrows:  # ω's and L's arrows in one batch, ω's rows first
        shaft_radius, head_length, head_radius = layout.arrow_sizes
        thickness = np.repeat([thickness for _, _, thickness in arrows], count)
        shaft, head = overlays.arrow_matrices(
            np.tile(snapshot.position, (len(arrows), 1)),
            np.concatenate([vectors for vectors, _, _ in arrows]),
            (thickness * shaft_radius, head_length, thickness * head_radius),
        )
        rgba = np.repeat([[*color, 1.0] for _, color, _ in arrows], count, axis=0)
        owner = np.tile(every, len(arrows))
        batches["cylinder"].append((instance_rows(shaft, rgba), owner))
        batches["cone"].append((instance_rows(head, rgba), owner))
    solids = {kind: _joined(batch) for kind, batch in batches.items() if batch}
    shadows = None
    if floor_z is not None:

        def shadow(rows: slice) -> tuple[np.ndarray, np.ndarray]:
            matrices, alpha = overlays.shadow_matrices(
                snapshot.position[rows], layout.radius[rows], floor_z, SHADOW_ALPHA
            )
            return matrices, np.column_stack([np.zeros((len(alpha), 3)), alpha])

        shadows = chunked_rows(count, shadow)
    return FrameInstances(snapshot, key, solids, shadows)


def axes_rows(frame: FrameInstances, layout: BodyLayout) -> np.ndarray:
    """(N, 21) instance rows of every body's principal axes (cached in ``frame``): only a frame that draws them
    makes them."""
    if frame.axes is None:
        snapshot = frame.snapshot

        def axes(rows: slice) -> tuple[np.ndarray, np.ndarray]:
            matrices = overlays.axes_matrices(
                snapshot.q[rows],
                snapshot.position[rows],
                layout.axes_table[layout.axes_index[rows]],
                layout.axes_length[rows],
            )
            return matrices, np.tile([1.0, 1.0, 1.0, AXES_ALPHA], (len(matrices), 1))

        frame.axes = chunked_rows(len(layout.radius), axes)
    return frame.axes


def chunked_rows(count: int, make: Callable[[slice], tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """(count, 21) instance rows, :data:`CHUNK_ROWS` at a time: ``make(rows)`` gives the matrices (R, 4, 4) and
    colours (R, 4) of the rows ``rows`` (a slice)."""
    rows = np.empty((count, INSTANCE_FLOATS), dtype=np.float32)
    for start in range(0, count, CHUNK_ROWS):
        chunk = slice(start, min(start + CHUNK_ROWS, count))
        instance_rows(*make(chunk), out=rows[chunk])
    return rows


def _part_rows(layout: BodyLayout, snapshot: Snapshot, parts: Parts) -> Callable[[slice], tuple]:
    """What :func:`chunked_rows` takes for ``parts``: each part's matrix, unit mesh → world, and its body's
    colour."""

    def make(rows: slice) -> tuple[np.ndarray, np.ndarray]:
        owner = parts.owner[rows]
        models = body_model_matrices(snapshot.q[owner], snapshot.position[owner], layout.com_offset[owner])
        return models @ parts.matrices(rows), layout.colors_rgba[owner]

    return make


def _joined(batch: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """One kind's rows and owners, its batches' end to end (the one batch itself, not a copy of it)."""
    if len(batch) == 1:
        return batch[0]
    return np.concatenate([rows for rows, _ in batch]), np.concatenate([owner for _, owner in batch])


def plane_rows(frame: FrameInstances, layout: BodyLayout, trail: HerpolhodeTrail, stride: int) -> np.ndarray:
    """(N, 21) instance rows of every body's invariable plane, its extent measured on every ``stride``-th trail
    sample (cached in ``frame``)."""
    rows = frame.planes.get(stride)
    if rows is None:
        snapshot = frame.snapshot
        history = trail.omega_world(stride=stride)[0] if trail.count else snapshot.omega_world[None]
        matrices = overlays.plane_matrices(
            snapshot.position,
            snapshot.L_world,
            snapshot.energy,
            history,
            layout.omega_scale,
            PLANE_MARGIN,
            0.3 * layout.radius,
        )
        rgba = np.column_stack([np.tile(PLANE_LINEAR, (len(matrices), 1)), np.full(len(matrices), PLANE_ALPHA)])
        rows = frame.planes[stride] = instance_rows(matrices, rgba)
    return rows
