"""Carlson's symmetric elliptic integrals ``R_F``, ``R_J``, ``R_C`` and the complete ``K(m)`` from ``m₁ = 1 − m``,
vectorised over numpy arrays, for the closed forms (sim/jacobi_elliptic.py, sim/exact_batch.py,
sim/_lagrange_top_angles.py) without scipy.special, whose import alone would be most of a short ``run``.

Method: the duplication theorem (DLMF 19.26.18, 19.36.1; B. C. Carlson, "Numerical computation of real or complex
elliptic integrals", Numer. Algorithms 10 (1995) 13–26, for the algorithm, its stopping rule and the series).
Each step maps ``(x, y, z)`` to ``((x + λ)/4, …)`` with ``λ = √x√y + √x√z + √y√z``, which leaves ``R_F`` unchanged
and draws the arguments together by a factor 4 a step; once ``4^-m Q < |A_m|`` (``Q`` the initial spread over
``(3r)^{1/6}``, ``r`` the tolerance) Carlson's truncated Taylor series about the mean ``A_m`` is within ``r``.

Precision: the duplication's own roundings (three square roots and a few products a step, some ten steps) leave a
float64 result off by up to a few ulps (scipy.special's: up to 3.4, 6.7, 3.2 ulps for R_F, R_J, R_C on the closed
forms' arguments). So the steps and the series run in numpy's ``longdouble``: on x86-64 the 80-bit extended format
(64-bit significand), whose error before the one rounding to float64 is ~1e-3 ulp, so the result is within ½ ulp of
mpmath's (measured on the closed forms' arguments and on a broad sample with every corner below:
tests/sim/test_carlson.py). Where ``longdouble`` is float64 itself (some platforms) the closed forms take
scipy.special's integrals instead (:data:`EXTENDED`, at the end). The wide range (to ~1e±4932) also keeps every float64
argument, subnormals included, and the product ``(p − x)(p − y)(p − z)`` of R_J, normal.

Cost: slower than scipy's compiled integrals, by some tens of times for one value and over ten in a batch, which a
closed form pays a few times a step: a closed form of one body evaluates one value at a time (the numpy-scalar path
below); the exact integrator's batch (sim/torque_free_rows.py) takes the array path, whose values are the scalar
path's bit for bit.

Domain: non-negative ``x, y, z`` with at most one of them zero, ``p > 0``; ``R_C(x, y)`` for ``x ≥ 0, y > 0``.
Where two arguments are zero the integral is infinite and ``inf`` is returned (``K(1) = R_F(0, 0, 1)``).
"""

from __future__ import annotations

import functools

import numpy as np
import numpy.typing as npt

from spinlab.sim.cores import on_cores

__all__ = ["carlson_rf", "carlson_rj", "carlson_rc", "complete_k_from_complement"]

_WIDE = np.longdouble
# The tolerance r of Carlson's stopping rule: the series' truncation error is below r relative.
_TOLERANCE = float(np.finfo(_WIDE).eps) / 4.0
# Beyond this many duplications every finite argument set of float64 has converged (the spread falls by 4 a step,
# from at most 2^2100 relative in the wide format): the bound only stops an infinite or NaN argument's loop.
_MOST_STEPS = 1200
# Carlson's (1995) factors: Q = (3r)^{-1/6}, (3r)^{-1/8}, (r/4)^{-1/6} times the arguments' spread from their mean.
_RF_SPREAD = _WIDE(3 * _TOLERANCE) ** (-1 / _WIDE(6))
_RC_SPREAD = _WIDE(3 * _TOLERANCE) ** (-1 / _WIDE(8))
_RJ_SPREAD = _WIDE(_TOLERANCE / 4) ** (-1 / _WIDE(6))


# Arguments of more elements than this are taken in pieces of about this many: the duplication's dozen longdouble
# arrays of a piece then stay in the CPU's cache (10^5 elements: ~1.6 times faster; each element's arithmetic is
# its own, so the values are the same bits).
_PIECE = 8192
# The pieces are taken on every core (sim/cores.py): numpy lets go of the GIL inside each operation on a piece, which
# is nearly all of the time, so R_J of 10^5 arguments took 0.13-0.16 s on 2 cores against 0.23-0.31 s on one.


