"""Where each body is drawn in the 3D view's grid, and which one is under the mouse: the click that selects a body,
the Ctrl+drag that strikes the body it starts on, and the ring round the selected body.

A body is drawn as its bounding sphere (render/body_layout.py's ``radius``, m, about its position) seen through its
view's camera: a circle of centre ``project(position)`` and radius ``radius · P₁₁ · h / 2 / w`` px, where ``P₁₁`` is
the projection's focal term, ``h`` the viewport's height and ``w`` the clip coordinate (the depth in front of the
eye). Coordinates are the framebuffer's, GL's convention (origin bottom left, y up), as the viewports are.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from spinlab.render.camera import OrbitCamera

__all__ = ["BodyCircle", "body_circles", "body_under", "scene_index"]


@dataclass(frozen=True)
class BodyCircle:
    """Snapshot row ``row`` drawn in view ``view`` as the circle of centre ``(x, y)`` and radius ``radius`` px
    (framebuffer, GL origin), ``depth`` m in front of the eye."""

    row: int
    view: int
    x: float
    y: float
    radius: float
    depth: float


def body_circles(
    viewports: Sequence[tuple[float, float, float, float]],
    cameras: Sequence[OrbitCamera],
    group_rows: Sequence[Sequence[int]],
    positions_world: np.ndarray,
    radii_m: np.ndarray,
) -> list[BodyCircle]:
    """Every body of every view (``group_rows[v]``: the snapshot rows view ``v`` shows) as drawn, behind-the-eye
    bodies left out. ``positions_world`` (N, 3) m and ``radii_m`` (N,) m are the snapshot's."""
    circles = []
    for view, (viewport, camera, rows) in enumerate(zip(viewports, cameras, group_rows, strict=True)):
        x0, y0, width, height = viewport
        if not len(rows) or width <= 0 or height <= 0:
            continue
        rows = np.asarray(rows, dtype=np.intp)
        aspect = width / height
        clip = np.hstack([positions_world[rows], np.ones((len(rows), 1))]) @ camera.view_projection(aspect).T
        focal = camera.projection(aspect)[1, 1]
        for row, (cx, cy, _, w), radius in zip(rows, clip, radii_m[rows], strict=True):
            if w <= 0.0:
                continue
            circles.append(
                BodyCircle(
                    int(row),
                    view,
                    x0 + (cx / w + 1.0) * 0.5 * width,
                    y0 + (cy / w + 1.0) * 0.5 * height,
                    float(radius * focal * 0.5 * height / w),
                    float(w),
                )
            )
    return circles


def body_under(x: float, y: float, circles: Sequence[BodyCircle]) -> BodyCircle | None:
    """The body drawn at the framebuffer point ``(x, y)``: of the circles that hold it, the nearest to the eye;
    ``None`` when none does."""
    under = [circle for circle in circles if (x - circle.x) ** 2 + (y - circle.y) ** 2 <= circle.radius**2]
    return min(under, key=lambda circle: circle.depth, default=None)


def scene_index(group_rows: Sequence[Sequence[int]], circle: BodyCircle) -> int:
    """The scene's body index of ``circle``'s row: its place in its view's rows (side by side, each view is a copy
    of the scene's bodies in file order; one view holds them all)."""
    return list(group_rows[circle.view]).index(circle.row)
