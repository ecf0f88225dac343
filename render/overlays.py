"""Instance data of what is drawn around the bodies, as functions over numpy arrays (no GL): arrows, principal
axes, contact shadows, invariable planes and herpolhode segments. Matrices act on column vectors; a leading axis
is the body (K selected bodies), or the (view, body) pair (P pairs) for what depends on the view."""

from __future__ import annotations

import numpy as np

from spinlab.render import meshes
from spinlab.render.instances import frames_along, rigid_matrices, rotation_from_quat_wxyz
from spinlab.render.thinning_numpy import trail_keep_reference
from spinlab.render.trail import invariable_plane
from spinlab.sim import compiled

__all__ = [
    "arrow_matrices",
    "axes_matrices",
    "shadow_matrices",
    "plane_matrices",
    "trail_tips_px",
    "trail_keep",
    "trail_segments",
]


def arrow_matrices(
    origin: np.ndarray, vectors: np.ndarray, sizes: tuple[float | np.ndarray, float, float | np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """Arrows from ``origin`` (K, 3) m along ``vectors`` (K, 3) m: (shaft (K, 4, 4) for the unit cylinder, head
    (K, 4, 4) for the unit cone). ``sizes`` = (shaft radius, head length, head radius) m, the radii one for all or
    (K,) each."""
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
    # The squared distance from the axis, |ω|² − (ω · L̂)², in two passes over the history (not a (T, K, 3) array
    # made, subtracted and normed); the largest matters, where cancellation is least.
    along = np.einsum("tki,ki->tk", omega_history, normal)
    across2 = np.einsum("tki,tki->tk", omega_history, omega_history) - along * along
    farthest = np.sqrt(np.maximum(across2.max(axis=0, initial=0.0), 0.0))
    radius = np.maximum(margin * omega_scale * farthest, min_radius)
    center = position + omega_scale * distance[:, None] * normal
    return rigid_matrices(frames_along(normal) * radius[:, None, None], center)


def trail_tips_px(
    tips: np.ndarray, view_projection: np.ndarray, view_size: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Where trail tips land on screen: ``tips`` (P, T, 3) m world frame, seen through ``view_projection``
    (P, 4, 4) world → clip into a view of ``view_size`` (P, 2) pixels. Returns ``(pixels (P, T, 2), in_front
    (P, T))``, pixels from the view's centre (x right, y up), meaningful only where ``in_front`` (clip w > 0)."""
    rows = view_projection[:, [0, 1, 3]]  # clip x, y and w
    clip = tips @ np.swapaxes(rows[:, :, :3], 1, 2) + rows[:, None, :, 3]  # (P, T, 3)
    in_front = clip[..., 2] > 0.0
    scale = 0.5 * view_size[:, None, :] / np.where(in_front, clip[..., 2], 1.0)[..., None]
    return clip[..., :2] * scale, in_front


def trail_keep(
    pixels: np.ndarray,
    in_front: np.ndarray,
    index: np.ndarray,
    stride: int,
    *,
    segment_px: float,
    error_px: float,
    max_stride: int,
) -> np.ndarray:
    """(P, T) bool: the samples of each trail to draw so that it looks as drawn with all of them (on screen,
    consecutive samples are often less than a pixel apart). ``pixels`` (P, T, 2) and ``in_front`` (P, T) from
    :func:`trail_tips_px`, oldest first; ``index`` (T,) the samples' absolute indices (render/trail.py), multiples
    of ``stride`` (the time thinning) but for the newest.

    Strides are powers of two anchored to the absolute index: sample m = index / stride stays at a local stride of
    2^k when 2^k divides m. So the sample m = odd · 2^j is the first a stride of 2^(j+1) drops, and it is kept when
    the path over the 2^j samples on each side of it, of length L and chord c in pixels, is longer than
    ``segment_px`` (its mean speed v has 2^(j+1) · v > ``segment_px``), or curves: L² − c² > 2 ``error_px``²; and
    when a tip on that path is behind the eye; and always when 2^j ≥ ``max_stride``. The oldest and the newest
    sample are always kept.

    Why that suffices: two consecutive kept samples a, b (more than one step apart) lie within the path of the
    dropped sample of highest j between them, of length L and chord c. So the path from a to b is at most
    ``segment_px`` long, and with its own L' and c', L' − c' ≤ L − c (triangle inequality) and L' + c' ≤ 2L give
    L'² − c'² ≤ 2 (L² − c²) ≤ 4 ``error_px``². A path of length L' between a and b stays within √(L'² − c'²)/2
    of the chord ab (an ellipse with foci a, b), so no dropped tip is farther than ``error_px`` from the line
    drawn. The kept samples depend on the absolute indices and the projection only: under a still camera they
    stay the same from one pushed sample to the next, but within ``max_stride`` samples of either end, where the
    paths are cut short.

    The loops are compiled, one pass per trail (render/thinning.py); the numpy formulation they match bit for bit
    is render/thinning_numpy.py, which runs instead while the kernel is compiling (sim/compiled.py)."""
    pixels = np.ascontiguousarray(pixels, dtype=np.float64)
    in_front = np.ascontiguousarray(in_front, dtype=np.bool_)
    index = np.ascontiguousarray(index, dtype=np.int64)
    if (
        pixels.ndim != 3
        or pixels.shape[2] != 2
        or in_front.shape != pixels.shape[:2]
        or index.shape != pixels.shape[1:2]
    ):
        raise ValueError(
            f"trail_keep needs pixels (P, T, 2), in_front (P, T) and index (T,), got {pixels.shape}, "
            f"{in_front.shape} and {index.shape}"
        )
    if stride < 1:
        raise ValueError(f"trail_keep needs a stride of at least 1, got {stride}")
    if not compiled.is_ready(compiled.POLYLINE_KEEP):
        return trail_keep_reference(
            pixels, in_front, index, int(stride), segment_px=segment_px, error_px=error_px, max_stride=max_stride
        )
    from spinlab.render.thinning import polyline_keep  # imports numba: not before the kernel is ready

    # The thresholds in the caller's scalar arithmetic, rounded as the numpy formulation rounds them.
    return polyline_keep(
        pixels,
        in_front,
        index,
        int(stride),
        float(segment_px),
        float(segment_px + 1.0),
        float(2.0 * error_px**2),
        int(max_stride),
    )


def trail_segments(tips: np.ndarray, age: np.ndarray, capacity: int, keep: np.ndarray) -> tuple[np.ndarray, ...]:
    """Herpolhode line segments joining the consecutive ``keep`` (P, T) samples of each trail of ``tips``
    (P, T, 3) m, oldest first: ``(end points (2S, 3), opacity (2S,), trail (2S,))``, consecutive pairs, each
    trail's segments contiguous and in order. ``age`` (T,) is in samples; tips fade as ``(1 − age/capacity)²``."""
    trail, sample = np.nonzero(keep)  # trail by trail, oldest first
    start = np.flatnonzero(trail[1:] == trail[:-1])
    ends = np.stack([start, start + 1], axis=1).reshape(-1)  # into (trail, sample): a segment's two ends
    alpha = (1.0 - age / capacity) ** 2
    return tips[trail[ends], sample[ends]], alpha[sample[ends]], trail[ends]
