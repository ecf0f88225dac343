"""Bullet's rigid-body rotation step, in its three gyroscopic modes (docs/engines.md §Bullet).

Source: Bullet Physics SDK 3.25+ (bulletphysics/bullet3, commit 6c888f4, 2025-01-29; pybullet 3.2.7 is built
from it with ``BT_USE_DOUBLE_PRECISION``):

- src/BulletDynamics/ConstraintSolver/btSequentialImpulseConstraintSolver.cpp, ``convertBodies`` (the torque
  impulse ``h I_w⁻¹ τ`` and, by the body's flag, the gyroscopic velocity change) and ``writeBackBodies``
  (``ω' = ω + both``);
- src/BulletDynamics/Dynamics/btRigidBody.cpp, ``computeGyroscopicForceExplicit`` (``ω × I_w ω``, its length
  clamped to ``btContactSolverInfo::m_maxGyroscopicForce`` = 100 N m), ``computeGyroscopicImpulseImplicit_World``
  and ``computeGyroscopicImpulseImplicit_Body`` (one Newton step of implicit Euler, world or body frame; the body
  mode is the default flag since Bullet 2.83), the 3×3 solve being ``btMatrix3x3::solve33`` (Cramer's rule);
- src/LinearMath/btTransformUtil.h, ``integrateTransform`` (the exponential map of ``h ω'``, world frame, with the
  angle per step clamped to ``ANGULAR_MOTION_THRESHOLD`` = π/4 and Taylor's series below 0.001 rad/s);
- src/BulletDynamics/Dynamics/btDiscreteDynamicsWorld.cpp, ``internalSingleStepSimulation``: damping (0 by
  default: no change), the solver, then ``integrateTransforms``.

Bullet's ``ANGULAR_MOTION_THRESHOLD`` clamp replaces the angle ``|ω| h`` by π/4 inside the sine and cosine but
leaves the axis vector ``ω`` unscaled, so the quaternion it builds is not unit and is normalised after the
product: with ``k = |ω| h / (π/4) > 1`` the body turns by ``2 atan(k tan(π/8))`` instead of ``|ω| h`` (π/4 at
k = 1, 1.38 rad instead of π/2 at k = 2, towards π as k grows), and ω itself is not changed.
(``btRigidBody::integrateVelocities``' clamp ``|ω| h ≤ π/2`` is used only by ``btSimpleDynamicsWorld``, not by
the discrete world pybullet runs.)

Bullet keeps the orientation as a 3×3 matrix and converts it to a quaternion and back every step; that round trip
is rounding, not part of the method, and is left out here. The implicit world and body modes are the same map
(the body-frame Jacobian is the world one turned by ``O``), different only in rounding.

No compiled kernel: ``backend`` "numba" and "numpy" both run this numpy code (sim/integrators/engines/common.py).
"""

from __future__ import annotations

import numpy as np

from spinlab.sim.integrators.claims import Claims
from spinlab.sim.integrators.engines.common import (
    TORQUE_AT_START,
    EngineStep,
    engine_variants,
    gyroscopic_newton_step,
    world_inertia,
)
from spinlab.sim.integrators.state import BodyParams, BodyState, omega_world_from_momentum, to_body, to_world
from spinlab.sim.quaternion import quat_mul, quat_normalize, quat_to_matrix
from spinlab.sim.vector import cross, dot

__all__ = ["STEPS", "VARIANTS", "integrate_transform", "ANGULAR_MOTION_THRESHOLD", "MAX_GYROSCOPIC_FORCE"]

ANGULAR_MOTION_THRESHOLD = 0.25 * np.pi
"""rad: the most a step turns a body (btTransformUtil.h, ``0.5 * SIMD_HALF_PI``)."""
MAX_GYROSCOPIC_FORCE = 100.0
"""N m: the explicit mode's clamp on ``|ω × I_w ω|`` (btContactSolverInfo.h, ``m_maxGyroscopicForce``)."""
SIMD_EPSILON = float(np.finfo(np.float64).eps)
"""Bullet's ``SIMD_EPSILON`` in double precision (``DBL_EPSILON``)."""
_TAYLOR_BELOW = 0.001  # rad/s: integrateTransform's small-angle branch
_TAYLOR_CUBIC = 0.020833333333  # Bullet's literal for 1/48


