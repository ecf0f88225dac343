"""What seed 003's maps measure at each body momentum ``ℓ``: one step's energy change, and how many updates Newton's
method and the simple fixed-point iteration take on the midpoint equation; the Kantorovich regions.

The body is seed 003's T-handle, principal moments ``MOMENTS`` = (2.5, 1.4, 1.3) kg m², at the identity orientation
(so world and body frames agree and ``ω = I⁻¹ ℓ``), torque-free; every function takes body momenta ``ℓ`` (N, 3),
kg m²/s, and works on all N as one batch. ``h`` is in seconds.

The Kantorovich condition (seed 003 §10; the seed's inequality was an image and is lost, so it is derived again
here the way the seed describes, from ``v₀ = 0`` with simple bounds). With ``a = h |ℓ| / I_min`` (``I_min`` the
smallest principal moment, ``|I⁻¹| = 1/I_min``): ``|F(0)| ≤ a``; ``F'(0) = 1 − ½ h I⁻¹ [ℓ]`` so
``|F'(0)⁻¹| ≤ β = 1/(1 − a/2)``; ``F'(v) = 1 − ½ h I⁻¹ R(u) [ℓ] Jr(u)`` at ``u = −v/2``, and ``R`` and ``Jr`` are
Lipschitz with constants 1 and ½ (``|Jr| ≤ 1``), so ``F'`` is Lipschitz with ``K = ½ · ½ · (1 + ½) a = 3a/8``.
Kantorovich's ``β K η ≤ ½`` with ``η = β a`` reads ``(3/4) a² ≤ (1 − a/2)²``, that is

    h |ℓ| ≤ (√3 − 1) I_min                    (a disc of radius 0.95 kg m²/s at h = 1 for this body)

and every Newton iterate stays within ``2η ≤ 2.3`` rad of 0. The same theorem with ``β`` and ``η`` computed
exactly at each ``ℓ`` (``‖F'(0)⁻¹‖₂`` and ``|F'(0)⁻¹ F(0)|``) gives a larger, ``ℓ``-dependent region, drawn too.
"""

from __future__ import annotations

import math

import numpy as np

from spinlab.sim.integrators import INTEGRATORS
from spinlab.sim.integrators.checks import MAX_STEP_ANGLE
from spinlab.sim.integrators.implicit_midpoint import residual, residual_jacobian
from spinlab.sim.integrators.newton import NewtonOptions, newton_solve
from spinlab.sim.integrators.state import BodyParams, BodyState, energy

__all__ = [
    "momentum_grid", "energy_change", "kantorovich_pieces", "kantorovich_disc", "kantorovich_pointwise",
    "newton_iterations", "fixed_point_iterations", "MOMENTS", "H", "METHODS", "SETTINGS", "TOLERANCE",
    "MAX_ITERATIONS", "KANTOROVICH_CONSTANT",
]  # fmt: skip

MOMENTS = (2.5, 1.4, 1.3)  # kg m²
H = 1.0  # s
METHODS = ("implicit_midpoint", "trapezoidal", "object_trapezoidal")
SETTINGS = (("kantorovich", None), ("cap_1rad", 1.0), ("cap_pi", MAX_STEP_ANGLE))  # (name, max_step_angle)
TOLERANCE, MAX_ITERATIONS = 1e-10, 10  # the convergence maps' test; the seed's 10 updates
KANTOROVICH_CONSTANT = math.sqrt(3.0) - 1.0


