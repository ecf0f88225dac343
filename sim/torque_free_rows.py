"""The closed-form torque-free motion of many bodies as rows of arrays, evaluated in one pass of array operations and
bit for bit as each body's own :class:`sim.exact.TorqueFreeSolution` evaluates it: the exact stepper's batch
(sim/integrators/exact.py).

A row holds the constants of one solved body (the case analysis stays :meth:`TorqueFreeSolution.from_body_state`'s,
per body); :meth:`TorqueFreeRows.orientation` evaluates every row at its own time, the rows grouped by kind:

- ``constant`` (rest, a sphere, a steady spin): ``q(t) = q0 ⊗ exp(Ω t / 2)``;
- ``axisymmetric``: Ω turns at ``ν`` about the symmetry axis, ``φ = |L| t / I_t`` (L&L §33);
- ``periodic``: an elliptic polhode with a finite quarter period, Ω from ``sn, cn, dn`` at ``u = λ t + u₀`` and
  ``φ`` from Carlson's ``R_J`` (or Legendre's ``Π`` whole, :meth:`EulerPoinsot.precession_angle`);
- ``separatrix``: an elliptic polhode with ``m₁ = 0`` (``K = inf``; ``sn = tanh``, ``cn = dn = sech``).

**Bit for bit.** numpy's elementwise operations give the same IEEE results on arrays as on one body's numpy scalars,
with one exception this module keeps to: a numpy float64 *scalar*'s ``x ** k`` is C's ``pow``, while an array's is
numpy's own loop (a product for ``k = 2``, a vectorised pow otherwise), which differs in the last bit for ~0.1 % of
squares and ~3 % of cubes. Where the one-body path takes a power of a numpy scalar (two squares in the descending
Landen chain, ``sn³`` in ``G``), :func:`libm_power` takes C's ``pow`` element by element. The sums are written in
the one-body path's order (no reductions), Carlson's integrals take their array path, whose operations are the
one-row path's (sim/carlson.py). tests/sim/test_torque_free_rows.py compares every kind, near-symmetric,
near-axis and near-separatrix bodies with :meth:`TorqueFreeSolution.orientation`, bit for bit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, fields
from itertools import repeat

import numpy as np

from spinlab.sim.euler_poinsot import EulerPoinsot
from spinlab.sim.exact import TorqueFreeSolution, quat_from_zxz_euler
from spinlab.sim.jacobi_elliptic import (
    _ascending,
    _descending_chain,
    carlson_rj_near_saddle,
    legendre_pi_by_conjugate,
)
from spinlab.sim.quaternion import quat_exp, quat_mul

__all__ = [
    "TorqueFreeRows",
    "constants_of",
    "motion_constants",
    "CONSTANT_FIELDS",
    "euler_angles",
    "precession_g",
    "libm_power",
    "CONSTANT",
    "AXISYMMETRIC",
    "PERIODIC",
    "SEPARATRIX",
]

CONSTANT, AXISYMMETRIC, PERIODIC, SEPARATRIX = 0, 1, 2, 3

# On the separatrix sn u = tanh u is 1 in float64 beyond |u| = 19 (sim/euler_poinsot.py's _SEPARATRIX_SATURATION).
_SEPARATRIX_SATURATION = 40.0


def libm_power(x: np.ndarray, exponent: float) -> np.ndarray:
    """``x ** exponent`` element by element as a numpy float64 scalar takes it (C's ``pow``), ``x`` float64 of any
    shape; ``inf`` or ``nan`` where ``pow`` gives them, without a warning."""
    x = np.asarray(x, dtype=float)
    flat = x.ravel().tolist()
    try:
        values = list(map(math.pow, flat, repeat(float(exponent))))
    except (OverflowError, ValueError):  # where pow sets a range or domain error: numpy's scalar gives inf or nan
        with np.errstate(all="ignore"):
            values = [float(np.float64(value) ** exponent) for value in flat]
    return np.array(values, dtype=float).reshape(x.shape)


@dataclass(frozen=True, eq=False)
class TorqueFreeRows:
    """The closed forms of N bodies, one row each: ``kind`` (N,) (:data:`CONSTANT` … :data:`SEPARATRIX`) and the
    constants of :class:`~sim.exact.TorqueFreeSolution` and its :class:`~sim.euler_poinsot.EulerPoinsot`: ``q0``
    (N, 4) and ``omega_body0`` (N, 3) rad/s (constant rows), ``chain`` (N, 4, 4) (``TorqueFreeSolution._chain``),
    ``moments`` (N, 3) kg m², ``omega_principal0`` (N, 3) rad/s, ``spin_axis`` (N,) (0 or 2), ``rate`` λ or ν rad/s,
    ``L_norm`` kg m²/s, ``phase0`` u₀, ``m``, ``m_complement``, ``quarter_period`` K, ``amplitudes`` (N, 3) rad/s,
    the precession's ``coefficient``, ``g0`` and ``linear_moment`` (kg m²), ``complete_g``, ``characteristic`` n,
    ``conjugate`` m/n and ``transformed`` (bool); and the descending chain of ``m`` (periodic rows, no levels on
    the others; sim/jacobi_elliptic.py's ``_descending_chain``, levels along axis 1): ``descent_moduli``,
    ``descent_one_minus``, ``descent_active`` (N, L) and ``descent_scale`` (N,). A constant that a row's kind does
    not use is NaN."""

    kind: np.ndarray
    q0: np.ndarray
    omega_body0: np.ndarray
    chain: np.ndarray
    moments: np.ndarray
    omega_principal0: np.ndarray
    spin_axis: np.ndarray
    rate: np.ndarray
    L_norm: np.ndarray
    phase0: np.ndarray
    m: np.ndarray
    m_complement: np.ndarray
    quarter_period: np.ndarray
    amplitudes: np.ndarray
    coefficient: np.ndarray
    g0: np.ndarray
    linear_moment: np.ndarray
    complete_g: np.ndarray
    characteristic: np.ndarray
    conjugate: np.ndarray
    transformed: np.ndarray
    descent_moduli: np.ndarray
    descent_one_minus: np.ndarray
    descent_active: np.ndarray
    descent_scale: np.ndarray

    def __len__(self) -> int:
        return len(self.kind)

    @classmethod
    def from_solutions(cls, solutions: Sequence[TorqueFreeSolution]) -> TorqueFreeRows:
        """The rows of solved bodies, in order (see :func:`constants_of`)."""
        return cls.from_constants([constants_of(solution) for solution in solutions])

    @classmethod
    def from_constants(cls, rows: Sequence[tuple]) -> TorqueFreeRows:
        """The rows of bodies whose :func:`constants_of` are ``rows``, in order."""
        columns = [np.array([row[k] for row in rows], dtype=_DTYPES.get(name, float)).reshape(
            (len(rows),) + _SHAPES.get(name, ())) for k, name in enumerate(_CONSTANTS)]  # fmt: skip
        constants = dict(zip(_CONSTANTS, columns, strict=True))
        # The chain depends on m alone: taken once here, not at every evaluation (NaN: no levels).
        periodic = constants["kind"] == PERIODIC
        m, m_complement = (np.where(periodic, constants[name], np.nan) for name in ("m", "m_complement"))
        moduli, one_minus, active, scale = _descending_chain(m, m_complement, power=libm_power)
        return cls(
            **constants,
            descent_moduli=np.stack(moduli, axis=1),
            descent_one_minus=np.stack(one_minus, axis=1),
            descent_active=np.stack(active, axis=1),
            descent_scale=np.broadcast_to(scale, (len(rows),)).copy(),
        )

    def take(self, index: np.ndarray) -> TorqueFreeRows:
        """The rows ``index`` (an integer array), in that order."""
        return TorqueFreeRows(*(getattr(self, name)[index] for name in _FIELDS))

    @classmethod
    def concatenate(cls, parts: Sequence[TorqueFreeRows]) -> TorqueFreeRows:
        """The rows of ``parts`` one after the other (the shorter descending chains padded with levels that do not
        apply)."""
        levels = max(part.descent_moduli.shape[1] for part in parts)

        def padded(part: TorqueFreeRows, name: str) -> np.ndarray:
            column = getattr(part, name)
            extra = levels - column.shape[1] if name in _DESCENT_LEVELS else 0
            if not extra:
                return column
            if name == "descent_moduli":  # a chain that has ended keeps its last modulus
                return np.concatenate([column, np.repeat(column[:, -1:], extra, axis=1)], axis=1)
            return np.concatenate([column, np.full((len(column), extra), np.nan if name == "descent_one_minus" else
                                                   False, dtype=column.dtype)], axis=1)  # fmt: skip

        return cls(*(np.concatenate([padded(part, name) for part in parts]) for name in _FIELDS))

    def orientation(self, t: np.ndarray) -> np.ndarray:
        """Orientation (N, 4) of row k at time ``t[k]`` (``t`` (N,) s), body → world: bit for bit row k's
        ``TorqueFreeSolution.orientation(np.array(t[k]))``. Call under ``np.errstate`` as suits: a state at the
        edge of the doubles gives inf or nan as the one-body path does."""
        t = np.asarray(t, dtype=float)
        q = np.empty((len(self), 4))
        constant = self.kind == CONSTANT
        if constant.all():
            return _constant(self, t)
        if constant.any():
            rows = np.flatnonzero(constant)
            q[rows] = _constant(self.take(rows), t[rows])
            rows = np.flatnonzero(~constant)
            moving = self.take(rows)
            q[rows] = _from_euler(moving, *euler_angles(moving, t[rows]))
            return q
        return _from_euler(self, *euler_angles(self, t))


_FIELDS = tuple(field.name for field in fields(TorqueFreeRows))
_DESCENT_LEVELS = ("descent_moduli", "descent_one_minus", "descent_active")
_CONSTANTS = _FIELDS[: _FIELDS.index("descent_moduli")]
CONSTANT_FIELDS = _CONSTANTS
"""The fields a row's constants (:func:`constants_of`, :meth:`TorqueFreeRows.from_constants`) give, in order."""
_DTYPES = {"kind": np.int8, "spin_axis": np.int64, "transformed": bool}
_SHAPES = {"q0": (4,), "omega_body0": (3,), "chain": (4, 4), "moments": (3,), "omega_principal0": (3,),
           "amplitudes": (3,)}  # fmt: skip


def constants_of(solution: TorqueFreeSolution) -> tuple:
    """One solved body's row: its constants in :class:`TorqueFreeRows`' field order. Computes the ones the solution
    keeps lazily (K, ``G(u₀)``, the chain) as its own first evaluation would, so it may raise what that raises
    (ArithmeticError, ValueError) for a state too extreme for the closed form."""
    motion = solution.motion
    values = motion_constants(motion, solution.q0, solution.omega_body0)
    if motion.kind != "constant":
        values["chain"] = solution._chain
    if motion.kind == "elliptic":
        coefficient, g0, linear_moment = motion._precession_constants
        periodic = bool(np.isfinite(motion.quarter_period))
        values.update(
            kind=PERIODIC if periodic else SEPARATRIX,
            quarter_period=motion.quarter_period,
            coefficient=coefficient,
            g0=float(g0),
            linear_moment=linear_moment,
            complete_g=motion._complete_g if periodic else np.nan,
            characteristic=motion._characteristic,
            conjugate=motion.m / motion._characteristic,
            transformed=motion._transformed,
        )
    return tuple(values[name] for name in _CONSTANTS)


def motion_constants(motion: EulerPoinsot, q0: np.ndarray, omega_body0: np.ndarray) -> dict[str, object]:
    """A row's constants that the solved ``motion`` holds (and ``q0``, ``omega_body0``), by field name; NaN for the
    ones a solution computes on its first evaluation (K, n, G's, the chain). An elliptic row's kind is
    :data:`PERIODIC` here, until K is known."""
    nan3 = np.full(3, np.nan)
    values: dict[str, object] = dict.fromkeys(_CONSTANTS, np.nan)
    values.update(q0=q0, omega_body0=omega_body0, chain=np.full((4, 4), np.nan), moments=nan3, omega_principal0=nan3,
                  spin_axis=motion.spin_axis, amplitudes=nan3, transformed=False, kind=CONSTANT)  # fmt: skip
    if motion.kind == "constant":
        return values
    values.update(kind=AXISYMMETRIC, moments=motion.moments, omega_principal0=motion.omega_principal0,
                  rate=motion.rate, L_norm=motion.L_norm)  # fmt: skip
    if motion.kind == "elliptic":
        values.update(kind=PERIODIC, phase0=motion.phase0, m=motion.m, m_complement=motion.m_complement,
                      amplitudes=motion.amplitudes)  # fmt: skip
    return values


def _constant(rows: TorqueFreeRows, t: np.ndarray) -> np.ndarray:
    # TorqueFreeSolution._constant_orientation: q̇ = ½ q ⊗ (0, Ω) with Ω constant.
    return quat_mul(rows.q0, quat_exp(t[:, None] * rows.omega_body0))


def _euler_axes(rows: TorqueFreeRows) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Principal indices (a, b, c) of each row's Euler frame (EulerPoinsot.euler_axes): (0, 1, 2) or (1, 2, 0)."""
    major = rows.spin_axis == 2
    return np.where(major, 0, 1), np.where(major, 1, 2), np.where(major, 2, 0)


def _from_euler(rows: TorqueFreeRows, phi: np.ndarray, theta: np.ndarray, psi: np.ndarray) -> np.ndarray:
    """``Σ_k r_k chain_k`` with ``r = Rz(φ) Rx(θ) Rz(ψ)`` (TorqueFreeSolution._orientation_from_euler)."""
    r, chain = quat_from_zxz_euler(phi, theta, psi), rows.chain
    return r[:, :1] * chain[:, 0] + r[:, 1:2] * chain[:, 1] + r[:, 2:3] * chain[:, 2] + r[:, 3:] * chain[:, 3]


def _nutation_and_spin(rows: TorqueFreeRows, omega: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``θ``, ``ψ`` read off Ω (N, 3) principal (EulerPoinsot.omega_and_euler_angles), and the Euler axes' ``a``."""
    a, b, c = _euler_axes(rows)
    each = np.arange(len(rows))
    momentum = rows.moments * omega
    m_a, m_b, m_c = momentum[each, a], momentum[each, b], momentum[each, c]
    return np.arctan2(np.hypot(m_a, m_b), m_c), np.arctan2(m_a, m_b), a


def _axisymmetric(rows: TorqueFreeRows, t: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    # EulerPoinsot.omega_principal and precession_angle for I_a = I_b: Ω turns at ν about c, φ = |L| t / I_t.
    a, b, c = _euler_axes(rows)
    each = np.arange(len(rows))
    start = rows.omega_principal0
    start_a, start_b = start[each, a], start[each, b]
    angle = rows.rate * t
    cos_angle, sin_angle = np.cos(angle), np.sin(angle)
    omega = np.empty((len(rows), 3))
    omega[each, a] = start_a * cos_angle - start_b * sin_angle
    omega[each, b] = start_a * sin_angle + start_b * cos_angle
    omega[each, c] = start[each, c]
    phi = rows.L_norm / rows.moments[:, 1] * t
    theta, _, _ = _nutation_and_spin(rows, omega)
    # ψ = atan2(Ω_a, Ω_b) turns at −ν: written so, it is continuous in t.
    return phi, theta, np.arctan2(start_a, start_b) - rows.rate * t


def _omega_from_jacobi(rows: TorqueFreeRows, sn: np.ndarray, cn: np.ndarray, dn: np.ndarray) -> np.ndarray:
    """Elliptic Ω (N, 3) principal: amplitudes times (dn, sn, cn) where c = 1, (cn, sn, dn) where c = 3."""
    minor = rows.spin_axis == 0
    return rows.amplitudes * np.stack([np.where(minor, dn, cn), sn, np.where(minor, cn, dn)], axis=-1)


def _g_partial(rows: TorqueFreeRows, sn: np.ndarray, cn: np.ndarray) -> np.ndarray:
    """EulerPoinsot._g_reduced without its half periods' term: ``sn³ R_J(cn², dn², 1, 1 − n sn²)``, or ``Π`` whole
    on the transformed rows."""
    n = rows.characteristic
    partial = np.empty(len(rows))
    plain, transformed = np.flatnonzero(~rows.transformed), np.flatnonzero(rows.transformed)
    if plain.size:
        s, c, m1, n_plain = sn[plain], cn[plain], rows.m_complement[plain], n[plain]
        partial[plain] = libm_power(s, 3) * carlson_rj_near_saddle(c, s, m1, 1.0 - n_plain * s * s)
    if transformed.size:
        partial[transformed] = legendre_pi_by_conjugate(sn[transformed], cn[transformed],
                                                        rows.m_complement[transformed], n[transformed],
                                                        rows.conjugate[transformed])  # fmt: skip
    return partial


def _elliptic_angles(rows: TorqueFreeRows, t: np.ndarray, omega: np.ndarray, g: np.ndarray):
    # EulerPoinsot._precession_from_g, and θ, ψ read off Ω.
    phi = rows.L_norm / rows.linear_moment * t + rows.coefficient * (g - rows.g0)
    theta, psi, _ = _nutation_and_spin(rows, omega)
    return phi, theta, psi


def _periodic_omega_and_g(rows: TorqueFreeRows, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    # EulerPoinsot.omega_and_euler_angles' finite-K path: u reduced by 2K (j, r), then jacobi_sn_cn_dn(r), which
    # reduces r by 2K once more (j = 0 but at a rounding edge) and signs sn and cn by that j's parity.
    two_k = 2.0 * rows.quarter_period
    half_periods = np.rint(u / two_k)
    r = u - two_k * half_periods
    inner_periods = np.rint(r / two_k)
    chain = (list(rows.descent_moduli.T), list(rows.descent_one_minus.T), list(rows.descent_active.T))
    sn, cn, dn = _ascending(r - two_k * inner_periods, *chain, rows.descent_scale, power=libm_power)
    inner_sign = 1.0 - 2.0 * np.mod(inner_periods, 2.0)
    sn, cn = inner_sign * sn, inner_sign * cn
    sign = 1.0 - 2.0 * np.mod(half_periods, 2.0)
    omega = _omega_from_jacobi(rows, sign * sn, sign * cn, dn)
    return omega, _g_partial(rows, sn, cn) + 2.0 * half_periods * rows.complete_g


def _periodic(rows: TorqueFreeRows, t: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return _elliptic_angles(rows, t, *_periodic_omega_and_g(rows, rows.rate * t + rows.phase0))


def _tanh_sech(u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """jacobi_sn_cn_dn at m₁ = 0: ``tanh u`` and ``sech u = 2 e^{−|u|} / (1 + e^{−2|u|})``."""
    decay = np.exp(-np.abs(u))
    return np.tanh(u), 2.0 * decay / (1.0 + decay * decay)


def _separatrix_omega_and_g(rows: TorqueFreeRows, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    # EulerPoinsot.omega_principal and _g at K = inf: G of u clipped to ±saturation, plus its linear growth beyond.
    sn, sech = _tanh_sech(u)
    omega = _omega_from_jacobi(rows, sn, sech, sech)
    clipped = np.clip(u, -_SEPARATRIX_SATURATION, _SEPARATRIX_SATURATION)
    excess = np.where(rows.transformed, 1.0, 3.0) * (u - clipped) / (1.0 - rows.characteristic)
    sn, sech = _tanh_sech(clipped)
    return omega, _g_partial(rows, sn, sech) + excess


def _separatrix(rows: TorqueFreeRows, t: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return _elliptic_angles(rows, t, *_separatrix_omega_and_g(rows, rows.rate * t + rows.phase0))


def euler_angles(rows: TorqueFreeRows, t: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(φ, θ, ψ)`` (N,) of rows that are not constant, at times ``t`` (N,) s: each row's
    ``EulerPoinsot.euler_angles(np.array(t[k]))`` bit for bit."""
    phi, theta, psi = np.empty(len(rows)), np.empty(len(rows)), np.empty(len(rows))
    for kind, angles in _ANGLES:
        chosen = np.flatnonzero(rows.kind == kind)
        if chosen.size:
            part = rows if chosen.size == len(rows) else rows.take(chosen)
            phi[chosen], theta[chosen], psi[chosen] = angles(part, t[chosen])
    return phi, theta, psi


def precession_g(rows: TorqueFreeRows, u: np.ndarray) -> np.ndarray:
    """``G(u)`` (``Π(u)`` transformed) of elliptic rows at ``u`` (N,): each row's ``EulerPoinsot._g``, bit for bit
    (a periodic row's with its excess of 0 added: −0 becomes 0)."""
    g = np.empty(len(rows))
    for kind, omega_and_g in ((PERIODIC, _periodic_omega_and_g), (SEPARATRIX, _separatrix_omega_and_g)):
        chosen = np.flatnonzero(rows.kind == kind)
        if chosen.size:
            part = rows if chosen.size == len(rows) else rows.take(chosen)
            g[chosen] = omega_and_g(part, u[chosen])[1]
            if kind == PERIODIC:
                g[chosen] += 0.0
    return g


_ANGLES = ((AXISYMMETRIC, _axisymmetric), (PERIODIC, _periodic), (SEPARATRIX, _separatrix))
