"""Implicit midpoint rule in exponential coordinates (seed 003 §6–10; math.md §Implicit midpoint).

The new orientation is ``O' = O R(v)``. The midpoint rule ``v = h Jr(v/2)⁻¹ I⁻¹ R(v/2)ᵀ ℓ`` with
``ℓ = Oᵀ (L + ½ h τ)`` (the body momentum at the midpoint, in the start frame) simplifies, because
``Jr(v/2) v = v``, to

    F(v)  = v − h I⁻¹ R(−v/2) ℓ = 0
    ∂F/∂v = 1 − (h/2) I⁻¹ R(−v/2) [ℓ] Jl(v/2)

solved by Newton's method from ``v₀ = h I⁻¹ ℓ``; then ``L' = L + h τ`` and ``ω' = O' I⁻¹ O'ᵀ L'``. Second order,
symmetric, and ``L`` is carried exactly; the energy error stays bounded (no drift). Sub-stepping, the backends and
the gyroscopic switch are those of :mod:`sim.integrators.implicit`.
"""

from __future__ import annotations

import numpy as np

from spinlab.sim.integrators.claims import Claims
from spinlab.sim.integrators.implicit import ImplicitMethod, advance_body_frame, implicit_step
from spinlab.sim.integrators.record import Integrator
from spinlab.sim.integrators.state import BodyParams, BodyState, matvec, to_body
from spinlab.sim.so3 import exp_so3, hat, left_jacobian_so3

__all__ = ["step", "residual", "residual_jacobian", "residual_curvature", "INTEGRATOR"]


def residual(v, ell_body, inertia_body_inv, h):
    """``F(v) = v − h I⁻¹ R(−v/2) ℓ``. ``v``, ``ell_body``: (n, 3); ``inertia_body_inv``: (n, 3, 3); ``h``: (n,)."""
    return v - h[..., None] * matvec(inertia_body_inv, matvec(exp_so3(-0.5 * v), ell_body))


def residual_jacobian(v, ell_body, inertia_body_inv, h):
    """``∂F/∂v = 1 − (h/2) I⁻¹ R(−v/2) [ℓ] Jl(v/2)``: (n, 3, 3).

    With ``u = −v/2``, ``∂(R(u) ℓ)/∂u = −R(u) [ℓ] Jr(u)`` (math.md §Rodrigues) and ``∂u/∂v = −½``, and
    ``Jr(−v/2) = Jl(v/2)``.
    """
    J_F_v = inertia_body_inv @ exp_so3(-0.5 * v) @ hat(ell_body) @ left_jacobian_so3(0.5 * v)
    return np.eye(3) - 0.5 * h[:, None, None] * J_F_v


def residual_curvature(v, ell_body, inertia_body_inv, h):
    """``(3/16) |h| |I⁻¹|₂ |ℓ|`` (n,): a bound on ``½ |F''|``, Newton's quadratic constant for this residual.

    ``F''`` is ``−h I⁻¹`` times the second derivative of ``u ↦ R(u) ℓ`` at ``u = −v/2``, scaled by ``(½)²``; that
    second derivative is at most ``(1 + ½) |ℓ|`` (``|Jr| ≤ 1`` and ``Jr``'s own derivative is at most ½), so
    ``½ |F''| ≤ ½ · ¼ · (3/2) |h| |I⁻¹|₂ |ℓ|``. :func:`sim.integrators.newton.newton_curvature` covers it.
    """
    size_inverse = np.linalg.norm(inertia_body_inv, 2, axis=(-2, -1))
    return 3.0 / 16.0 * np.abs(h) * size_inverse * np.linalg.norm(ell_body, axis=-1)


def _setup(state: BodyState, params: BodyParams, h: np.ndarray):
    ell_body = to_body(state.q, state.L_world + 0.5 * h[:, None] * params.torque_world)
    v0 = h[:, None] * matvec(params.inertia_body_inv, ell_body)
    return v0, (ell_body, params.inertia_body_inv, h)


METHOD = ImplicitMethod("implicit_midpoint", _setup, residual, residual_jacobian, advance_body_frame)


step = implicit_step(METHOD, "the implicit midpoint rule")


# Symmetric, so even order; L' = L + h τ is carried exactly.
INTEGRATOR = Integrator(
    "implicit_midpoint",
    step,
    Claims(order=2, conserves_momentum=True, implicit=True, relative_cost=4.3, method="implicit midpoint rule"),
    place=4,
    kernel="implicit_kernel",
    fallback="twin",
    colour="#8db600",
    compile_rank=9,
)
