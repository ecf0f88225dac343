"""Transforms with velocities and accelerations, and their group structure (seed 000, "The Dynamics of a
Transform Hierarchy").

A :class:`DynamicTransform` is a child → parent :class:`~sim.transform.Transform` ``A = (T, R, S)`` with

    v = dT/dt,   a = dv/dt,   dR/dt = [ω] R,   ω̇ = α,   so   d²R/dt² = ([α] + [ω]²) R,

all ``(..., 3)`` float64 in the PARENT's basis and time unit seconds (``v`` in parent length per second, ``ω`` in
rad/s); the scale is constant in time. Rotations are unit quaternions ``(w, x, y, z)``, child → parent. The seed
works with skew matrices; in 3D ``[ω] x = ω × x``, ``R [ω] Rᵀ = [R ω]`` and the commutator ``[[a], [b]]`` is
``[a × b]``, so every formula below is the seed's with those substitutions.

Indices follow the seed: ``A₁`` is the child relative to its parent (local), ``A₂`` the parent relative to the
world (the parent's global), ``A₃ = A₂ ∘ A₁`` the child relative to the world (global), ``J = R S``. Each formula
was checked by differentiating the seed's pose formulas; they agree with the seed as printed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from spinlab.sim import transform as tf
from spinlab.sim.quaternion import quat_conj, quat_rotate
from spinlab.sim.transform import Transform
from spinlab.sim.vector import Vec3, cross

__all__ = [
    "DynamicTransform",
    "MotionDelta",
    "InertialAccelerations",
    "identity",
    "compose",
    "inverse",
    "local_to_global",
    "global_to_local",
    "add_delta",
    "child_delta_to_global",
    "child_delta_to_local",
    "child_delta_from_parent",
    "inertial_accelerations",
    "local_acceleration_from_force",
    "impulse_delta_local",
    "apply_impulse",
    "counteract_delta_local",
]


class MotionDelta(NamedTuple):
    """Instantaneous changes ``(Δv, Δa, Δω, Δα)``, each ``(..., 3)``, in one frame's basis (seed 000, "Local
    and Global Deltas"). The pose does not change."""

    velocity: Vec3
    acceleration: Vec3
    angular_velocity: Vec3
    angular_acceleration: Vec3


class InertialAccelerations(NamedTuple):
    """Fictitious accelerations of a child in a moving parent, ``(..., 3)`` each, in the parent's basis and the
    child's local length unit per s² (seed 000, "Force to Acceleration", "In 3D")."""

    linear: Vec3  # −J₂⁻¹ a₂: the parent's own acceleration
    centrifugal: Vec3  # −ω̃₂ × (ω̃₂ × T₁)
    coriolis: Vec3  # −2 ω̃₂ × v₁
    euler: Vec3  # −α̃₂ × T₁

    @property
    def total(self) -> Vec3:
        """The sum of the four terms: the local acceleration of a child on which no force acts."""
        return self.linear + self.centrifugal + self.coriolis + self.euler


@dataclass(frozen=True, eq=False)
class DynamicTransform:
    """A batch of child → parent transforms with their first two time derivatives, parent basis.

    ``transform``: the pose. ``velocity``, ``acceleration``: (..., 3), ``dT/dt`` and ``d²T/dt²``.
    ``angular_velocity``, ``angular_acceleration``: (..., 3), ``ω`` with ``dR/dt = [ω] R`` and ``α = dω/dt``.
    """

    transform: Transform
    velocity: Vec3
    acceleration: Vec3
    angular_velocity: Vec3
    angular_acceleration: Vec3

    def __post_init__(self) -> None:
        # Construction, not mutation: store float arrays so that lists are accepted.
        for name in ("velocity", "acceleration", "angular_velocity", "angular_acceleration"):
            object.__setattr__(self, name, np.asarray(getattr(self, name), dtype=float))

    def __getitem__(self, index) -> DynamicTransform:
        """The nodes at ``index`` of the batch axes (an integer, slice or index array)."""
        return DynamicTransform(
            self.transform[index],
            self.velocity[index],
            self.acceleration[index],
            self.angular_velocity[index],
            self.angular_acceleration[index],
        )

    @staticmethod
    def identity(shape: tuple[int, ...] = ()) -> DynamicTransform:
        """See :func:`identity`."""
        return identity(shape)

    def compose(self, child: DynamicTransform) -> DynamicTransform:
        """``self ∘ child``; see :func:`compose`."""
        return compose(self, child)

    def inverse(self) -> DynamicTransform:
        """See :func:`inverse`."""
        return inverse(self)

    def between(self, other: DynamicTransform) -> DynamicTransform:
        """``self⁻¹ ∘ other``, i.e. ``other`` local to ``self``; see :func:`global_to_local`."""
        return global_to_local(self, other)

    def add_delta(self, delta: MotionDelta) -> DynamicTransform:
        """See :func:`add_delta`."""
        return add_delta(self, delta)


