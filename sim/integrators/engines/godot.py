"""Godot Physics' own rigid-body rotation step (Godot 4, GodotPhysics3D; docs/engines.md §Godot).

Source: Godot Engine 4.x (godotengine/godot, commit 0a93d3b),
modules/godot_physics_3d/godot_body_3d.cpp:

- ``GodotBody3D::integrate_forces``: ``ω *= max(0, 1 − h c)`` with the combined angular damp ``c`` (the project
  default 0.1 is set to 0 here: damping off where the engine allows), then ``ω += h I_w⁻¹ τ``. There is no
  gyroscopic term anywhere in the step: a torque-free body keeps its ω, and the T-handle never flips.
- ``GodotBody3D::integrate_velocities``: where ``|ω|`` is not ``Math::is_zero_approx`` (``≥ CMP_EPSILON`` =
  1e-5 rad/s), the basis is turned by ``Basis(ω/|ω|, |ω| h)`` on the left (world frame) and Gram–Schmidt
  orthonormalised; a slower body does not turn at all.

Godot keeps the orientation as a 3×3 basis; turning it by an exact rotation matrix and orthonormalising is, to
rounding, the quaternion product ``normalise(exp(h ω) ⊗ q)`` used here. Godot's ``real_t`` is single precision by
default; this is the float64 evaluation of the same formulas.

No compiled kernel: ``backend`` "numba" and "numpy" both run this numpy code (sim/integrators/engines/common.py).
"""

from __future__ import annotations

import numpy as np

from spinlab.sim.integrators.claims import Claims
from spinlab.sim.integrators.engines.common import TORQUE_AT_START, EngineStep, axis_angle_quat, engine_variants
from spinlab.sim.integrators.state import BodyParams, BodyState, omega_world_from_momentum
from spinlab.sim.quaternion import quat_mul, quat_normalize
from spinlab.sim.vector import dot

__all__ = ["STEPS", "VARIANTS", "CMP_EPSILON"]

CMP_EPSILON = 1e-5
"""rad/s: below this ``|ω|`` Godot does not turn a body (``Math::is_zero_approx``)."""


def _step(state: BodyState, params: BodyParams, h: float) -> tuple[np.ndarray, np.ndarray]:
    omega = state.omega_world + h * omega_world_from_momentum(state.q, params.torque_world, params.inertia_body_inv)
    speed = np.sqrt(dot(omega, omega))
    turning = speed >= CMP_EPSILON
    axis = omega / np.where(turning, speed, 1.0)[..., None]
    turned = quat_normalize(quat_mul(axis_angle_quat(axis, speed * h), state.q))
    return np.where(turning[..., None], turned, state.q), omega


STEPS = (
    EngineStep(
        "godot",
        _step,
        Claims(
            order=None,
            conserves_momentum=False,
            orientation_torque=True,
            torque_at=TORQUE_AT_START,
            gyroscopic=False,
            method="Godot Physics: no gyroscopic term at all — ω constant: a free body never flips",
        ),
        "#bcbd22",
    ),
)
VARIANTS = engine_variants(*STEPS, place=50, float32=True)
"""Godot Physics' step: their records
(:class:`~sim.integrators.record.Integrator`), float32 twins included."""
