"""Erin Catto's gyroscopic step (GDC 2015): implicit Euler on Euler's equations, one Newton step, body frame
(docs/engines.md §Catto 2015).

Source: Erin Catto, "Numerical Methods", Game Developers Conference 2015, Physics for Game Programmers tutorial
(slides, box2d.org/publications), the section on the gyroscopic torque: solve
``I (Ω₂ − Ω₁) + h Ω₂ × I Ω₂ = 0`` in body coordinates with a single Newton–Raphson update from ``Ω₁``,

    f = h Ω₁ × I Ω₁,   J = I + h ([Ω₁] I − [I Ω₁]),   Ω₂ = Ω₁ − J⁻¹ f,

which Bullet adopted as ``computeGyroscopicImpulseImplicit_Body`` (sim/integrators/bullet.py) and MuJoCo's
implicitfast matches on a free body (sim/integrators/mujoco.py). The rest of the step is the semi-implicit Euler
of the talk and of Box2D (erincatto/box2d, src/math_functions.h ``b2IntegrateRotation``: the first-order
rotation of the new velocity, then normalised), carried to quaternions:

    ω₁ = ω + h I_w⁻¹ τ,   ω₂ = O Ω₂ (Ω₁ = Oᵀ ω₁),   q' = normalise(q + (h/2) [0, ω₂] ⊗ q)

No clamp. Cost: one Newton iteration a body. No compiled kernel: ``backend`` "numba" and "numpy" both run this
numpy code (sim/integrators/engines/common.py).
"""

from __future__ import annotations

import numpy as np

from spinlab.sim.integrators.claims import Claims
from spinlab.sim.integrators.engines.common import TORQUE_AT_START, EngineStep, engine_variants, gyroscopic_newton_step
from spinlab.sim.integrators.euler import euler_orientation
from spinlab.sim.integrators.state import BodyParams, BodyState, omega_world_from_momentum, to_body, to_world

__all__ = ["STEPS", "VARIANTS"]


def _step(state: BodyState, params: BodyParams, h: float) -> tuple[np.ndarray, np.ndarray]:
    omega = state.omega_world + h * omega_world_from_momentum(state.q, params.torque_world, params.inertia_body_inv)
    if params.gyroscopic:
        omega = to_world(state.q, gyroscopic_newton_step(to_body(state.q, omega), params.inertia_body, h))
    return euler_orientation(state.q, omega, h), omega


STEPS = (
    EngineStep(
        "catto2015",
        _step,
        Claims(
            order=1,
            conserves_momentum=False,
            orientation_torque=True,
            torque_at=TORQUE_AT_START,
            implicit=True,
            method="Catto 2015: implicit Euler on ω × Iω, one Newton step, body frame; q by semi-implicit Euler",
        ),
        "#009e73",
    ),
)
VARIANTS = engine_variants(*STEPS, place=60, float32=True)
"""Catto's step: their records
(:class:`~sim.integrators.record.Integrator`), float32 twins included."""
