"""The exact torque-free motion of many bodies at once: :class:`TorqueFreeBatch`, evaluated in one call of array
operations over every body (and every time), for the references of a run of 10⁵ bodies with spread initial states.

It is :class:`sim.exact.TorqueFreeSolution`'s closed form (Landau & Lifshitz §37, sim/euler_poinsot.py), solved
for K bodies together: the bodies on a regular polhode (``"elliptic"`` with a finite quarter period, the case of
every asymmetric body off the separatrix) are held as arrays; the others (a sphere, a steady spin, an axisymmetric
body, the separatrix itself) keep one :class:`TorqueFreeSolution` each in :attr:`TorqueFreeBatch.others`.

Agreement with :class:`TorqueFreeSolution`: the same formulas element by element, so the values agree to rounding
(a few ulps): numpy's 3-vector norm and 3×3 products run in a different order over a batch than for one vector
(tests/sim/test_exact_batch.py measures it). The separatrix gap ``L² − 2E I₂`` is the same correctly rounded value
as the rational arithmetic of sim/euler_poinsot.py: its products are split into exact terms (Dekker) and summed
by ``math.fsum``, correctly rounded too; a body whose numbers could underflow in the splitting takes the rational
path.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from spinlab.sim.alike_rows import all_alike, once_if_alike
from spinlab.sim.complete_elliptic import complete_k_and_rj
from spinlab.sim.euler_poinsot import (
    LEAST_M_COMPLEMENT,
    TRANSFORMED_CHARACTERISTIC,
    _scale_exponent,
    _separatrix_gap,
    principal_frame,
)
from spinlab.sim.exact import TorqueFreeSolution, quat_from_zxz_euler
from spinlab.sim.jacobi_elliptic import (
    _ascending,
    _descending_chain,
    carlson_rj_near_saddle,
    legendre_f,
    legendre_pi_by_conjugate,
)
from spinlab.sim.quaternion import quat_conj, quat_from_matrix, quat_mul, quat_rotate

__all__ = ["TorqueFreeBatch", "separatrix_gaps"]

# Inputs of the gap within this range (or zero): no product of the exact splitting underflows or overflows.
_SPLIT_RANGE = (1e-40, 1e40)
_SPLITTER = 134217729.0  # 2^27 + 1


def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    c = _SPLITTER * a
    high = c - (c - a)
    return high, a - high


def _two_product(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``a b = p + e`` exactly (Dekker), absent underflow and overflow."""
    p = a * b
    a_high, a_low = _split(a)
    b_high, b_low = _split(b)
    return p, ((a_high * b_high - p) + a_high * b_low + a_low * b_high) + a_low * b_low


def _exact_terms(i: np.ndarray, j: np.ndarray, w: np.ndarray) -> list[np.ndarray]:
    """Doubles whose exact sum is ``i (i − j) w w`` (16 of them), for arrays of the same shape."""
    difference = i - j
    virtual = difference - i
    error = (i - (difference - virtual)) + (-j - virtual)  # two-sum: i − j = difference + error exactly
    square = _two_product(w, w)
    first = [part for term in (difference, error) for part in _two_product(i, term)]
    return [part for a in first for b in square for part in _two_product(a, b)]


# Bodies from which the gaps' exact sums are compiled (sim/exact_sum.py, bit for bit math.fsum): loading the
# cached kernel costs a few ms, math.fsum ~2 µs a body. That is when numba is imported already (a run on the
# compiled kernels readies it first); readying it for the sums alone, ~0.4 s, pays from NUMBA_SUM_ROWS bodies.
COMPILED_SUM_ROWS = 5000
NUMBA_SUM_ROWS = 200_000


def separatrix_gaps(moments: np.ndarray, omega: np.ndarray) -> np.ndarray:
    """``L² − 2E I2 = I3 (I3 − I2) Ω3² − I1 (I2 − I1) Ω1²`` of K bodies, ``moments`` and ``omega`` (K, 3)
    principal: the correctly rounded value, bit for bit sim/euler_poinsot.py's rational one. Taken over pieces of
    :data:`_GAP_PIECE` bodies: a piece's 32 terms a body stay in the CPU's caches (10⁵ bodies' at once are 26 MB,
    written a column at a time)."""
    count = len(moments)
    compiled = count >= COMPILED_SUM_ROWS and ("numba" in sys.modules or count >= NUMBA_SUM_ROWS)
    gaps = np.empty(count)
    for start in range(0, count, _GAP_PIECE):
        piece = slice(start, start + _GAP_PIECE)
        gaps[piece] = _piece_gaps(moments[piece], omega[piece], compiled)
    return gaps


