"""Instance data of what is drawn around the bodies, as functions over numpy arrays (no GL): arrows, principal
axes, contact shadows, invariable planes and herpolhode segments. Matrices act on column vectors; a leading axis
is the body (K selected bodies)."""

from __future__ import annotations

import numpy as np

from render import meshes
from render.instances import frames_along, rigid_matrices, rotation_from_quat_wxyz
from render.trail import invariable_plane

__all__ = ["arrow_matrices", "axes_matrices", "shadow_matrices", "plane_matrices", "trail_segments"]


def arrow_matrices(
    origin: np.ndarray, vectors: np.ndarray, sizes: tuple[float, float, float]
) -> tuple[np.ndarray, np.ndarray]:
    """Arrows from ``origin`` (K, 3) m along ``vectors`` (K, 3) m: (shaft (K, 4, 4) for the unit cylinder, head
    (K, 4, 4) for the unit cone). ``sizes`` = (shaft radius, head length, head radius) m."""
    base = rigid_matrices(frames_along(vectors), origin)
    shaft, head = meshes.arrow_part_matrices(np.linalg.norm(vectors, axis=1), *sizes)
    return base @ shaft, base @ head


def axes_matrices(q: np.ndarray, position: np.ndarray, principal_axes: np.ndarray, length: np.ndarray) -> np.ndarray:
    """(K, 4, 4) placing ``meshes.axes_lines`` on each body's principal axes: ``q`` (K, 4) body → world,
    ``position`` (K, 3) m, ``principal_axes`` (K, 3, 3) columns in the body frame, ``length`` (K,) m (half)."""
    frames = rotation_from_quat_wxyz(q) @ principal_axes * length[:, None, None]
    return rigid_matrices(frames, position)


def shadow_matrices(
    position: np.ndarray, radius: np.ndarray, floor_z: float, strength: float
) -> tuple[np.ndarray, np.ndarray]:
    """Soft contact shadows on the floor ``z = floor_z``: (K, 4, 4) unit-disc matrices under each body of bounding
    ``radius`` (K,) m and their opacity (K,), ``strength`` at rest on the floor, fading to 0 at four radii up."""
    height = position[:, 2] - floor_z
    alpha = strength * np.clip(1.0 - (height - radius) / (4.0 * radius), 0.0, 1.0)
    center = np.column_stack([position[:, :2], np.full(len(position), floor_z)])
    scale = np.broadcast_to(np.eye(3), (len(position), 3, 3)) * (1.3 * radius)[:, None, None]
    return rigid_matrices(scale, center), alpha


def plane_matrices(
    position: np.ndarray,
    L_world: np.ndarray,
    energy: np.ndarray,
    omega_history: np.ndarray,
    omega_scale: float,
    margin: float,
    min_radius: np.ndarray,
) -> np.ndarray:
    """(K, 4, 4) unit-disc matrices of the invariable planes as drawn: ω is drawn from the body's centre
    ``position`` (K, 3) m scaled by ``omega_scale`` m per rad/s, so the plane ``ω · L̂ = 2E/|L|`` sits
    ``omega_scale · 2E/|L|`` from the centre along L̂. ``L_world`` (K, 3), ``energy`` (K,) J. The disc is centred
    on the L axis and reaches ``margin`` times beyond the farthest ω of ``omega_history`` (T, K, 3) rad/s from
    that axis, and at least ``min_radius`` (K,) m."""
    normal, distance = invariable_plane(L_world, energy)
    across = omega_history - np.einsum("tki,ki->tk", omega_history, normal)[..., None] * normal
    radius = np.maximum(margin * omega_scale * np.linalg.norm(across, axis=2).max(axis=0), min_radius)
    center = position + omega_scale * distance[:, None] * normal
    return rigid_matrices(frames_along(normal) * radius[:, None, None], center)


def trail_segments(
    position: np.ndarray, omega_history: np.ndarray, age: np.ndarray, omega_scale: float, capacity: int
) -> tuple[np.ndarray, np.ndarray]:
    """Herpolhode line segments: end points (2S, 3) m, consecutive pairs, and their opacity (2S,).

    The tips ``position + omega_scale · ω`` of ``omega_history`` (T, K, 3) rad/s, oldest first, whose ``age``
    (T,) is in samples, fade as ``(1 − age/capacity)²``. Each body's segments are contiguous.
    """
    tips = position + omega_scale * omega_history  # (T, K, 3)
    alpha = (1.0 - age / capacity) ** 2
    ends = np.stack([tips[:-1], tips[1:]], axis=2).transpose(1, 0, 2, 3)  # (K, T−1, 2, 3)
    end_alpha = np.broadcast_to(np.stack([alpha[:-1], alpha[1:]], axis=1), ends.shape[:3])
    return ends.reshape(-1, 3), end_alpha.reshape(-1)
