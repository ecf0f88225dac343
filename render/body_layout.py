"""What the renderer knows about a scene's bodies before any frame: parts, colours, sizes and arrow scales.

Arrays have the body as leading axis, in the scene file's order (the order of a :class:`Snapshot`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from spinlab.render import meshes
from spinlab.render.instances import frames_along, rigid_matrices, rotation_from_quat_wxyz
from spinlab.render.look import PALETTE_LINEAR
from spinlab.scene.files.scene_file import SceneSpec
from spinlab.scene.model.measures import torque_free
from spinlab.scene.running.simulation import initial_world_state
from spinlab.sim.inertia import principal_moments

__all__ = ["BodyLayout", "Parts", "nice_step"]

# The fastest body's ω arrow is this many typical body sizes long (the T-handle's: about its length).
OMEGA_ARROW_SIZES = 0.85
MOMENTUM_ARROW_SIZES = 1.05
# Arrow proportions, in typical body sizes.
SHAFT_RADIUS_SIZES = 0.016
HEAD_LENGTH_SIZES = 0.11
HEAD_RADIUS_SIZES = 0.04
# Principal axes stick out of the body by this factor of its bounding radius.
AXES_LENGTH_RADII = 1.2
# The floor lies this many typical sizes below the lowest bounding sphere.
FLOOR_GAP_SIZES = 0.1
# A body turning about a pivot: a thin stem from the pivot to its centre of mass (a part of the body) and a small
# fixed post under the pivot (a cone, apex up, drawn in the world each frame), in the body's bounding radii.
STEM_RADIUS_RADII = 0.03
POST_HEIGHT_RADII = 0.35
POST_RADIUS_RADII = 0.16
POST_LINEAR = np.array([0.32, 0.33, 0.36])


def nice_step(value: float) -> float:
    """The number of the form {1, 2.5, 5} × 10^k nearest to ``value`` > 0 in ratio."""
    exponent = np.floor(np.log10(value))
    candidates = np.array([1.0, 2.5, 5.0, 10.0]) * 10.0**exponent
    return float(candidates[np.argmin(np.abs(np.log(candidates / value)))])


@dataclass(frozen=True)
class Parts:
    """The parts of one unit-mesh kind: the body of each ``owner`` (P,), and its matrix, unit mesh → modelling
    frame, row ``which`` (P,) of ``table`` (T, 4, 4), one row per distinct shape's part."""

    owner: np.ndarray
    which: np.ndarray
    table: np.ndarray

    def matrices(self, rows: np.ndarray | slice = slice(None)) -> np.ndarray:
        """The matrices (R, 4, 4) of the parts ``rows`` (all by default)."""
        return self.table[self.which[rows]]


