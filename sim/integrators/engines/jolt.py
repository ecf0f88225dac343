"""Jolt's rigid-body rotation step, with ``mApplyGyroscopicForce`` off (the default) and on (docs/engines.md §Jolt).

Source: Jolt Physics 5.x (jrouwe/JoltPhysics, commit 3b47ec3, 2026-06-30):

- Jolt/Physics/PhysicsSystem.cpp, ``JobApplyGravity`` (the gyroscopic step when the body's flag is set, then
  ``ApplyForceTorqueAndDragInternal``) and ``JobIntegrateVelocity`` (the velocities clamped again, then
  ``Body::AddRotationStep(ω h)``);
- Jolt/Physics/Body/MotionProperties.inl, ``ApplyGyroscopicForceInternal`` (one explicit Euler step of the body
  momentum under ``−Ω × ℓ``, scaled back to its old length ``|ℓ|`` "to avoid introducing energy"),
  ``ApplyForceTorqueAndDragInternal`` (``ω += h I_w⁻¹ τ``, damping ``ω *= max(0, 1 − c h)``, clamp) and
  ``ClampAngularVelocity``;
- Jolt/Physics/Body/Body.inl, ``Body::AddRotationStep``: ``q' = normalise(R(ω h) ⊗ q)``, world frame, and NO
  rotation at all when ``|ω h| ≤ 1e-6`` rad;
- Jolt/Physics/Body/BodyCreationSettings.h: defaults ``mApplyGyroscopicForce = false``, ``mAngularDamping =
  0.05`` (set to 0 here: damping off where the engine allows) and ``mMaxAngularVelocity = 0.25 π 60`` ≈ 47.1
  rad/s (kept).

The gyroscopic step is PhysX's (engine_steps.rescaled_momentum_step) taken before the torque and the clamp, where
PhysX takes it after. Avian reports that this step drifts a free body toward the intermediate axis
(avianphysics/avian#993); docs/engines.md measures it. Jolt stores single precision; this is the float64
evaluation of the same formulas.

No compiled kernel: ``backend`` "numba" and "numpy" both run this numpy code (sim/integrators/engines/common.py).
"""

from __future__ import annotations

import functools

import numpy as np

from spinlab.sim.integrators.claims import Claims
from spinlab.sim.integrators.engines.common import (
    TORQUE_AT_START,
    EngineStep,
    axis_angle_quat,
    clamp_speed,
    engine_variants,
    rescaled_momentum_step,
)
from spinlab.sim.integrators.state import BodyParams, BodyState, omega_world_from_momentum, to_body, to_world
from spinlab.sim.quaternion import quat_mul, quat_normalize
from spinlab.sim.vector import dot

__all__ = ["STEPS", "VARIANTS", "MAX_ANGULAR_VELOCITY", "MIN_ROTATION_STEP", "add_rotation_step"]

MAX_ANGULAR_VELOCITY = 0.25 * np.pi * 60.0
"""rad/s: BodyCreationSettings' default ``mMaxAngularVelocity`` (≈ 47.1)."""
MIN_ROTATION_STEP = 1.0e-6
"""rad: ``Body::AddRotationStep`` turns the body only when ``|ω h|`` exceeds this."""


def add_rotation_step(q: np.ndarray, omega_world: np.ndarray, h: float) -> np.ndarray:
    """``Body::AddRotationStep(ω h)``: ``normalise(R(ω h) ⊗ q)`` where ``|ω h| > 1e-6`` rad, else ``q``."""
    step = omega_world * h
    angle = np.sqrt(dot(step, step))
    turning = angle > MIN_ROTATION_STEP
    axis = step / np.where(turning, angle, 1.0)[..., None]
    return np.where(turning[..., None], quat_normalize(quat_mul(axis_angle_quat(axis, angle), q)), q)


def _step(state: BodyState, params: BodyParams, h: float, *, gyroscopic: bool) -> tuple[np.ndarray, np.ndarray]:
    omega = state.omega_world
    if gyroscopic and params.gyroscopic:
        # ApplyGyroscopicForceInternal sets ω = O I⁻¹ ℓ' outright (not ω + a change, as PhysX does).
        omega = to_world(
            state.q, rescaled_momentum_step(to_body(state.q, omega), params.inertia_body, params.inertia_body_inv, h)
        )
    omega = omega + h * omega_world_from_momentum(state.q, params.torque_world, params.inertia_body_inv)
    omega = clamp_speed(omega, MAX_ANGULAR_VELOCITY)
    return add_rotation_step(state.q, omega, h), omega


_off = functools.partial(_step, gyroscopic=False)  # the engine's default
_on = functools.partial(_step, gyroscopic=True)


STEPS = (
    EngineStep(
        "jolt",
        _off,
        Claims(
            order=None,
            conserves_momentum=False,
            orientation_torque=True,
            torque_at=TORQUE_AT_START,
            gyroscopic=False,
            method="Jolt default: no gyroscopic term — ω constant: a free body never flips; |ω| ≤ 47 rad/s",
        ),
        "#f7b6d2",
    ),
    EngineStep(
        "jolt_gyro",
        _on,
        Claims(
            order=1,
            conserves_momentum=False,
            orientation_torque=True,
            torque_at=TORQUE_AT_START,
            method="Jolt mApplyGyroscopicForce: explicit Euler on body momentum, |ℓ| restored; |ω| ≤ 47 rad/s",
        ),
        "#e15759",
    ),
)
VARIANTS = engine_variants(*STEPS, place=40, float32=True)
"""Jolt with the gyroscopic force off and on: their records
(:class:`~sim.integrators.record.Integrator`), float32 twins included."""