_GAP_PIECE = 4096


def _piece_gaps(moments: np.ndarray, omega: np.ndarray, compiled: bool) -> np.ndarray:
    """:func:`separatrix_gaps` of one piece, the exact sums compiled (sim/exact_sum.py) or by ``math.fsum``."""
    i1, i2, i3, w1, w3 = moments[:, 0], moments[:, 1], moments[:, 2], omega[:, 0], omega[:, 2]
    with np.errstate(all="ignore"):
        # I3 (I3 − I2) Ω3² + I1 (I1 − I2) Ω1², 32 exact terms a body.
        terms = np.stack(_exact_terms(i3, i2, w3) + _exact_terms(i1, i2, w1), axis=-1)
    inputs = np.abs(np.stack([i1, i2, i3, w1, w3], axis=-1))
    safe = np.all((inputs == 0.0) | ((inputs >= _SPLIT_RANGE[0]) & (inputs <= _SPLIT_RANGE[1])), axis=-1)
    safe &= np.all(np.isfinite(terms), axis=-1)
    gaps = np.empty(len(moments))
    rows = np.flatnonzero(safe)
    if compiled:
        from spinlab.sim.exact_sum import fsum_rows  # compiled: loaded only for a batch where it gains

        gaps[rows] = fsum_rows(np.ascontiguousarray(terms[rows]))
        overflowed = rows[~np.isfinite(gaps[rows])]  # where math.fsum raises: the rational path decides
        safe[overflowed] = False
    else:
        gaps[rows] = np.fromiter(map(math.fsum, terms[rows].tolist()), float, rows.size)
    for k in np.flatnonzero(~safe):  # numbers far outside physical ranges only
        gaps[k] = _separatrix_gap(moments[k], omega[k])
    return gaps


