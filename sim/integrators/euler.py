"""Explicit Euler, the method games use (math.md §The integrators).

    α  = I_w⁻¹ (τ − g ω × L)              g = 1 with the gyroscopic term, 0 without
    ω' = ω + h α
    q' = normalise(q + (h/2) [0, ω] ⊗ q)    both from the state at t; q is body → world

then ``L' = O' I O'ᵀ ω'``. First order; it does not conserve ``L``. Without the gyroscopic term a torque-free body
keeps its ω exactly (and so never flips).

With the gyroscopic term this world-frame form LOSES energy, although math.md expects a gain: ``ω'`` is the new
body rate ``Ω' = Ω + h α_b`` carried to the world by the OLD orientation, while the body has turned by ``h Ω``,
so the body sees ``R(−hΩ) Ω'``; to second order ``E' − E = −½ h² α_bᵀ I α_b`` (torque-free). The textbook
method, explicit Euler on Euler's equations in the body frame, carries ``Ω'`` with the new orientation and gains
exactly as much: that is :mod:`sim.integrators.euler_body`. The T-handle loses about 2 % of its energy in 60 s at
h = 1/60 here, and settles towards a steadier spin; with ``euler_body`` it gains.
"""

from __future__ import annotations

import numpy as np

from spinlab.sim.integrators.checks import check_backend
from spinlab.sim.integrators.claims import Claims
from spinlab.sim.integrators.explicit import finish_explicit, run_explicit_kernel
from spinlab.sim.integrators.record import Integrator
from spinlab.sim.integrators.state import BodyParams, BodyState, StepBuffers, StepCost, angular_acceleration
from spinlab.sim.quaternion import quat_mul, quat_normalize

__all__ = ["step", "euler_orientation", "INTEGRATOR"]


NAME = "euler"


def step(
    state: BodyState, params: BodyParams, h: float, *, backend: str = "numba", out: StepBuffers | None = None
) -> tuple[BodyState, StepCost]:
    """Advance N bodies by ``h`` seconds with explicit Euler.

    ``backend``: ``"numba"`` (compiled kernel) or ``"numpy"`` (the reference). Raises
    :class:`sim.errors.NumericalError` naming the bodies whose new state is not finite.
    """
    if backend == "numba":
        from spinlab.sim.integrators._kernels import euler_kernel  # numba at its first call

        return run_explicit_kernel(NAME, euler_kernel, state, params, h, out=out)
    check_backend(backend)
    q = state.q
    omega_world = state.omega_world
    with np.errstate(all="ignore"):  # non-finite results are reported by body in finish_explicit
        omega_new = omega_world + h * angular_acceleration(state, params)
        q_new = euler_orientation(q, omega_world, h)
    return finish_explicit(NAME, h, q_new, omega_new, params)


def euler_orientation(q: np.ndarray, omega_world: np.ndarray, h: float) -> np.ndarray:
    """``normalise(q + (h/2) [0, ω] ⊗ q)``: (N, 4), Euler's orientation update from the state at t."""
    rate = quat_mul(np.concatenate([np.zeros((len(q), 1), omega_world.dtype), omega_world], axis=-1), q)
    return quat_normalize(q + 0.5 * h * rate)


# Both ω and q are updated from the start of the step: first order; L' = O' I O'ᵀ ω' drifts.
INTEGRATOR = Integrator(
    NAME,
    step,
    Claims(order=1, conserves_momentum=False, relative_cost=1.0, method="explicit Euler, world frame"),
    place=1,
    kernel="euler_kernel",
    colour="#e15759",
    compile_rank=13,
)