def identity(shape: tuple[int, ...] = ()) -> DynamicTransform:
    """The identity at rest, batch shape ``shape`` (seed 000, "Dynamics of the Identity")."""
    return DynamicTransform(tf.identity(shape), *(np.zeros(shape + (3,)) for _ in range(4)))


def compose(parent: DynamicTransform, child: DynamicTransform) -> DynamicTransform:
    """``A₃ = A₂ ∘ A₁`` with its derivatives (seed 000, "Dynamics of the Composition"):

        v₃ = v₂ + J₂ v₁ + ω₂ × J₂T₁
        a₃ = a₂ + J₂ a₁ + α₂ × J₂T₁ + ω₂ × (ω₂ × J₂T₁) + 2 ω₂ × J₂ v₁
        ω₃ = ω₂ + R₂ ω₁
        α₃ = α₂ + R₂ α₁ + ω₂ × ω₃

    ``parent`` is ``A₂``, ``child`` ``A₁``; batch axes broadcast. The result is in the parent's parent basis.
    """
    pose = parent.transform
    omega_parent, alpha_parent = parent.angular_velocity, parent.angular_acceleration
    # T₃ = J₂ T₁ + T₂ and dJ₂/dt = [ω₂] J₂ (constant scale), so each derivative of J₂ x adds an ω₂ ×.
    offset = tf.act_vector(pose, child.transform.translation)  # J₂ T₁
    velocity_child = tf.act_vector(pose, child.velocity)  # J₂ v₁
    omega_child = quat_rotate(pose.rotation, child.angular_velocity)  # R₂ ω₁ R₂ᵀ as a vector
    omega_cross_offset = cross(omega_parent, offset)
    velocity = parent.velocity + velocity_child + omega_cross_offset
    acceleration = (
        parent.acceleration
        + tf.act_vector(pose, child.acceleration)
        + cross(alpha_parent, offset)
        + cross(omega_parent, omega_cross_offset)
        + 2.0 * cross(omega_parent, velocity_child)
    )
    # d/dt (R₂ ω₁ R₂ᵀ) = R₂ α₁ R₂ᵀ + [ω₂, R₂ ω₁ R₂ᵀ]; [ω₂, ω₃] = [ω₂, R₂ ω₁ R₂ᵀ] since [ω₂, ω₂] = 0.
    angular_acceleration = (
        alpha_parent + quat_rotate(pose.rotation, child.angular_acceleration) + cross(omega_parent, omega_child)
    )
    return DynamicTransform(
        tf.compose(pose, child.transform), velocity, acceleration, omega_parent + omega_child, angular_acceleration
    )