def _in_pieces(integral):
    """``integral`` (of array arguments, elementwise) taken over pieces of about :data:`_PIECE` elements of its
    broadcast arguments when they have more, on every core (sim/cores.py's :func:`on_cores`)."""

    @functools.wraps(integral)
    def in_pieces(*arguments: npt.ArrayLike) -> np.ndarray:
        arrays = np.broadcast_arrays(*(np.asarray(a, dtype=float) for a in arguments))
        size = arrays[0].size
        if size <= _PIECE:
            return integral(*arguments)
        pieces = -(-size // _PIECE)  # as many pieces, of sizes that differ by at most one: none of one element
        flat = [np.array_split(a.ravel(), pieces) for a in arrays]
        values = on_cores(integral, list(zip(*flat, strict=True)))
        return np.concatenate(values).reshape(arrays[0].shape)

    return in_pieces


def _wide(*arguments: npt.ArrayLike) -> tuple[tuple[int, ...], list[np.ndarray]]:
    """The arguments broadcast, flattened and widened, and their shape."""
    arrays = np.broadcast_arrays(*(np.asarray(a, dtype=float) for a in arguments))
    return arrays[0].shape, [a.astype(_WIDE).ravel() for a in arrays]


def _converge(state: tuple[np.ndarray, ...], spread: np.ndarray, step, finish) -> np.ndarray:
    """Duplicate until Carlson's rule ``4^-m Q < |A_m|`` holds, row by row: ``state[0]`` is the mean ``A_m``,
    ``step(state, 4^-m)`` the next state, ``finish(rows, state, 4^-m)`` the integral of the rows that have
    converged. A row leaves the loop when it converges (a batch's slowest row does not hold up the others'
    arithmetic) and is finished with the others at the end, each at its own ``4^-m`` (an array then: ``finish``
    takes it element by element)."""
    if len(spread) == 0:
        return np.empty(0, dtype=_WIDE)
    if len(spread) == 1:
        return np.array([_converge_one(tuple(column[0] for column in state), spread[0], step, finish)])
    rows, scale = np.arange(len(spread)), _WIDE(1.0)
    finished: list[tuple[np.ndarray, tuple[np.ndarray, ...], np.ndarray]] = []
    for steps in range(_MOST_STEPS + 1):
        # not(≥) rather than <: a NaN argument finishes at once (and gives NaN).
        done = ~(spread * scale >= abs(state[0])) | (steps == _MOST_STEPS)
        if done.any():
            scales = np.full(np.count_nonzero(done), scale, dtype=_WIDE)
            finished.append((rows[done], tuple(column[done] for column in state), scales))
            going = ~done
            rows, spread, state = rows[going], spread[going], tuple(column[going] for column in state)
            if not rows.size:
                break
        state = step(state, scale)
        scale = scale / 4
    done_rows, done_states, scales = zip(*finished, strict=True)
    rows = np.concatenate(done_rows)
    out = np.empty(len(rows), dtype=_WIDE)
    out[rows] = finish(rows, tuple(np.concatenate(column) for column in zip(*done_states, strict=True)),
                       np.concatenate(scales))  # fmt: skip
    return out


def _converge_one(state: tuple[np.longdouble, ...], spread: np.longdouble, step, finish) -> np.longdouble:
    """:func:`_converge` for one row, in numpy scalars: the same operations, several times cheaper than on arrays
    of one element (one body's closed form evaluates one time at once)."""
    scale = _WIDE(1.0)
    for steps in range(_MOST_STEPS + 1):
        if not spread * scale >= abs(state[0]) or steps == _MOST_STEPS:
            break
        state = step(state, scale)
        scale = scale / 4
    return finish(0, state, scale)


def _lambda(root_x: np.ndarray, root_y: np.ndarray, root_z: np.ndarray) -> np.ndarray:
    return root_x * (root_y + root_z) + root_y * root_z


def _two_zero(x: np.ndarray, y: np.ndarray, z: np.ndarray) -> np.ndarray:
    """Where two of the arguments are zero: R_F and R_J diverge there."""
    zero_x, zero_y, zero_z = x == 0, y == 0, z == 0
    return (zero_x & zero_y) | (zero_x & zero_z) | (zero_y & zero_z)


@_in_pieces
def carlson_rf(x: npt.ArrayLike, y: npt.ArrayLike, z: npt.ArrayLike) -> np.ndarray:
    """``R_F(x, y, z) = ½ ∫₀^∞ dt / √((t + x)(t + y)(t + z))`` (DLMF 19.16.1), float64 of the arguments' broadcast
    shape; ``x, y, z ≥ 0``, at most one zero (``inf`` where two are)."""
    shape, (x0, y0, z0) = _wide(x, y, z)
    two = _two_zero(x0, y0, z0)
    x0, y0, z0 = (np.where(two, _WIDE(1), v) for v in (x0, y0, z0))  # inf below, without a loop that never ends
    mean0 = (x0 + y0 + z0) / 3
    spread = np.maximum(np.maximum(abs(mean0 - x0), abs(mean0 - y0)), abs(mean0 - z0)) * _RF_SPREAD

    def step(state, scale):
        mean, x, y, z = state
        lam = _lambda(np.sqrt(x), np.sqrt(y), np.sqrt(z))
        return (mean + lam) / 4, (x + lam) / 4, (y + lam) / 4, (z + lam) / 4

    def finish(rows, state, scale):
        # Carlson (1995) eq. (2.2)–(2.3): X, Y, Z the deviations from the mean, X + Y + Z = 0. Each step divides
        # A_m − x_m by 4 exactly, so they are taken from the first arguments (no cancellation).
        mean = state[0]
        dev_x, dev_y = (mean0[rows] - x0[rows]) * scale / mean, (mean0[rows] - y0[rows]) * scale / mean
        dev_z = -(dev_x + dev_y)
        e2, e3 = dev_x * dev_y - dev_z * dev_z, dev_x * dev_y * dev_z
        series = e2 * (-1 / _WIDE(10) + e2 / _WIDE(24) - 3 * e3 / _WIDE(44)) + e3 / _WIDE(14)
        return (1 + series) / np.sqrt(mean)

    value = _converge((mean0, x0, y0, z0), spread, step, finish)
    return np.where(two, np.inf, value.astype(float)).reshape(shape)


@_in_pieces
def carlson_rc(x: npt.ArrayLike, y: npt.ArrayLike) -> np.ndarray:
    """``R_C(x, y) = R_F(x, y, y) = ½ ∫₀^∞ dt / ((t + y) √(t + x))`` (DLMF 19.2.17), ``x ≥ 0, y > 0``, float64 of the
    arguments' broadcast shape (``inf`` at ``y = 0``)."""
    shape, (x0, y0) = _wide(x, y)
    infinite = y0 == 0
    y0 = np.where(infinite, _WIDE(1), y0)
    mean0 = (x0 + 2 * y0) / 3
    spread = abs(mean0 - x0) * _RC_SPREAD

    def step(state, scale):
        mean, x, y = state
        lam = 2 * np.sqrt(x) * np.sqrt(y) + y
        return (mean + lam) / 4, (x + lam) / 4, (y + lam) / 4

    def finish(rows, state, scale):
        # Carlson (1995) eq. (2.13): s = (y − A₀) / (4^m A_m).
        mean = state[0]
        s = (y0[rows] - mean0[rows]) * scale / mean
        series = s * s * (3 / _WIDE(10) + s * (1 / _WIDE(7) + s * (3 / _WIDE(8) + s * (9 / _WIDE(22) + s * (
            159 / _WIDE(208) + s * (9 / _WIDE(8)))))))  # fmt: skip
        return (1 + series) / np.sqrt(mean)

    value = _converge((mean0, x0, y0), spread, step, finish)
    return np.where(infinite, np.inf, value.astype(float)).reshape(shape)


@_in_pieces
def carlson_rj(x: npt.ArrayLike, y: npt.ArrayLike, z: npt.ArrayLike, p: npt.ArrayLike) -> np.ndarray:
    """``R_J(x, y, z, p) = (3/2) ∫₀^∞ dt / ((t + p) √((t + x)(t + y)(t + z)))`` (DLMF 19.16.2), ``x, y, z ≥ 0`` with
    at most one zero, ``p > 0``; float64 of the arguments' broadcast shape (``inf`` where two of x, y, z are zero).
    """
    shape, (x0, y0, z0, p0) = _wide(x, y, z, p)
    two = _two_zero(x0, y0, z0)
    x0, y0, z0 = (np.where(two, _WIDE(1), v) for v in (x0, y0, z0))
    mean0 = (x0 + y0 + z0 + 2 * p0) / 5
    deviation = np.maximum(np.maximum(abs(mean0 - x0), abs(mean0 - y0)), np.maximum(abs(mean0 - z0), abs(mean0 - p0)))
    delta = (p0 - x0) * (p0 - y0) * (p0 - z0)

    def step(state, scale):
        mean, x, y, z, p, delta, total = state
        root_x, root_y, root_z, root_p = np.sqrt(x), np.sqrt(y), np.sqrt(z), np.sqrt(p)
        lam = _lambda(root_x, root_y, root_z)
        # Carlson (1995) eq. (2.28)–(2.30): d_m, and e_m = 4^{-3m} δ / d_m², whose 4^-m R_C(1, 1 + e_m) / d_m add up.
        d = (root_p + root_x) * (root_p + root_y) * (root_p + root_z)
        e = delta * scale**3 / (d * d)
        total = total + scale * _rc_one_plus(e, _one_plus_e(e, root_p, root_x, root_y, root_z)) / d
        return (mean + lam) / 4, (x + lam) / 4, (y + lam) / 4, (z + lam) / 4, (p + lam) / 4, delta, total

    def finish(rows, state, scale):
        # Carlson (1995) eq. (2.19)–(2.20): X, Y, Z, P the deviations from the mean, X + Y + Z + 2P = 0.
        mean, total = state[0], state[-1]
        dev_x, dev_y, dev_z = ((mean0[rows] - v[rows]) * scale / mean for v in (x0, y0, z0))
        dev_p = -(dev_x + dev_y + dev_z) / 2
        xyz, p2 = dev_x * dev_y * dev_z, dev_p * dev_p
        e2 = dev_x * dev_y + dev_x * dev_z + dev_y * dev_z - 3 * p2
        e3 = xyz + 2 * e2 * dev_p + 4 * p2 * dev_p
        e4 = (2 * xyz + e2 * dev_p + 3 * p2 * dev_p) * dev_p
        e5 = xyz * p2
        series = (
            -3 * e2 / _WIDE(14) + e3 / _WIDE(6) + 9 * e2 * e2 / _WIDE(88) - 3 * e4 / _WIDE(22)
            - 9 * e2 * e3 / _WIDE(52) + 3 * e5 / _WIDE(26)
        )  # fmt: skip
        return scale * (1 + series) / (mean * np.sqrt(mean)) + 6 * total

    state = (mean0, x0, y0, z0, p0, delta, np.zeros_like(mean0))
    value = _converge(state, deviation * _RJ_SPREAD, step, finish)
    return np.where(two, np.inf, value.astype(float)).reshape(shape)


def _one_plus_e(e, root_p, *roots):
    """``1 + e_m`` without cancellation where ``e_m`` is near −1 (``p`` far below ``x, y, z``, or between them).

    ``e_m = Π_i r_i`` with ``r_i = (√p − √x_i)/(√p + √x_i) = s_i (1 − c_i)``, ``s_i = sign(p − x_i)``,
    ``c_i = 2 min(√p, √x_i)/(√p + √x_i)``, since ``δ 4^{-3m} = Π (p_m − x_i,m)`` and ``p − x = (√p − √x)(√p + √x)``.
    So ``1 + e = 1 − Π (1 − c_i) = −expm1(Σ log1p(−c_i))`` when the signs' product is −1. ``e`` itself is kept
    (from δ, exact to rounding even where ``p`` is next to an ``x_i``) wherever ``e > −½``. Arrays or scalars."""
    if np.ndim(e) == 0:
        return -np.expm1(_log_product(root_p, roots)) if e < -0.5 else 1 + e
    one_plus_e = 1 + e
    near = e < -0.5
    if np.any(near):
        one_plus_e[near] = -np.expm1(_log_product(root_p[near], tuple(root[near] for root in roots)))
    return one_plus_e


def _log_product(root_p, roots):
    """``Σ_i log1p(−c_i)``, ``c_i = 2 min(√p, √x_i)/(√p + √x_i)`` (:func:`_one_plus_e`)."""
    with np.errstate(divide="ignore"):  # c_i = 1 where p = x_i: there e = 0, and this is not used
        return sum(np.log1p(-2 * np.minimum(root_p, root) / (root_p + root)) for root in roots)


def _rc_one_plus(e, one_plus_e):
    """``R_C(1, 1 + e)`` (DLMF 19.2.19–20): ``atan(t)/t`` with ``t = √e`` for ``e > 0``, ``atanh(t)/t`` with
    ``t = √−e`` for ``e < 0``; below ``e = −½``, ``atanh t = ln(1 + t) − ½ ln(1 + e)`` (since ``1 − t² = 1 + e``),
    so that ``1 + e`` near 0 is taken as given. Where ``|e| < 1e-3`` (every step but the first few), the series
    ``Σ (−e)^k / (2k + 1)`` to ``k = 6``: the rest is below ``1e-21 / 15``, under the wide format's rounding.
    Arrays or scalars."""
    if np.ndim(e) == 0:
        return _rc_series(e) if abs(e) < 1e-3 else _rc_far(e, one_plus_e)
    series = _rc_series(e)
    far = np.flatnonzero(abs(e) >= _WIDE(1e-3))
    if far.size:
        # Each formula on the elements it is for alone: the wide format's arctan, arctanh and logarithms cost
        # several times its arithmetic, and the first steps of a batch have every element here.
        e_far = e[far]
        root = np.sqrt(abs(e_far))
        positive, below_half = e_far > 0, e_far < -0.5
        between = ~(positive | below_half)
        values = np.empty_like(e_far)
        values[positive] = np.arctan(root[positive]) / root[positive]
        values[between] = np.arctanh(root[between]) / root[between]
        if below_half.any():
            low = root[below_half]
            values[below_half] = (np.log1p(low) - np.log(one_plus_e[far[below_half]]) / 2) / low
        series[far] = values
    return series


# The coefficients 1/(2k + 1) of _rc_series, k = 6 … 0, made once (each the same division at every call).
_RC_TERMS = tuple(1 / _WIDE(2 * k + 1) for k in range(6, -1, -1))


def _rc_series(e):
    series = _RC_TERMS[0]
    for term in _RC_TERMS[1:]:
        series = term - e * series
    return series


def _rc_far(e: np.longdouble, one_plus_e: np.longdouble) -> np.longdouble:
    """:func:`_rc_one_plus` of one ``|e| ≥ 1e-3``, by the same formulas."""
    root = np.sqrt(abs(e))
    if e > 0:
        return np.arctan(root) / root
    if e < -0.5:
        return (np.log1p(root) - np.log(one_plus_e) / 2) / root
    return np.arctanh(root) / root


def complete_k_from_complement(m_complement: npt.ArrayLike) -> np.ndarray:
    """``K(m) = R_F(0, m₁, 1)`` (DLMF 19.25.1) from ``m₁ = 1 − m`` itself, exact to rounding as ``m → 1``
    (``inf`` at ``m₁ = 0``); float64 of ``m_complement``'s shape."""
    return carlson_rf(0.0, m_complement, 1.0)


EXTENDED = np.finfo(_WIDE).nmant >= 60
"""Whether numpy's ``longdouble`` is wider than float64 here (x86-64 Linux: the 80-bit format). Where it is not
(Windows, macOS on arm64) the duplication above would be a few ulps off and R_J would overflow for arguments spread
beyond ~1e±150, so the closed forms take scipy.special's integrals there instead, imported at their first use."""

if not EXTENDED:  # pragma: no cover (x86-64 Linux, where the tests run, has the extended format)

    def carlson_rf(x: npt.ArrayLike, y: npt.ArrayLike, z: npt.ArrayLike) -> np.ndarray:
        from scipy.special import elliprf

        return np.asarray(elliprf(x, y, z), dtype=float)

    def carlson_rj(x: npt.ArrayLike, y: npt.ArrayLike, z: npt.ArrayLike, p: npt.ArrayLike) -> np.ndarray:
        from scipy.special import elliprj

        return np.asarray(elliprj(x, y, z, p), dtype=float)

    def carlson_rc(x: npt.ArrayLike, y: npt.ArrayLike) -> np.ndarray:
        from scipy.special import elliprc

        return np.asarray(elliprc(x, y), dtype=float)