@dataclass(frozen=True, eq=False)
class TorqueFreeBatch:
    """The closed-form torque-free motion of K bodies. ``rows`` (E,) are the bodies held as arrays (regular
    polhodes), with their constants (E,) or (E, 3): ``moments``, ``axes_body`` (E, 3, 3), ``spin_axis`` (0 or 2),
    ``rate`` λ, ``phase0`` u₀, ``m``, ``m_complement``, ``quarter_period`` K, ``amplitudes``, ``L_norm``, the
    precession's ``coefficient``, ``g0``, ``complete_g``, ``characteristic`` n, ``transformed`` (bool: ``Π`` taken
    whole, see :meth:`EulerPoinsot.precession_angle`) and ``conjugate`` ``m/n``, and ``chain`` (E, 4, 4) (see
    :attr:`TorqueFreeSolution._chain`), and ``start`` (E, 4) the orientation at t = 0. ``others``: ``(row,
    TorqueFreeSolution)`` for the other bodies."""

    count: int
    rows: np.ndarray
    moments: np.ndarray
    axes_body: np.ndarray
    spin_axis: np.ndarray
    rate: np.ndarray
    phase0: np.ndarray
    m: np.ndarray
    m_complement: np.ndarray
    quarter_period: np.ndarray
    amplitudes: np.ndarray
    L_norm: np.ndarray
    coefficient: np.ndarray
    g0: np.ndarray
    complete_g: np.ndarray
    characteristic: np.ndarray
    transformed: np.ndarray
    conjugate: np.ndarray
    chain: np.ndarray
    others: tuple[tuple[int, TorqueFreeSolution], ...]
    start: np.ndarray

    @classmethod
    def from_states(cls, inertia_body: np.ndarray, q0: np.ndarray, omega_world0: np.ndarray) -> TorqueFreeBatch:
        """From K bodies' inertia (K, 3, 3), orientations ``q0`` (K, 4) and world angular velocities (K, 3)."""
        q0 = np.asarray(q0, dtype=float).reshape(-1, 4)
        omega_body0 = quat_rotate(quat_conj(q0), np.asarray(omega_world0, dtype=float).reshape(-1, 3))
        return cls.from_body_states(inertia_body, q0, omega_body0)

    @classmethod
    def from_body_states(cls, inertia_body: np.ndarray, q0: np.ndarray, omega_body0: np.ndarray) -> TorqueFreeBatch:
        """From K bodies' inertia (K, 3, 3), orientations ``q0`` (K, 4) and body angular velocities (K, 3)."""
        inertia_body = np.asarray(inertia_body, dtype=float).reshape(-1, 3, 3)
        q0, omega_body0 = np.asarray(q0, dtype=float).reshape(-1, 4), np.asarray(omega_body0, dtype=float)
        count = len(inertia_body)
        moments, axes = once_if_alike(principal_frame, inertia_body)  # mostly one inertia: its frame once
        omega = np.einsum("kji,kj->ki", axes, omega_body0.reshape(-1, 3))
        # Scaled by a power of two where |Ω| is beyond 2^±200, as EulerPoinsot.solve does (exactly; λ, |L| and the
        # amplitudes scaled back in _solve).
        exponent = _scale_exponent(omega)
        omega = np.ldexp(omega, -exponent[:, None])
        i1, i2, i3 = moments[:, 0], moments[:, 1], moments[:, 2]
        # EulerPoinsot.solve's cases: constant, axisymmetric, steady spin, else elliptic (regular unless gap = 0).
        moving = np.any(omega != 0.0, axis=-1)
        elliptic = (i1 != i3) & moving & (i1 != i2) & (i2 != i3) & (np.count_nonzero(omega, axis=-1) != 1)
        candidates = np.flatnonzero(elliptic)
        gap = separatrix_gaps(moments[candidates], omega[candidates])
        rows = candidates[gap != 0.0]
        held = np.ones(count, dtype=bool)  # a mask, not np.setdiff1d, which imports numpy.ma
        held[rows] = False
        solved = TorqueFreeSolution.from_body_state
        other_solutions = tuple((int(k), solved(inertia_body[k], q0[k], omega_body0[k])) for k in np.flatnonzero(held))
        if not rows.size:
            # No regular polhode: nothing for the elliptic integrals to do.
            empty = np.empty(0)
            return cls(count, rows, moments[rows], axes[rows], rows, empty, empty, empty, empty, empty,
                       np.empty((0, 3)), empty, empty, empty, empty, empty, np.zeros(0, dtype=bool), empty,
                       np.empty((0, 4, 4)), other_solutions, np.empty((0, 4)))  # fmt: skip
        with np.errstate(all="ignore"):
            return cls._solve(count, rows, moments[rows], axes[rows], omega[rows], exponent[rows], gap[gap != 0.0],
                              q0[rows], other_solutions)  # fmt: skip

    @classmethod
    def _solve(cls, count, rows, moments, axes, omega, exponent, gap, q0, others) -> TorqueFreeBatch:
        """EulerPoinsot.solve's elliptic case and TorqueFreeSolution's constant rotations, for E bodies, from Ω
        scaled by ``2^-exponent``."""
        size = np.arange(len(rows))
        i1, i2, i3 = moments[:, 0], moments[:, 1], moments[:, 2]
        c = np.where(gap >= 0.0, 2, 0)
        e = 2 - c
        i_c, i_e = moments[size, c], moments[size, e]
        d_ce, d_c2, d_2e = np.abs(i_c - i_e), np.abs(i_c - i2), np.abs(i2 - i_e)
        w_c, w_2, w_e = omega[size, c], omega[:, 1], omega[size, e]
        p = i2 * d_2e * w_2**2 + i_c * d_ce * w_c**2
        q = i_e * d_ce * w_e**2 + i2 * d_c2 * w_2**2
        rate = np.ldexp(np.sqrt(d_c2 * p / (i1 * i2 * i3)), exponent)
        m = d_2e * q / (d_c2 * p)
        # Held at the least double where it underflows (next to the intermediate axis), as EulerPoinsot.solve does.
        m_complement = np.maximum(d_ce * np.abs(gap) / (d_c2 * p), LEAST_M_COMPLEMENT)
        a_e = np.hypot(w_e, np.sqrt(i2 * d_c2 / (i_e * d_ce)) * w_2)
        a_2 = np.hypot(np.sqrt(i_e * d_ce / (i2 * d_c2)) * w_e, w_2)
        a_c = np.hypot(np.sqrt(i2 * d_2e / (i_c * d_ce)) * w_2, w_c)
        sigma = np.where(w_c > 0.0, 1.0, -1.0)
        s = np.where(w_e >= 0.0, 1.0, -1.0)
        phase0 = legendre_f(sigma * s * w_2 / a_2, np.abs(w_e) / a_e, m_complement)
        amplitudes = np.empty((len(rows), 3))
        amplitudes[size, e], amplitudes[:, 1], amplitudes[size, c] = s * a_e, sigma * s * a_2, sigma * a_c
        amplitudes = np.ldexp(amplitudes, exponent[:, None])
        L_norm = np.ldexp(np.linalg.norm(moments * omega, axis=-1), exponent)
        characteristic = -i_c * np.abs(i2 - i_e) / (i_e * np.abs(i_c - i2))
        # K and the complete R_J of G by one arithmetic-geometric mean (sim/complete_elliptic.py), a third of the
        # duplications' time for the two; the same doubles but where one rounds the other side of a midpoint.
        quarter, complete_g = complete_k_and_rj(m_complement, 1.0 - characteristic)
        # EulerPoinsot.precession_angle's two forms: G (plain) or Π whole (transformed, DLMF 19.7.9), row by row.
        transformed = characteristic < TRANSFORMED_CHARACTERISTIC
        conjugate = m / characteristic
        coefficient = L_norm * (i_c - i_e) * characteristic / (3.0 * i_c * i_e * rate)
        if transformed.any():
            complete_pi = legendre_pi_by_conjugate(1.0, 0.0, m_complement, characteristic, conjugate)
            complete_g = np.where(transformed, complete_pi, complete_g)
            coefficient = np.where(transformed, L_norm * (i_c - i_e) / (i_c * i_e * rate), coefficient)
        partial = cls._partial(rows, c, rate, phase0, m, m_complement, quarter, amplitudes, L_norm, characteristic,
                               transformed, conjugate, complete_g, moments, axes)  # fmt: skip
        half_periods, r = _reduce(phase0, quarter)
        sn, cn, _ = _jacobi(r, quarter, _descending_chain(m, m_complement))
        g0 = partial._g_reduced(half_periods, sn, cn)
        q_body_euler = _euler_frames(axes, c)
        # The Euler angles at t = 0, as TorqueFreeSolution takes them. G there is g0 (the same reduction of the
        # same phase; where the phase is -0.0 and G's zero takes the other sign, φ = c (G − g0) is +0.0 all the same).
        _, theta0, psi0, phi0 = partial._omega_and_angles(np.zeros(()), g0, coefficient, g=g0)
        r0 = quat_from_zxz_euler(phi0, theta0, psi0)
        q_world_invariable = quat_mul(quat_mul(q0, q_body_euler), quat_conj(r0))
        chain = quat_mul(quat_mul(q_world_invariable[:, None, :], np.eye(4)), quat_conj(q_body_euler)[:, None, :])
        start = _chained(r0, chain)
        return cls(count, rows, moments, axes, c, rate, phase0, m, m_complement, quarter, amplitudes, L_norm,
                   coefficient, g0, complete_g, characteristic, transformed, conjugate, chain, others,
                   start)  # fmt: skip

    @classmethod
    def _partial(cls, rows, c, rate, phase0, m, m1, quarter, amplitudes, L_norm, n, transformed, conjugate,
                 complete_g, moments, axes):  # fmt: skip
        nan = np.full(len(rows), np.nan)
        return cls(0, rows, moments, axes, c, rate, phase0, m, m1, quarter, amplitudes, L_norm, nan, nan,
                   complete_g, n, transformed, conjugate, np.empty((len(rows), 4, 4)), (), nan)  # fmt: skip

    @cached_property
    def landen_chain(self) -> tuple:
        """The descending Landen chain of every row's ``m`` (sim/jacobi_elliptic.py's ``_descending_chain``): it
        depends on the modulus alone, so every evaluation at new times takes it from here instead of making it
        again (a tenth of a one-body measure's time)."""
        return _descending_chain(self.m, self.m_complement)

    def _g_reduced(self, half_periods: np.ndarray, sn: np.ndarray, cn: np.ndarray) -> np.ndarray:
        """EulerPoinsot._g_reduced for every row (finite quarter periods): ``G``, or ``Π`` on transformed rows."""
        n = self.characteristic
        partial = sn**3 * carlson_rj_near_saddle(cn, sn, self.m_complement, 1.0 - n * sn * sn)
        rows = self.transformed
        if rows.any():
            partial, sn, cn = np.broadcast_arrays(partial, sn, cn)
            partial = partial.copy()
            pi = legendre_pi_by_conjugate(sn[..., rows], cn[..., rows], self.m_complement[rows], n[rows],
                                          self.conjugate[rows])  # fmt: skip
            partial[..., rows] = pi
        return partial + 2.0 * half_periods * self.complete_g

    def _omega_and_angles(self, t: np.ndarray, g0=None, coefficient=None, g=None):
        """Ω in principal axes (..., E, 3) and the Euler angles (..., E) at times ``t`` (..., 1); ``g``: the
        precession's integral there when the caller has it."""
        t = np.asarray(t, dtype=float)
        half_periods, r = _reduce(self.rate * t + self.phase0, self.quarter_period)
        sn, cn, dn = _jacobi(r, self.quarter_period, self.landen_chain)
        sign = 1.0 - 2.0 * np.mod(half_periods, 2.0)
        sn_signed, cn_signed = sign * sn, sign * cn
        minor = self.spin_axis == 0
        functions = np.stack([np.where(minor, dn, cn_signed), sn_signed, np.where(minor, cn_signed, dn)], axis=-1)
        omega = self.amplitudes * functions
        g = self._g_reduced(half_periods, sn, cn) if g is None else g
        g0 = self.g0 if g0 is None else g0
        coefficient = self.coefficient if coefficient is None else coefficient
        # |L| t over I_e (plain) or I_c (transformed): the principal index 0 or 2, from spin_axis c.
        linear_axis = np.where(self.transformed, self.spin_axis, 2 - self.spin_axis)
        linear_moment = np.take_along_axis(self.moments, linear_axis[:, None], axis=-1)[:, 0]
        phi = self.L_norm / linear_moment * t + coefficient * (g - g0)
        momentum = self.moments * omega
        m_a = np.where(minor, momentum[..., 1], momentum[..., 0])
        m_b = np.where(minor, momentum[..., 2], momentum[..., 1])
        m_c = np.where(minor, momentum[..., 0], momentum[..., 2])
        return omega, np.arctan2(np.hypot(m_a, m_b), m_c), np.arctan2(m_a, m_b), phi

    def orientation_and_omega_body(self, t) -> tuple[np.ndarray, np.ndarray]:
        """Orientation (..., K, 4) and body angular velocity (..., K, 3) of every body at times ``t`` (a scalar or
        (S,) s, the same for every body)."""
        t = np.asarray(t, dtype=float)
        q, omega_body = np.empty(t.shape + (self.count, 4)), np.empty(t.shape + (self.count, 3))
        if self.rows.size:
            with np.errstate(all="ignore"):
                omega, theta, psi, phi = self._omega_and_angles(t[..., None])
                r = quat_from_zxz_euler(phi, theta, psi)
                q[..., self.rows, :] = _chained(r, self.chain)
                omega_body[..., self.rows, :] = np.einsum("...ej,eij->...ei", omega, self.axes_body)
        for row, solution in self.others:
            q[..., row, :], omega_body[..., row, :] = solution.orientation_and_omega_body(t)
        return q, omega_body

    def orientation(self, t) -> np.ndarray:
        """Orientation (..., K, 4) of every body at times ``t``."""
        return self.orientation_and_omega_body(t)[0]

    def start_orientation(self) -> np.ndarray:
        """:meth:`orientation` at t = 0 (K, 4), bit for bit, from the rotation the solve composed there."""
        q = np.empty((self.count, 4))
        q[self.rows] = self.start
        at = np.zeros(())
        for row, solution in self.others:
            q[row] = solution.orientation_and_omega_body(at)[0]
        return q


