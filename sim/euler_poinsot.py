"""The torque-free rigid body in closed form (Euler–Poinsot): body angular velocity and Euler angles.

Landau & Lifshitz, *Mechanics*, §37. Coordinates are principal: moments ``I1 ≤ I2 ≤ I3`` (kg m²) and
``Ω = (Ω1, Ω2, Ω3)`` (rad/s) along the principal axes, a right-handed frame. With ``2E = Σ Iₖ Ωₖ²`` and
``L² = Σ Iₖ² Ωₖ²`` the polhode circulates about the axis of the largest moment when ``L² > 2E I2`` and about the
axis of the smallest when ``L² < 2E I2``; ``L² = 2E I2`` is the separatrix. Call the axis it circulates about
``c`` and the other end axis ``e`` (``c, e = 3, 1`` or ``1, 3``). Then, with ``u = λ t + u₀``,

    Ω_c = σ A_c dn u          Ω_2 = σ s A_2 sn u          Ω_e = s A_e cn u          (σ = sign Ω_c, s = ±1)
    A_e² = Q / (I_e |I_c − I_e|)         A_2² = Q / (I2 |I_c − I2|)         A_c² = P / (I_c |I_c − I_e|)
    λ² = |I_c − I2| P / (I1 I2 I3)       m = |I2 − I_e| Q / (|I_c − I2| P)
    m₁ = 1 − m = |I_c − I_e| |L² − 2E I2| / (|I_c − I2| P)
    P = |L² − 2E I_e| = I2 |I2 − I_e| Ω2² + I_c |I_c − I_e| Ω_c²
    Q = |2E I_c − L²| = I_e |I_c − I_e| Ω_e² + I2 |I_c − I2| Ω2²

(L&L 37.10 for c = 3; c = 1 swaps the suffixes.) The sign pattern is the one the Euler equations allow: flipping
an even number of components maps solutions to solutions. ``P``, ``Q`` are sums of positive terms; ``L² − 2E I2``
cancels near the separatrix and is computed in exact rational arithmetic, so ``m₁`` keeps full relative precision.

**Euler angles.** The invariable frame has its z axis along L. Relabel the principal axes cyclically as
``(a, b, c)`` (``(1, 2, 3)`` or ``(2, 3, 1)``: still right-handed) and write the rotation invariable ← principal
as ``Rz(φ) Rx(θ) Rz(ψ)`` (L&L §35). Then (L&L 37.12–37.13)

    cos θ = I_c Ω_c / |L|      sin θ = √(I_a² Ω_a² + I_b² Ω_b²) / |L|      ψ = atan2(I_a Ω_a, I_b Ω_b)
    φ̇ = |L| (I_a Ω_a² + I_b Ω_b²) / (I_a² Ω_a² + I_b² Ω_b²)

Taking z along the axis the polhode circulates about keeps ``θ`` away from 0 and π (``sin θ`` vanishes only when
``Ω_e = Ω_2 = 0``, the steady spin), so the angles are smooth. See :meth:`EulerPoinsot.precession_angle` for ``φ``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, partial
from typing import TYPE_CHECKING

import numpy as np

from spinlab.sim.jacobi_elliptic import (
    carlson_rj_near_saddle,
    jacobi_sn_cn_dn,
    legendre_f,
    legendre_pi_by_conjugate,
    quarter_period,
    reduce_by_half_period,
)

if TYPE_CHECKING:
    from fractions import Fraction

__all__ = [
    "MOMENT_EQUALITY_RTOL",
    "LEAST_M_COMPLEMENT",
    "TRANSFORMED_CHARACTERISTIC",
    "principal_frame",
    "EulerPoinsot",
]

# Moments closer than this (relative to the largest) are equal: numpy.linalg.eigh resolves them no better.
MOMENT_EQUALITY_RTOL = 64 * np.finfo(float).eps

# Below this characteristic n the precession angle takes Π whole (DLMF 19.7.9; EulerPoinsot.precession_angle).
# Measured against mpmath: from n ~ −1e3 the plain form loses digits (−1e13: 7e-9 rad), the transformed one none;
# between −64 and −1 both are within an ulp or two of φ, and the plain form, kept there, keeps ordinary bodies' bits.
TRANSFORMED_CHARACTERISTIC = -64.0

# On the separatrix sn u = tanh u is 1 in float64 beyond |u| = 19; past this the integrand of φ is constant.
_SEPARATRIX_SATURATION = 40.0


def principal_frame(inertia_body: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Principal moments and axes of ``(..., 3, 3)`` symmetric positive definite body inertia tensors (kg m²).

    Returns ``moments`` ``(..., 3)`` ascending and ``axes_body`` ``(..., 3, 3)`` whose columns are the principal
    axes in body coordinates, a right-handed frame (``det = +1``): ``inertia_body = axes_body diag(moments)
    axes_bodyᵀ``. Moments within :data:`MOMENT_EQUALITY_RTOL` of each other are replaced by their mean.
    """
    moments, axes_body = np.linalg.eigh(np.asarray(inertia_body, dtype=float))
    flip = np.linalg.det(axes_body) < 0.0
    axes_body[..., :, 2] = np.where(flip[..., None], -axes_body[..., :, 2], axes_body[..., :, 2])
    tolerance = MOMENT_EQUALITY_RTOL * moments[..., 2]
    low, high = moments[..., 1] - moments[..., 0] <= tolerance, moments[..., 2] - moments[..., 1] <= tolerance
    every = moments[..., 2] - moments[..., 0] <= tolerance
    # The same sums as numpy's mean of three or two entries: ((a + b) + c) / 3 and (a + b) / 2.
    mean3 = (moments[..., 0] + moments[..., 1] + moments[..., 2]) / 3.0
    mean01 = (moments[..., 0] + moments[..., 1]) / 2.0
    mean12 = (moments[..., 1] + moments[..., 2]) / 2.0
    low, high = low & ~every, high & ~every & ~low
    moments[..., 0] = np.where(every, mean3, np.where(low, mean01, moments[..., 0]))
    moments[..., 1] = np.where(every, mean3, np.where(low, mean01, np.where(high, mean12, moments[..., 1])))
    moments[..., 2] = np.where(every, mean3, np.where(high, mean12, moments[..., 2]))
    return moments, axes_body