def inverse(dynamic: DynamicTransform) -> DynamicTransform:
    """``A' = A⁻¹`` (parent relative to child, child basis) with its derivatives (seed 000, "Dynamics of the
    Inverse"):

        v' = J⁻¹ (ω × T − v)
        a' = J⁻¹ (α × T − ω × (ω × T) + 2 ω × v − a)
        ω' = −Rᵀ ω,   α' = −Rᵀ α
    """
    pose = dynamic.transform
    translation, velocity = pose.translation, dynamic.velocity
    omega, alpha = dynamic.angular_velocity, dynamic.angular_acceleration
    # T' = −J⁻¹ T and dJ⁻¹/dt = −J⁻¹ [ω]: v' = J⁻¹ (ω × T − v); differentiating once more gives a'.
    omega_cross_translation = cross(omega, translation)
    inverse_velocity = tf.act_vector_inverse(pose, omega_cross_translation - velocity)
    inverse_acceleration = tf.act_vector_inverse(
        pose,
        cross(alpha, translation)
        - cross(omega, omega_cross_translation)
        + 2.0 * cross(omega, velocity)
        - dynamic.acceleration,
    )
    rotation_inverse = quat_conj(pose.rotation)
    return DynamicTransform(
        tf.inverse(pose),
        inverse_velocity,
        inverse_acceleration,
        -quat_rotate(rotation_inverse, omega),
        -quat_rotate(rotation_inverse, alpha),
    )


def local_to_global(parent_global: DynamicTransform, child_local: DynamicTransform) -> DynamicTransform:
    """A child's global dynamics from its local dynamics and its parent's global: ``A₃ = A₂ ∘ A₁``."""
    return compose(parent_global, child_local)


def global_to_local(parent_global: DynamicTransform, child_global: DynamicTransform) -> DynamicTransform:
    """A child's local dynamics ``A₁ = A₂⁻¹ ∘ A₃`` from its global and its parent's global (seed 000,
    "Converting Global Dynamics To Local Dynamics"):

        v₁ = J₂⁻¹ (v₃ − v₂ − ω₂ × (T₃ − T₂))
        a₁ = J₂⁻¹ (a₃ − a₂ − α₂ × (T₃ − T₂) + ω₂ × (ω₂ × (T₃ − T₂)) − 2 ω₂ × (v₃ − v₂))
        ω₁ = R₂ᵀ (ω₃ − ω₂),   α₁ = R₂ᵀ (α₃ − α₂ + ω₃ × ω₂)
    """
    pose = parent_global.transform
    omega_parent, alpha_parent = parent_global.angular_velocity, parent_global.angular_acceleration
    offset = child_global.transform.translation - pose.translation  # T₃ − T₂ = J₂ T₁
    relative_velocity = child_global.velocity - parent_global.velocity
    omega_cross_offset = cross(omega_parent, offset)
    velocity = tf.act_vector_inverse(pose, relative_velocity - omega_cross_offset)
    acceleration = tf.act_vector_inverse(
        pose,
        child_global.acceleration
        - parent_global.acceleration
        - cross(alpha_parent, offset)
        + cross(omega_parent, omega_cross_offset)
        - 2.0 * cross(omega_parent, relative_velocity),
    )
    rotation_inverse = quat_conj(pose.rotation)
    omega_global = child_global.angular_velocity
    return DynamicTransform(
        tf.between(pose, child_global.transform),
        velocity,
        acceleration,
        quat_rotate(rotation_inverse, omega_global - omega_parent),
        quat_rotate(
            rotation_inverse,
            child_global.angular_acceleration - alpha_parent + cross(omega_global, omega_parent),
        ),
    )


def add_delta(dynamic: DynamicTransform, delta: MotionDelta) -> DynamicTransform:
    """``dynamic`` with ``delta`` (same basis) added to its four derivatives; the pose is unchanged."""
    return DynamicTransform(
        dynamic.transform,
        dynamic.velocity + delta.velocity,
        dynamic.acceleration + delta.acceleration,
        dynamic.angular_velocity + delta.angular_velocity,
        dynamic.angular_acceleration + delta.angular_acceleration,
    )