def integrate_transform(q: np.ndarray, omega_world: np.ndarray, h: float) -> np.ndarray:
    """``btTransformUtil::integrateTransform``'s rotation: (N, 4) new orientations from ``q`` and ``ω`` (world).

    a = |ω| (0 when |ω|² ≤ ε),  a ← min(a, (π/4)/h)
    u = ω (h/2 − h³ a²/48)            when a < 0.001
    u = ω sin(a h/2) / a              otherwise
    q' = normalise((cos(a h/2), u) ⊗ q)
    """
    angle_sq = dot(omega_world, omega_world)
    angle = np.where(angle_sq > SIMD_EPSILON, np.sqrt(angle_sq), 0.0)
    angle = np.where(angle * h > ANGULAR_MOTION_THRESHOLD, ANGULAR_MOTION_THRESHOLD / h, angle)
    small = angle < _TAYLOR_BELOW
    taylor = 0.5 * h - (h * h * h) * _TAYLOR_CUBIC * angle * angle
    sine = np.sin(0.5 * angle * h) / np.where(small, 1.0, angle)
    axis = omega_world * np.where(small, taylor, sine)[..., None]
    rotation = np.concatenate([np.cos(angle * h * 0.5)[..., None], axis], axis=-1)
    return quat_normalize(quat_mul(rotation, q))


def _torque_impulse(state: BodyState, params: BodyParams, h: float) -> np.ndarray:
    """``h I_w⁻¹ τ`` (rad/s): convertBodies' external torque impulse."""
    return h * omega_world_from_momentum(state.q, params.torque_world, params.inertia_body_inv)


def _explicit(state: BodyState, params: BodyParams, h: float) -> tuple[np.ndarray, np.ndarray]:
    omega = state.omega_world
    omega_new = omega + _torque_impulse(state, params, h)
    if params.gyroscopic:
        # gf = ω × I_w ω, |gf| ≤ 100 N m; ω' −= h I_w⁻¹ gf (computeGyroscopicForceExplicit, convertBodies)
        force = cross(omega, state.L_world)
        length_sq = dot(force, force)
        clamp = length_sq > MAX_GYROSCOPIC_FORCE * MAX_GYROSCOPIC_FORCE
        scale = np.where(clamp, MAX_GYROSCOPIC_FORCE / np.sqrt(np.where(clamp, length_sq, 1.0)), 1.0)
        force = np.where(clamp[..., None], force * scale[..., None], force)
        omega_new = omega_new - h * omega_world_from_momentum(state.q, force, params.inertia_body_inv)
    return integrate_transform(state.q, omega_new, h), omega_new


def _implicit_world(state: BodyState, params: BodyParams, h: float) -> tuple[np.ndarray, np.ndarray]:
    omega = state.omega_world
    omega_new = omega + _torque_impulse(state, params, h)
    if params.gyroscopic:
        inertia_world = world_inertia(quat_to_matrix(state.q), params.inertia_body)
        stepped = gyroscopic_newton_step(omega, inertia_world, h, det_epsilon=SIMD_EPSILON)
        omega_new = omega_new + (stepped - omega)
    return integrate_transform(state.q, omega_new, h), omega_new


def _implicit_body(state: BodyState, params: BodyParams, h: float) -> tuple[np.ndarray, np.ndarray]:
    omega = state.omega_world
    omega_new = omega + _torque_impulse(state, params, h)
    if params.gyroscopic:
        omega_body = to_body(state.q, omega)
        stepped = gyroscopic_newton_step(omega_body, params.inertia_body, h, det_epsilon=SIMD_EPSILON)
        omega_new = omega_new + (to_world(state.q, stepped) - omega)
    return integrate_transform(state.q, omega_new, h), omega_new


_CLAMP = "angle per step squashed above π/4"
STEPS = (
    EngineStep(
        "bullet_explicit",
        _explicit,
        Claims(
            order=1,
            conserves_momentum=False,
            orientation_torque=True,
            torque_at=TORQUE_AT_START,
            method=f"Bullet, BT_ENABLE_GYROSCOPIC_FORCE_EXPLICIT: explicit ω × Iω (≤ 100 N m), exp map, {_CLAMP}",
        ),
        "#d55e00",
    ),
    EngineStep(
        "bullet_implicit_world",
        _implicit_world,
        Claims(
            order=1,
            conserves_momentum=False,
            orientation_torque=True,
            torque_at=TORQUE_AT_START,
            implicit=True,
            method=f"Bullet, GYROSCOPIC_FORCE_IMPLICIT_WORLD: one Newton step of implicit Euler, exp map, {_CLAMP}",
        ),
        "#f6a600",
    ),
    EngineStep(
        "bullet_implicit_body",
        _implicit_body,
        Claims(
            order=1,
            conserves_momentum=False,
            orientation_torque=True,
            torque_at=TORQUE_AT_START,
            implicit=True,
            method=f"Bullet default (GYROSCOPIC_FORCE_IMPLICIT_BODY): one Newton step, body frame, exp map, {_CLAMP}",
        ),
        "#9c755f",
    ),
)
VARIANTS = engine_variants(*STEPS, place=10, float32=True)
"""Bullet's three modes: their records
(:class:`~sim.integrators.record.Integrator`), float32 twins included."""
