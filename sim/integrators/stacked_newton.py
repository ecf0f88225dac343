"""Newton's loop, the sub-stepping and the splittings' stages of the implicit kernels, for every body at once.

sim/integrators/kernel_twins.py runs the code of :mod:`sim.integrators._kernels` over all the bodies of a batch
on stacked arrays (a vector (3, n), a matrix (3, 3, n), a quaternion (4, n): :mod:`sim.integrators.stacked`).
Straight-line code runs as the kernel wrote it; what branches per body is written here again, over masks and
index arrays: the kernel's ``_attempt`` (Newton's loop, a body leaving it when converged), ``_advance`` (a step in
pieces of ``h / 2^k``, a body halving its piece when Newton fails) and ``split_kernel``'s stages (a body stopping
at its first failing stage). Each body sees exactly the operations the kernel performs for it. Every function takes
``k``, the namespace of ``_kernels.py`` run on stacked arrays (``kernel_twins._stacked_kernels``).

Most steps keep every body in every iteration, piece and stage: then nothing is indexed (:func:`_unless_all`).
"""

from __future__ import annotations

import numpy as np

from spinlab.sim.integrators.checks import STATUS_NON_FINITE, STATUS_NOT_CONVERGED, STATUS_OK

__all__ = ["stack", "unstack", "attempt", "advance", "implicit", "split"]


def _pick(value, rows: np.ndarray | None):
    """``value`` (a stacked array, its bodies last, a number, or tuples of them) at ``rows`` (``None``: all of it,
    as it is)."""
    if rows is None:
        return value
    if isinstance(value, tuple):
        return tuple(_pick(part, rows) for part in value)
    if isinstance(value, np.ndarray):
        return value[..., rows]
    return value


def _unless_all(select: np.ndarray, n: int) -> np.ndarray | None:
    """``select`` (indices or a mask over ``n``), or ``None`` when it selects all ``n`` in order: :func:`_pick`
    then copies nothing (most steps keep every body in every Newton iteration and stage)."""
    if select.dtype == bool:
        return None if select.all() else select
    return None if select.size == n else select


def _put(target: np.ndarray, rows: np.ndarray, value: np.ndarray) -> None:
    """``target[..., rows] = value``: the bodies ``rows`` of a stacked array."""
    target[..., rows] = value


def stack(array: np.ndarray) -> np.ndarray:
    """An (n, k) or (n, k, k) array with its bodies last, (k, n) or (k, k, n): the stacked helpers' layout
    (sim/integrators/stacked.py), a fresh C-ordered array."""
    return np.ascontiguousarray(array.T if array.ndim == 2 else array.transpose(1, 2, 0))


def unstack(array: np.ndarray) -> np.ndarray:
    """A stacked (k, n) array as the kernel writes it, (n, k)."""
    return np.ascontiguousarray(array.T)


