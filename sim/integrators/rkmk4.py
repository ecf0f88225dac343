"""``rkmk4``: the fourth-order Runge–Kutta–Munthe-Kaas method on SO(3) (explicit; L exact torque-free).

Munthe-Kaas, "High order Runge–Kutta methods on manifolds", Appl. Numer. Math. 29 (1999) 115–127; Hairer, Lubich &
Wanner, *Geometric Numerical Integration*, §IV.8.2. ``q`` is body → world. The ODE integrated, with the gyroscopic
term (math.md §Notation):

    q̇ = ½ [0, ω] ⊗ q        L̇ = τ        ω = O I⁻¹ Oᵀ L        (τ constant over the step)

``L(t) = L + t τ`` is solved exactly, so ``L' = L + h τ`` and a torque-free ``L`` never changes, to the last bit.
The orientation is written ``O(t) = O R(v(t))`` (a body-frame increment, as in the implicit methods). Since
``Oᵀ Ȯ = [Ω]`` and ``d/dt R(v) = R(v) [Jr(v) v̇]`` (math.md §Rodrigues), ``v`` obeys an ODE in a vector space,

    v̇ = Jr(v)⁻¹ Ω = Jr(v)⁻¹ I⁻¹ R(v)ᵀ ℓ(t)        ℓ(t) = Oᵀ (L + t τ)        v(0) = 0

(``Jr(v)⁻¹`` is dexp⁻¹ of the right-trivialised exponential), and classical RK4 solves it:

    k1 = f(0, 0)   k2 = f(h/2, (h/2) k1)   k3 = f(h/2, (h/2) k2)   k4 = f(h, h k3)
    v  = (h/6) (k1 + 2 k2 + 2 k3 + k4)        O' = O R(v)        ω' = O' I⁻¹ O'ᵀ L'

The full ``Jr⁻¹ = 1 + ½[v] + c(a)[v]²`` is used (Munthe-Kaas shows that truncating it after ``[v]²`` keeps order
4; the full map makes the method exactly RK4 in these coordinates, and costs one more coefficient). Fourth order,
four evaluations of ``Ω``, no Newton iteration. Energy is not conserved, but its error is of fourth order. Valid
while the step turns by less than 2π (where ``Jr`` is singular); far below that for accuracy.

Without the gyroscopic term the model is ``ω̇ = I_w⁻¹ τ`` (``I_w = O I Oᵀ``, the torque's work on the turning
inertia) with ``q̇ = ½ [0, ω] ⊗ q``: ω is integrated alongside ``v`` as ``u = Oᵀ ω`` (world ω in the start body
frame), ``v̇ = Jr(v)⁻¹ R(v)ᵀ u``, ``u̇ = R(v) I⁻¹ R(v)ᵀ Oᵀ τ``, by the same RK4; then ``ω' = ω + O Δu`` and
``L' = O' I O'ᵀ ω'``. Torque-free, ``Δu = 0`` exactly and ``v`` stays parallel to ``u``, so ``ω' = ω`` and
``q' = exp(h ω) q``: the body spins about its start axis forever, as the model says.
"""

from __future__ import annotations

import numpy as np

from spinlab.sim.integrators.checks import check_backend, non_finite_status, raise_on_failure
from spinlab.sim.integrators.claims import Claims
from spinlab.sim.integrators.explicit import run_explicit_kernel
from spinlab.sim.integrators.record import Integrator
from spinlab.sim.integrators.state import (
    BodyParams,
    BodyState,
    StepBuffers,
    StepCost,
    matvec,
    momentum_from_omega_world,
    omega_world_from_momentum,
    to_body,
    to_world,
)
from spinlab.sim.quaternion import quat_exp, quat_mul, quat_normalize
from spinlab.sim.so3 import exp_so3, right_jacobian_inv_so3

__all__ = ["step", "INTEGRATOR"]


NAME = "rkmk4"


def _rk4_sum(h: float, k1: np.ndarray, k2: np.ndarray, k3: np.ndarray, k4: np.ndarray) -> np.ndarray:
    return h / 6.0 * (k1 + 2.0 * (k2 + k3) + k4)


def _rotation_rate_gyroscopic(v: np.ndarray, ell_body: np.ndarray, inertia_body_inv: np.ndarray) -> np.ndarray:
    """``v̇ = Jr(v)⁻¹ I⁻¹ R(v)ᵀ ℓ``: (n, 3)."""
    omega_body = matvec(inertia_body_inv, matvec(exp_so3(-v), ell_body))
    return matvec(right_jacobian_inv_so3(v), omega_body)