def child_delta_to_global(parent_global: DynamicTransform, delta_local: MotionDelta) -> MotionDelta:
    """Global change in a child due to a local change in it (seed 000, "Local and Global Deltas"):

    Δv₃ = J₂ Δv₁,   Δa₃ = J₂ Δa₁ + 2 ω₂ × Δv₃,   Δω₃ = R₂ Δω₁,   Δα₃ = R₂ Δα₁ + ω₂ × Δω₃
    """
    pose, omega_parent = parent_global.transform, parent_global.angular_velocity
    delta_velocity = tf.act_vector(pose, delta_local.velocity)
    delta_omega = quat_rotate(pose.rotation, delta_local.angular_velocity)
    return MotionDelta(
        delta_velocity,
        tf.act_vector(pose, delta_local.acceleration) + 2.0 * cross(omega_parent, delta_velocity),
        delta_omega,
        quat_rotate(pose.rotation, delta_local.angular_acceleration) + cross(omega_parent, delta_omega),
    )


def child_delta_to_local(parent_global: DynamicTransform, delta_global: MotionDelta) -> MotionDelta:
    """Local change in a child that produces a given global change (seed 000; inverse of
    :func:`child_delta_to_global`):

        Δv₁ = J₂⁻¹ Δv₃,   Δa₁ = J₂⁻¹ (Δa₃ − 2 ω₂ × Δv₃),   Δω₁ = R₂ᵀ Δω₃,   Δα₁ = R₂ᵀ (Δα₃ + Δω₃ × ω₂)
    """
    pose, omega_parent = parent_global.transform, parent_global.angular_velocity
    rotation_inverse = quat_conj(pose.rotation)
    return MotionDelta(
        tf.act_vector_inverse(pose, delta_global.velocity),
        tf.act_vector_inverse(pose, delta_global.acceleration - 2.0 * cross(omega_parent, delta_global.velocity)),
        quat_rotate(rotation_inverse, delta_global.angular_velocity),
        quat_rotate(
            rotation_inverse,
            delta_global.angular_acceleration + cross(delta_global.angular_velocity, omega_parent),
        ),
    )


def child_delta_from_parent(
    parent_global: DynamicTransform, child_local: DynamicTransform, delta_parent: MotionDelta
) -> MotionDelta:
    """Global change in a locally unchanged child when its parent's global dynamics change by ``delta_parent``
    (seed 000, "Global change in child due to global change in parent"), all in the world basis:

        Δv₃ = Δv₂ + Δω₂ × J₂T₁
        Δa₃ = Δa₂ + Δα₂ × J₂T₁ + (Δω₂ ω₂ + ω₂ Δω₂ + Δω₂²) J₂T₁ + 2 Δω₂ × J₂ v₁
        Δω₃ = Δω₂,   Δα₃ = Δα₂ + Δω₂ × (ω₃ − ω₂) = Δα₂ + Δω₂ × R₂ ω₁

    ``parent_global`` is the parent before the change; the formulas are exact, not linearised.
    """
    pose, omega_parent = parent_global.transform, parent_global.angular_velocity
    delta_omega = delta_parent.angular_velocity
    offset = tf.act_vector(pose, child_local.transform.translation)  # J₂ T₁
    # (ω₂ + Δω₂)² − ω₂² = Δω₂ ω₂ + ω₂ Δω₂ + Δω₂², each product of skew matrices a nested cross product.
    centripetal_change = (
        cross(delta_omega, cross(omega_parent, offset))
        + cross(omega_parent, cross(delta_omega, offset))
        + cross(delta_omega, cross(delta_omega, offset))
    )
    acceleration = (
        delta_parent.acceleration
        + cross(delta_parent.angular_acceleration, offset)
        + centripetal_change
        + 2.0 * cross(delta_omega, tf.act_vector(pose, child_local.velocity))
    )
    omega_child = quat_rotate(pose.rotation, child_local.angular_velocity)  # ω₃ − ω₂
    return MotionDelta(
        delta_parent.velocity + cross(delta_omega, offset),
        acceleration,
        delta_omega,
        delta_parent.angular_acceleration + cross(delta_omega, omega_child),
    )