class BodyLayout:
    """Static per-body data of ``scene`` for drawing.

    ``com_offset`` (N, 3) m modelling frame; ``colors_rgba`` (N, 4) linear; ``parts`` maps a unit-mesh kind to its
    :class:`Parts` (each part's body and its matrix, unit mesh → modelling frame); ``radius`` (N,) m, the bounding
    sphere about the centre of mass;
    ``principal_axes`` (N, 3, 3), columns the principal axes in the body frame (ascending moments), each body's row
    ``axes_index`` (N,) of ``axes_table``;
    ``omega_scale`` m per rad/s and ``momentum_scale`` m per kg·m²/s, the arrows' scales; ``torque_free`` (N,) bool,
    the bodies that have an invariable plane.
    """

    def __init__(self, scene: SceneSpec) -> None:
        bodies = scene.bodies
        count = len(bodies)
        self.com_offset = np.array([body.com_offset for body in bodies], dtype=float).reshape(count, 3)
        colors = [
            PALETTE_LINEAR[i % len(PALETTE_LINEAR)] if body.color is None else np.asarray(body.color)
            for i, body in enumerate(bodies)
        ]
        self.colors_rgba = np.column_stack([np.array(colors).reshape(count, 3), np.ones(count)])

        # A part's matrix is kept once per distinct shape (a cloud of 10^5 T-handles has two), not a (4, 4) per
        # part and body: ``parts[kind].which`` picks each part's row of ``parts[kind].table``.
        shapes: dict[str, tuple[tuple[tuple[str, int], ...], float]] = {}
        tables: dict[str, list[np.ndarray]] = {}
        owners: dict[str, list[int]] = {}
        which: dict[str, list[int]] = {}
        radius = np.empty(count)
        for index, body in enumerate(bodies):
            key = repr((body.shape, sorted(body.sizes.items()), body.com_offset.tolist()))
            if key not in shapes:
                made = []
                for part in meshes.shape_parts(body.shape, body.sizes):
                    table = tables.setdefault(part.kind, [])
                    made.append((part.kind, len(table)))
                    table.append(part.matrix)
                shapes[key] = tuple(made), meshes.bounding_radius(body.shape, body.sizes, body.com_offset)
            placed, radius[index] = shapes[key]
            for kind, row in placed:
                owners.setdefault(kind, []).append(index)
                which.setdefault(kind, []).append(row)
        # Bodies about a pivot (N,) and the pivot (N, 3) m from the centre of mass, body frame (0 for the others).
        self.pivoted = np.array([body.pivot is not None for body in bodies], dtype=bool).reshape(count)
        self.pivot = np.array([np.zeros(3) if body.pivot is None else body.pivot for body in bodies]).reshape(count, 3)
        radius = np.maximum(radius, np.linalg.norm(self.pivot, axis=1))  # the stem reaches the pivot
        for index in np.flatnonzero(self.pivoted).tolist():
            table = tables.setdefault("cylinder", [])
            owners.setdefault("cylinder", []).append(index)
            which.setdefault("cylinder", []).append(len(table))
            table.append(self._stem(self.pivot[index], bodies[index].com_offset, radius[index]))
        self.parts = {
            kind: Parts(
                np.array(owners[kind], dtype=np.intp), np.array(which[kind], dtype=np.intp), np.array(tables[kind])
            )
            for kind in owners
        }
        self.radius = radius
        gravity_norm = float(np.linalg.norm(scene.gravity))
        self.up = (
            -np.asarray(scene.gravity, dtype=float) / gravity_norm if gravity_norm > 0.0 else np.array([0.0, 0.0, 1.0])
        )
        self.size = 2.0 * float(np.median(radius))

        # Only a torque-free body has an invariable plane (scene/model/measures.py's one definition: not a kinematic
        # one, nor one held at a pivot under gravity, a heavy top; a dynamic child's joint holds its centre, not its
        # spin).
        self.torque_free = np.array([torque_free(scene, body) for body in bodies], dtype=bool).reshape(count)
        # Likewise the principal axes, once per distinct inertia (and one eigendecomposition each).
        axes_rows: dict[bytes, int] = {}
        self.axes_index = np.array(
            [
                axes_rows.setdefault(np.asarray(body.inertia_com, dtype=float).tobytes(), len(axes_rows))
                for body in bodies
            ],
            dtype=np.intp,
        ).reshape(count)
        self.axes_table = np.array(
            [principal_moments(np.frombuffer(inertia).reshape(3, 3))[1] for inertia in axes_rows]
        ).reshape(len(axes_rows), 3, 3)
        self.axes_length = AXES_LENGTH_RADII * radius

        # The arrows' scales from the bodies' world state at t = 0 (a child's spin adds to its parents').
        q, omega = initial_world_state(scene)
        rotation = rotation_from_quat_wxyz(q)
        inertia_world = rotation @ np.array([body.inertia_body for body in bodies]) @ rotation.transpose(0, 2, 1)
        momentum = np.einsum("nij,nj->ni", inertia_world, omega)
        fastest = float(np.linalg.norm(omega, axis=1).max())
        largest = float(np.linalg.norm(momentum, axis=1).max())
        self.omega_scale = OMEGA_ARROW_SIZES * self.size / (fastest if fastest > 0.0 else 1.0)
        self.momentum_scale = MOMENTUM_ARROW_SIZES * self.size / (largest if largest > 0.0 else 1.0)
        self.arrow_sizes = (
            SHAFT_RADIUS_SIZES * self.size,
            HEAD_LENGTH_SIZES * self.size,
            HEAD_RADIUS_SIZES * self.size,
        )
        self.grid_cell = nice_step(self.size / 4.0)

    @property
    def principal_axes(self) -> np.ndarray:
        """(N, 3, 3) each body's principal axes (columns, body frame, ascending moments)."""
        return self.axes_table[self.axes_index]

    @staticmethod
    def _stem(pivot: np.ndarray, com_offset: np.ndarray, radius: float) -> np.ndarray:
        """(4, 4) the unit cylinder → a thin stem from ``pivot`` (3,) m, body frame from the centre of mass, to
        the centre of mass, in the modelling frame (``com_offset`` from it)."""
        length = float(np.linalg.norm(pivot))
        scale = np.diag([STEM_RADIUS_RADII * radius, STEM_RADIUS_RADII * radius, max(length, 1e-9)])
        frame = frames_along(-pivot[None])[0] @ scale
        return rigid_matrices(frame[None], (np.asarray(com_offset) + 0.5 * pivot)[None])[0]

    def post_matrices(self, q: np.ndarray, position: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The fixed posts under the pivots of the bodies at ``position`` (N, 3) m turned by ``q`` (N, 4), body →
        world: (owner (P,), unit cone → world (P, 4, 4)), the cone's apex at the pivot and its base below it."""
        owner = np.flatnonzero(self.pivoted)
        if not len(owner):
            return owner, np.zeros((0, 4, 4))
        pivot = position[owner] + np.einsum("pij,pj->pi", rotation_from_quat_wxyz(q[owner]), self.pivot[owner])
        height, base = POST_HEIGHT_RADII * self.radius[owner], POST_RADIUS_RADII * self.radius[owner]
        frames = frames_along(np.broadcast_to(self.up, (len(owner), 3))) * np.stack([base, base, height], 1)[:, None]
        return owner, rigid_matrices(frames, pivot - height[:, None] * self.up)

    def enclosing_spheres(
        self, position: np.ndarray, L_world: np.ndarray, selected: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """A sphere per ``selected`` body (centres (K, 3) m, radii (K,) m) holding it at ``position`` (N, 3) m
        with its L arrow (``L_world`` (N, 3) kg·m²/s). Neither depends on a body's rotation and L is conserved
        without torque, so a camera fitted to them holds still while the bodies tumble."""
        center, radius = position[selected], self.radius[selected]
        tip = self.momentum_scale * L_world[selected]
        reach = np.linalg.norm(tip, axis=1) + self.arrow_sizes[2]
        # The smallest sphere holding a body's sphere and its arrow tip (when the tip sticks out of it).
        grow = np.maximum(0.5 * (reach - radius), 0.0)
        center = center + tip / np.maximum(np.linalg.norm(tip, axis=1), 1e-12)[:, None] * grow[:, None]
        return center, radius + grow

    def enclosing_sphere(
        self, position: np.ndarray, L_world: np.ndarray, selected: np.ndarray
    ) -> tuple[np.ndarray, float]:
        """One sphere (centre (3,) m, radius m) holding every one of :meth:`enclosing_spheres`."""
        center, radius = self.enclosing_spheres(position, L_world, selected)
        middle = 0.5 * (center.min(axis=0) + center.max(axis=0))
        return middle, float((np.linalg.norm(center - middle, axis=1) + radius).max())

    def floor(self, position: np.ndarray) -> tuple[float, float]:
        """The floor's height (m, below every body's bounding sphere) and the scene's radius (m) about its
        centre, for bodies at ``position`` (N, 3)."""
        floor_z = float((position[:, 2] - self.radius).min()) - FLOOR_GAP_SIZES * self.size
        _, scene_radius = self.enclosing_sphere(position, np.zeros_like(position), np.arange(len(position)))
        return floor_z, scene_radius
