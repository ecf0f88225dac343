"""Explicit Euler, the method games use (math.md §The integrators).

    α  = I_w⁻¹ (τ − g ω × L)              g = 1 with the gyroscopic term, 0 without
    ω' = ω + h α
    q' = normalise(q + (h/2) [0, ω] ⊗ q)    both from the state at t; q is body → world

then ``L' = O' I O'ᵀ ω'``. First order; it does not conserve ``L`` and, with the gyroscopic term, gains energy.
Without it a torque-free body keeps its ω exactly (and so never flips).
"""

from __future__ import annotations

import numpy as np

from sim.integrators.checks import check_backend
from sim.integrators.explicit import finish_explicit, run_explicit_kernel
from sim.integrators.state import BodyParams, BodyState, StepCost, angular_acceleration
from sim.quaternion import quat_mul, quat_normalize

__all__ = ["step"]

NAME = "euler"


def step(state: BodyState, params: BodyParams, h: float, *, backend: str = "numba") -> tuple[BodyState, StepCost]:
    """Advance N bodies by ``h`` seconds with explicit Euler.

    ``backend``: ``"numba"`` (compiled kernel) or ``"numpy"`` (the reference). Raises
    :class:`sim.errors.NumericalError` naming the bodies whose new state is not finite.
    """
    check_backend(backend)
    if backend == "numba":
        from sim.integrators._kernels import euler_kernel

        return run_explicit_kernel(NAME, euler_kernel, state, params, h)
    q = state.q
    omega_world = state.omega_world
    with np.errstate(all="ignore"):  # non-finite results are reported by body in finish_explicit
        omega_new = omega_world + h * angular_acceleration(state, params)
        rate = quat_mul(np.concatenate([np.zeros((len(q), 1)), omega_world], axis=-1), q)
        q_new = quat_normalize(q + 0.5 * h * rate)
    return finish_explicit(NAME, h, q_new, omega_new, params)