def inertial_accelerations(parent_global: DynamicTransform, child_local: DynamicTransform) -> InertialAccelerations:
    """The fictitious accelerations a child feels in its moving parent (seed 000, "Force to Acceleration"):

        a₁ = J₂⁻¹ F / m − ã₂ − α̃₂ × T₁ − ω̃₂ × (ω̃₂ × T₁) − 2 ω̃₂ × v₁

    with the parent's motion in its own basis: ``ã₂ = J₂⁻¹ a₂``, ``ω̃₂ = R₂ᵀ ω₂``, ``α̃₂ = R₂ᵀ α₂`` (the scale
    cancels in ``J₂⁻¹ [ω₂] J₂``). Their ``total`` is ``a₁ − J₂⁻¹ a₃``.
    """
    pose = parent_global.transform
    rotation_inverse = quat_conj(pose.rotation)
    omega = quat_rotate(rotation_inverse, parent_global.angular_velocity)
    alpha = quat_rotate(rotation_inverse, parent_global.angular_acceleration)
    translation = child_local.transform.translation
    return InertialAccelerations(
        linear=-tf.act_vector_inverse(pose, parent_global.acceleration),
        centrifugal=-cross(omega, cross(omega, translation)),
        coriolis=-2.0 * cross(omega, child_local.velocity),
        euler=-cross(alpha, translation),
    )


def local_acceleration_from_force(
    parent_global: DynamicTransform, child_local: DynamicTransform, force_world: Vec3, mass: np.ndarray
) -> Vec3:
    """Local acceleration ``a₁`` (parent basis) of a child of ``mass`` (...,) kg under ``force_world`` (..., 3) N:
    the applied part ``J₂⁻¹ F / m`` plus the inertial terms of :func:`inertial_accelerations`."""
    applied = tf.act_vector_inverse(parent_global.transform, force_world) / np.asarray(mass)[..., None]
    return applied + inertial_accelerations(parent_global, child_local).total


def impulse_delta_local(parent_global: DynamicTransform, impulse_world: Vec3, mass: np.ndarray) -> MotionDelta:
    """Local change of a child of ``mass`` (...,) kg hit by the world linear impulse ``Δp`` (..., 3) N·s
    (seed 000, "Linear Impulses"): ``Δv₁ = J₂⁻¹ Δp / m``, ``Δa₁ = −(2/m) J₂⁻¹ (ω₂ × Δp)``.

    The global velocity changes by ``Δp/m`` and the global acceleration not at all; the local acceleration
    changes through the Coriolis term.
    """
    return _global_velocity_change_to_local(parent_global, impulse_world / np.asarray(mass)[..., None])


def apply_impulse(
    parent_global: DynamicTransform, child_local: DynamicTransform, impulse_world: Vec3, mass: np.ndarray
) -> DynamicTransform:
    """``child_local`` after the world linear impulse ``impulse_world``; see :func:`impulse_delta_local`."""
    return add_delta(child_local, impulse_delta_local(parent_global, impulse_world, mass))


def counteract_delta_local(parent_global: DynamicTransform, delta_velocity_world: Vec3) -> MotionDelta:
    """Local change that keeps a child's global motion when its parent's global velocity changes by ``Δv``
    (seed 000, "Counteracting the Inherited Effect"): ``Δv₁ = −J₂⁻¹ Δv``, ``Δa₁ = 2 J₂⁻¹ (ω₂ × Δv)``.

    The parent's velocity change reaches the child as ``Δv₃ = Δv`` (and ``Δa₃ = 0``, since ω₂ is unchanged), so the
    correction is the local change for ``Δv₃ = −Δv``. ``parent_global`` may be taken before or after the change.
    """
    return _global_velocity_change_to_local(parent_global, -delta_velocity_world)


def _global_velocity_change_to_local(parent_global: DynamicTransform, delta_velocity_world: Vec3) -> MotionDelta:
    """:func:`child_delta_to_local` of ``(Δv₃, 0, 0, 0)``: ``Δv₁ = J₂⁻¹ Δv₃``, ``Δa₁ = −2 J₂⁻¹ (ω₂ × Δv₃)``."""
    zero = np.zeros_like(delta_velocity_world)
    return child_delta_to_local(parent_global, MotionDelta(delta_velocity_world, zero, zero, zero))
