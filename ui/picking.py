"""Which body is under the mouse in the 3D view's grid, by what is drawn: the click that selects a body, the Ctrl+drag
that strikes the body it starts on; and where each body is drawn, for the ring round the selected one.

A click is a ray from the eye through the pixel (the view's camera unprojects it) cast against every part of every
body as the renderer draws it (render/body_layout.py's parts: unit boxes, spheres and cylinders placed in the body's
modelling frame): the ray is carried into each part's unit frame by the inverse of its model matrix, where it meets
the unit shape in closed form, and the nearest hit wins. An affine map keeps a ray's parameter, so hits from parts of
different sizes compare as they are. Bodies whose bounding sphere the ray misses are left out first: a click on a
cloud of 10^5 bodies inverts the matrices of the few it can hit. One array operation per mesh kind, no loop over
bodies.

The ring is drawn round the bounding sphere (``radius`` m about the position) as seen: a circle of centre
``project(position)`` and radius ``radius · P₁₁ · h / 2 / w`` px, ``P₁₁`` the projection's focal term, ``h`` the
viewport's height and ``w`` the clip coordinate. Coordinates are the framebuffer's, GL's convention (origin bottom
left, y up), as the viewports are.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from spinlab.render.body_layout import BodyLayout
from spinlab.render.camera import OrbitCamera
from spinlab.render.instances import body_model_matrices
from spinlab.scene.files.scene_file import SceneSpec
from spinlab.scene.running.simulation import Snapshot

__all__ = ["Circles", "body_circles", "body_at", "pixel_ray", "default_body"]

Viewport = tuple[float, float, float, float]


def default_body(scene: SceneSpec) -> int:
    """The body selected when ``scene`` is loaded: its first dynamic one (a kinematic body has nothing to edit or
    strike), else the first."""
    return next((index for index, body in enumerate(scene.bodies) if not body.kinematic), 0)


@dataclass(frozen=True)
class Circles:
    """Bodies as drawn, one entry each, (M,) arrays: snapshot ``row``, ``view``, place ``index`` among the view's
    bodies (side by side each view is a copy of the scene's bodies in file order, those that move alike copied
    once: scene/model/run_model.py's ``Session.place``; else one view holds them all), centre ``x``, ``y`` and
    ``radius`` px (framebuffer, GL origin)."""

    row: np.ndarray
    view: np.ndarray
    index: np.ndarray
    x: np.ndarray
    y: np.ndarray
    radius: np.ndarray

    def __len__(self) -> int:
        return len(self.row)


def body_circles(
    viewports: Sequence[Viewport],
    cameras: Sequence[OrbitCamera],
    group_rows: Sequence[Sequence[int]],
    positions_world: np.ndarray,
    radii_m: np.ndarray,
    only_index: int | None = None,
) -> Circles:
    """The bodies of every view (``group_rows[v]``: the snapshot rows view ``v`` shows; with ``only_index``, only
    its body at that place) as drawn, behind-the-eye bodies left out. ``positions_world`` (N, 3) m and ``radii_m``
    (N,) m are the snapshot's."""
    parts = []
    for view, (viewport, camera, rows) in enumerate(zip(viewports, cameras, group_rows, strict=True)):
        x0, y0, width, height = viewport
        shown = np.asarray(rows, dtype=np.intp)
        index = np.arange(len(shown))
        if only_index is not None:
            shown, index = shown[index == only_index], index[index == only_index]
        if not len(shown) or width <= 0 or height <= 0:
            continue
        aspect = width / height
        clip = np.hstack([positions_world[shown], np.ones((len(shown), 1))]) @ camera.view_projection(aspect).T
        front = clip[:, 3] > 0.0
        clip, shown, index = clip[front], shown[front], index[front]
        w = clip[:, 3]
        focal = camera.projection(aspect)[1, 1]
        x, y = x0 + (clip[:, 0] / w + 1.0) * 0.5 * width, y0 + (clip[:, 1] / w + 1.0) * 0.5 * height
        parts.append((shown, np.full(len(shown), view), index, x, y, radii_m[shown] * focal * 0.5 * height / w))
    if not parts:
        empty = np.zeros(0)
        return Circles(empty.astype(np.intp), empty.astype(np.intp), empty.astype(np.intp), empty, empty, empty)
    return Circles(*(np.concatenate(column) for column in zip(*parts, strict=True)))


def pixel_ray(viewport: Viewport, camera: OrbitCamera, x: float, y: float) -> tuple[np.ndarray, np.ndarray]:
    """The ray through the framebuffer point ``(x, y)`` of ``viewport`` seen through ``camera``: ``(origin (3,),
    direction (3,))`` m, world frame, from the near plane (parameter 0) to the far plane (parameter 1)."""
    x0, y0, width, height = viewport
    ndc_x, ndc_y = 2.0 * (x - x0) / width - 1.0, 2.0 * (y - y0) / height - 1.0
    ends = (
        np.array([[ndc_x, ndc_y, -1.0, 1.0], [ndc_x, ndc_y, 1.0, 1.0]])
        @ np.linalg.inv(camera.view_projection(width / height)).T
    )
    near, far = ends[:, :3] / ends[:, 3:]
    return near, far - near


def body_at(
    x: float,
    y: float,
    viewports: Sequence[Viewport],
    cameras: Sequence[OrbitCamera],
    group_rows: Sequence[Sequence[int]],
    layout: BodyLayout,
    snapshot: Snapshot,
) -> tuple[int, int] | None:
    """The body drawn at the framebuffer point ``(x, y)``: ``(snapshot row, its place among its view's bodies)``
    of the nearest body whose drawn parts the ray through it meets, in the view that holds the point (``viewports``
    with their ``cameras``; ``group_rows[v]`` the snapshot rows view ``v`` shows); ``None`` when none is there."""
    for viewport, camera, rows in zip(viewports, cameras, group_rows, strict=True):
        x0, y0, width, height = viewport
        if width > 0 and height > 0 and x0 <= x < x0 + width and y0 <= y < y0 + height:
            shown = np.asarray(rows, dtype=np.intp)
            row = _nearest_hit(*pixel_ray(viewport, camera, x, y), shown, layout, snapshot)
            return None if row is None else (row, int(np.flatnonzero(shown == row)[0]))
    return None


def _nearest_hit(
    origin: np.ndarray, direction: np.ndarray, rows: np.ndarray, layout: BodyLayout, snapshot: Snapshot
) -> int | None:
    """The snapshot row among ``rows`` whose drawn parts the ray ``origin + t · direction``, t ≥ 0, meets first."""
    # Bounding spheres first: |o + t d − c|² = r² has a root t ≥ 0.
    to_centre = snapshot.position[rows] - origin
    along = to_centre @ direction / (direction @ direction)
    closest = to_centre - along[:, None] * direction
    near = (np.einsum("ij,ij->i", closest, closest) <= layout.radius[rows] ** 2) & (
        (along >= 0.0) | (np.einsum("ij,ij->i", to_centre, to_centre) <= layout.radius[rows] ** 2)
    )
    candidates = np.zeros(len(snapshot.position), dtype=bool)
    candidates[rows[near]] = True
    best_t, best_row = np.inf, None
    for kind, parts in layout.parts.items():
        hit = _UNIT_HITS.get(kind)
        mine = np.flatnonzero(candidates[parts.owner])
        if hit is None or not len(mine):
            continue
        owner = parts.owner[mine]
        models = body_model_matrices(snapshot.q[owner], snapshot.position[owner], layout.com_offset[owner])
        to_unit = np.linalg.inv(models @ parts.matrices(mine))
        local_origin = to_unit[:, :3, :3] @ origin + to_unit[:, :3, 3]
        local_direction = to_unit[:, :3, :3] @ direction
        with np.errstate(divide="ignore", invalid="ignore"):
            t = hit(local_origin, local_direction)
        k = int(np.argmin(t))
        if t[k] < best_t:
            best_t, best_row = float(t[k]), int(owner[k])
    return best_row


def _entry(t_in: np.ndarray, t_out: np.ndarray) -> np.ndarray:
    """Where a ray enters the interval [t_in, t_out] of parameters inside a solid, from t = 0 on; inf if never."""
    return np.where((t_in <= t_out) & (t_out >= 0.0), np.maximum(t_in, 0.0), np.inf)


def _slab(origin: np.ndarray, direction: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The parameters (K,) of the rays (K, 3) within −½ ≤ coordinate ≤ ½ along every axis given (columns)."""
    low, high = (-0.5 - origin) / direction, (0.5 - origin) / direction
    inside = np.abs(origin) <= 0.5  # a ray along the slab's faces is inside it throughout, or never
    low = np.where(direction == 0.0, np.where(inside, -np.inf, np.inf), low)
    high = np.where(direction == 0.0, np.where(inside, np.inf, -np.inf), high)
    return np.minimum(low, high).max(axis=1), np.maximum(low, high).min(axis=1)


def _quadric(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The interval of t where a t² + 2 b t + c ≤ 0 (a ≥ 0), empty (inf, −inf) where there is none."""
    root = np.sqrt(np.maximum(b * b - a * c, 0.0))
    real = b * b - a * c >= 0.0
    flat = a <= 1e-300  # the ray runs along the axis: inside throughout or never
    t_in = np.where(flat, np.where(c <= 0.0, -np.inf, np.inf), np.where(real, (-b - root) / a, np.inf))
    t_out = np.where(flat, np.where(c <= 0.0, np.inf, -np.inf), np.where(real, (-b + root) / a, -np.inf))
    return t_in, t_out


def _hit_box(origin: np.ndarray, direction: np.ndarray) -> np.ndarray:
    """(K,) the parameter where each ray meets the unit cube [−½, ½]³ (inf: it misses)."""
    return _entry(*_slab(origin, direction))


def _hit_sphere(origin: np.ndarray, direction: np.ndarray) -> np.ndarray:
    """(K,) the parameter where each ray meets the unit ball."""
    a, b = np.einsum("ij,ij->i", direction, direction), np.einsum("ij,ij->i", origin, direction)
    return _entry(*_quadric(a, b, np.einsum("ij,ij->i", origin, origin) - 1.0))


def _hit_cylinder(origin: np.ndarray, direction: np.ndarray) -> np.ndarray:
    """(K,) the parameter where each ray meets the unit cylinder, x² + y² ≤ 1 and −½ ≤ z ≤ ½."""
    o, d = origin[:, :2], direction[:, :2]
    side_in, side_out = _quadric(
        np.einsum("ij,ij->i", d, d), np.einsum("ij,ij->i", o, d), np.einsum("ij,ij->i", o, o) - 1.0
    )
    cap_in, cap_out = _slab(origin[:, 2:], direction[:, 2:])
    return _entry(np.maximum(side_in, cap_in), np.minimum(side_out, cap_out))


_UNIT_HITS = {"box": _hit_box, "sphere": _hit_sphere, "cylinder": _hit_cylinder}
