"""How a step reports failure, and the validation of step options shared by the integrators.

A step never returns a non-converged or non-finite state: each body gets a status code, and any non-zero code
becomes one :class:`sim.errors.NumericalError` naming the bodies and the reason. Options are checked here with
``ValueError`` (they come from code, not from a user; the command line validates its own arguments).
"""

from __future__ import annotations

import numpy as np

from spinlab.sim.errors import NumericalError, first_few

__all__ = [
    "STATUS_OK",
    "STATUS_NOT_CONVERGED",
    "STATUS_NON_FINITE",
    "STATUS_TOO_MANY_PIECES",
    "MAX_STEP_ANGLE",
    "BACKENDS",
    "check_backend",
    "check_jacobian",
    "non_finite_status",
    "raise_on_failure",
]

STATUS_OK, STATUS_NOT_CONVERGED, STATUS_NON_FINITE, STATUS_TOO_MANY_PIECES = 0, 1, 2, 3
BACKENDS = ("numba", "numpy")
JACOBIANS = ("analytic", "dual")
MAX_STEP_ANGLE = np.pi
"""Default largest rotation (rad) a converged implicit step may make; a larger one is sub-stepped (newton.py)."""
MAX_SUBSTEP_DEPTH = 40
"""The most halvings :class:`sim.integrators.newton.NewtonOptions` allows: pieces of h / 2^40 are far below any
useful step."""
_SHOWN_INDICES = 20


def check_backend(backend: str) -> None:
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")


def check_jacobian(backend: str, jacobian: str) -> None:
    """Validate the backend and the Jacobian of an implicit integrator (Newton's options validate themselves:
    :class:`sim.integrators.newton.NewtonOptions`)."""
    check_backend(backend)
    if jacobian not in JACOBIANS:
        raise ValueError(f"jacobian must be one of {JACOBIANS}, got {jacobian!r}")
    if jacobian == "dual" and backend != "numpy":
        raise ValueError("jacobian='dual' (dual numbers) runs only with backend='numpy'")


def non_finite_status(q: np.ndarray, omega_world: np.ndarray, L_world: np.ndarray) -> np.ndarray:
    """(N,) int8: ``STATUS_NON_FINITE`` where a body's new state has a nan or inf, else ``STATUS_OK``."""
    finite = np.isfinite(q).all(axis=-1) & np.isfinite(omega_world).all(axis=-1) & np.isfinite(L_world).all(axis=-1)
    return np.where(finite, STATUS_OK, STATUS_NON_FINITE).astype(np.int8)


def _describe(indices: np.ndarray) -> str:
    listed = first_few([str(i) for i in indices[:_SHOWN_INDICES].tolist()], indices.size)
    return f"bod{'y' if indices.size == 1 else 'ies'} {listed}"


def raise_on_failure(
    name: str,
    status: np.ndarray,
    h: float,
    max_substep_depth: int = 0,
    max_step_angle: float = MAX_STEP_ANGLE,
    max_pieces: int = 0,
) -> None:
    """Raise :class:`NumericalError` if any body's status is not ``STATUS_OK``; ``name`` is the integrator, the
    options those of Newton's method and the sub-stepping it ran with (:class:`~sim.integrators.newton.NewtonOptions`),
    which the message quotes."""
    if not np.count_nonzero(status):  # a tenth of status.any()'s cost on a small batch
        return
    reasons = []
    not_converged = np.flatnonzero(status == STATUS_NOT_CONVERGED)
    if not_converged.size:
        pieces = f"even in pieces of h/2^{max_substep_depth}" if max_substep_depth else "and sub-stepping is off"
        reasons.append(
            f"{_describe(not_converged)}: Newton's method did not converge to a step that turns by at most "
            f"{max_step_angle:.6g} rad ({pieces})"
        )
    too_many = np.flatnonzero(status == STATUS_TOO_MANY_PIECES)
    if too_many.size:
        reasons.append(
            f"{_describe(too_many)}: the step was given up after {max_pieces} pieces, Newton's method converging "
            "only on short ones (a step too long for this spin: a shorter one takes fewer pieces)"
        )
    non_finite = np.flatnonzero(status == STATUS_NON_FINITE)
    if non_finite.size:
        reasons.append(f"{_describe(non_finite)}: the state is not finite")
    failed = np.flatnonzero(status)  # the batch's bodies that failed: the world names these, not its whole group
    raise NumericalError(f"{name} step of h = {h!r} s failed for " + "; ".join(reasons), bodies=failed)