# Beyond 2^±this, Ω is scaled before it is squared (EulerPoinsot.solve). Within, it is not: numpy's x**2 is C's
# pow, whose rounding is not scale-free (Q differed by an ulp in 0.5 % of random states), so the bits stay Ω's own.
_UNSCALED_EXPONENT = 200


def _scale_exponent(omega: np.ndarray) -> np.ndarray:
    """0 where ``max |Ω|`` lies within ``2^±_UNSCALED_EXPONENT``, else ``k`` with ``max |Ω| = f 2^k``, ``f ∈ [1/2, 1)``,
    over the last axis of ``omega`` ``(..., 3)``: ``Ω 2^-k`` is exact and its squares neither underflow nor overflow.
    """
    exponent = np.frexp(np.max(np.abs(omega), axis=-1))[1]
    return np.where(np.abs(exponent) > _UNSCALED_EXPONENT, exponent, 0)


def _separatrix_gap(moments: np.ndarray, omega: np.ndarray) -> float:
    """``L² − 2E I2 = I3 (I3 − I2) Ω3² − I1 (I2 − I1) Ω1²``, exact to one rounding (rational arithmetic)."""
    return float(_separatrix_gap_exact(moments, omega))


def _separatrix_gap_exact(moments: np.ndarray, omega: np.ndarray) -> Fraction:
    """:func:`_separatrix_gap` before its rounding: its sign chooses the branch, and ``m₁`` is made from it
    (rounded, a state within ~1e-154 of the intermediate axis makes the gap subnormal, or 0 below ~1e-162)."""
    # Imported only here, next to the axis: fractions imports decimal, a cost for the rare case alone.
    from fractions import Fraction

    i1, i2, i3 = (Fraction(float(x)) for x in moments)
    w1, w3 = Fraction(float(omega[0])), Fraction(float(omega[2]))
    return i3 * (i3 - i2) * w3 * w3 - i1 * (i2 - i1) * w1 * w1


