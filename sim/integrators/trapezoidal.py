"""Trapezoidal rule in the world frame (seed 003 §7; math.md §Trapezoidal rule, world frame), the method Roblox
ships.

With ``A = O I⁻¹ Oᵀ`` (the world inverse inertia at the start), ``L' = L + h τ`` and ``O' = R(w) O``, the rule
``w = (h/2) (ω + ω')`` with ``ω' = O' I⁻¹ O'ᵀ L' = R(w) A R(w)ᵀ L'`` reads

    G(w)  = w − (h/2) (ω + R(w) A R(w)ᵀ L') = 0
    ∂G/∂w = 1 − (h/2) (A' [L'] − [A' L']) Jl(w),        A' = R(w) A R(w)ᵀ

(derived below), solved by Newton's method from ``w₀ = (h/2) (ω + A L')``, the right-hand side at ``w = 0``
(math.md gives no start value; this is the one the other two methods' start values are, too). Then
``ω' = O' I⁻¹ O'ᵀ L'``. Second order; ``L`` is carried exactly. Sub-stepping, the backends and the gyroscopic
switch are those of :mod:`sim.integrators.implicit`; the compiled kernel solves the same equation in the start
body frame (see :mod:`sim.integrators._kernels`).
"""

from __future__ import annotations

import numpy as np

from spinlab.sim.integrators.claims import Claims
from spinlab.sim.integrators.implicit import ImplicitMethod, implicit_step
from spinlab.sim.integrators.record import Integrator
from spinlab.sim.integrators.state import BodyParams, BodyState, matvec, omega_world_from_momentum
from spinlab.sim.quaternion import quat_exp, quat_mul, quat_normalize, quat_to_matrix
from spinlab.sim.so3 import exp_so3, hat, left_jacobian_so3

__all__ = ["step", "residual", "residual_jacobian", "residual_curvature", "INTEGRATOR"]


def residual(w, omega_world, A_world, L_world_new, h):
    """``G(w) = w − (h/2) (ω + R(w) A R(w)ᵀ L')``. ``w``, ``omega_world``, ``L_world_new``: (n, 3) world;
    ``A_world``: (n, 3, 3) world inverse inertia at the start; ``h``: (n,)."""
    R = exp_so3(w)
    omega_world_new = matvec(R, matvec(A_world, matvec(np.swapaxes(R, -1, -2), L_world_new)))
    return w - 0.5 * h[..., None] * (omega_world + omega_world_new)


def residual_jacobian(w, omega_world, A_world, L_world_new, h):
    """``∂G/∂w``: (n, 3, 3).

    ``z = R(w) x`` with ``x = A R(w)ᵀ L'``: ``∂(R(w) x)/∂w = −R(w) [x] Jr(w) = −[R(w) x] Jl(w)`` (because
    ``R [x] Rᵀ = [R x]`` and ``R Jr = Jl``), and ``∂(R(w)ᵀ L')/∂w = R(w)ᵀ [L'] Jl(w)``, so
    ``∂z/∂w = (A' [L'] − [A' L']) Jl(w)``.
    """
    R = exp_so3(w)
    A_new = R @ A_world @ np.swapaxes(R, -1, -2)
    J_z_w = (A_new @ hat(L_world_new) - hat(matvec(A_new, L_world_new))) @ left_jacobian_so3(w)
    return np.eye(3) - 0.5 * h[:, None, None] * J_z_w


def residual_curvature(w, omega_world, A_world, L_world_new, h):
    """``(5/4) |h| |A|₂ |L'|`` (n,): a bound on ``½ |G''|``, Newton's quadratic constant for this residual.

    ``G''`` is ``−(h/2)`` times the second derivative of ``R(w) A R(w)ᵀ L'``: two rotations, each with first
    derivative at most 1 and second at most ``3/2`` times what it rotates, give at most
    ``(3/2 + 2 + 3/2) |A|₂ |L'|`` (the product rule: both second derivatives, twice the two first ones), so
    ``½ |G''| ≤ ½ · ½ · 5 |h| |A|₂ |L'|``. :func:`sim.integrators.newton.newton_curvature` covers it.
    """
    return 1.25 * np.abs(h) * np.linalg.norm(A_world, 2, axis=(-2, -1)) * np.linalg.norm(L_world_new, axis=-1)


def _setup(state: BodyState, params: BodyParams, h: np.ndarray):
    O = quat_to_matrix(state.q)
    A_world = O @ params.inertia_body_inv @ np.swapaxes(O, -1, -2)
    L_world_new = state.L_world + h[:, None] * params.torque_world
    w0 = 0.5 * h[:, None] * (state.omega_world + matvec(A_world, L_world_new))
    return w0, (state.omega_world, A_world, L_world_new, h)


def _finish(state: BodyState, params: BodyParams, h: np.ndarray, w: np.ndarray) -> BodyState:
    """``O' = R(w) O`` (``q' = exp(w/2) ⊗ q``), ``L' = L + h τ``, ``ω' = O' I⁻¹ O'ᵀ L'``."""
    q_new = quat_normalize(quat_mul(quat_exp(w), state.q))
    L_new = state.L_world + h[:, None] * params.torque_world
    return BodyState(q_new, omega_world_from_momentum(q_new, L_new, params.inertia_body_inv), L_new)


METHOD = ImplicitMethod("trapezoidal", _setup, residual, residual_jacobian, _finish)


step = implicit_step(METHOD, "the world-frame trapezoidal rule")


# Symmetric, so even order; L' = L + h τ is carried exactly.
INTEGRATOR = Integrator(
    "trapezoidal",
    step,
    Claims(order=2, conserves_momentum=True, implicit=True, relative_cost=5.0, method="trapezoidal rule, world frame"),
    place=5,
    kernel="implicit_kernel",
    fallback="twin",
    colour="#56b4e9",
    compile_rank=7,
)
