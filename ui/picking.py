"""Where each body is drawn in the 3D view's grid, and which one is under the mouse: the click that selects a body,
the Ctrl+drag that strikes the body it starts on, and the ring round the selected body.

A body is drawn as its bounding sphere (render/body_layout.py's ``radius``, m, about its position) seen through its
view's camera: a circle of centre ``project(position)`` and radius ``radius · P₁₁ · h / 2 / w`` px, where ``P₁₁`` is
the projection's focal term, ``h`` the viewport's height and ``w`` the clip coordinate (the depth in front of the
eye). Coordinates are the framebuffer's, GL's convention (origin bottom left, y up), as the viewports are. One
array operation per view: a cloud of 1000 bodies is no loop.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from spinlab.render.camera import OrbitCamera

__all__ = ["Circles", "BodyCircle", "body_circles", "body_under"]


@dataclass(frozen=True)
class BodyCircle:
    """Snapshot row ``row``, the ``index``-th body of view ``view`` (the scene's body ``index``: side by side each
    view is a copy of the scene's bodies in file order, else one view holds them all), drawn as the circle of centre
    ``(x, y)`` and radius ``radius`` px (framebuffer, GL origin), ``depth`` m in front of the eye."""

    row: int
    view: int
    index: int
    x: float
    y: float
    radius: float
    depth: float


@dataclass(frozen=True)
class Circles:
    """Bodies as drawn, one entry each, (M,) arrays: snapshot ``row``, ``view``, place ``index`` among the view's
    bodies, centre ``x``, ``y`` and ``radius`` px, ``depth`` m (see :class:`BodyCircle`)."""

    row: np.ndarray
    view: np.ndarray
    index: np.ndarray
    x: np.ndarray
    y: np.ndarray
    radius: np.ndarray
    depth: np.ndarray

    def __len__(self) -> int:
        return len(self.row)

    def __getitem__(self, k: int) -> BodyCircle:
        return BodyCircle(int(self.row[k]), int(self.view[k]), int(self.index[k]), float(self.x[k]), float(self.y[k]),
                          float(self.radius[k]), float(self.depth[k]))  # fmt: skip


def body_circles(
    viewports: Sequence[tuple[float, float, float, float]],
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
        parts.append((shown, np.full(len(shown), view), index, x, y, radii_m[shown] * focal * 0.5 * height / w, w))
    if not parts:
        empty = np.zeros(0)
        return Circles(empty.astype(np.intp), empty.astype(np.intp), empty.astype(np.intp), empty, empty, empty, empty)
    return Circles(*(np.concatenate(column) for column in zip(*parts, strict=True)))


def body_under(x: float, y: float, circles: Circles) -> BodyCircle | None:
    """The body drawn at the framebuffer point ``(x, y)``: of the circles that hold it, the nearest to the eye;
    ``None`` when none does."""
    under = np.flatnonzero((x - circles.x) ** 2 + (y - circles.y) ** 2 <= circles.radius**2)
    return circles[int(under[np.argmin(circles.depth[under])])] if under.size else None