def momentum_grid(extent: float, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Pixel centres ``(n,)`` from −extent to extent, and the body momenta ``(n·n, 3)`` over them, row-major with
    ``ℓ_y`` the row (so ``reshape(n, n)`` is an image with ``ℓ_x`` across)."""
    half_pixel = extent / n
    axis = np.linspace(-extent + half_pixel, extent - half_pixel, n)
    ell_y, ell_x = np.meshgrid(axis, axis, indexing="ij")
    return axis, np.stack([ell_x.ravel(), ell_y.ravel(), np.zeros(n * n)], axis=-1)


def _bodies(ell_body: np.ndarray) -> tuple[BodyState, BodyParams]:
    """Identity orientations, so the world momentum is ``ℓ`` and ``ω = I⁻¹ ℓ``."""
    n_bodies = len(ell_body)
    q = np.tile([1.0, 0.0, 0.0, 0.0], (n_bodies, 1))
    params = BodyParams.from_inertia(np.broadcast_to(np.diag(MOMENTS), (n_bodies, 3, 3)))
    return BodyState(q, ell_body / np.asarray(MOMENTS), ell_body), params


def kantorovich_disc(ell_body: np.ndarray, h: float = H, moments=MOMENTS) -> np.ndarray:
    """(N,) bool: the condition ``h |ℓ| ≤ (√3 − 1) I_min`` (module docstring) for body momenta ``(N, 3)``."""
    return h * np.linalg.norm(ell_body, axis=-1) <= KANTOROVICH_CONSTANT * min(moments)


def kantorovich_pieces(ell_body: np.ndarray, h: float = H, moments=MOMENTS) -> np.ndarray:
    """(N,) int: the fewest equal pieces of ``h`` that each satisfy :func:`kantorovich_disc`."""
    a = h * np.linalg.norm(ell_body, axis=-1) / (KANTOROVICH_CONSTANT * min(moments))
    return np.maximum(1, np.ceil(a - 1e-12)).astype(np.int64)


def kantorovich_pointwise(ell_body: np.ndarray, h: float = H, moments=MOMENTS) -> np.ndarray:
    """(N,) bool: Kantorovich's ``β K η ≤ ½`` with ``β = ‖F'(0)⁻¹‖₂``, ``η = |F'(0)⁻¹ F(0)|`` exact and
    ``K = (3/8) h |ℓ| / I_min`` (module docstring)."""
    inverse = np.diag(1.0 / np.asarray(moments))
    n_bodies = len(ell_body)
    h_vec = np.full(n_bodies, h)
    args = (ell_body, np.broadcast_to(inverse, (n_bodies, 3, 3)), h_vec)
    v0 = np.zeros((n_bodies, 3))
    J_inv = np.linalg.inv(residual_jacobian(v0, *args))
    beta = np.linalg.norm(J_inv, 2, axis=(-2, -1))
    eta = np.linalg.norm(np.einsum("nij,nj->ni", J_inv, residual(v0, *args)), axis=-1)
    lipschitz = 0.375 * h * np.linalg.norm(ell_body, axis=-1) / min(moments)
    return beta * lipschitz * eta <= 0.5


def energy_change(name: str, ell_body: np.ndarray, h: float = H, *, max_step_angle: float | None = MAX_STEP_ANGLE):
    """One step of ``h`` with integrator ``name`` from body momenta ``(N, 3)`` (one batch; with
    ``max_step_angle=None``, :func:`kantorovich_pieces` equal steps instead, one batch per piece count). Returns
    ``(|E'/E − 1|, Newton updates, sub-steps)``, each (N,)."""
    state, params = _bodies(ell_body)
    step = INTEGRATORS[name]
    if max_step_angle is not None:
        new_state, cost = step(state, params, h, newton=NewtonOptions(max_step_angle=max_step_angle))
        iterations, substeps = cost.newton_iterations, cost.substeps
    else:
        pieces = kantorovich_pieces(ell_body, h)
        q, omega_world, L_world = state.q.copy(), state.omega_world.copy(), state.L_world.copy()
        iterations, substeps = np.zeros(len(state), dtype=np.int64), np.zeros(len(state), dtype=np.int64)
        for count in np.unique(pieces):
            group = np.flatnonzero(pieces == count)
            piece_state, piece_params = state[group], params[group]
            for _ in range(count):
                piece_state, cost = step(piece_state, piece_params, h / count)
                iterations[group] += cost.newton_iterations
                substeps[group] += cost.substeps
            q[group], omega_world[group], L_world[group] = piece_state.q, piece_state.omega_world, piece_state.L_world
        new_state = BodyState(q, omega_world, L_world)
    return np.abs(energy(new_state) / energy(state) - 1.0), iterations, substeps


def _midpoint_args(ell_body: np.ndarray, h: float):
    n_bodies = len(ell_body)
    inverse = np.broadcast_to(np.diag(1.0 / np.asarray(MOMENTS)), (n_bodies, 3, 3))
    return (np.ascontiguousarray(ell_body, dtype=np.float64), inverse, np.full(n_bodies, h))


def newton_iterations(ell_body, h: float = H, *, tolerance: float = TOLERANCE, max_iterations: int = MAX_ITERATIONS):
    """Newton's method on the midpoint equation from ``v = 0`` (the project's solver, no turn limit, no
    sub-steps). Returns ``(v (N, 3), converged (N,), updates (N,))``."""
    args = _midpoint_args(ell_body, h)
    with np.errstate(all="ignore"):  # a diverging iterate is reported as not converged
        options = NewtonOptions(tolerance=tolerance, max_iterations=max_iterations, max_step_angle=math.inf)
        return newton_solve(residual, residual_jacobian, np.zeros((len(ell_body), 3)), args, options=options)


def fixed_point_iterations(
    ell_body, h: float = H, *, tolerance: float = TOLERANCE, max_iterations: int = MAX_ITERATIONS
):
    """The simple iteration ``v ← h I⁻¹ R(−v/2) ℓ`` (seed 003 §8) from ``v = 0``, that is ``v ← v − F(v)``, with
    Newton's stopping test. Returns ``(v (N, 3), converged (N,), updates (N,))``."""
    args = _midpoint_args(ell_body, h)
    v = np.zeros((len(ell_body), 3))
    converged = np.zeros(len(v), dtype=bool)
    iterations = np.zeros(len(v), dtype=np.int64)
    active = np.ones(len(v), dtype=bool)
    with np.errstate(all="ignore"):
        for iteration in range(max_iterations + 1):
            F = residual(v, *args)
            size = np.linalg.norm(F, axis=-1)
            done = active & (size <= tolerance * (1.0 + np.linalg.norm(v, axis=-1)))
            converged |= done
            active &= ~done & np.isfinite(size)
            if iteration == max_iterations or not active.any():
                break
            v[active] -= F[active]
            iterations[active] += 1
    return v, converged, iterations
