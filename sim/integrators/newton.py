"""Newton's method for a batch of 3-vector equations ``F(v) = 0``, vectorised with masking (numpy reference).

Every body iterates ``v ← v − J(v)⁻¹ F(v)`` until ``|F(v)| ≤ tolerance · |v|``; bodies that have converged
drop out of the batch, the others go on, up to ``max_iterations`` updates. Given a bound ``curvature`` on the
residual's second derivative (:func:`newton_curvature`), a body also converges right after an update ``Δv`` with
``curvature · |Δv|² ≤ tolerance · |v − Δv|``, without evaluating the residual there: Taylor's theorem gives
``F(v − Δv) = F(v) − J Δv + r = r`` with ``|r| ≤ ½ sup|F''| |Δv|² ≤ curvature · |Δv|²``. Newton converges
quadratically, so the last update is tiny and this saves one residual per solve.

The rule is relative to the step's own rotation ``|v|`` (rad): the error Newton leaves in a step is then a fixed
fraction of the step, and over a run at most ``tolerance · ∫|ω| dt`` rad whatever ``h``. An absolute rule,
``tolerance · (1 + |v|)``, left up to ~1e-14 rad in every step: at small ``h`` that piled up over the many steps
past the method's own error (im6 on the T-handle over 10 s: 1.1e-11 rad at h = 1/256 where the method's error is
1e-13, rising as ``h`` shrank). With ``|F|``'s rounding ~3 ε |v|, the default ``tolerance`` of 4e-15 is met
within one more update than the absolute rule needed at the window's h (im6: 18 updates a step at h = 1/60,
16.3 before; the second-order methods unchanged at 2).

A body converges only to a step that turns by at most ``max_step_angle`` (default π, half a turn). For large
``h |ℓ|`` the equations also have roots far outside the ball where exponential coordinates are a chart
(``|v| < 2π``; seed 003 §2) — Newton finds them, and seed 003's convergence maps count them — but such a root
wraps the step's rotation around and is not the motion the method means. ``max_step_angle=inf`` accepts them.
A body over the limit, like one that did not converge or whose residual is not finite, is reported as not
converged, to be sub-stepped.

Every option of Newton's method and of the sub-stepping around it is held in one :class:`NewtonOptions`, the
``newton=`` keyword of every implicit integrator, with the defaults stated there.

The Jacobian is either hand-written (``jacobian(v, *args)``) or computed by dual numbers from the residual
(:func:`sim.dual.jacobian`, seed 001), which then must run on :class:`sim.dual.Dual` arrays.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

import numpy as np

from spinlab.sim import dual
from spinlab.sim.integrators.checks import MAX_STEP_ANGLE, MAX_SUBSTEP_DEPTH

__all__ = ["NewtonOptions", "NEWTON_DEFAULTS", "newton_solve", "newton_curvature"]


@dataclass(frozen=True)
class NewtonOptions:
    """Newton's method per step, and the sub-stepping of a step it cannot take (:mod:`sim.integrators.implicit`).

    - ``tolerance`` (dimensionless, > 0): a body has converged when ``|F(v)| ≤ tolerance · |v|``, the residual
      ``F`` and the rotation vector ``v`` in rad (relative to the step: module docstring).
    - ``max_iterations`` (≥ 1): Newton updates per solve before it counts as failed.
    - ``max_step_angle`` (rad, > 0): the largest rotation a converged step may make; a root beyond it counts as
      failed (``inf``: no limit; module docstring).
    - ``max_substep_depth`` (0 … ``MAX_SUBSTEP_DEPTH``): how many times a failed body's step may be halved, only
      for that body and with the torque held (0: never); then the step raises
      :class:`sim.errors.NumericalError` naming it.
    - ``max_pieces`` (≥ 1): the pieces a body's step (each stage of a composition) may try, converged or not; a
      step not done then is hopeless, and raises :class:`sim.errors.NumericalError` naming it. It bounds a step's
      work at ``max_pieces (max_iterations + 1)`` residuals, where the depth alone let a step turning thousands of
      radians take 2^16 pieces and minutes. The default is far above what a step of any preset needs (a few
      dozen pieces at most): a step that reaches it turns so far that a shorter step would be cheaper.

    Invalid values raise ``ValueError`` when the options are made.
    """

    tolerance: float = 4e-15
    max_iterations: int = 12
    max_step_angle: float = MAX_STEP_ANGLE
    max_substep_depth: int = 16
    max_pieces: int = 1024
    # The compiled kernels' arguments, set by __post_init__ (sim.integrators.implicit.kernel_newton_arguments).
    _kernel_arguments: tuple[float, int, int, float, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.tolerance > 0.0:
            raise ValueError(f"tolerance must be positive, got {self.tolerance!r}")
        if int(self.max_iterations) != self.max_iterations or self.max_iterations < 1:
            raise ValueError(f"max_iterations must be a positive integer, got {self.max_iterations!r}")
        if not self.max_step_angle > 0.0:
            angle = self.max_step_angle
            raise ValueError(f"max_step_angle must be positive (radians; inf for no limit), got {angle!r}")
        depth = self.max_substep_depth
        if int(depth) != depth or not 0 <= depth <= MAX_SUBSTEP_DEPTH:
            raise ValueError(f"max_substep_depth must be an integer in 0..{MAX_SUBSTEP_DEPTH}, got {depth!r}")
        if int(self.max_pieces) != self.max_pieces or self.max_pieces < 1:
            raise ValueError(f"max_pieces must be a positive integer, got {self.max_pieces!r}")
        # The compiled kernels' arguments, made once (sim.integrators.implicit.kernel_newton_arguments).
        kernel_arguments = (
            float(self.tolerance),
            int(self.max_iterations),
            int(depth),
            float(self.max_step_angle) ** 2,
            int(self.max_pieces),
        )
        object.__setattr__(self, "_kernel_arguments", kernel_arguments)


NEWTON_DEFAULTS = NewtonOptions()
"""The options every implicit integrator runs with unless it is given ``newton=``."""


def _widened_residual(
    residual: Callable[..., dual.ArrayOrDual], widened: tuple[np.ndarray, ...], x: dual.ArrayOrDual
) -> dual.ArrayOrDual:
    """``residual(x, *widened)``: the residual at ``x`` with the arguments widened for the direction axis."""
    return residual(x, *widened)


def _with_direction_axis(a: np.ndarray) -> np.ndarray:
    """``(n, ...) -> (n, 1, ...)``: room for the direction axis that :func:`sim.dual.jacobian` adds."""
    return a[:, None]


def newton_curvature(
    inertia_body_inv: np.ndarray, L_world: np.ndarray, torque_world: np.ndarray, h: np.ndarray
) -> np.ndarray:
    """``2 |h| |I⁻¹|_F (|L| + |h| |τ|)`` (n,): one bound on ``½ |F''|`` that covers every implicit method's own.

    Each implicit module states and derives the bound of its own residual, ``residual_curvature``:
    ``(3/16) |h| |I⁻¹|₂ |ℓ|`` (:mod:`~sim.integrators.implicit_midpoint`), ``(3/8) |h| |I⁻¹|₂ |ℓ₁|``
    (:mod:`~sim.integrators.object_trapezoidal`), ``(5/4) |h| |I⁻¹|₂ |L'|`` (:mod:`~sim.integrators.trapezoidal`),
    with momenta of length at most ``|L| + |h| |τ|`` (rotations keep lengths); the Frobenius norm bounds the
    spectral one, so this covers all three, and the compiled kernel evaluates this one formula for any method. The
    tests check each method's bound against its measured second derivative and against this one.
    ``inertia_body_inv`` (n, 3, 3) kg⁻¹ m⁻², ``L_world``, ``torque_world`` (n, 3), ``h`` (n,) s.
    """
    size_inverse = np.sqrt(np.sum(inertia_body_inv * inertia_body_inv, axis=(-2, -1)))
    h_abs = np.abs(h)
    size_momentum = np.linalg.norm(L_world, axis=-1) + h_abs * np.linalg.norm(torque_world, axis=-1)
    return 2.0 * h_abs * size_inverse * size_momentum


def newton_solve(
    residual: Callable[..., np.ndarray],
    jacobian: Callable[..., np.ndarray] | None,
    v0: np.ndarray,
    args: tuple[np.ndarray, ...],
    *,
    options: NewtonOptions = NEWTON_DEFAULTS,
    curvature: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Solve ``residual(v, *args) = 0`` for each of n bodies from ``v0`` (n, 3).

    ``args``: per-body arrays with leading axis n (the residual broadcasts over them). ``jacobian``: the
    hand-written ``(n, 3, 3)`` Jacobian ``∂F/∂v``, or ``None`` for dual numbers. ``options``: the tolerance, the
    iteration limit and the step-angle limit (``max_substep_depth`` and ``max_pieces`` are the caller's).
    ``curvature``: (n,) bound on ``½ |F''|`` for the convergence test after an update (module docstring), or
    ``None`` for none. Returns
    ``(v, converged, iterations)``: (n, 3), (n,) bool, (n,) int64 Newton updates made.
    """
    tolerance, max_iterations, max_step_angle = options.tolerance, options.max_iterations, options.max_step_angle
    v = np.array(v0, dtype=np.float64)
    converged = np.zeros(len(v), dtype=bool)
    iterations = np.zeros(len(v), dtype=np.int64)
    active = np.arange(len(v))
    for iteration in range(max_iterations + 1):
        active_args = tuple(a[active] for a in args)
        v_active = v[active]
        F = residual(v_active, *active_args)
        size = np.sqrt(np.sum(F * F, axis=-1))
        step_size_sq = np.sum(v_active * v_active, axis=-1)
        done = size <= tolerance * np.sqrt(step_size_sq)  # False for a nan residual
        converged[active[done]] = step_size_sq[done] <= max_step_angle * max_step_angle
        going_on = np.isfinite(size) & ~done
        if iteration == max_iterations or not going_on.any():
            break
        active, F = active[going_on], F[going_on]
        v_active = v_active[going_on]
        active_args = tuple(a[going_on] for a in active_args)
        if jacobian is None:
            widened = tuple(map(_with_direction_axis, active_args))
            J, _ = dual.jacobian(partial(_widened_residual, residual, widened), v_active)
        else:
            J = jacobian(v_active, *active_args)
        update = np.linalg.solve(J, F[..., None])[..., 0]
        v_active = v_active - update
        v[active] = v_active
        iterations[active] += 1
        if curvature is not None:
            step_size_sq = np.sum(v_active * v_active, axis=-1)
            # False for a nan: such a body goes on and its residual is found not finite.
            done = curvature[active] * np.sum(update * update, axis=-1) <= tolerance * np.sqrt(step_size_sq)
            converged[active[done]] = step_size_sq[done] <= max_step_angle * max_step_angle
            active = active[~done]
            if active.size == 0:
                break
    return v, converged, iterations