def attempt(k, method, q, omega, L, M, torque, h, tolerance, max_iterations, max_step_angle_sq):
    """The kernel's ``_attempt`` for every body at once: ``(converged, iterations, v)``, (n,), (n,), (3, n)."""
    add, scale, dot, sub, matvec = k["add"], k["scale"], k["dot"], k["sub"], k["matvec"]
    if method == k["MIDPOINT"]:
        a = k["to_body"](q, add(L, scale(0.5 * h, torque)))
        b = a
        v = scale(h, matvec(M, a))
    else:
        L_end = add(L, scale(h, torque))
        a = k["to_body"](q, omega) if method == k["WORLD_TRAPEZOIDAL"] else matvec(M, k["to_body"](q, L))
        b = k["to_body"](q, L_end)
        v = scale(0.5 * h, add(a, matvec(M, b)))
    curvature = k["newton_curvature"](M, L, torque, h)
    n = len(h)
    converged, iterations = np.zeros(n, dtype=bool), np.zeros(n, dtype=np.int64)
    live = np.arange(n)
    for iteration in range(max_iterations + 1):
        if live.size == 0:
            break
        every = _unless_all(live, n)
        vl, al, bl, Ml, hl = _pick(v, every), _pick(a, every), _pick(b, every), _pick(M, every), _pick(h, every)
        F, coefficients, rotated = k["_residual"](method, vl, al, bl, Ml, hl)
        size_sq = dot(F, F)
        v_sq = dot(vl, vl)
        finite = np.isfinite(size_sq)
        small = finite & (np.sqrt(size_sq) <= tolerance * np.sqrt(v_sq))
        if small.any():
            converged[live[small]] = v_sq[small] <= max_step_angle_sq
        if iteration == max_iterations:
            break
        going = finite & ~small
        kept = _unless_all(going, len(going))
        rows = live if kept is None else live[going]
        F, vl, al, bl, Ml, hl = (_pick(x, kept) for x in (F, vl, al, bl, Ml, hl))
        J = k["_jacobian"](method, vl, al, bl, Ml, hl, _pick(coefficients, kept), _pick(rotated, kept))
        update = k["solve"](J, F)
        vl = sub(vl, update)
        everyone = every is None and kept is None  # (rows is then every body, in order)
        if everyone:
            v = vl
            iterations += 1
        else:
            _put(v, rows, vl)
            iterations[rows] += 1
        # The kernel's bound on the next residual: converged without evaluating it (False for a nan).
        v_sq = dot(vl, vl)
        settled = (curvature if everyone else curvature[rows]) * dot(update, update) <= tolerance * np.sqrt(v_sq)
        converged[rows[settled]] = v_sq[settled] <= max_step_angle_sq
        live = rows[~settled]
    return converged, iterations, v


def advance(k, method, qn, q_low, omega, L, M, torque, h, tolerance, max_iterations, max_depth, max_step_angle_sq):
    """The kernel's ``_advance`` (a step of ``h`` s in pieces) for every body at once, over stacked arrays (q and its
    low part (4, n), ω and L (3, n), M (3, 3, n), torque (3, n)): ``(q, q_low, ω, L, iterations, substeps,
    status)``."""
    n = qn.shape[-1]
    qn, q_low, omega, L = (np.array(x, dtype=np.float64) for x in (qn, q_low, omega, L))
    pieces = 1 << max_depth
    position, size = np.zeros(n, dtype=np.int64), np.full(n, pieces, dtype=np.int64)
    iterations, substeps = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    status = np.full(n, STATUS_OK, dtype=np.int8)
    finite = k["is_finite_state"](qn, omega, L)
    status[~finite], position[~finite] = STATUS_NON_FINITE, pieces  # reported as such, not as a Newton failure
    while True:
        rows = np.flatnonzero(position < pieces)
        if rows.size == 0:
            break
        every = _unless_all(rows, n)
        h_piece = h * ((size if every is None else size[rows]) / pieces)
        q_rows, low_rows, omega_rows, L_rows, M_rows, torque_rows = (
            _pick(x, every) for x in (qn, q_low, omega, L, M, torque)
        )
        converged, piece_iterations, v = attempt(
            k, method, q_rows, omega_rows, L_rows, M_rows, torque_rows, h_piece, tolerance, max_iterations,
            max_step_angle_sq,
        )  # fmt: skip
        everyone = every is None and converged.all()  # (most steps: every body in one piece)
        if everyone:
            iterations += piece_iterations
        else:
            iterations[rows] += piece_iterations
            failed = rows[~converged]
            size[failed] >>= 1
            gave_up = failed[size[failed] == 0]
            status[gave_up], position[gave_up] = STATUS_NOT_CONVERGED, pieces
        if everyone or converged.any():
            done = rows if everyone else rows[converged]
            kept = None if everyone else _unless_all(converged, len(converged))
            q_done, low_done, L_done, v, torque_done, h_done = (
                _pick(x, kept) for x in (q_rows, low_rows, L_rows, v, torque_rows, h_piece)
            )
            q_new, low_new = k["compensated_step"](q_done, low_done, None, k["quat_exp_minus_one"](v))
            L_new = k["add"](L_done, k["scale"](h_done, torque_done))
            M_done = M if everyone else _pick(M, _unless_all(done, n))
            omega_new = k["to_world"](q_new, k["matvec"](M_done, k["to_body"](q_new, L_new)))
            if everyone:
                qn, q_low, L, omega = q_new, low_new, L_new, omega_new
                position += size
                substeps += 1
                size = position & -position
                continue
            _put(qn, done, q_new)
            _put(q_low, done, low_new)
            _put(L, done, L_new)
            _put(omega, done, omega_new)
            position[done] += size[done]
            substeps[done] += 1
            size[done] = position[done] & -position[done]
    status[(status == STATUS_OK) & ~k["is_finite_state"](qn, omega, L)] = STATUS_NON_FINITE
    return qn, q_low, omega, L, iterations, substeps, status