# The least positive double: an m₁ below it (Ω within ~1e-162 of the intermediate axis; only the library API can
# ask for that, scene files stop at 1e-50) is held here, not rounded to 0, which would be the separatrix.
LEAST_M_COMPLEMENT = 5e-324


@dataclass(frozen=True)
class EulerPoinsot:
    """The solved polhode of one body: ``Ω(t)`` and the Euler angles relative to the invariable frame.

    Build it with :meth:`solve`. ``kind`` is ``"constant"`` (rest, a sphere, or a steady spin about a principal
    axis of an asymmetric body: Ω never changes and the Euler angles are not used), ``"axisymmetric"`` (exactly
    two equal moments) or ``"elliptic"``. ``spin_axis`` is the principal index (0 or 2) of the Euler z axis ``c``
    (for a steady spin, the axis spun about). ``rate`` is ``λ`` (elliptic) or the body-frame precession rate
    ``ν`` (axisymmetric), rad/s. ``amplitudes`` are the signed coefficients of Ω's components in principal
    order (of ``cn, sn, dn`` when c = 3, of ``dn, sn, cn`` when c = 1), rad/s; ``phase0`` is ``u₀``; ``m`` and
    ``m_complement`` are the parameter and ``m₁ = 1 − m``, each computed without cancellation.
    ``L_norm`` (kg m²/s) and ``energy`` (J) are the invariants. Times are in seconds from the initial state.
    """

    moments: np.ndarray
    omega_principal0: np.ndarray
    kind: str
    spin_axis: int
    L_norm: float
    energy: float
    rate: float = 0.0
    amplitudes: np.ndarray | None = None
    phase0: float = 0.0
    m: float = 0.0
    m_complement: float = 1.0

    @classmethod
    def solve(cls, moments: np.ndarray, omega_principal0: np.ndarray) -> EulerPoinsot:
        """Solve for ascending principal ``moments`` ``(3,)`` and initial ``Ω`` ``(3,)`` in principal axes."""
        moments = np.asarray(moments, dtype=float)
        omega = np.asarray(omega_principal0, dtype=float)
        i1, i2, i3 = moments
        # Ω scaled by a power of two (exactly) where its largest component is beyond 2^±200 (:func:`_scale_exponent`):
        # no square below underflows or overflows (1e-160 rad/s made p = 0 and NaN, 1e155 made |L| inf); λ, |L|, E
        # and the amplitudes are scaled back, the rest is scale-free.
        exponent = int(_scale_exponent(omega))
        scaled = np.ldexp(omega, -exponent)
        with np.errstate(over="ignore"):  # E is inf where it is beyond the doubles (|Ω| ~ 1e154 and up)
            energy = float(np.ldexp(0.5 * np.sum(moments * scaled * scaled), 2 * exponent))
        made = partial(
            cls,
            moments=moments,
            omega_principal0=omega,
            L_norm=float(np.ldexp(np.linalg.norm(moments * scaled), exponent)),
            energy=energy,
        )
        if i1 == i3 or not np.any(omega):
            return made(kind="constant", spin_axis=2)
        if i1 == i2 or i2 == i3:
            # The symmetry axis c is the odd one out. With I_a = I_b = I_t the Euler equations in the cyclic
            # frame (a, b, c) read Ω̇_a = −ν Ω_b, Ω̇_b = ν Ω_a, Ω̇_c = 0, ν = (I_c − I_t) Ω_c / I_t (L&L §33).
            spin_axis = 2 if i1 == i2 else 0
            transverse = i2
            rate = (moments[spin_axis] - transverse) * omega[spin_axis] / transverse
            return made(kind="axisymmetric", spin_axis=spin_axis, rate=float(rate))
        if np.count_nonzero(scaled) == 1:
            # A steady spin about a principal axis (to within 2^-1074 of Ω): the elliptic formulas would divide 0
            # by 0.
            return made(kind="constant", spin_axis=int(np.flatnonzero(scaled)[0]))
        gap = _separatrix_gap_exact(moments, scaled)
        c, e = (2, 0) if gap >= 0 else (0, 2)
        i_c, i_e = moments[c], moments[e]
        d_ce, d_c2, d_2e = abs(i_c - i_e), abs(i_c - i2), abs(i2 - i_e)
        w_c, w_2, w_e = scaled[c], scaled[1], scaled[e]
        p = i2 * d_2e * w_2**2 + i_c * d_ce * w_c**2
        q = i_e * d_ce * w_e**2 + i2 * d_c2 * w_2**2
        rate = np.sqrt(d_c2 * p / (i1 * i2 * i3))
        m = d_2e * q / (d_c2 * p)
        m_complement = d_ce * abs(float(gap)) / (d_c2 * p)
        if not m_complement >= np.finfo(float).tiny and gap != 0:
            # Next to the axis (m₁ subnormal or 0 in floats): from the exact gap, rounded once, never 0 off the
            # separatrix. Only there: the rational arithmetic costs the exact integrator 5x a step.
            from fractions import Fraction

            exact = Fraction(float(d_ce)) * abs(gap) / (Fraction(float(d_c2)) * Fraction(float(p)))
            m_complement = max(float(exact), LEAST_M_COMPLEMENT)
        # Amplitudes as hypot of the components (the same sums as Q/(I_e|I_c−I_e|) etc., without underflow).
        a_e = np.hypot(w_e, np.sqrt(i2 * d_c2 / (i_e * d_ce)) * w_2)
        a_2 = np.hypot(np.sqrt(i_e * d_ce / (i2 * d_c2)) * w_e, w_2)
        a_c = np.hypot(np.sqrt(i2 * d_2e / (i_c * d_ce)) * w_2, w_c)
        sigma = 1.0 if w_c > 0.0 else -1.0
        s = 1.0 if w_e >= 0.0 else -1.0
        # Phase: cn u₀ = |Ω_e|/A_e ≥ 0 puts u₀ in [−K, K], where u₀ = F(am u₀ | m).
        phase0 = float(legendre_f(sigma * s * w_2 / a_2, abs(w_e) / a_e, m_complement))
        amplitudes = np.empty(3)
        amplitudes[e], amplitudes[1], amplitudes[c] = s * a_e, sigma * s * a_2, sigma * a_c
        return made(
            kind="elliptic",
            spin_axis=c,
            rate=float(np.ldexp(rate, exponent)),
            amplitudes=np.ldexp(amplitudes, exponent),
            phase0=phase0,
            m=float(m),
            m_complement=float(m_complement),
        )

    @property
    def euler_axes(self) -> tuple[int, int, int]:
        """Principal indices ``(a, b, c)`` of the Euler frame's x, y, z axes: a cyclic (right-handed) relabelling."""
        return (0, 1, 2) if self.spin_axis == 2 else (1, 2, 0)

    @cached_property
    def quarter_period(self) -> float:
        """``K(m)`` of the elliptic solution (``inf`` on the separatrix); kept, as each time's reduction needs it."""
        return quarter_period(self.m_complement)

    @property
    def flip_period(self) -> float:
        """The period of ``Ω(t)`` in seconds: ``4K(m)/λ``; ``2π/|ν|`` for an axisymmetric body; else ``inf``.

        ``inf`` on the separatrix, for a sphere, at rest and for a steady spin about a principal axis of an
        axisymmetric body with ``ν = 0``. For a steady spin about the largest or smallest axis of an asymmetric
        body it is 4K(0)/λ, the period of a small wobble about that spin (the limit along nearby polhodes).
        """
        if self.kind == "elliptic":
            return 4.0 * self.quarter_period / self.rate
        if self.kind == "axisymmetric" and self.rate != 0.0:
            return 2.0 * np.pi / abs(self.rate)
        steady = self.kind == "constant" and np.count_nonzero(self.omega_principal0) == 1
        if steady and self.spin_axis != 1 and self.moments[0] < self.moments[2]:
            # λ² at P = I_c |I_c − I_e| Ω_c², Ω2 = 0: (I_c − I2)(I_c − I_e) Ω_c² / (I_e I2), and K(0) = π/2.
            i_c, i_e, i2 = self.moments[self.spin_axis], self.moments[2 - self.spin_axis], self.moments[1]
            rate = abs(self.omega_principal0[self.spin_axis]) * np.sqrt((i_c - i2) * (i_c - i_e) / (i_e * i2))
            return 2.0 * np.pi / rate
        return np.inf

    def _jacobi(self, t: np.ndarray) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """``u = λ t + u₀`` and ``sn, cn, dn`` at it, for ``t`` of any shape."""
        u = self.rate * np.asarray(t, dtype=float) + self.phase0
        return u, jacobi_sn_cn_dn(u, self.m, self.m_complement)

    def omega_principal(self, t: np.ndarray) -> np.ndarray:
        """Body angular velocity in principal axes at times ``t`` ``(T,)`` (s): ``(T, 3)``, rad/s."""
        t = np.asarray(t, dtype=float)
        if self.kind == "constant":
            return np.broadcast_to(self.omega_principal0, t.shape + (3,)).copy()
        if self.kind == "axisymmetric":
            a, b, c = self.euler_axes
            angle = self.rate * t
            cos_angle, sin_angle = np.cos(angle), np.sin(angle)
            omega = np.empty(t.shape + (3,))
            omega[..., a] = self.omega_principal0[a] * cos_angle - self.omega_principal0[b] * sin_angle
            omega[..., b] = self.omega_principal0[a] * sin_angle + self.omega_principal0[b] * cos_angle
            omega[..., c] = self.omega_principal0[c]
            return omega
        _, (sn, cn, dn) = self._jacobi(t)
        return self._omega_from_jacobi(sn, cn, dn)

    def _omega_from_jacobi(self, sn: np.ndarray, cn: np.ndarray, dn: np.ndarray) -> np.ndarray:
        """Elliptic ``Ω`` ``(..., 3)`` from ``sn, cn, dn`` at ``u = λ t + u₀``."""
        functions = [dn, sn, cn] if self.spin_axis == 0 else [cn, sn, dn]
        amplitudes = self.amplitudes
        assert amplitudes is not None, "an elliptic polhode has its amplitudes"
        return np.stack([amplitudes[k] * functions[k] for k in range(3)], axis=-1)

    def precession_angle(self, t: np.ndarray) -> np.ndarray:
        """Euler angle ``φ(t)`` (rad) about L, with ``φ(0) = 0``, in closed form.

        Writing ``φ̇ = |L| (2E − I_c Ω_c²) / (L² − I_c² Ω_c²)`` and using ``L² − I_c² A_c² = I_e² A_e²`` (the state at
        ``sn u = 0``) and ``dn² = 1 − m sn²`` gives
        ``φ̇ = |L|/I_c + |L| (I_c − I_e)/(I_c I_e) · 1/(1 − n sn² u)`` with the constant ``n = −I_c |I2 − I_e| /
        (I_e |I_c − I2|) < 0``. So ``φ = |L| t / I_c + |L| (I_c − I_e)/(I_c I_e λ) [Π(n; am u | m)]`` from ``u₀``,
        and with Carlson's form ``Π(n; am u) = u + (n/3) G(u)`` (DLMF 19.25.14, 19.25.2),

            G(u) = 2j R_J(0, m₁, 1, 1 − n) + sn³ r R_J(cn² r, dn² r, 1, 1 − n sn² r),     u = 2K j + r, |r| ≤ K,

        ``φ(t) = |L| t / I_e + |L| (I_c − I_e) n / (3 I_c I_e λ) (G(u) − G(u₀))``. Every ``R_J`` argument is positive
        (``n < 0``), so there is no principal value; ``dn² = cn² + m₁ sn²`` keeps accuracy near the separatrix.

        **Nearly symmetric, about a near-equal axis** (``n`` below :data:`TRANSFORMED_CHARACTERISTIC`: ``|I_c − I2|``
        small beside ``|I2 − I_e|``). There ``λ ∝ √|I_c − I2|`` is small, ``Π`` is ``O(1/√|n|)`` and ``(n/3) G ≈ −u``:
        the absolute rounding of ``u`` (``ε K``, carried by ``sn r``, ``cn r``) reaches ``φ`` multiplied by
        ``|L| (I_c − I_e)/(I_c I_e λ)``, ~``√|n|`` times the motion's own scale (up to 7e-9 rad at ``n ~ −1e13``).
        So ``Π`` is taken whole by DLMF 19.7.9 (:func:`~sim.jacobi_elliptic.legendre_pi_by_conjugate`), in which
        ``u`` has cancelled, and ``φ(t) = |L| t / I_c + |L| (I_c − I_e)/(I_c I_e λ) (Π(u) − Π(u₀))``, with
        ``Π(u) = 2j Π(n | m) + Π(n; am r | m)``.
        """
        t = np.asarray(t, dtype=float)
        if self.kind == "axisymmetric":
            # I_a = I_b = I_t in φ̇ above: a steady precession about L.
            return self.L_norm / self.moments[1] * t
        return self._precession_from_g(t, self._g(self.rate * t + self.phase0))

    def _precession_from_g(self, t: np.ndarray, g: np.ndarray) -> np.ndarray:
        """``φ(t)`` of :meth:`precession_angle` from ``G(u)`` (or ``Π(u)``, transformed) at ``u = λ t + u₀``."""
        coefficient, g0, moment = self._precession_constants
        return self.L_norm / moment * t + coefficient * (g - g0)

    @cached_property
    def _precession_constants(self) -> tuple[float, np.ndarray, float]:
        """The coefficient of ``G`` (or ``Π``) in :meth:`precession_angle`, its value at ``u₀`` and the moment
        (``I_e``, or ``I_c`` transformed) that divides ``|L| t``: constants of the motion."""
        i_c, i_e = self.moments[self.spin_axis], self.moments[2 - self.spin_axis]
        if self._transformed:
            coefficient = self.L_norm * (i_c - i_e) / (i_c * i_e * self.rate)
            return coefficient, self._g(np.array(self.phase0)), i_c
        coefficient = self.L_norm * (i_c - i_e) * self._characteristic / (3.0 * i_c * i_e * self.rate)
        return coefficient, self._g(np.array(self.phase0)), i_e

    @cached_property
    def _characteristic(self) -> float:
        """``n = −I_c |I2 − I_e| / (I_e |I_c − I2|) < 0`` of :meth:`precession_angle`."""
        i_c, i2, i_e = self.moments[self.spin_axis], self.moments[1], self.moments[2 - self.spin_axis]
        return -i_c * abs(i2 - i_e) / (i_e * abs(i_c - i2))

    @property
    def _transformed(self) -> bool:
        """Whether :meth:`precession_angle` takes ``Π`` whole (DLMF 19.7.9) rather than ``G``."""
        return self._characteristic < TRANSFORMED_CHARACTERISTIC

    @cached_property
    def _complete_g(self) -> float:
        """``R_J(0, m₁, 1, 1 − n)``: ``G`` grows by twice this every half-period ``2K`` (finite ``K`` only); the
        complete ``Π(n | m)`` when transformed."""
        n = self._characteristic
        if self._transformed:
            return float(legendre_pi_by_conjugate(1.0, 0.0, self.m_complement, n, self.m / n))
        return float(carlson_rj_near_saddle(0.0, 1.0, self.m_complement, 1.0 - n))

    def _g(self, u: np.ndarray) -> np.ndarray:
        """``G(u)`` of :meth:`precession_angle`: ``3 (Π(n; am u | m) − u) / n``; ``Π(n; am u | m)`` transformed."""
        n = self._characteristic
        K = self.quarter_period
        excess = np.zeros_like(u)
        if not np.isfinite(K):
            # Separatrix: beyond saturation 1/(1 − n tanh² u) = 1/(1 − n) exactly, so Π grows by Δu/(1 − n) and
            # G linearly too: (n/3) ΔG = Δu/(1 − n) − Δu.
            clipped = np.clip(u, -_SEPARATRIX_SATURATION, _SEPARATRIX_SATURATION)
            excess = (1.0 if self._transformed else 3.0) * (u - clipped) / (1.0 - n)
            u = clipped
        half_periods, r = reduce_by_half_period(u, K)
        sn, cn, _ = jacobi_sn_cn_dn(r, self.m, self.m_complement)
        return self._g_reduced(half_periods, sn, cn) + excess

    def _g_reduced(self, half_periods: np.ndarray, sn: np.ndarray, cn: np.ndarray) -> np.ndarray:
        """``G(u)`` (``Π(u)`` transformed) for ``u = 2K j + r`` from ``j`` and ``sn r``, ``cn r`` (``|r| ≤ K``; on
        the separatrix ``j = 0`` and ``r = u``, clipped)."""
        n = self._characteristic
        if self._transformed:
            partial = legendre_pi_by_conjugate(sn, cn, self.m_complement, n, self.m / n)
        else:
            partial = sn**3 * carlson_rj_near_saddle(cn, sn, self.m_complement, 1.0 - n * sn * sn)
        if np.isfinite(self.quarter_period):
            partial = partial + 2.0 * half_periods * self._complete_g
        return partial

    def euler_angles(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(φ, θ, ψ)`` at times ``t``: the rotation invariable ← Euler frame is ``Rz(φ) Rx(θ) Rz(ψ)``.

        The Euler frame is the principal frame relabelled as :attr:`euler_axes`. Not defined for ``"constant"``.
        """
        return self.omega_and_euler_angles(t)[1]

    def omega_and_euler_angles(self, t: np.ndarray) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """:meth:`omega_principal` and :meth:`euler_angles` at times ``t`` together (the angles are read off Ω, so
        it is evaluated once). Not defined for ``"constant"``."""
        t = np.asarray(t, dtype=float)
        a, b, c = self.euler_axes
        if self.kind == "elliptic" and np.isfinite(self.quarter_period):
            # One evaluation of sn, cn, dn serves Ω and φ: jacobi_sn_cn_dn(u) is sn, cn, dn at the reduced
            # r = u − 2K j, with sn and cn signed by the parity of j (sim/jacobi_elliptic.py), and G takes them at r.
            half_periods, r = reduce_by_half_period(self.rate * t + self.phase0, self.quarter_period)
            sn, cn, dn = jacobi_sn_cn_dn(r, self.m, self.m_complement)
            sign = 1.0 - 2.0 * np.mod(half_periods, 2.0)
            omega = self._omega_from_jacobi(sign * sn, sign * cn, dn)
            phi = self._precession_from_g(t, self._g_reduced(half_periods, sn, cn))
        else:
            omega, phi = self.omega_principal(t), self.precession_angle(t)
        momentum = self.moments * omega
        theta = np.arctan2(np.hypot(momentum[..., a], momentum[..., b]), momentum[..., c])
        if self.kind == "axisymmetric":
            # ψ = atan2(Ω_a, Ω_b) turns at −ν: written so, it is continuous in t.
            psi = np.arctan2(self.omega_principal0[a], self.omega_principal0[b]) - self.rate * t
        else:
            psi = np.arctan2(momentum[..., a], momentum[..., b])
        return omega, (phi, theta, psi)
