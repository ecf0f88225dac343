"""Object-space trapezoidal rule (seed 003 §7, §11; math.md §Object-space trapezoidal rule).

The new orientation is ``O' = O R(v)``; the step is the mean of the body angular velocities at its two ends, each
in the start body frame: ``I⁻¹ ℓ₀`` at the start and ``I⁻¹ R(v)ᵀ ℓ₁`` at the end, with ``ℓ₀ = Oᵀ L`` and
``ℓ₁ = Oᵀ L'``, ``L' = L + h τ``:

    H(v)  = v − (h/2) (I⁻¹ ℓ₀ + I⁻¹ R(v)ᵀ ℓ₁) = 0
    ∂H/∂v = 1 − (h/2) I⁻¹ R(v)ᵀ [ℓ₁] Jl(v)          (∂(R(v)ᵀ x)/∂v = R(v)ᵀ [x] Jl(v))

math.md states ``H`` torque-free (``ℓ₀ = ℓ₁ = Oᵀ L``); with a torque, the end momentum ``L'`` is the natural
extension. Newton starts from ``v₀ = (h/2) I⁻¹ (ℓ₀ + ℓ₁)``, the right-hand side at ``v = 0``. Then
``ω' = O' I⁻¹ O'ᵀ L'``. Seed 003 reports far smaller energy errors than the midpoint rule's (below 1e-5
relative) but a much smaller convergence region for Newton, where sub-stepping takes over. Torque-free, the energy
is in fact conserved exactly: with ``ℓ' = R(v)ᵀ ℓ``, ``E' − E = ½ (ℓ' − ℓ)·I⁻¹ (ℓ' + ℓ) = (ℓ' − ℓ)·v/h`` by
``H(v) = 0``, and ``(R(−v) ℓ − ℓ)·v = ℓ·(R(v) v − v) = 0`` because ``R(v) v = v``; a step changes it only by
rounding and by where Newton stops. Sub-stepping, the
backends and the gyroscopic switch are those of :mod:`sim.integrators.implicit`.
"""

from __future__ import annotations

import numpy as np

from spinlab.sim.integrators.claims import Claims
from spinlab.sim.integrators.implicit import ImplicitMethod, advance_body_frame, implicit_step
from spinlab.sim.integrators.record import Integrator
from spinlab.sim.integrators.state import BodyParams, BodyState, matvec, to_body
from spinlab.sim.so3 import exp_so3, hat, left_jacobian_so3

__all__ = ["step", "residual", "residual_jacobian", "residual_curvature", "INTEGRATOR"]


def residual(v, ell_body_start, ell_body_end, inertia_body_inv, h):
    """``H(v) = v − (h/2) (I⁻¹ ℓ₀ + I⁻¹ R(v)ᵀ ℓ₁)``. ``v``, ``ell_body_*``: (n, 3), start body frame;
    ``inertia_body_inv``: (n, 3, 3); ``h``: (n,)."""
    R_transpose = np.swapaxes(exp_so3(v), -1, -2)
    omega_body_end = matvec(inertia_body_inv, matvec(R_transpose, ell_body_end))
    return v - 0.5 * h[..., None] * (matvec(inertia_body_inv, ell_body_start) + omega_body_end)


def residual_jacobian(v, ell_body_start, ell_body_end, inertia_body_inv, h):
    """``∂H/∂v = 1 − (h/2) I⁻¹ R(v)ᵀ [ℓ₁] Jl(v)``: (n, 3, 3)."""
    R_transpose = np.swapaxes(exp_so3(v), -1, -2)
    J_H_v = inertia_body_inv @ R_transpose @ hat(ell_body_end) @ left_jacobian_so3(v)
    return np.eye(3) - 0.5 * h[:, None, None] * J_H_v


def residual_curvature(v, ell_body_start, ell_body_end, inertia_body_inv, h):
    """``(3/8) |h| |I⁻¹|₂ |ℓ₁|`` (n,): a bound on ``½ |H''|``, Newton's quadratic constant for this residual.

    ``H''`` is ``−(h/2) I⁻¹`` times the second derivative of ``v ↦ R(v)ᵀ ℓ₁ = R(−v) ℓ₁``, at most
    ``(1 + ½) |ℓ₁|``, so ``½ |H''| ≤ ½ · ½ · (3/2) |h| |I⁻¹|₂ |ℓ₁|``. :func:`sim.integrators.newton.newton_curvature`
    covers it.
    """
    size_inverse = np.linalg.norm(inertia_body_inv, 2, axis=(-2, -1))
    return 3.0 / 8.0 * np.abs(h) * size_inverse * np.linalg.norm(ell_body_end, axis=-1)


def _setup(state: BodyState, params: BodyParams, h: np.ndarray):
    ell_body_start = to_body(state.q, state.L_world)
    ell_body_end = to_body(state.q, state.L_world + h[:, None] * params.torque_world)
    inverse = params.inertia_body_inv
    v0 = 0.5 * h[:, None] * (matvec(inverse, ell_body_start) + matvec(inverse, ell_body_end))
    return v0, (ell_body_start, ell_body_end, inverse, h)


METHOD = ImplicitMethod("object_trapezoidal", _setup, residual, residual_jacobian, advance_body_frame)


step = implicit_step(METHOD, "the object-space trapezoidal rule")


# Symmetric, so even order; L' = L + h τ is carried exactly.
INTEGRATOR = Integrator(
    "object_trapezoidal",
    step,
    Claims(order=2, conserves_momentum=True, implicit=True, relative_cost=4.4, method="trapezoidal rule, body frame"),
    place=6,
    kernel="implicit_kernel",
    fallback="twin",
    colour="#c5b0d5",
    compile_rank=8,
)