def _euler_frames(axes: np.ndarray, c: np.ndarray) -> np.ndarray:
    """The rotations (E, 4) from the Euler frames to the body frames: the principal ``axes`` (E, 3, 3) relabelled
    as EulerPoinsot.euler_axes does for the spin axis ``c`` (E,) (0 or 2). Where every body has the same axes, the
    two relabellings once each (the same bits)."""
    if all_alike(axes):
        both = quat_from_matrix(np.stack([axes[0][:, [0, 1, 2]], axes[0][:, [1, 2, 0]]]))
        return both[np.where(c == 2, 0, 1)]
    euler_axes = np.where((c == 2)[:, None], [0, 1, 2], [1, 2, 0])
    return quat_from_matrix(np.take_along_axis(axes, euler_axes[:, None, :], axis=-1))


def _chained(r: np.ndarray, chain: np.ndarray) -> np.ndarray:
    """Σ_k r_k chain_k (..., E, 4) of the rotations ``r`` (..., E, 4) from the invariable frame, in
    TorqueFreeSolution's order."""
    return r[..., 0:1] * chain[:, 0] + r[..., 1:2] * chain[:, 1] + r[..., 2:3] * chain[:, 2] + r[..., 3:] * chain[:, 3]


def _reduce(u: np.ndarray, quarter: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    half_periods = np.rint(u / (2.0 * quarter))
    return half_periods, u - 2.0 * quarter * half_periods


def _jacobi(r: np.ndarray, quarter, chain):
    """sim.jacobi_elliptic.jacobi_sn_cn_dn at ``r`` for per-body parameters (finite K, ``m₁ > 0``), given the
    bodies' descending Landen ``chain`` (jacobi_elliptic's ``_descending_chain`` of their ``m`` and ``m₁``)."""
    half_periods, reduced = _reduce(r, quarter)
    sn, cn, dn = _ascending(reduced, *chain)
    sign = 1.0 - 2.0 * np.mod(half_periods, 2.0)
    return sign * sn, sign * cn, dn
