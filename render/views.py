"""The views one batch of instanced draws holds: rectangles, cameras, and what each shows.

Several views (a grid, one per integrator) go into the same draws (assets/shaders/views.glsl): each instance row
carries its view's index (render/gpu.py's layout), and each view's camera and rectangle are uniform arrays of
``MAX_VIEWS`` entries. A :class:`ViewSet` is one frame's batch; :func:`write_view_uniforms` puts it into the
programs, :func:`rows_in_views` repeats instance rows per view, :func:`levels_of_detail` picks a round mesh's
segments from an instance's size on screen.

Viewports are GL's ``(x, y, width, height)`` in pixels, origin bottom-left; a view-projection maps world to clip
space (column vectors).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import moderngl
import numpy as np

from spinlab.render.camera import OrbitCamera
from spinlab.render.gpu_resources import GpuResources
from spinlab.render.look import FILL_DIRECTION_CAMERA, KEY_DIRECTION_CAMERA
from spinlab.render.shaders import MAX_VIEWS, uniform

__all__ = [
    "Viewport",
    "ViewSet",
    "MAX_VIEWS",
    "bounding_viewport",
    "overlap",
    "rows_in_views",
    "levels_of_detail",
    "split_by_level",
    "write_view_uniforms",
    "clip_to_views",
    "SILHOUETTE_ERROR_PX",
]

Viewport = tuple[int, int, int, int]  # x, y, width, height in pixels, GL's convention (origin bottom-left)
GL_CLIP_DISTANCE0 = 0x3000  # the first of the four user clip planes that keep each view in its rectangle
# A round mesh of N segments about its axis departs from the circle of radius r pixels by r (1 − cos(π/N)) at most:
# each instance takes the fewest segments that keep its silhouette within SILHOUETTE_ERROR_PX of the true one.
SILHOUETTE_ERROR_PX = 0.25


@dataclass(frozen=True)
class ViewSet:
    """At most ``MAX_VIEWS`` views: ``viewports``, ``cameras``, their ``view_projections`` (4, 4) each, and
    ``chosen`` (V, N) bool, the bodies each shows; ``area`` is the smallest viewport holding them all."""

    viewports: list[Viewport]
    cameras: list[OrbitCamera]
    view_projections: list[np.ndarray]
    chosen: np.ndarray
    area: Viewport

    @classmethod
    def of(
        cls, viewports: Sequence[Viewport], cameras: Sequence[OrbitCamera], selected: Sequence[np.ndarray], count: int
    ) -> ViewSet:
        """The views of ``viewports`` seen by ``cameras``, showing the bodies ``selected`` (indices per view) of
        ``count``."""
        chosen = np.zeros((len(selected), count), dtype=bool)
        for view, indices in enumerate(selected):
            chosen[view, indices] = True
        view_projections = [
            camera.view_projection(viewport[2] / viewport[3])
            for camera, viewport in zip(cameras, viewports, strict=True)
        ]
        return cls(list(viewports), list(cameras), view_projections, chosen, bounding_viewport(viewports))

    def projection(self) -> tuple[np.ndarray, np.ndarray]:
        """``(depth_rows (V, 4), pixels_per_metre (V,))``: per view, the row of P·V that gives an instance's distance
        along the view (clip w), and pixels per metre at unit distance (row 1 of P·V is the focal factor times the
        view's unit up row), for :func:`levels_of_detail`."""
        depth_rows = np.array([view_projection[3] for view_projection in self.view_projections])
        pixels_per_metre = np.array(
            [
                np.linalg.norm(view_projection[1, :3]) * 0.5 * viewport[3]
                for view_projection, viewport in zip(self.view_projections, self.viewports, strict=True)
            ]
        )
        return depth_rows, pixels_per_metre


def write_view_uniforms(resources: GpuResources, views: ViewSet) -> None:
    """Every program's per-view uniforms (views.glsl, lighting.glsl) for ``views``, with ``views.area`` as the GL
    viewport; unused entries are zero. Programs keep their uniforms: nothing is written when they hold these views
    already (still cameras, and no other renderer drew in between)."""
    key = (
        tuple(views.viewports),
        tuple(views.area),
        b"".join(np.asarray(vp, dtype=float).tobytes() for vp in views.view_projections),
        b"".join(camera.eye().tobytes() for camera in views.cameras),
    )
    if key == resources.views_key:
        return
    resources.views_key = key
    area = views.area
    count = len(views.viewports)
    matrices = np.zeros((MAX_VIEWS, 4, 4), dtype=np.float32)
    matrices[:count] = np.transpose(views.view_projections, (0, 2, 1))  # column-major, as GLSL reads a mat4
    rects = np.zeros((MAX_VIEWS, 4), dtype=np.float32)
    sizes = np.zeros((MAX_VIEWS, 2), dtype=np.float32)
    eyes, keys, fills = (np.zeros((MAX_VIEWS, 3), dtype=np.float32) for _ in range(3))
    for view, (viewport, camera) in enumerate(zip(views.viewports, views.cameras, strict=True)):
        x, y, width, height = viewport
        rects[view] = (
            width / area[2],
            height / area[3],
            (2.0 * (x - area[0]) + width) / area[2] - 1.0,
            (2.0 * (y - area[1]) + height) / area[3] - 1.0,
        )
        sizes[view] = width, height
        eyes[view] = camera.eye()
        camera_to_world = camera.view()[:3, :3].T
        key_light, fill_light = camera_to_world @ KEY_DIRECTION_CAMERA, camera_to_world @ FILL_DIRECTION_CAMERA
        keys[view], fills[view] = key_light / np.linalg.norm(key_light), fill_light / np.linalg.norm(fill_light)
    values = {
        "u_view_projection": matrices,
        "u_view_rect": rects,
        "u_view_size": sizes,
        "u_eye": eyes,
        "u_key_direction": keys,
        "u_fill_direction": fills,
    }
    for name in ("mesh", "edge", "line", "disc"):
        program = resources.programs[name]
        for uniform_name, value in values.items():
            if uniform_name in resources.uniforms[name]:
                uniform(program, uniform_name).write(value.tobytes())


def clip_to_views(ctx: moderngl.Context, on: bool) -> None:
    """Turn the four user clip planes that keep each view in its rectangle (views.glsl) on or off."""
    for plane in range(4):
        (ctx.enable_direct if on else ctx.disable_direct)(GL_CLIP_DISTANCE0 + plane)


def rows_in_views(
    rows: np.ndarray, owner: np.ndarray | None, chosen: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The instance ``rows`` (M, 21) of bodies ``owner`` (M,) (row i is body i when ``None``) repeated for each view
    whose bodies ``chosen`` (V, N) hold their owner, with the view's index in their view column; returns
    ``(rows (K, 21), view (K,), body (K,))``, view by view."""
    owned = chosen if owner is None else chosen[:, owner]
    if len(owned) == 1 and owned.all() and not rows[:, 20].any():
        # One view of every row, whose view column already says 0: the rows themselves (at 10^5 bodies a copy was
        # 17 MB a frame).
        return rows, np.zeros(len(rows), dtype=np.intp), np.arange(len(rows)) if owner is None else owner
    view, row = np.nonzero(owned)
    placed = rows[row]
    placed[:, 20] = view
    return placed, view, row if owner is None else owner[row]


def split_by_level(rows: np.ndarray, levels: np.ndarray, count: int) -> list[np.ndarray]:
    """``rows`` (K, 21) split by their ``levels`` (K,) of detail (:func:`levels_of_detail`) into ``count`` lists,
    finest first; when all share one level, its list is ``rows`` itself."""
    if len(levels) and (levels == levels[0]).all():
        return [rows if index == levels[0] else rows[:0] for index in range(count)]
    return [rows[levels == index] for index in range(count)]


def levels_of_detail(
    rows: np.ndarray,
    depth_rows: np.ndarray,
    pixels_per_metre: np.ndarray,
    segments: tuple[int, ...],
    round_columns: int,
) -> np.ndarray:
    """(K,) int: for each instance row (K, 21) (render/gpu.py), the index into ``segments`` (finest first) of the
    fewest segments whose polygon stays within ``SILHOUETTE_ERROR_PX`` of the circle it stands for. The radius is
    the largest of the first ``round_columns`` columns of the model matrix (the unit mesh's round axes), projected
    at the distance of the instance's origin in its view: ``depth_rows`` (V, 4) the views' row 3 of P·V, and
    ``pixels_per_metre`` (V,) at unit distance (:meth:`ViewSet.projection`). A few numpy calls whatever the number
    of rows and columns (it runs per mesh kind every frame)."""
    view = rows[:, 20].astype(np.intp)
    # The columns' lengths: each column's squares summed, as np.linalg.norm sums them (the same bits).
    columns = rows[:, : 4 * round_columns].reshape(len(rows), round_columns, 4)[:, :, :3]
    radius = np.sqrt(np.square(columns).sum(axis=2).max(axis=1))
    depth_row = depth_rows[view]
    depth = np.einsum("ki,ki->k", rows[:, 12:15], depth_row[:, :3]) + depth_row[:, 3]
    radius_px = np.where(depth > 0.0, radius * pixels_per_metre[view] / np.maximum(depth, 1e-9), 0.0)
    return np.sum(radius_px[:, None] <= _level_limits(segments)[None, :], axis=1)


@functools.cache
def _level_limits(segments: tuple[int, ...]) -> np.ndarray:
    """The largest radius (pixels) each coarser polygon of ``segments`` serves: r (1 − cos(π/N)) =
    ``SILHOUETTE_ERROR_PX``."""
    return SILHOUETTE_ERROR_PX / (1.0 - np.cos(np.pi / np.array(segments[1:], dtype=float)))


def bounding_viewport(viewports: Sequence[Viewport]) -> Viewport:
    """The smallest viewport that holds all of ``viewports``."""
    x0 = min(x for x, _, _, _ in viewports)
    y0 = min(y for _, y, _, _ in viewports)
    x1 = max(x + width for x, _, width, _ in viewports)
    y1 = max(y + height for _, y, _, height in viewports)
    return x0, y0, x1 - x0, y1 - y0


def overlap(a: Viewport, b: Viewport) -> bool:
    """Whether the viewports ``a`` and ``b`` share a pixel."""
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]
