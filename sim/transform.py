"""Similarity transforms ``x ↦ R S x + T``: translation, rotation and one positive scale (seed 000).

A :class:`Transform` maps a child's coordinates to its parent's (child → parent; for a node of the root,
body → world). The rotation is a unit quaternion ``(w, x, y, z)``, scalar first, child → parent. Fields are
structure-of-arrays over leading batch axes: ``translation (..., 3)``, ``rotation (..., 4)``, ``scale (...,)``,
float64, in the parent's length unit (metres for the world). The linear part is ``J = R S``; it changes basis
from the child's to the parent's.

The group structure is seed 000's "Composition of Transforms", "Identity Transform" and "Inverse Transform":

    (T₃, R₃, S₃) = (T₂, R₂, S₂) ∘ (T₁, R₁, S₁):   S₃ = S₂ S₁,   R₃ = R₂ R₁,   T₃ = R₂ S₂ T₁ + T₂
    identity = (0, 1, 1)
    (T, R, S)⁻¹ = (−S' R' T, Rᵀ, S' = 1/S)

The module-level functions take and return :class:`Transform` values; the dataclass's methods call them.
Every function broadcasts over batch axes, so a batch of children composes with a batch of parents in one call.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from spinlab.sim.quaternion import quat_conj, quat_identity, quat_mul, quat_rotate, quat_to_matrix
from spinlab.sim.vector import Vec3

__all__ = [
    "Transform",
    "identity",
    "act",
    "act_vector",
    "act_vector_inverse",
    "compose",
    "inverse",
    "between",
    "to_matrix",
]

Mat4 = np.ndarray  # (..., 4, 4)


@dataclass(frozen=True, eq=False)
class Transform:
    """A batch of child → parent similarity transforms ``x_parent = R S x_child + T``.

    ``translation``: (..., 3), parent frame and length unit. ``rotation``: (..., 4) unit quaternion
    ``(w, x, y, z)``, child → parent. ``scale``: (...,) positive, parent length per child length.
    """

    translation: np.ndarray
    rotation: np.ndarray
    scale: np.ndarray

    def __post_init__(self) -> None:
        # Construction, not mutation: store float arrays so that lists and Python scalars are accepted.
        for name in ("translation", "rotation", "scale"):
            object.__setattr__(self, name, np.asarray(getattr(self, name), dtype=float))

    @property
    def batch_shape(self) -> tuple[int, ...]:
        """The broadcast batch shape of the three fields."""
        return np.broadcast_shapes(self.translation.shape[:-1], self.rotation.shape[:-1], self.scale.shape)

    def __getitem__(self, index) -> Transform:
        """The transforms at ``index`` of the batch axes (an integer, slice or index array)."""
        return Transform(self.translation[index], self.rotation[index], self.scale[index])

    @staticmethod
    def identity(shape: tuple[int, ...] = ()) -> Transform:
        """See :func:`identity`."""
        return identity(shape)

    def act(self, point_child: Vec3) -> Vec3:
        """See :func:`act`."""
        return act(self, point_child)

    def act_vector(self, vector_child: Vec3) -> Vec3:
        """See :func:`act_vector`."""
        return act_vector(self, vector_child)

    def act_vector_inverse(self, vector_parent: Vec3) -> Vec3:
        """See :func:`act_vector_inverse`."""
        return act_vector_inverse(self, vector_parent)

    def compose(self, child: Transform) -> Transform:
        """``self ∘ child``; see :func:`compose`."""
        return compose(self, child)

    def inverse(self) -> Transform:
        """See :func:`inverse`."""
        return inverse(self)

    def between(self, other: Transform) -> Transform:
        """``self⁻¹ ∘ other``; see :func:`between`."""
        return between(self, other)

    def to_matrix(self) -> Mat4:
        """See :func:`to_matrix`."""
        return to_matrix(self)


def identity(shape: tuple[int, ...] = ()) -> Transform:
    """The identity transform ``(0, 1, 1)`` with batch shape ``shape`` (seed 000, "Identity Transform")."""
    return Transform(np.zeros(shape + (3,)), quat_identity(shape), np.ones(shape))


def act(transform: Transform, point_child: Vec3) -> Vec3:
    """Map points ``(..., 3)`` from child to parent coordinates: ``R S x + T`` (seed 000)."""
    return act_vector(transform, point_child) + transform.translation


def act_vector(transform: Transform, vector_child: Vec3) -> Vec3:
    """Apply the linear part only, ``J x = R S x``: a displacement or velocity, child basis → parent basis."""
    return quat_rotate(transform.rotation, transform.scale[..., None] * vector_child)


def act_vector_inverse(transform: Transform, vector_parent: Vec3) -> Vec3:
    """Apply the inverse linear part ``J⁻¹ x = Rᵀ x / S``: parent basis → child basis."""
    return quat_rotate(quat_conj(transform.rotation), vector_parent) / transform.scale[..., None]


def compose(parent: Transform, child: Transform) -> Transform:
    """``parent ∘ child`` (apply ``child`` first): child → grandparent.

    Seed 000, "Composition of Transforms": ``S₃ = S₂ S₁``, ``R₃ = R₂ R₁``, ``T₃ = R₂ S₂ T₁ + T₂ = A₂(T₁)``,
    with ``A₂ = parent`` and ``A₁ = child``. Batch axes broadcast.
    """
    return Transform(
        translation=act(parent, child.translation),
        rotation=quat_mul(parent.rotation, child.rotation),
        scale=parent.scale * child.scale,
    )


def inverse(transform: Transform) -> Transform:
    """The parent → child transform: ``S' = 1/S``, ``R' = Rᵀ``, ``T' = −S' R' T`` (seed 000, "Inverse Transform")."""
    return Transform(
        translation=-act_vector_inverse(transform, transform.translation),
        rotation=quat_conj(transform.rotation),
        scale=1.0 / transform.scale,
    )


def between(a: Transform, b: Transform) -> Transform:
    """``a⁻¹ ∘ b``: ``b`` expressed relative to ``a`` (e.g. a child's local transform from two globals)."""
    return compose(inverse(a), b)


def to_matrix(transform: Transform) -> Mat4:
    """The augmented matrix ``[[R S, T], [0, 1]]``, shape ``(..., 4, 4)``, acting on ``(x, 1)``."""
    shape = transform.batch_shape
    matrix = np.zeros(shape + (4, 4))
    matrix[..., :3, :3] = quat_to_matrix(transform.rotation) * transform.scale[..., None, None]
    matrix[..., :3, 3] = transform.translation
    matrix[..., 3, 3] = 1.0
    return matrix
