"""The exact motion of a torque-free rigid body, in the world: the ground truth for every accuracy test.

``q`` is a unit quaternion ``(w, x, y, z)``, body → world. ``ω`` is the world angular velocity, ``Ω = Oᵀ ω`` the
body angular velocity, ``L = O I Ω`` the (constant) world angular momentum and ``E = ½ ω·L`` (math.md §Notation).

The orientation is composed from four frames (Landau & Lifshitz, *Mechanics*, §35–37):

    world  ←  invariable frame  ←  Euler frame  ←  body
           fixed, z ∥ L         Rz(φ) Rx(θ) Rz(ψ)    the principal axes, relabelled (a, b, c)

The Euler frame and the angles come from :mod:`sim.euler_poinsot` (the z axis is the principal axis the polhode
circulates about). The invariable frame's x axis is free; it is chosen so that ``φ(0) = 0`` and the whole chain
gives ``q(0) = q0``: ``world ← invariable = q0 ⊗ (body ← Euler) ⊗ r(0)⁻¹`` with ``r(t) = Rz(φ) Rx(θ) Rz(ψ)``.
When Ω never changes (rest, a sphere, a steady spin about a principal axis of an asymmetric body) the motion is a
rotation about a fixed axis, ``q(t) = q0 ⊗ exp(Ω t / 2)``, and no Euler angles are needed.

Example::

    solution = TorqueFreeSolution.from_body_state(np.diag([2.5, 1.4, 1.3]), quat_identity(), [0.05, 5.0, 0.05])
    t = np.linspace(0.0, 20.0, 201)
    q, omega_world = solution.orientation(t), solution.omega_world(t)     # (201, 4), (201, 3)
    q, omega_body = solution.orientation_and_omega_body(t)              # both from one evaluation
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import numpy.typing as npt

from spinlab.sim.euler_poinsot import EulerPoinsot, principal_frame
from spinlab.sim.quaternion import quat_conj, quat_exp, quat_from_matrix, quat_mul, quat_rotate
from spinlab.sim.vector import Mat3, Quat, Vec3

__all__ = ["TorqueFreeSolution", "quat_from_zxz_euler", "quat_from_zxz_halves"]


def quat_from_zxz_euler(phi: np.ndarray, theta: np.ndarray, psi: np.ndarray) -> np.ndarray:
    """Unit quaternion ``(..., 4)`` of ``Rz(φ) Rx(θ) Rz(ψ)`` (angles in rad, broadcast together).

    Multiplying out ``(cos φ/2, 0, 0, sin φ/2) ⊗ (cos θ/2, sin θ/2, 0, 0) ⊗ (cos ψ/2, 0, 0, sin ψ/2)`` gives
    ``(cos θ/2 cos((φ+ψ)/2), sin θ/2 cos((φ−ψ)/2), sin θ/2 sin((φ−ψ)/2), cos θ/2 sin((φ+ψ)/2))``.
    """
    half_sum, half_difference = 0.5 * (phi + psi), 0.5 * (phi - psi)
    return quat_from_zxz_halves(np.cos(0.5 * theta), np.sin(0.5 * theta), half_sum, half_difference)


def quat_from_zxz_halves(cos_half_theta, sin_half_theta, half_sum, half_difference) -> np.ndarray:
    """:func:`quat_from_zxz_euler` from ``cos θ/2``, ``sin θ/2`` and ``(φ ± ψ)/2`` (broadcast together), for a
    caller that has the half angles' cosine and sine without cancellation (sim/_lagrange_top_angles.py)."""
    return np.stack(
        np.broadcast_arrays(
            cos_half_theta * np.cos(half_sum),
            sin_half_theta * np.cos(half_difference),
            sin_half_theta * np.sin(half_difference),
            cos_half_theta * np.sin(half_sum),
        ),
        axis=-1,
    )