def _rates_without_gyroscopic(v, u, torque_body, inertia_body_inv):
    """``(v̇, u̇) = (Jr(v)⁻¹ R(v)ᵀ u, R(v) I⁻¹ R(v)ᵀ τ_b)``: (n, 3) each."""
    R_transpose = exp_so3(-v)
    alpha = matvec(np.swapaxes(R_transpose, -1, -2), matvec(inertia_body_inv, matvec(R_transpose, torque_body)))
    return matvec(right_jacobian_inv_so3(v), matvec(R_transpose, u)), alpha


def _step_numpy(state: BodyState, params: BodyParams, h: float) -> BodyState:
    q, inverse = state.q, params.inertia_body_inv
    torque_body = to_body(q, params.torque_world)
    if params.gyroscopic:
        ell = to_body(q, state.L_world)
        ell_half = ell + 0.5 * h * torque_body
        k1 = matvec(inverse, ell)
        k2 = _rotation_rate_gyroscopic(0.5 * h * k1, ell_half, inverse)
        k3 = _rotation_rate_gyroscopic(0.5 * h * k2, ell_half, inverse)
        k4 = _rotation_rate_gyroscopic(h * k3, ell + h * torque_body, inverse)
        q_new = quat_normalize(quat_mul(q, quat_exp(_rk4_sum(h, k1, k2, k3, k4))))
        L_new = state.L_world + h * params.torque_world
        return BodyState(q_new, omega_world_from_momentum(q_new, L_new, inverse), L_new)
    u = to_body(q, state.omega_world)
    k1, m1 = u, matvec(inverse, torque_body)
    k2, m2 = _rates_without_gyroscopic(0.5 * h * k1, u + 0.5 * h * m1, torque_body, inverse)
    k3, m3 = _rates_without_gyroscopic(0.5 * h * k2, u + 0.5 * h * m2, torque_body, inverse)
    k4, m4 = _rates_without_gyroscopic(h * k3, u + h * m3, torque_body, inverse)
    q_new = quat_normalize(quat_mul(q, quat_exp(_rk4_sum(h, k1, k2, k3, k4))))
    omega_new = state.omega_world + to_world(q, _rk4_sum(h, m1, m2, m3, m4))
    return BodyState(q_new, omega_new, momentum_from_omega_world(q_new, omega_new, params.inertia_body))


def step(
    state: BodyState, params: BodyParams, h: float, *, backend: str = "numba", out: StepBuffers | None = None
) -> tuple[BodyState, StepCost]:
    """Advance N bodies by ``h`` seconds with RKMK4 (see the module for the ODE).

    ``backend``: ``"numba"`` (compiled kernel), ``"numpy"`` (the reference) or ``"twin"`` (the kernel run
    plain, sim/integrators/kernel_twins.py). Raises
    :class:`sim.errors.NumericalError` naming the bodies whose new state is not finite.
    """
    if backend == "numba":
        from spinlab.sim.integrators._kernels import rkmk4_kernel  # numba at its first call

        return run_explicit_kernel(NAME, rkmk4_kernel, state, params, h, out=out)
    if backend == "twin":  # the kernel's bits, run plain (kernel_twins.py)
        from spinlab.sim.integrators.kernel_twins import explicit_step as twin_step

        return twin_step(NAME, "rkmk4_kernel", state, params, h)
    check_backend(backend)
    with np.errstate(all="ignore"):  # non-finite results are reported by body below
        new_state = _step_numpy(state, params, float(h))
    raise_on_failure(NAME, non_finite_status(new_state.q, new_state.omega_world, new_state.L_world), h)
    n_bodies = len(state)
    return new_state, StepCost(np.zeros(n_bodies, dtype=np.int64), np.ones(n_bodies, dtype=np.int64))


# Classical RK4 in exponential coordinates; L(t) = L + t τ is solved exactly.
INTEGRATOR = Integrator(
    NAME,
    step,
    Claims(order=4, conserves_momentum=True, relative_cost=2.4, method="Runge–Kutta–Munthe-Kaas on SO(3)"),
    place=10,
    kernel="rkmk4_kernel",
    fallback="twin",
    colour="#76b7b2",
    compile_rank=10,
)
