"""An orbit camera about a target point, world z up.

The eye sits at ``target + distance · (cos e cos a, cos e sin a, sin e)`` for azimuth ``a`` (from +x towards +y)
and elevation ``e`` (above the xy plane). The window calls :meth:`OrbitCamera.orbit`, :meth:`OrbitCamera.pan` and
:meth:`OrbitCamera.zoom` from mouse drags and the wheel; :meth:`OrbitCamera.fit` frames a bounding box.

Matrices act on column vectors (``clip = P @ V @ [x, 1]``). pyrr builds the transposes (row vectors), so this
module transposes what pyrr returns; a matrix goes to GLSL as ``M.T`` bytes (GLSL reads column-major).

The view matrix is written from the angles in closed form: looking from the eye at the target with world z up,
the camera's axes in the world are right ``r = (−sin a, cos a, 0)``, up ``u = (−sin e cos a, −sin e sin a, cos e)``
and back ``b = (cos e cos a, cos e sin a, sin e)`` (from the target to the eye), the same basis pyrr's look-at
finds with cross products and normalisations, at a tenth of the cost (several views are drawn every frame).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from pyrr import matrix44

from spinlab.scene.files.camera_table import ELEVATION_RANGE
from spinlab.scene.model.camera_path import CameraState

__all__ = ["OrbitCamera", "CameraFollower", "project"]

# Elevation stays this far from ±90° so that the view direction never lines up with world up (a camera key's too).
ELEVATION_LIMIT_DEG = ELEVATION_RANGE[1]
MIN_DISTANCE_M = 1e-3
# Near and far planes in units of the distance: tight enough for depth precision, far enough for the floor grid.
NEAR_FRACTION = 0.02
FAR_FRACTION = 60.0
# Fraction of the view a fitted bounding sphere fills (the rest is margin).
FIT_FILL = 0.9


@dataclass
class OrbitCamera:
    """Angles in degrees, ``distance`` in metres, ``target`` (3,) m world, ``fov_y_deg`` the vertical field of view."""

    azimuth_deg: float = -60.0
    elevation_deg: float = 22.0
    distance: float = 4.0
    target: np.ndarray = field(default_factory=lambda: np.zeros(3))
    fov_y_deg: float = 35.0
    _memo: tuple | None = field(default=None, init=False, repr=False, compare=False)

    def eye(self) -> np.ndarray:
        """(3,) m, the camera position in the world."""
        return np.asarray(self.target, dtype=float) + self.distance * self._axes()[2]

    def view(self) -> np.ndarray:
        """(4, 4) world → camera (see the module docstring)."""
        axes = self._axes()
        eye = np.asarray(self.target, dtype=float) + self.distance * axes[2]
        view = np.eye(4)
        view[:3, :3] = axes
        view[:3, 3] = -(axes @ eye)
        return view

    def _axes(self) -> np.ndarray:
        """(3, 3): the camera's right, up and back axes in the world, as rows."""
        a, e = math.radians(self.azimuth_deg), math.radians(self.elevation_deg)
        cos_a, sin_a, cos_e, sin_e = math.cos(a), math.sin(a), math.cos(e), math.sin(e)
        return np.array(
            [[-sin_a, cos_a, 0.0], [-sin_e * cos_a, -sin_e * sin_a, cos_e], [cos_e * cos_a, cos_e * sin_a, sin_e]]
        )

    def projection(self, aspect: float) -> np.ndarray:
        """(4, 4) camera → clip, for ``aspect`` = width / height."""
        near, far = NEAR_FRACTION * self.distance, FAR_FRACTION * self.distance
        return matrix44.create_perspective_projection(self.fov_y_deg, aspect, near, far).T

    def view_projection(self, aspect: float) -> np.ndarray:
        """(4, 4) world → clip (a new array; the last one is remembered for the same camera and aspect, as the
        views ask for it several times a frame)."""
        key = (self.azimuth_deg, self.elevation_deg, self.distance, self.fov_y_deg, float(aspect))
        key += tuple(np.asarray(self.target, dtype=float).tolist())
        if self._memo is None or self._memo[0] != key:
            self._memo = key, self.projection(aspect) @ self.view()
        return self._memo[1].copy()

    def state(self) -> CameraState:
        """The camera's values, as camera keys ease them (scene/model/camera_path.py)."""
        target = np.array(self.target, dtype=float)
        return CameraState(self.azimuth_deg, self.elevation_deg, self.distance, target, self.fov_y_deg)

    def set_state(self, state: CameraState) -> None:
        """Take ``state``'s values (a camera key's, or eased between keys)."""
        self.azimuth_deg, self.elevation_deg, self.fov_y_deg = state.azimuth, state.elevation, state.fov
        self.distance, self.target = state.distance, np.array(state.target, dtype=float)

    def orbit(self, delta_azimuth_deg: float, delta_elevation_deg: float) -> None:
        """Turn about the target (a horizontal drag changes the azimuth, a vertical one the elevation)."""
        self.azimuth_deg = (self.azimuth_deg + delta_azimuth_deg + 180.0) % 360.0 - 180.0
        self.elevation_deg = float(
            np.clip(self.elevation_deg + delta_elevation_deg, -ELEVATION_LIMIT_DEG, ELEVATION_LIMIT_DEG)
        )

    def pan(self, dx_px: float, dy_px: float, viewport_height_px: float) -> None:
        """Move the target in the view plane so that a point at the target's depth follows a drag of
        ``(dx_px, dy_px)`` pixels (x right, y up)."""
        metres_per_px = 2.0 * self.distance * np.tan(0.5 * np.radians(self.fov_y_deg)) / viewport_height_px
        view = self.view()
        right, up = view[0, :3], view[1, :3]
        self.target = np.asarray(self.target, dtype=float) - metres_per_px * (dx_px * right + dy_px * up)

    def zoom(self, steps: float) -> None:
        """Move towards the target by 10 % per wheel step (negative steps move away)."""
        self.distance = max(MIN_DISTANCE_M, self.distance * 0.9**steps)

    def fit(self, bounds: np.ndarray, aspect: float = 16.0 / 9.0) -> None:
        """Frame the box ``bounds`` ((2, 3) m: min and max corners) by its bounding sphere (see :meth:`fit_sphere`)."""
        low, high = np.asarray(bounds, dtype=float)
        self.fit_sphere(0.5 * (low + high), 0.5 * float(np.linalg.norm(high - low)), aspect)

    def fit_sphere(self, center: np.ndarray, radius: float, aspect: float = 16.0 / 9.0) -> None:
        """Aim at ``center`` (3,) m and set the distance so that the sphere of ``radius`` m fills about 90 % of the
        smaller field of view (vertical, or horizontal for ``aspect`` < 1); the angles stay."""
        half_fov_y = 0.5 * np.radians(self.fov_y_deg)
        half_fov = min(half_fov_y, np.arctan(np.tan(half_fov_y) * aspect))
        self.target = np.array(center, dtype=float)
        self.distance = max(float(radius), MIN_DISTANCE_M) / (FIT_FILL * np.sin(half_fov))

    def fit_spheres(
        self, centers: np.ndarray, radii: np.ndarray, aspect: float = 16.0 / 9.0, top_clear: float = 0.0
    ) -> None:
        """Frame the spheres (``centers`` (K, 3) m, ``radii`` (K,) m) at the current angles: the least distance at
        which every one lies inside the view with :data:`FIT_FILL` of it to spare, and below the top
        ``top_clear`` of its height (a label's band), then the target moved across the view so that they sit in
        the middle of that room. Tighter than :meth:`fit_sphere` round them all when they spread in a plane or a
        line seen obliquely (a cloud's grid filled a third of the view). Vectorised over the spheres.

        In the camera's axes (right ``x``, up ``y``, back ``z`` towards the eye, from the middle of the centres),
        a sphere is inside the side plane ``x = t (d − z)`` of a frustum whose eye is ``s`` across and ``d`` back
        when ``x − s + r √(1 + t²) ≤ t (d − z)``, and inside the opposite side, ``x = −t' (d − z)``, when
        ``s − x + r √(1 + t'²) ≤ t' (d − z)``. An ``s`` meets both for every sphere once
        ``max(x + g − t (d − z)) ≤ min(x − g' + t' (d − z))``: linear in ``d``, so the least ``d`` is in closed
        form, and ``s`` is then the middle of what is left."""
        centers = np.asarray(centers, dtype=float).reshape(-1, 3)
        radii = np.asarray(radii, dtype=float).reshape(-1)
        middle = 0.5 * (centers.min(axis=0) + centers.max(axis=0))
        axes = self._axes()
        x, y, z = ((centers - middle) @ axes.T).T  # (K,) each; z towards the eye
        tan_y = np.tan(0.5 * np.radians(self.fov_y_deg))
        # Per axis: the across coordinate, and the tangent of the half-angle to the high and to the low side.
        limits = (
            (x, FIT_FILL * tan_y * aspect, FIT_FILL * tan_y * aspect),
            (y, tan_y * max(1.0 - 2.0 * top_clear - (1.0 - FIT_FILL), 0.05), FIT_FILL * tan_y),
        )
        # Per axis: s ≥ max(a) − high d and s ≤ min(b) + low d, over the spheres.
        bounds = [
            (float(np.max(across + radii * np.hypot(1.0, high) + high * z)),
             float(np.min(across - radii * np.hypot(1.0, low) - low * z)), high, low)
            for across, high, low in limits
        ]  # fmt: skip
        distance = float(np.max(z + radii)) / (1.0 - NEAR_FRACTION)  # no sphere reaches the near plane
        distance = max(distance, MIN_DISTANCE_M, *((a - b) / (high + low) for a, b, high, low in bounds))
        shift = [0.5 * ((a - high * distance) + (b + low * distance)) for a, b, high, low in bounds]
        self.target = middle + shift[0] * axes[0] + shift[1] * axes[1]
        self.distance = distance