def implicit(k, method, q, q_low, omega_world, L_world, inertia_inv, torque_world, h, tolerance, max_iterations,
             max_depth, max_step_angle_sq):  # fmt: skip
    """``_kernels.implicit_kernel`` (``method``: its code) over the batch: ``(q, ω, L, iterations, substeps,
    status, q_low)``, as the kernel writes them; arguments (N, ...) arrays as the kernel's."""
    qn, low, omega, L, iterations, substeps, status = advance(
        k, method, stack(q), stack(q_low), stack(omega_world), stack(L_world), stack(inertia_inv),
        stack(torque_world), h, tolerance, max_iterations, max_depth, max_step_angle_sq,
    )  # fmt: skip
    return unstack(qn), unstack(omega), unstack(L), iterations, substeps, status, unstack(low)


def split(k, coefficients, kicks, q, q_low, omega_world, L_world, inertia_inv, torque_world, lever_body, force_world,
          h, tolerance, max_iterations, max_depth, max_step_angle_sq):  # fmt: skip
    """``_kernels.split_kernel`` with the gyroscopic term over the batch: ``(q, ω, L, iterations, substeps,
    status, q_low)``; arguments as the kernel's (less ``inertia`` and ``gyroscopic``)."""
    qn, low, omega, L = stack(q), stack(q_low), stack(omega_world), stack(L_world)
    M, torque, lever, force = (stack(x) for x in (inertia_inv, torque_world, lever_body, force_world))
    n = len(q)
    iterations, substeps = np.zeros(n, dtype=np.int64), np.ones(n, dtype=np.int64)
    status = np.where(k["is_finite_state"](qn, omega, L), STATUS_OK, STATUS_NON_FINITE).astype(np.int8)
    zero = np.zeros((3, n))  # the free flow's torque, (0.0, 0.0, 0.0) in the kernel
    stages = len(coefficients)
    for stage in range(stages + 1):
        rows = np.flatnonzero(status == STATUS_OK)  # a body stops at its first failing stage
        if rows.size == 0:
            break
        every = _unless_all(rows, n)
        q_rows, low_rows, omega_rows, L_rows, M_rows = (_pick(x, every) for x in (qn, low, omega, L, M))
        omega_rows, L_rows = k["_kick"](
            q_rows, omega_rows, L_rows, M_rows, _pick(torque, every), _pick(lever, every), _pick(force, every),
            kicks[stage] * h, True,
        )  # fmt: skip
        if stage < stages:
            q_rows, low_rows, omega_rows, L_rows, stage_iterations, stage_substeps, status[rows] = advance(
                k, k["MIDPOINT"], q_rows, low_rows, omega_rows, L_rows, M_rows, zero, coefficients[stage] * h,
                tolerance, max_iterations, max_depth, max_step_angle_sq,
            )  # fmt: skip
            iterations[rows] += stage_iterations
            substeps[rows] = np.maximum(substeps[rows], stage_substeps)
            _put(qn, rows, q_rows)
            _put(low, rows, low_rows)
        _put(omega, rows, omega_rows)
        _put(L, rows, L_rows)
    omega = k["to_world"](qn, k["matvec"](M, k["to_body"](qn, L)))
    status[(status == STATUS_OK) & ~k["is_finite_state"](qn, omega, L)] = STATUS_NON_FINITE
    return unstack(qn), unstack(omega), unstack(L), iterations, substeps, status, unstack(low)
