"""PhysX's rigid-body rotation step, with its gyroscopic flag off (the default) and on (docs/engines.md §PhysX).

Source: PhysX 5 (NVIDIA-Omniverse/PhysX, commit a3d8a64, 2026-06-24), the default PGS solver:

- physx/source/lowleveldynamics/src/DyBodyCoreIntegrator.h, ``bodyCoreComputeUnconstrainedVelocity`` (damping,
  then ``|ω|`` clamped to the body's max angular velocity) and ``integrateCore`` (the closed-form quaternion
  step ``q' = normalise((sin(h|ω|/2) ω/|ω|, cos(h|ω|/2)) ⊗ q)``, world frame, none when ``|ω|² = 0``);
- physx/source/lowleveldynamics/src/DyRigidBodyToSolverBody.cpp, ``copyToSolverBodyData``: with
  ``PxRigidBodyFlag::eENABLE_GYROSCOPIC_FORCES`` the body momentum takes one explicit Euler step of
  ``−Ω × ℓ`` and is scaled back to its old length, ``Ω' = I⁻¹ ℓ'`` (engine_steps.rescaled_momentum_step);
- physx/source/simulationcontroller/src/ScBodyCore.cpp, ``BodyCore::BodyCore``: a dynamic body's defaults,
  angular damping 0.05 (set to 0 here: the issue asks for damping off where the engine allows) and max angular
  velocity 100 rad/s (kept: users get it).

Order of a step: ``ω += h I_w⁻¹ τ`` (the accumulated torque), clamp to 100 rad/s, the gyroscopic step (flag on),
then the rotation by the new ω. Off, a torque-free body keeps its ω exactly and the T-handle never flips.
PhysX stores single precision; this is the float64 evaluation of the same formulas.

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

__all__ = ["STEPS", "VARIANTS", "MAX_ANGULAR_VELOCITY", "integrate_rotation"]

MAX_ANGULAR_VELOCITY = 100.0
"""rad/s: PxRigidDynamic's default max angular velocity (ScBodyCore.cpp)."""


def integrate_rotation(q: np.ndarray, omega_world: np.ndarray, h: float) -> np.ndarray:
    """``integrateCore``'s rotation: ``normalise(exp(h ω) ⊗ q)`` by sine and cosine; ``q`` as is where ω = 0."""
    speed_sq = dot(omega_world, omega_world)
    moving = speed_sq != 0.0
    speed = np.sqrt(np.where(moving, speed_sq, 1.0))
    turned = quat_normalize(quat_mul(axis_angle_quat(omega_world / speed[..., None], h * speed), q))
    return np.where(moving[..., None], turned, q)


def _step(state: BodyState, params: BodyParams, h: float, *, gyroscopic: bool) -> tuple[np.ndarray, np.ndarray]:
    omega = state.omega_world + h * omega_world_from_momentum(state.q, params.torque_world, params.inertia_body_inv)
    omega = clamp_speed(omega, MAX_ANGULAR_VELOCITY)
    if gyroscopic and params.gyroscopic:
        omega_body = to_body(state.q, omega)
        stepped = rescaled_momentum_step(omega_body, params.inertia_body, params.inertia_body_inv, h)
        omega = omega + to_world(state.q, stepped - omega_body)  # copyToSolverBodyData: ang += O (Ω' − Ω)
    return integrate_rotation(state.q, omega, h), omega


_off = functools.partial(_step, gyroscopic=False)  # the engine's default
_on = functools.partial(_step, gyroscopic=True)


STEPS = (
    EngineStep(
        "physx",
        _off,
        Claims(
            order=None,
            conserves_momentum=False,
            orientation_torque=True,
            torque_at=TORQUE_AT_START,
            gyroscopic=False,
            method="PhysX default: no gyroscopic term — ω constant: a free body never flips; |ω| ≤ 100 rad/s",
        ),
        "#2ca02c",
    ),
    EngineStep(
        "physx_gyro",
        _on,
        Claims(
            order=1,
            conserves_momentum=False,
            orientation_torque=True,
            torque_at=TORQUE_AT_START,
            method="PhysX eENABLE_GYROSCOPIC_FORCES: explicit Euler on body momentum, |ℓ| restored; ≤ 100 rad/s",
        ),
        "#98df8a",
    ),
)
VARIANTS = engine_variants(*STEPS, place=30, float32=True)
"""PhysX with the gyroscopic flag off and on: their records
(:class:`~sim.integrators.record.Integrator`), float32 twins included."""
