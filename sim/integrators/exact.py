"""``exact``: a step that samples the closed-form torque-free motion — round-off error for any ``h``.

For each body the closed form (:class:`sim.exact.TorqueFreeSolution`, Euler–Poinsot, Landau & Lifshitz §37) is
built from the step's start state and evaluated at ``h``: ``q' = q(h)``. ``q`` is body → world. The start body rate
is taken from the momentum, ``Ω = I⁻¹ Oᵀ L``, so the step is consistent with ``L' = L`` (exactly: a torque-free
``L`` is constant), and ``ω' = O' I⁻¹ O'ᵀ L``. The closed form is accurate to about 1e-12 over many periods and to
rounding over one step; each step's error is of the order of rounding whatever ``h`` is.

Torque breaks the closed form: a body with a non-zero torque is refused with :class:`sim.errors.NumericalError`
naming it. With the gyroscopic term off the model is ``ω̇ = 0`` (torque-free), whose exact solution is the spin
``ω' = ω``, ``q' = exp(h ω) ⊗ q`` (world-frame left multiplication), ``L' = O' I O'ᵀ ω``.

The case analysis of the closed form (family, separatrix, symmetry) is per body, so the gyroscopic step loops over
the bodies in Python: about 1 ms a body-step, three orders of magnitude above the compiled integrators. It is the
reference, not a method for a real-time scene of many bodies. Cost: 0 Newton iterations, 1 sub-step.
"""

from __future__ import annotations

import numpy as np

from sim.errors import NumericalError
from sim.exact import TorqueFreeSolution
from sim.integrators.checks import STATUS_OK, check_backend, non_finite_status, raise_on_failure
from sim.integrators.state import (
    BodyParams,
    BodyState,
    StepCost,
    matvec,
    momentum_from_omega_world,
    omega_world_from_momentum,
    to_body,
)
from sim.quaternion import quat_exp, quat_mul, quat_normalize

__all__ = ["step"]

NAME = "exact"
_SHOWN_BODIES = 20


def _refuse_torque(params: BodyParams, h: float) -> None:
    driven = np.flatnonzero(np.any(params.torque_world != 0.0, axis=-1))
    if driven.size == 0:
        return
    shown = ", ".join(str(i) for i in driven[:_SHOWN_BODIES])
    more = f" and {driven.size - _SHOWN_BODIES} more" if driven.size > _SHOWN_BODIES else ""
    bodies = f"bod{'y' if driven.size == 1 else 'ies'} {shown}{more}"
    raise NumericalError(
        f"{NAME} step of h = {h!r} s refused for {bodies}: a non-zero torque; the closed form holds only for "
        f"torque-free bodies (choose another integrator for them)",
        bodies=driven,
    )


def _closed_form_orientation(state: BodyState, params: BodyParams, h: float, stepped: np.ndarray) -> np.ndarray:
    """``q(h)`` of the torque-free motion from each stepped body's start state: (N, 4); others keep ``q``."""
    q_new = state.q.copy()
    with np.errstate(all="ignore"):  # bodies with a non-finite state are not stepped, and are reported
        omega_body = matvec(params.inertia_body_inv, to_body(state.q, state.L_world))
    t = np.array(h, dtype=float)
    for n in np.flatnonzero(stepped):
        solution = TorqueFreeSolution.from_body_state(params.inertia_body[n], state.q[n], omega_body[n])
        q_new[n] = solution.orientation(t)
    return quat_normalize(q_new)


def step(state: BodyState, params: BodyParams, h: float, *, backend: str = "numba") -> tuple[BodyState, StepCost]:
    """Advance N torque-free bodies by ``h`` seconds along their exact motion.

    ``backend`` is accepted for the common signature and checked; there is one implementation (numpy and scipy).
    Raises :class:`sim.errors.NumericalError` naming the bodies with a torque, or with a non-finite state.
    """
    check_backend(backend)
    _refuse_torque(params, h)
    status = non_finite_status(state.q, state.omega_world, state.L_world)
    n_bodies = len(state)
    if params.gyroscopic:
        q_new = _closed_form_orientation(state, params, float(h), status == STATUS_OK)
        L_new = state.L_world.copy()
        with np.errstate(all="ignore"):
            omega_new = omega_world_from_momentum(q_new, L_new, params.inertia_body_inv)
    else:
        with np.errstate(all="ignore"):
            q_new = quat_normalize(quat_mul(quat_exp(h * state.omega_world), state.q))
            omega_new = state.omega_world.copy()
            L_new = momentum_from_omega_world(q_new, omega_new, params.inertia_body)
    status = np.maximum(status, non_finite_status(q_new, omega_new, L_new))
    raise_on_failure(NAME, status, h)
    return BodyState(q_new, omega_new, L_new), StepCost(np.zeros(n_bodies, dtype=np.int64),
                                                        np.ones(n_bodies, dtype=np.int64))  # fmt: skip
