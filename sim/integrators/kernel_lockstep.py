"""The implicit kernel's step run plain over a whole batch at once: its bits, at a fraction of a body-step's cost.

sim/integrators/kernel_twins.py runs ``_kernels.implicit_kernel`` body by body on Python's floats (~35 µs a
body-step). Here the kernel's own helper functions (sim/jit.py's ``plain`` copy of sim/integrators/_kernels.py,
with numpy's ``sqrt``, ``sin``, ``cos`` and ``isfinite``) are called once for every body together, each float of
the kernel a column of N float64 values: a 3-vector is a tuple of three (N,) arrays, a 3×3 matrix a tuple of rows of
them. numpy's ``+ − * /`` and ``sqrt`` on float64 arrays are the correctly rounded operations the kernel performs on
one body's floats, in the same order, so every body gets the kernel's bits (tests/sim/test_kernel_lockstep.py holds
it against the compiled kernel).

Where the kernel branches on a body's numbers, the bodies go their own ways here:

- Newton's iterations: a body leaves the loop when the kernel's body would (converged, not finite, out of
  iterations), and the rest iterate on;
- the Rodrigues coefficients: the Taylor tier each body's angle falls in, Horner's rule over the bodies of one tier
  (``_kernels.taylor_coefficients``); an angle past the Taylor branch (rare: a Newton step of a radian) by the
  scalar function, body by body;
- what is not the usual case is left to the body-by-body twin, from the step's start: a body whose state is not
  finite, whose Newton solve fails on the whole step (then the kernel cuts the step into pieces), or whose
  orientation is off unit length (the kernel then normalises instead of compensating). :func:`implicit_rows` says
  which.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from types import ModuleType

import numpy as np

__all__ = ["implicit_rows", "LOCKSTEP_BODIES"]

LOCKSTEP_BODIES = 16
"""From this many bodies a twin's implicit step runs in lockstep: ~0.7 ms a step and ~1.3 µs a body-step, where
body by body a body-step costs ~40 µs."""

_KERNELS_SOURCE = Path(__file__).with_name("_kernels.py")


@cache
def _kernels() -> ModuleType:
    """The kernels' plain copy with numpy's math, its ``rodrigues_coefficients`` taking columns of angles."""
    from spinlab.sim.jit import plain

    module = plain(_KERNELS_SOURCE, numpy_math=True, variant="lockstep")
    on_floats, on_numpy = plain(_KERNELS_SOURCE), plain(_KERNELS_SOURCE, numpy_math=True)
    branch = module.TAYLOR_BRANCH_ANGLE_SQ
    tiers = [(bound, module._TERMS - terms) for bound, terms in zip(module._TIER_BOUNDS, module._TIER_TERMS,
                                                                     strict=True)]  # fmt: skip

    def scalar(angle_sq: np.float64) -> tuple[float, float, float]:
        """One angle's coefficients as the body-by-body twin computes them (numpy's scalars where Python's floats
        raise: an infinite angle)."""
        try:
            return on_floats.rodrigues_coefficients(float(angle_sq))
        except (ZeroDivisionError, ValueError, OverflowError):
            return on_numpy.rodrigues_coefficients(angle_sq)

    def rodrigues_coefficients(angle_sq: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The kernel's ``rodrigues_coefficients`` of every angle of the column ``angle_sq``."""
        coefficients = (np.empty_like(angle_sq), np.empty_like(angle_sq), np.empty_like(angle_sq))
        left = np.ones(angle_sq.shape, dtype=bool)  # not yet computed
        for bound, start in [*tiers, (branch, 0)]:  # the first tier an angle is below, as the kernel's loop finds it
            rows = np.flatnonzero(left & (angle_sq < bound))
            if rows.size:
                left[rows] = False
                for out, value in zip(coefficients, module.taylor_coefficients(angle_sq[rows], start), strict=True):
                    out[rows] = value
        for row in np.flatnonzero(left).tolist():  # past the Taylor branch (or NaN): the closed form, one by one
            for out, value in zip(coefficients, scalar(angle_sq[row]), strict=True):
                out[row] = value
        return coefficients

    vars(module).update(rodrigues_coefficients=rodrigues_coefficients)
    return module


def _columns(array: np.ndarray):
    """An (N, k) array as k columns, an (N, 3, 3) one as rows of columns: the kernel's tuples, a body a lane."""
    if array.ndim == 3:
        return tuple(tuple(np.ascontiguousarray(array[:, i, j]) for j in range(3)) for i in range(3))
    return tuple(np.ascontiguousarray(array[:, i]) for i in range(array.shape[1]))


def _taken(value, rows: np.ndarray):
    """``value`` (columns, tuples of them, or a scalar) at the lanes ``rows``."""
    if isinstance(value, tuple):
        return tuple(_taken(part, rows) for part in value)
    return value[rows] if isinstance(value, np.ndarray) else value


def _put(out: np.ndarray, rows: np.ndarray, columns) -> None:
    """Write ``columns`` (a tuple of columns over ``rows``) into ``out[rows]``."""
    for i, column in enumerate(columns):
        out[rows, i] = column