def project(view_projection: np.ndarray, points_world: np.ndarray, viewport: tuple[int, int, int, int]) -> np.ndarray:
    """(N, 3) world points → (N, 2) window coordinates ``(x, y)`` in pixels, GL's convention (origin at the
    target's bottom-left corner, y up), for ``viewport`` = (x, y, width, height) in the same convention. In an
    image read top-down, row = height_of_target − y. Points behind the eye give NaN."""
    x0, y0, width, height = viewport
    points = np.atleast_2d(np.asarray(points_world, dtype=float))
    clip = np.hstack([points, np.ones((len(points), 1))]) @ view_projection.T
    w = np.where(clip[:, 3] > 0.0, clip[:, 3], np.nan)
    ndc = clip[:, :2] / w[:, None]
    return np.stack([x0 + (ndc[:, 0] + 1.0) * 0.5 * width, y0 + (ndc[:, 1] + 1.0) * 0.5 * height], axis=1)


class CameraFollower:
    """Cameras that follow a body each: at every :meth:`follow`, each camera's target moves by its body's
    displacement since the last call, so the framing a person chose (by orbiting, panning, zooming) is kept while
    the body travels. The first call after :meth:`reset` only notes where the bodies are."""

    def __init__(self) -> None:
        self._last: np.ndarray | None = None

    def follow(self, cameras: Sequence[OrbitCamera], positions_world: np.ndarray) -> None:
        """Move ``cameras`` by the displacement of their bodies, now at ``positions_world`` (V, 3) m (one per camera,
        NaN rows: that camera stays)."""
        positions = np.asarray(positions_world, dtype=float).reshape(len(cameras), 3)
        if self._last is not None and self._last.shape == positions.shape:
            moved = positions - self._last
            for camera, step in zip(cameras, moved, strict=True):
                if np.all(np.isfinite(step)):
                    camera.target = np.asarray(camera.target, dtype=float) + step
        self._last = positions.copy()

    def reset(self) -> None:
        """Forget where the bodies were (the next :meth:`follow` moves nothing)."""
        self._last = None
