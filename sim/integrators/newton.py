"""Newton's method for a batch of 3-vector equations ``F(v) = 0``, vectorised with masking (numpy reference).

Every body iterates ``v ← v − J(v)⁻¹ F(v)`` until ``|F(v)| ≤ tolerance · (1 + |v|)``; bodies that have converged
drop out of the batch, the others go on, up to ``max_iterations`` updates.

A body converges only to a step that turns by at most ``max_step_angle`` (default π, half a turn). For large
``h |ℓ|`` the equations also have roots far outside the ball where exponential coordinates are a chart
(``|v| < 2π``; seed 003 §2) — Newton finds them, and seed 003's convergence maps count them — but such a root
wraps the step's rotation around and is not the motion the method means. ``max_step_angle=inf`` accepts them.
A body over the limit, like one that did not converge or whose residual is not finite, is reported as not
converged, to be sub-stepped.

The Jacobian is either hand-written (``jacobian(v, *args)``) or computed by dual numbers from the residual
(:func:`sim.dual.jacobian`, seed 001), which then must run on :class:`sim.dual.Dual` arrays.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from sim import dual
from sim.integrators.checks import MAX_STEP_ANGLE

__all__ = ["newton_solve"]


def _with_direction_axis(a: np.ndarray) -> np.ndarray:
    """``(n, ...) -> (n, 1, ...)``: room for the direction axis that :func:`sim.dual.jacobian` adds."""
    return a[:, None]


def newton_solve(
    residual: Callable[..., np.ndarray],
    jacobian: Callable[..., np.ndarray] | None,
    v0: np.ndarray,
    args: tuple[np.ndarray, ...],
    *,
    tolerance: float,
    max_iterations: int,
    max_step_angle: float = MAX_STEP_ANGLE,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Solve ``residual(v, *args) = 0`` for each of n bodies from ``v0`` (n, 3).

    ``args``: per-body arrays with leading axis n (the residual broadcasts over them). ``jacobian``: the
    hand-written ``(n, 3, 3)`` Jacobian ``∂F/∂v``, or ``None`` for dual numbers. Returns ``(v, converged,
    iterations)``: (n, 3), (n,) bool, (n,) int64 Newton updates made.
    """
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
        done = size <= tolerance * (1.0 + np.sqrt(step_size_sq))  # False for a nan residual
        converged[active[done]] = step_size_sq[done] <= max_step_angle * max_step_angle
        going_on = np.isfinite(size) & ~done
        if iteration == max_iterations or not going_on.any():
            break
        active, F = active[going_on], F[going_on]
        v_active = v_active[going_on]
        active_args = tuple(a[going_on] for a in active_args)
        if jacobian is None:
            widened = tuple(map(_with_direction_axis, active_args))
            J, _ = dual.jacobian(lambda x, widened=widened: residual(x, *widened), v_active)
        else:
            J = jacobian(v_active, *active_args)
        v[active] = v_active - np.linalg.solve(J, F[..., None])[..., 0]
        iterations[active] += 1
    return v, converged, iterations