def implicit_rows(method: int, q, q_low, omega_world, L_world, inertia_inv, torque_world, h: float,
                  tolerance: float, max_iterations: int, max_depth: int, max_step_angle_sq: float,
                  outputs: tuple) -> np.ndarray:  # fmt: skip
    """``_kernels.implicit_kernel``'s step (``method`` its code) of every body, in lockstep, written into
    ``outputs`` (q, ω, L, iterations, sub-steps, status, q_low) for the bodies whose Newton solve converges on the
    whole step; returns the rows of the others (module docstring), whose outputs are left unwritten."""
    kernels = _kernels()
    count = len(q)
    q_out, omega_out, L_out, iterations_out, substeps_out, status_out, q_low_out = outputs
    with np.errstate(all="ignore"):  # the kernel's error model: an inf or a nan, never an exception
        finite = np.isfinite(q).all(axis=1) & np.isfinite(omega_world).all(axis=1) & np.isfinite(L_world).all(axis=1)
        lanes = np.flatnonzero(finite)
        qn, omega, L, M, torque = (_taken(_columns(a), lanes) for a in (q, omega_world, L_world, inertia_inv,
                                                                          torque_world))  # fmt: skip
        pieces = 1 << max_depth
        h_piece = h * (pieces / pieces)  # the kernel's first piece: the whole step
        a, b, v, curvature = kernels._attempt_start(method, qn, omega, L, M, torque, h_piece)
        converged, iterations, v = _newton(kernels, method, a, b, v, M, curvature, h_piece, tolerance,
                                           max_iterations, max_step_angle_sq)  # fmt: skip
        # The converged bodies' piece, as the kernel's _advance ends it.
        done = np.flatnonzero(converged)
        qn, L, M, torque, v = (_taken(value, done) for value in (qn, L, M, torque, v))
        low = _taken(_columns(q_low), lanes[done])
        delta, excess = kernels.compensated_increment(qn, low, kernels.NO_TURN, kernels.quat_exp_minus_one(v))
        usual = np.flatnonzero(np.abs(excess) <= 1e-8)
        qn, low, delta, excess, L, M, torque = (_taken(value, usual) for value in (qn, low, delta, excess, L, M,
                                                                                  torque))  # fmt: skip
        qn, low = kernels.compensated_sum(qn, low, delta, excess)
        L = kernels.add(L, kernels.scale(h_piece, torque))
        omega = kernels.to_world(qn, kernels.matvec(M, kernels.to_body(qn, L)))
    rows = lanes[done[usual]]
    _put(q_out, rows, qn)
    _put(q_low_out, rows, low)
    _put(omega_out, rows, omega)
    _put(L_out, rows, L)
    iterations_out[rows] = iterations[done[usual]]
    substeps_out[rows] = 1
    stepped_finite = np.isfinite(q_out[rows]).all(axis=1) & np.isfinite(omega_out[rows]).all(axis=1)
    stepped_finite &= np.isfinite(L_out[rows]).all(axis=1)
    status_out[rows] = np.where(stepped_finite, kernels.STATUS_OK, kernels.STATUS_NON_FINITE)
    left = np.ones(count, dtype=bool)
    left[rows] = False
    return np.flatnonzero(left)


def _newton(kernels: ModuleType, method: int, a, b, v, M, curvature, h: float, tolerance: float, max_iterations: int,
            max_step_angle_sq: float) -> tuple[np.ndarray, np.ndarray, tuple]:  # fmt: skip
    """``_kernels._attempt``'s Newton loop for every lane: ``(converged, iterations, v)``, each lane stopping where
    the kernel's body would."""
    count = len(curvature)
    converged, iterations = np.zeros(count, dtype=bool), np.zeros(count, dtype=np.int64)
    v_end = (np.empty(count), np.empty(count), np.empty(count))
    lanes = np.arange(count)

    def stop(which: np.ndarray, size_v: np.ndarray, v, ok: np.ndarray | None) -> np.ndarray:
        """Let the lanes ``which`` (a mask over the going ones) leave with ``v``; ``ok``: those of them converged
        (their |v|² within the bound). The mask of the lanes going on."""
        if ok is not None:
            converged[lanes[ok]] = size_v[ok] <= max_step_angle_sq
        _put_lanes(v_end, lanes[which], _taken(v, which))
        return ~which

    for iteration in range(max_iterations + 1):
        F, coefficients, rotated = kernels._residual(method, v, a, b, M, h)
        size_sq, size_v = kernels.dot(F, F), kernels.dot(v, v)
        finite = np.isfinite(size_sq)
        small = finite & (np.sqrt(size_sq) <= tolerance * np.sqrt(size_v))
        going = stop(~finite | small | (iteration == max_iterations), size_v, v, small)
        if not going.any():
            break
        lanes, a, b, v, M, curvature, F, coefficients, rotated = (
            _taken(value, np.flatnonzero(going)) for value in (lanes, a, b, v, M, curvature, F, coefficients, rotated)
        )
        update = kernels.solve(kernels._jacobian(method, v, a, b, M, h, coefficients, rotated), F)
        v = kernels.sub(v, update)
        iterations[lanes] += 1
        size_v = kernels.dot(v, v)
        near = curvature * kernels.dot(update, update) <= tolerance * np.sqrt(size_v)
        going = stop(near, size_v, v, near)
        if not going.any():
            break
        rows = np.flatnonzero(going)
        lanes, a, b, v, M, curvature = (_taken(value, rows) for value in (lanes, a, b, v, M, curvature))
    return converged, iterations, v_end


def _put_lanes(columns: tuple, rows: np.ndarray, values: tuple) -> None:
    for column, value in zip(columns, values, strict=True):
        column[rows] = value
