"""Explicit Euler on Euler's equations in the body frame: the textbook method, which gains energy.

    Ω  = Oᵀ ω,   α_b = I⁻¹ (Oᵀ τ − g Ω × I Ω)      g = 1 with the gyroscopic term, 0 without
    Ω' = Ω + h α_b
    q' = normalise(q + (h/2) [0, ω] ⊗ q)            the same orientation update as :mod:`sim.integrators.euler`
    ω' = O' Ω',  L' = O' I Ω'

It differs from the world-frame :mod:`~sim.integrators.euler` only in carrying the new body rate to the world with
the new orientation. Torque-free, ``Ω · (Ω × I Ω) = 0`` kills the first-order change of ``E = ½ Ωᵀ I Ω``, leaving
``E' − E = ½ h² α_bᵀ I α_b ≥ 0``: the energy grows every step, the instability seed 000 blames on the gyroscopic
term with a general-purpose solver.

Without the gyroscopic term ``ω'`` is formed as ``ω + h O' α_b``: the orientation update turns the body about
``ω`` (``q' ∝ (1 + (h/2) ω) ⊗ q``), so ``O' Ω = ω`` exactly and ``O' Ω' = ω + h O' α_b`` is the same map. Carried
through ``Ω = Oᵀ ω`` and back, a torque-free ω would drift by rounding (2e-13 in 500 steps); this way it is kept
bit for bit (``α_b = 0``), as every other integrator keeps it. With the gyroscopic term the round trip is kept,
its results unchanged.
"""

from __future__ import annotations

import numpy as np

from spinlab.sim.integrators.checks import check_backend
from spinlab.sim.integrators.claims import Claims
from spinlab.sim.integrators.euler import euler_orientation
from spinlab.sim.integrators.explicit import finish_explicit, run_explicit_kernel
from spinlab.sim.integrators.record import Integrator
from spinlab.sim.integrators.state import (
    BodyParams,
    BodyState,
    StepBuffers,
    StepCost,
    angular_acceleration,
    matvec,
    to_body,
    to_world,
)

__all__ = ["step", "INTEGRATOR"]


NAME = "euler_body"


def step(
    state: BodyState, params: BodyParams, h: float, *, backend: str = "numba", out: StepBuffers | None = None
) -> tuple[BodyState, StepCost]:
    """Advance N bodies by ``h`` seconds with body-frame explicit Euler.

    ``backend``: ``"numba"`` (compiled kernel) or ``"numpy"`` (the reference). Raises
    :class:`sim.errors.NumericalError` naming the bodies whose new state is not finite.
    """
    if backend == "numba":
        from spinlab.sim.integrators._kernels import euler_body_kernel  # numba at its first call

        return run_explicit_kernel(NAME, euler_body_kernel, state, params, h, out=out)
    check_backend(backend)
    q = state.q
    with np.errstate(all="ignore"):  # non-finite results are reported by body in finish_explicit
        q_new = euler_orientation(q, state.omega_world, h)
        if params.gyroscopic:
            # ω + h α = O (Ω + h α_b): the new body rate, expressed with the old orientation.
            omega_new = to_world(q_new, to_body(q, state.omega_world + h * angular_acceleration(state, params)))
        else:
            # O' Ω = ω (the module): ω' = ω + h O' α_b, α_b = I⁻¹ Oᵀ τ.
            alpha_body = matvec(params.inertia_body_inv, to_body(q, params.torque_world))
            omega_new = state.omega_world + h * to_world(q_new, alpha_body)
    return finish_explicit(NAME, h, q_new, omega_new, params)


# Explicit Euler in the body frame: first order, and it gains energy, so L drifts.
INTEGRATOR = Integrator(
    NAME,
    step,
    Claims(
        order=1, conserves_momentum=False, relative_cost=1.1, method="explicit Euler on Euler's equations, body frame"
    ),
    place=2,
    kernel="euler_body_kernel",
    colour="#ff7f0e",
    compile_rank=12,
)
