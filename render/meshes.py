"""Meshes made in code, with normals: numpy only, no GL.

Every mesh here is a *unit* mesh that an instance's model matrix scales and places: the renderer draws each kind
once per frame, instanced (design.md §Data flow). A scene shape is a few placed unit meshes (:func:`shape_parts`):
a box is the unit cube scaled, a cylinder the unit cylinder scaled, the T-handle two cylinders. An arrow is a
cylinder shaft and a cone head (:func:`arrow_part_matrices`).

Matrices act on column vectors, ``p' = M @ [p, 1]``. Triangles wind counter-clockwise seen from outside, and a
vertex normal points out of the solid. Tessellation: 40 segments around keep a silhouette of a 0.3 m tube round
at 720p and cost 160 triangles a cylinder.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = [
    "Mesh",
    "Lines",
    "Part",
    "cylinder",
    "cone",
    "box",
    "uv_sphere",
    "disc",
    "axes_lines",
    "shape_parts",
    "body_mesh",
    "bounding_radius",
    "arrow_part_matrices",
    "UNIT_MESHES",
    "edge_adjacency",
    "smooth_edge_count",
    "unit_mesh",
    "transform_mesh",
    "merge",
    "translation",
    "scaling",
]

Mat4 = np.ndarray  # (4, 4), acts on column vectors

SEGMENTS = 40
SPHERE_RINGS = 20
DISC_SEGMENTS = 96


@dataclass(frozen=True)
class Mesh:
    """Triangles: ``positions`` (V, 3) and ``normals`` (V, 3) float32, ``indices`` (T, 3) uint32, CCW outside."""

    positions: np.ndarray
    normals: np.ndarray
    indices: np.ndarray

    def interleaved(self) -> np.ndarray:
        """(V, 6) float32 rows ``(x, y, z, nx, ny, nz)``: the vertex buffer layout ``"3f 3f"``."""
        return np.hstack([self.positions, self.normals]).astype(np.float32)


@dataclass(frozen=True)
class Lines:
    """Line segments: ``positions`` (2S, 3) float32, consecutive pairs; ``colors`` (2S, 4) float32 linear RGBA."""

    positions: np.ndarray
    colors: np.ndarray


@dataclass(frozen=True)
class Part:
    """One unit mesh of a shape: its ``kind`` (a key of the renderer's meshes) and ``matrix`` (4, 4), unit mesh →
    the shape's modelling frame."""

    kind: str
    matrix: Mat4


def _mesh(positions: list | np.ndarray, normals: list | np.ndarray, indices: list | np.ndarray) -> Mesh:
    return Mesh(
        np.asarray(positions, dtype=np.float32).reshape(-1, 3),
        np.asarray(normals, dtype=np.float32).reshape(-1, 3),
        np.asarray(indices, dtype=np.uint32).reshape(-1, 3),
    )


def _ring(segments: int) -> tuple[np.ndarray, np.ndarray]:
    angle = 2.0 * np.pi * np.arange(segments) / segments
    return np.cos(angle), np.sin(angle)


def _fan(center: int, ring: np.ndarray, outward_up: bool) -> np.ndarray:
    """Triangles from ``center`` to consecutive ``ring`` vertices; CCW about +z when ``outward_up``."""
    following = np.roll(ring, -1)
    first, second = (ring, following) if outward_up else (following, ring)
    return np.stack([np.full_like(ring, center), first, second], axis=1)


def cylinder(segments: int = SEGMENTS) -> Mesh:
    """Radius 1, axis z, ``−½ ≤ z ≤ ½``: smooth sides, flat caps (cap vertices are separate, with ±z normals)."""
    c, s = _ring(segments)
    zeros, ones = np.zeros(segments), np.ones(segments)
    side_normals = np.stack([c, s, zeros], axis=1)
    bottom = np.stack([c, s, -0.5 * ones], axis=1)
    top = np.stack([c, s, 0.5 * ones], axis=1)
    k = np.arange(segments)
    k1 = (k + 1) % segments
    # Sides: bottom ring is 0..S−1, top ring S..2S−1.
    sides = np.concatenate([np.stack([k, k1, segments + k1], 1), np.stack([k, segments + k1, segments + k], 1)])
    # Caps: centre then ring, bottom cap at 2S (centre) and 2S+1.., top cap at 3S+1 (centre) and 3S+2...
    bottom_center, top_center = 2 * segments, 3 * segments + 1
    caps = np.concatenate(
        [_fan(bottom_center, bottom_center + 1 + k, False), _fan(top_center, top_center + 1 + k, True)]
    )
    positions: list[npt.ArrayLike] = [bottom, top, [[0, 0, -0.5]], bottom, [[0, 0, 0.5]], top]
    down, up = np.tile([0.0, 0.0, -1.0], (segments + 1, 1)), np.tile([0.0, 0.0, 1.0], (segments + 1, 1))
    normals = [side_normals, side_normals, down, up]
    return _mesh(np.concatenate(positions), np.concatenate(normals), np.concatenate([sides, caps]))


def cone(segments: int = SEGMENTS) -> Mesh:
    """Base radius 1 on ``z = 0``, apex at ``z = 1``: smooth sides, a flat base."""
    c, s = _ring(segments)
    middle = 2.0 * np.pi * (np.arange(segments) + 0.5) / segments
    ca, sa = np.cos(middle), np.sin(middle)
    # The side's outward normal for height 1 and radius 1 is (cos θ, sin θ, 1)/√2; each apex vertex takes the
    # normal of its triangle's middle angle, so the tip shades smoothly.
    root_half = np.sqrt(0.5)
    ring = np.stack([c, s, np.zeros(segments)], axis=1)
    apex = np.tile([0.0, 0.0, 1.0], (segments, 1))
    ring_normals = np.stack([c, s, np.ones(segments)], axis=1) * root_half
    apex_normals = np.stack([ca, sa, np.ones(segments)], axis=1) * root_half
    k = np.arange(segments)
    sides = np.stack([k, (k + 1) % segments, segments + k], axis=1)
    base_center = 2 * segments
    base = _fan(base_center, base_center + 1 + k, False)
    down = np.tile([0.0, 0.0, -1.0], (segments + 1, 1))
    positions = np.concatenate([ring, apex, [[0.0, 0.0, 0.0]], ring])
    normals = np.concatenate([ring_normals, apex_normals, down])
    return _mesh(positions, normals, np.concatenate([sides, base]))


def box() -> Mesh:
    """The unit cube ``[−½, ½]³`` with flat faces (four vertices a face)."""
    positions: list[np.ndarray] = []
    normals: list[np.ndarray] = []
    indices: list[list[int]] = []
    for axis in range(3):
        for sign in (1.0, -1.0):
            normal = np.zeros(3)
            normal[axis] = sign
            u = np.roll(normal, 1)
            v = np.cross(normal, u)  # u × v = normal: CCW seen from outside
            start = len(positions)
            for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
                positions.append(0.5 * (normal + a * u + b * v))
                normals.append(normal)
            indices += [[start, start + 1, start + 2], [start, start + 2, start + 3]]
    return _mesh(positions, normals, indices)


def uv_sphere(segments: int = SEGMENTS, rings: int = SPHERE_RINGS) -> Mesh:
    """Radius 1, ``rings`` bands of latitude by ``segments`` of longitude (a duplicated seam column)."""
    latitude = np.linspace(-0.5 * np.pi, 0.5 * np.pi, rings + 1)[:, None]
    longitude = np.linspace(0.0, 2.0 * np.pi, segments + 1)[None, :]
    x, y, z = np.cos(latitude) * np.cos(longitude), np.cos(latitude) * np.sin(longitude), np.sin(latitude)
    points = np.stack(np.broadcast_arrays(x, y, z), axis=-1).reshape(-1, 3)
    i, j = np.meshgrid(np.arange(rings), np.arange(segments), indexing="ij")
    a = (i * (segments + 1) + j).ravel()
    b, c, d = a + 1, a + segments + 2, a + segments + 1
    # a, b lie on the south pole in the first band and c, d on the north pole in the last: drop the degenerate.
    south, north = (i == 0).ravel(), (i == rings - 1).ravel()
    first = np.stack([a, b, c], axis=1)[~south]
    second = np.stack([a, c, d], axis=1)[~north]
    return _mesh(points, points, np.concatenate([first, second]))


def disc(segments: int = DISC_SEGMENTS) -> Mesh:
    """The unit disc in the plane ``z = 0``, normal +z (draw it without face culling)."""
    c, s = _ring(segments)
    positions = np.concatenate([[[0.0, 0.0, 0.0]], np.stack([c, s, np.zeros(segments)], axis=1)])
    normals = np.tile([0.0, 0.0, 1.0], (segments + 1, 1))
    return _mesh(positions, normals, _fan(0, 1 + np.arange(segments), True))


# The principal axes' colours (linear RGB), least moment first: red, green, blue (render/legend.py names them).
AXES_LINEAR = np.array([[0.9, 0.12, 0.1], [0.15, 0.75, 0.12], [0.12, 0.3, 1.0]])


def axes_lines() -> Lines:
    """Three segments from −1 to 1 along x (red), y (green) and z (blue), linear RGBA: :data:`AXES_LINEAR`."""
    positions = np.repeat(np.eye(3), 2, axis=0) * np.tile([-1.0, 1.0], 3)[:, None]
    colors = np.repeat(np.column_stack([AXES_LINEAR, np.ones(3)]), 2, axis=0)
    return Lines(positions.astype(np.float32), colors.astype(np.float32))


def translation(offset: Any) -> Mat4:
    """The (4, 4) translation by ``offset`` (3,)."""
    matrix = np.eye(4)
    matrix[:3, 3] = offset
    return matrix


def scaling(factors: Any) -> Mat4:
    """The (4, 4) scaling by ``factors`` (3,) along x, y, z."""
    return np.diag([*np.broadcast_to(np.asarray(factors, dtype=float), (3,)), 1.0])


# z → x (a quarter turn about y) and z → y (a quarter turn about −x).
_Z_TO_X = np.array([[0.0, 0, 1, 0], [0, 1, 0, 0], [-1, 0, 0, 0], [0, 0, 0, 1]])
_Z_TO_Y = np.array([[1.0, 0, 0, 0], [0, 0, -1, 0], [0, 1, 0, 0], [0, 0, 0, 1]])


def shape_parts(shape: str, sizes: dict[str, Any]) -> tuple[Part, ...]:
    """The unit meshes that make a scene shape, placed in its modelling frame (sim/inertia.py's shapes).

    ``sizes`` are the shape's size keys in metres (``SceneSpec`` bodies carry them all, defaults filled in).
    """
    if shape == "box":
        return (Part("box", scaling(sizes["size"])),)
    if shape == "sphere":
        return (Part("sphere", scaling(sizes["radius"])),)
    if shape == "cylinder":
        return (Part("cylinder", scaling((sizes["radius"], sizes["radius"], sizes["length"]))),)
    if shape == "t_handle":
        radius, length, bar_length = sizes["radius"], sizes["length"], sizes["bar_length"]
        # The handle fills 0 ≤ x ≤ length; the bar's axis is the line x = length + radius along y.
        handle = translation((0.5 * length, 0.0, 0.0)) @ _Z_TO_X @ scaling((radius, radius, length))
        bar = translation((length + radius, 0.0, 0.0)) @ _Z_TO_Y @ scaling((radius, radius, bar_length))
        return (Part("cylinder", handle), Part("cylinder", bar))
    raise ValueError(f"unknown shape '{shape}'")


UNIT_MESHES: dict[str, Callable[..., Mesh]] = {"box": box, "sphere": uv_sphere, "cylinder": cylinder, "cone": cone}


def unit_mesh(kind: str, segments: int = SEGMENTS) -> Mesh:
    """The unit mesh of ``kind`` (a key of ``UNIT_MESHES``) with ``segments`` around; a box has no such choice."""
    if kind == "box":
        return box()
    if kind == "sphere":
        return uv_sphere(segments, max(segments // 2, 3))
    return UNIT_MESHES[kind](segments)


def body_mesh(shape: str, sizes: dict[str, Any]) -> Mesh:
    """A scene shape as one mesh in its modelling frame (e.g. the T-handle's two cylinders), for bounds and
    previews; the renderer draws the parts instanced instead."""
    return merge([transform_mesh(UNIT_MESHES[part.kind](), part.matrix) for part in shape_parts(shape, sizes)])


def bounding_radius(shape: str, sizes: dict[str, Any], center: Any) -> float:
    """The largest distance (m) from ``center`` (3,) m, modelling frame, to a vertex of the shape's mesh. In
    float64: a body's float32 mesh (:func:`body_mesh`) is all zeros below ~1e-45 m and infinite above ~3e38 m, and
    a scene's sizes run from 1e-50 m to 1e50 m (scene/files/limits.py)."""
    points = [
        UNIT_MESHES[part.kind]().positions.astype(float) @ part.matrix[:3, :3].T + part.matrix[:3, 3]
        for part in shape_parts(shape, sizes)
    ]
    return float(np.linalg.norm(np.concatenate(points) - np.asarray(center, dtype=float), axis=1).max())


def transform_mesh(mesh: Mesh, matrix: Mat4) -> Mesh:
    """``mesh`` moved by ``matrix`` (4, 4); normals by its cofactor matrix, so a non-uniform scale keeps them
    perpendicular to the surface. ``matrix`` must not mirror."""
    linear = matrix[:3, :3]
    rows = linear
    cofactor = np.stack([np.cross(rows[1], rows[2]), np.cross(rows[2], rows[0]), np.cross(rows[0], rows[1])])
    positions = mesh.positions @ linear.T + matrix[:3, 3]
    normals = mesh.normals @ cofactor
    normals /= np.linalg.norm(normals, axis=1, keepdims=True)
    return _mesh(positions, normals, mesh.indices)


def merge(meshes: list[Mesh]) -> Mesh:
    """One mesh holding all of ``meshes``."""
    offsets = np.cumsum([0] + [len(mesh.positions) for mesh in meshes[:-1]])
    return _mesh(
        np.concatenate([mesh.positions for mesh in meshes]),
        np.concatenate([mesh.normals for mesh in meshes]),
        np.concatenate([mesh.indices + offset for mesh, offset in zip(meshes, offsets, strict=True)]),
    )


def arrow_part_matrices(
    lengths: np.ndarray,
    shaft_radius: float | np.ndarray,
    head_length: float,
    head_radius: float | np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Arrows along +z from the origin, of ``lengths`` (N,) m: (shaft, head) matrices, each (N, 4, 4), for the
    unit cylinder and the unit cone; the radii one for all or (N,) each. A short arrow shrinks its head (at most
    40 % of the length) and keeps its proportions (a head of no length has no width)."""
    # An arrow of no length is drawn a billionth of a head long: relative to the head, since a scene's bodies, and
    # so their arrows, may be as small as 1e-50 m.
    lengths = np.maximum(np.asarray(lengths, dtype=float), 1e-9 * head_length)
    head = np.minimum(head_length, 0.4 * lengths)
    head_scale = head * (head_radius / head_length if head_length > 0.0 else 0.0)
    shaft = lengths - head
    shaft_matrix = np.zeros((len(lengths), 4, 4))
    shaft_matrix[:, 0, 0] = shaft_matrix[:, 1, 1] = np.minimum(shaft_radius, 0.5 * head_scale)
    shaft_matrix[:, 2, 2] = shaft
    shaft_matrix[:, 2, 3] = 0.5 * shaft
    shaft_matrix[:, 3, 3] = 1.0
    head_matrix = np.zeros((len(lengths), 4, 4))
    head_matrix[:, 0, 0] = head_matrix[:, 1, 1] = head_scale
    head_matrix[:, 2, 2] = head
    head_matrix[:, 2, 3] = shaft
    head_matrix[:, 3, 3] = 1.0
    return shaft_matrix, head_matrix


COPLANAR_TOLERANCE = 1e-9  # 1 − cos of the angle between two triangles' normals below which they are one plane


def edge_adjacency(mesh: Mesh, weld: float = 1e-5) -> np.ndarray:
    """(E, 6) uint32 ``GL_TRIANGLES_ADJACENCY`` indices, one per interior edge of ``mesh``: ``(f, a, b, g, c, d)``
    where ``(a, b, f)`` is a triangle F as it winds (CCW outside), ``(c, d, g)`` the other triangle G on the edge as
    it winds (so ``c`` is where ``b`` is and ``d`` where ``a`` is, each with G's normal). The edge shader draws the
    silhouette from whichever triangle faces the eye, with that triangle's normals: one primitive per edge, not one
    per side (a CPU rasteriser runs the geometry shader per primitive). Vertices closer than ``weld`` count as one
    (a cap's rim and the side it meets), so the edges where normals jump are found too; edges with other than two
    triangles (degenerate poles) are left out, and so are edges inside a plane (which are never on a silhouette).
    Smooth edges (both triangles have the same normals at the edge's two ends: a cylinder's sides) come first,
    creases (a cap's rim) after them: :func:`smooth_edge_count` says how many lead. The renderer's silhouette
    fringes are drawn from these."""
    keys = np.round(np.asarray(mesh.positions, dtype=float) / weld).astype(np.int64)
    _, welded = np.unique(keys, axis=0, return_inverse=True)
    welded = welded.reshape(-1)
    triangles = np.asarray(mesh.indices, dtype=np.int64)
    # Every half-edge (a, b) of every triangle, with the triangle's third corner.
    a = triangles[:, [0, 1, 2]].reshape(-1)
    b = triangles[:, [1, 2, 0]].reshape(-1)
    far = triangles[:, [2, 0, 1]].reshape(-1)
    wa, wb = welded[a], welded[b]
    keep = wa != wb
    a, b, far, wa, wb = a[keep], b[keep], far[keep], wa[keep], wb[keep]
    low, high = np.minimum(wa, wb), np.maximum(wa, wb)
    order = np.lexsort((high, low))
    low, high = low[order], high[order]
    same = (low[1:] == low[:-1]) & (high[1:] == high[:-1])
    starts = np.flatnonzero(np.r_[True, ~same])
    counts = np.diff(np.r_[starts, len(low)])
    pairs = starts[counts == 2]
    first, second = order[pairs], order[pairs + 1]
    # An edge between two triangles in one plane (a cap's fan, a side quad's diagonal) is never on a silhouette:
    # both face the eye or neither does. Leaving those out halves a cylinder's edges.
    positions = np.asarray(mesh.positions, dtype=float)
    normal_first = np.cross(positions[b[first]] - positions[a[first]], positions[far[first]] - positions[a[first]])
    normal_second = np.cross(positions[b[second]] - positions[a[second]], positions[far[second]] - positions[a[second]])
    cosine = np.einsum("ij,ij->i", normal_first, normal_second) / (
        np.linalg.norm(normal_first, axis=1) * np.linalg.norm(normal_second, axis=1)
    )
    folded = cosine < 1.0 - COPLANAR_TOLERANCE
    first, second = first[folded], second[folded]
    edges = np.stack([far[first], a[first], b[first], far[second], a[second], b[second]], axis=1).astype(np.uint32)
    return edges[np.argsort(~_smooth(mesh, edges), kind="stable")]


def smooth_edge_count(mesh: Mesh, edges: np.ndarray) -> int:
    """How many of ``mesh``'s :func:`edge_adjacency` ``edges`` (E, 6) are smooth: they lead, the creases follow."""
    return int(np.count_nonzero(_smooth(mesh, edges)))


def _smooth(mesh: Mesh, edges: np.ndarray) -> np.ndarray:
    """(E,) bool: the ``edges`` of ``mesh`` whose two triangles have the same normals at both its ends (G's at
    ``d`` as F's at ``a``, G's at ``c`` as F's at ``b``)."""
    normals = np.asarray(mesh.normals, dtype=float)
    same_a = np.all(np.abs(normals[edges[:, 1]] - normals[edges[:, 5]]) < COPLANAR_TOLERANCE, axis=1)
    same_b = np.all(np.abs(normals[edges[:, 2]] - normals[edges[:, 4]]) < COPLANAR_TOLERANCE, axis=1)
    return same_a & same_b
