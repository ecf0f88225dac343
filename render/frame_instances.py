"""The instance rows of every body of one snapshot: computed once per snapshot (and trail sample, and set of
overlays), then only selected from by each view that shows it (render/views.py, rows_in_views).

Rows are render/gpu.py's layout (a model matrix column-major, linear RGBA, the view), world frame, metres. ``q`` is
body → world, (w, x, y, z); a body is drawn around its centre of mass.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from spinlab.render import overlays
from spinlab.render.body_layout import POST_LINEAR, BodyLayout
from spinlab.render.instances import body_model_matrices, instance_rows
from spinlab.render.look import MOMENTUM_LINEAR, OMEGA_LINEAR, PLANE_LINEAR
from spinlab.render.meshes import UNIT_MESHES
from spinlab.render.trail import HerpolhodeTrail
from spinlab.scene.running.simulation import Snapshot

__all__ = ["FrameInstances", "frame_instances", "plane_rows"]

AXES_ALPHA = 0.85
PLANE_ALPHA = 0.09
PLANE_MARGIN = 1.2  # the disc reaches this far beyond the farthest trail point from its centre
SHADOW_ALPHA = 0.5
MOMENTUM_THICKNESS = 0.6  # L's arrow is slimmer than ω's: ω circles the conserved L closely


@dataclass
class FrameInstances:
    """Instance rows of every body of one ``snapshot``; ``key`` is what else they were computed from. ``solids``:
    per mesh kind, rows (M, 21) and the body (M,) of each; ``shadows`` (N, 21) (``None`` before the floor is known),
    ``axes`` (N, 21); ``planes``: (N, 21) per trail stride (:func:`plane_rows`)."""

    snapshot: Snapshot
    key: tuple
    solids: dict[str, tuple[np.ndarray, np.ndarray]]
    shadows: np.ndarray | None
    axes: np.ndarray
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
    """The rows of ``snapshot``'s bodies (their parts, then the ω and L arrows shown) and of their principal axes,
    and of their contact shadows on the floor at ``floor_z`` m (none when ``None``)."""
    count = len(layout.radius)
    every = np.arange(count)
    models = body_model_matrices(snapshot.q, snapshot.position, layout.com_offset)
    # Per kind: instance rows and the body each belongs to, the parts first, then the arrows.
    batches: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {kind: [] for kind in UNIT_MESHES}
    for kind, (part_body, part_matrix) in layout.parts.items():
        rows = instance_rows(models[part_body] @ part_matrix, layout.colors_rgba[part_body])
        batches[kind].append((rows, part_body))
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
    shaft_radius, head_length, head_radius = layout.arrow_sizes
    for vectors, color, thickness in arrows:
        sizes = (thickness * shaft_radius, head_length, thickness * head_radius)
        shaft, head = overlays.arrow_matrices(snapshot.position, vectors, sizes)
        rgba = np.tile([*color, 1.0], (count, 1))
        batches["cylinder"].append((instance_rows(shaft, rgba), every))
        batches["cone"].append((instance_rows(head, rgba), every))
    solids = {
        kind: (np.concatenate([rows for rows, _ in batch]), np.concatenate([owner for _, owner in batch]))
        for kind, batch in batches.items()
        if batch
    }
    shadows = None
    if floor_z is not None:
        matrices, alpha = overlays.shadow_matrices(snapshot.position, layout.radius, floor_z, SHADOW_ALPHA)
        shadows = instance_rows(matrices, np.column_stack([np.zeros((count, 3)), alpha]))
    axes_matrices = overlays.axes_matrices(snapshot.q, snapshot.position, layout.principal_axes, layout.axes_length)
    axes = instance_rows(axes_matrices, np.tile([1.0, 1.0, 1.0, AXES_ALPHA], (count, 1)))
    return FrameInstances(snapshot, key, solids, shadows, axes)


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