@dataclass(frozen=True)
class TorqueFreeSolution:
    """The closed-form torque-free motion of one body from its initial state, at any array of times.

    Fields: ``inertia_body`` ``(3, 3)`` kg m² (body frame, symmetric positive definite, any orientation of the
    principal axes), ``q0`` ``(4,)`` initial orientation, ``omega_body0`` ``(3,)`` rad/s, ``axes_body`` ``(3, 3)``
    the principal axes (columns, body coordinates, ascending moments), ``motion`` the solved
    :class:`~sim.euler_poinsot.EulerPoinsot`, and the two constant rotations of the chain, ``q_world_invariable``
    and ``q_body_euler`` (unused when ``motion.kind == "constant"``, where they are ``q0`` and the principal
    frame). Build it with :meth:`from_state` or :meth:`from_body_state`. Times ``t`` are in seconds from the
    initial state, an array of shape ``(T,)`` (any shape works; results get a trailing axis). One body per
    instance: the case analysis (family, separatrix, symmetry) is per body; every method is vectorised over ``t``.
    """

    inertia_body: Mat3
    q0: Quat
    omega_body0: Vec3
    axes_body: Mat3
    motion: EulerPoinsot
    q_world_invariable: Quat
    q_body_euler: Quat

    @classmethod
    def from_body_state(
        cls, inertia_body: npt.ArrayLike, q0: npt.ArrayLike, omega_body0: npt.ArrayLike
    ) -> TorqueFreeSolution:
        """From the body-frame inertia ``(3, 3)``, orientation ``q0`` ``(4,)`` and body angular velocity ``(3,)``."""
        inertia_body = np.array(inertia_body, dtype=float)
        q0 = np.array(q0, dtype=float)
        omega_body0 = np.array(omega_body0, dtype=float)
        moments, axes_body = principal_frame(inertia_body)
        motion = EulerPoinsot.solve(moments, axes_body.T @ omega_body0)
        if motion.kind == "constant":
            q_body_euler = quat_from_matrix(axes_body)
            q_world_invariable = q0.copy()
        else:
            q_body_euler = quat_from_matrix(axes_body[:, list(motion.euler_axes)])
            r0 = quat_from_zxz_euler(*motion.euler_angles(np.zeros(())))
            q_world_invariable = quat_mul(quat_mul(q0, q_body_euler), quat_conj(r0))
        return cls(inertia_body, q0, omega_body0, axes_body, motion, q_world_invariable, q_body_euler)

    @classmethod
    def from_state(cls, inertia_body: Mat3, q0: Quat, omega_world0: Vec3) -> TorqueFreeSolution:
        """From the body-frame inertia ``(3, 3)``, orientation ``q0`` ``(4,)`` and world angular velocity ``(3,)``."""
        q0 = np.array(q0, dtype=float)
        omega_body0 = quat_rotate(quat_conj(q0), np.asarray(omega_world0, dtype=float))
        return cls.from_body_state(inertia_body, q0, omega_body0)

    @property
    def L_world(self) -> Vec3:
        """World angular momentum ``L = O I Ω`` ``(3,)``, kg m²/s, constant."""
        return quat_rotate(self.q0, self.inertia_body @ self.omega_body0)

    @property
    def energy(self) -> float:
        """Rotational kinetic energy ``E = ½ Ω·I Ω`` in J, constant."""
        return float(0.5 * self.omega_body0 @ self.inertia_body @ self.omega_body0)

    @property
    def flip_period(self) -> float:
        """Period of ``Ω(t)`` in s: ``4K(m)/λ`` (the Dzhanibekov flip-and-back), ``2π/|ν|`` for an axisymmetric
        body, ``inf`` on the separatrix, for a sphere and at rest (see :attr:`EulerPoinsot.flip_period`)."""
        return self.motion.flip_period

    def omega_body(self, t: np.ndarray) -> np.ndarray:
        """Body angular velocity ``Ω(t)`` ``(T, 3)``, rad/s, body frame; ``Ω(0) = omega_body0`` to rounding."""
        if self.motion.kind == "constant":
            return np.broadcast_to(self.omega_body0, np.shape(t) + (3,)).copy()
        return self.motion.omega_principal(t) @ self.axes_body.T

    def orientation(self, t: np.ndarray) -> np.ndarray:
        """Orientation ``q(t)`` ``(T, 4)``, unit, body → world; ``q(0) = q0`` to rounding."""
        t = np.asarray(t, dtype=float)
        if self.motion.kind == "constant":
            return self._constant_orientation(t)
        return self._orientation_from_euler(self.motion.euler_angles(t))

    def orientation_and_omega_body(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`orientation` ``(T, 4)`` and :meth:`omega_body` ``(T, 3)`` at times ``t``, the same values, for about
        the cost of the orientation alone (the Euler angles are read off Ω)."""
        t = np.asarray(t, dtype=float)
        if self.motion.kind == "constant":
            return self._constant_orientation(t), self.omega_body(t)
        omega_principal, angles = self.motion.omega_and_euler_angles(t)
        return self._orientation_from_euler(angles), omega_principal @ self.axes_body.T

    def omega_world(self, t: np.ndarray) -> np.ndarray:
        """World angular velocity ``ω(t) = O(t) Ω(t)`` ``(T, 3)``, rad/s, world frame."""
        return quat_rotate(*self.orientation_and_omega_body(t))

    def _constant_orientation(self, t: np.ndarray) -> np.ndarray:
        # q̇ = ½ q ⊗ (0, Ω) with Ω constant: a rotation about the body axis Ω, fixed in the world.
        return quat_mul(self.q0, quat_exp(t[..., None] * self.omega_body0))

    def _orientation_from_euler(self, angles: tuple[np.ndarray, np.ndarray, np.ndarray]) -> np.ndarray:
        """``q_world_invariable ⊗ r ⊗ q_body_euler*`` with ``r = Rz(φ) Rx(θ) Rz(ψ)``, through :attr:`_chain`."""
        r = quat_from_zxz_euler(*angles)
        chain = self._chain
        return r[..., :1] * chain[0] + r[..., 1:2] * chain[1] + r[..., 2:3] * chain[2] + r[..., 3:] * chain[3]

    @cached_property
    def _chain(self) -> np.ndarray:
        """(4, 4): row k is ``q_world_invariable ⊗ e_k ⊗ q_body_euler*`` for the unit quaternions ``e_k``. The
        chain is linear in the middle factor, so ``q_world_invariable ⊗ r ⊗ q_body_euler* = Σ_k r_k row_k``:
        four products and sums in place of two quaternion products at every time."""
        return quat_mul(quat_mul(self.q_world_invariable, np.eye(4)), quat_conj(self.q_body_euler))
