"""The heavy symmetric (Lagrange) top in closed form: the ground truth for a body turning about a pivot under gravity.

``q`` is a unit quaternion ``(w, x, y, z)``, body → world; ``ω`` the world angular velocity. The body turns about a
fixed pivot; ``inertia_body`` is its tensor about the pivot (kg m², body frame) with two equal principal moments
``I1 = I2`` about axes across the symmetry axis ``e`` and ``I3`` about it, and its centre of mass lies on ``e`` at
``c = l e`` from the pivot (``l > 0`` m, ``e`` turned to point at the centre of mass). Gravity ``g`` (m/s², any
world direction) pulls it with the torque ``τ = (O c) × m g``, as in :mod:`sim.world`.

**Equations** (Goldstein §5.7, Landau & Lifshitz §35). The orientation is composed from four frames:

    world  ←  vertical frame  ←  Euler frame  ←  body
           fixed, z = up = −g/|g|   Rz(φ) Rx(θ) Rz(ψ)   (e₁, e₂, e): z along the symmetry axis

so ``u = cos θ`` is the height of the axis ``n = O e``. With ``a = p_ψ/I1``, ``b = p_φ/I1``, ``β = 2 m |g| l / I1``
and the conserved ``p_ψ = I3 ω·n`` (axial momentum), ``p_φ = L·up`` (vertical momentum about the pivot) and
energy ``E = ½ ω·L + m |g| l u``, the axis obeys ``u̇² = f(u) = (1 − u²)(α − β u) − (b − a u)²``, a cubic with
roots ``−1 ≤ u1 ≤ u2 ≤ 1 ≤ u3``. Then ``u = u1 + (u2 − u1) sn²(λ t + v₀ | m)`` with ``λ = ½ √(β (u3 − u1))``,
``m = (u2 − u1)/(u3 − u1)``: the nutation, period ``2K(m)/λ``. The angles turn at ``φ̇ = (b − a u)/(1 − u²)`` and
``ψ̇ = p_ψ/I3 − u φ̇``. Splitting ``1/(1 − u²)`` into partial fractions gives the two smooth combinations

    φ̇ + ψ̇ = (p_ψ/I3 − a) + (b + a)/(1 + u)        φ̇ − ψ̇ = (a − p_ψ/I3) + (b − a)/(1 − u)

(``φ + ψ`` is smooth where the axis passes near the upward vertical, ``φ − ψ`` near the downward one: the
quaternion of ``Rz(φ) Rx(θ) Rz(ψ)`` weighs them by ``cos θ/2`` and ``sin θ/2``). With ``1 ∓ u = (1 ∓ u1)(1 − n± sn²)``,
``n± = ±(u2 − u1)/(1 ∓ u1)``, each is an elliptic integral of the third kind,
``∫ dv/(1 − n sn² v) = Π(n; am v | m) = v + (n/3) G(v)``, with Carlson's form (DLMF 19.25.14)

    G(v) = 2j R_J(0, m₁, 1, 1 − n) + sn³ r R_J(cn² r, dn² r, 1, cn² r + (1 − n) sn² r),     v = 2K j + r, |r| ≤ K,

the same as :mod:`sim.euler_poinsot`'s: a mean rate times ``t`` plus a periodic part, so the angles stay exact over
any number of periods. Every ``R_J`` argument is positive (``n ≤ 1``) and written without cancellation. For
``n < −1`` (an axis passing near the downward vertical) ``v`` and ``(n/3) G`` would cancel, and ``Π`` is taken
whole by DLMF 19.7.9 instead (:func:`sim._lagrange_top_angles.periodic_part`). ``ω = 2 q̇ ⊗ q*`` comes from
the derivative of the same quaternion, whose terms stay bounded near a vertical where ``φ̇`` and ``ψ̇`` alone do
not.

The initial state is reduced to these constants in :mod:`sim._lagrange_top_initial` (the cubic's roots without
cancellation, and the case analysis), and the angles' elliptic integrals are in :mod:`sim._lagrange_top_angles`.

Degenerate cases: an exactly steady precession has ``m = 0`` and needs nothing special; a top spinning about
the vertical (upright or hanging: "sleeping") turns uniformly, ``q(t) = exp(ω t/2) ⊗ q0``; a motion that passes
exactly through a vertical (``b = ± a`` with ``u = ±1`` a turning point, e.g. a non-spinning top released from rest
swinging through the bottom) jumps the singular combination by π at each passage, as the limit requires. Refused
(:meth:`LagrangeTopSolution.applies` says why): a body that is not a symmetric heavy top, an axis starting exactly
vertical while tilting (within :data:`VERTICAL_SIN`, or within :data:`NEAR_VERTICAL_RATIO` of the swing: the
Euler angles are singular at ``t = 0``), and roots
``u2 ≈ u3 = 1`` within :data:`COLLISION_M1` (the nutation period diverges).

**Accuracy** (measured by tests/sim/test_lagrange_top.py): against scipy's DOP853 at rtol = atol = 1e-13 on the
body equations ``I Ω̇ = (I Ω) × Ω + m c × Oᵀ g``, ``q̇ = ½ q ⊗ (0, Ω)``, over 10 nutation periods of heavy_top and
of 15 other tops with their axes and gravity turned at random (cusp, looping, steep, shallow, fast, slow, steady
precession, 1e-5 rad from the upward vertical, hanging, swinging exactly through and 1e-7 rad past the bottom,
I1 = I3, general), the orientation agrees to 5e-11 rad at worst and 1e-11 typically (heavy_top: 6e-12), ``ω``
to 2e-11 of its largest value. The worst cases are the ODE's error: against DOP853 at its tightest
(rtol 2.5e-14) the slow top agrees to 4e-12. ``E``, ``p_φ``, ``p_ψ`` stay within 1e-14 of their values (relative
to ``|E| + m |g| l`` and ``|L|``) over 1000 s; ``q(0) = q0`` and ``ω(0) = ω0`` to a few ulps. An evaluation's cost
is mostly sim/carlson.py's ``R_J`` (twice per time, in extended precision): dearer than scipy's, a few ulps more
exact, and without scipy's import.

Example::

    solution = LagrangeTopSolution.from_state(np.diag([0.42, 0.42, 0.125]), 1.0, [0, 0, 0.6], [0, 0, -9.81],
                                              quat_exp([np.pi / 6, 0, 0]), [0, -12.5, 21.7])
    t = np.linspace(0.0, 10.0, 1001)
    q, omega_world = solution.orientation_and_omega_world(t)        # (1001, 4), (1001, 3)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from spinlab.sim._lagrange_top_angles import Combination, chain_apply, passages, periodic_part
from spinlab.sim._lagrange_top_initial import COLLISION_M1, NEAR_VERTICAL_RATIO, SYMMETRY_RTOL, VERTICAL_SIN, solve
from spinlab.sim.jacobi_elliptic import jacobi_sn_cn_dn, quarter_period, reduce_by_half_period
from spinlab.sim.quaternion import quat_conj, quat_exp, quat_mul, quat_rotate
from spinlab.sim.vector import Mat3, Quat, Vec3, dot

__all__ = [
    "SYMMETRY_RTOL",
    "VERTICAL_SIN",
    "NEAR_VERTICAL_RATIO",
    "COLLISION_M1",
    "LagrangeTopSolution",
    "lagrange_top_from_body",
]


@dataclass(frozen=True)
class LagrangeTopSolution:
    """The closed-form motion of one heavy symmetric top from its initial state, at any array of times.

    Inputs as given: ``inertia_body`` (3, 3) kg m² about the pivot, ``mass`` kg, ``com_from_pivot_body`` (3,) m,
    ``gravity_world`` (3,) m/s², ``q0`` (4,), ``omega_world0`` (3,) rad/s. Derived: ``axis_body`` (3,) the unit
    symmetry axis toward the centre of mass, ``transverse_moment`` I1 and ``axial_moment`` I3 (kg m²), ``arm`` l (m),
    ``up_world`` (3,) = −g/|g|; the invariants ``energy`` (J, kinetic plus potential, zero height at the pivot),
    ``L_vertical`` = p_φ and ``L_axis`` = p_ψ (kg m²/s); ``kind``, "nutating" or "sleeping" (spinning about the
    vertical); ``cos_theta_roots`` (u1, u2, u3), the Jacobi ``rate`` λ (rad/s), ``m``, ``m_complement`` and
    ``phase0`` v₀. Build it with :meth:`from_state` or :func:`lagrange_top_from_body`. Times ``t`` are seconds from
    the initial state, an array of any shape (results get a trailing axis). One body per instance.
    """

    inertia_body: Mat3
    mass: float
    com_from_pivot_body: Vec3
    gravity_world: Vec3
    q0: Quat
    omega_world0: Vec3
    axis_body: Vec3
    transverse_moment: float
    axial_moment: float
    arm: float
    up_world: Vec3
    energy: float
    L_vertical: float
    L_axis: float
    kind: str
    cos_theta_roots: tuple[float, float, float] = (np.nan, np.nan, np.nan)
    rate: float = 0.0
    m: float = 0.0
    m_complement: float = 1.0
    phase0: float = 0.0
    _nutation_depth: float = 0.0  # u2 − u1, computed without cancellation
    _b_plus_minus_a: tuple[float, float] = (0.0, 0.0)  # (p_φ ± p_ψ)/I1, rad/s
    _spin_excess: float = 0.0  # p_ψ/I3 − p_ψ/I1, rad/s
    _combinations: tuple[Combination, Combination] | None = None  # (φ + ψ)/2, (φ − ψ)/2
    _chain: np.ndarray | None = None  # (4, 4): row k is q_world_vertical ⊗ e_k ⊗ q_body_euler* (as in sim/exact.py)

    @classmethod
    def applies(cls, inertia_body, mass, com_from_pivot_body, gravity_world, q0, omega_world0) -> str | None:
        """``None`` when the closed form applies to this body and state, else the reason it does not (one line)."""
        result = _solve(inertia_body, mass, com_from_pivot_body, gravity_world, q0, omega_world0)
        return result if isinstance(result, str) else None

    @classmethod
    def from_state(cls, inertia_body, mass, com_from_pivot_body, gravity_world, q0, omega_world0):
        """Solve for ``inertia_body`` (3, 3) kg m² about the pivot, ``mass`` kg, ``com_from_pivot_body`` (3,) m,
        ``gravity_world`` (3,) m/s², ``q0`` (4,) unit and ``omega_world0`` (3,) rad/s. Raises ``ValueError`` with
        the reason of :meth:`applies` when the closed form does not apply."""
        result = _solve(inertia_body, mass, com_from_pivot_body, gravity_world, q0, omega_world0)
        if isinstance(result, str):
            raise ValueError(result)
        return result

    @property
    def nutation_period(self) -> float:
        """Period of ``θ(t)`` in s, ``2K(m)/λ`` (``inf`` for a sleeping top)."""
        return np.inf if self.kind == "sleeping" else 2.0 * quarter_period(self.m_complement) / self.rate

    @property
    def mean_precession_rate(self) -> float:
        """The mean of ``φ̇`` over a nutation period, rad/s about ``up_world`` (0 for a sleeping top)."""
        if self.kind == "sleeping":
            return 0.0
        period = self.nutation_period
        total = 0.0
        combinations, _ = self._nutation
        for part in combinations:
            # Over one period P grows by part.growth; a passage through the vertical adds π.
            growth = 0.5 * part.coefficient * part.growth + (0.0 if part.passage is None else np.pi)
            total += 0.5 * part.rate + growth / period
        return total

    @property
    def _nutation(self) -> tuple[tuple[Combination, Combination], np.ndarray]:
        """``_combinations`` and ``_chain``, which :func:`_solve` sets for every nutating top."""
        assert self._combinations is not None and self._chain is not None, "a nutating top has both"
        return self._combinations, self._chain

    def orientation(self, t: np.ndarray) -> np.ndarray:
        """Orientation ``q(t)`` ``(T, 4)``, unit, body → world; ``q(0) = q0`` to rounding."""
        return self.orientation_and_omega_world(t)[0]

    def omega_world(self, t: np.ndarray) -> np.ndarray:
        """World angular velocity ``ω(t)`` ``(T, 3)``, rad/s, world frame; ``ω(0) = ω0`` to rounding."""
        return self.orientation_and_omega_world(t)[1]

    def orientation_and_omega_world(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`orientation` ``(T, 4)`` and :meth:`omega_world` ``(T, 3)`` from one evaluation."""
        t = np.asarray(t, dtype=float)
        if self.kind == "sleeping":
            # The axis is vertical, so there is no torque, and ω along it keeps it so: a uniform rotation.
            q = quat_mul(quat_exp(t[..., None] * self.omega_world0), self.q0)
            return q, np.broadcast_to(self.omega_world0, t.shape + (3,)).copy()
        combinations, chain = self._nutation
        K = quarter_period(self.m_complement)
        v = self.rate * t + self.phase0
        half_periods, r = reduce_by_half_period(v, K)
        sn, cn, dn = jacobi_sn_cn_dn(r, self.m, self.m_complement)
        sn2, cn2 = sn * sn, cn * cn
        start_reduced = reduce_by_half_period(self.phase0, K)
        half_angles, heights = [], []
        for part in combinations:
            angle = part.start + 0.5 * part.rate * t
            if part.coefficient != 0.0:
                periodic = periodic_part(part, half_periods, sn, sn2, cn2, self.m_complement)
                angle = angle + 0.5 * part.coefficient * (periodic - part.p0)
            if part.passage is not None:
                # Exactly through the vertical: the combination turns by π at each passage (the limit of the
                # term above as b ∓ a → 0), at r = 0 (the bottom, u1 = −1) or r = ±K (the top, u2 = 1).
                angle = angle + np.pi * (passages(part, half_periods, r) - passages(part, *start_reduced))
            half_angles.append(angle)
            # 1 ± u = (1 ± u1) cn² + (1 ± u2) sn²: a sum of non-negative terms.
            heights.append(part.height_roots[0] * cn2 + part.height_roots[1] * sn2)
        half_sum, half_difference = half_angles
        one_plus_u, one_minus_u = heights
        # ω = 2 q̇ ⊗ q*, with q̇ = Σ_k ṙ_k chain[k] (the chain is linear in r). With c, s = cos θ/2, sin θ/2:
        # ċ = u̇/(4c), ṡ = −u̇/(4s), u̇ = 2 (u2 − u1) λ sn cn dn (the signs of sn and cn at v = 2K j + r cancel in
        # the product, so it is taken at r), and c Σ̇ = ½ c (p_ψ/I3 − a) + (b + a)/(4c),
        # s Δ̇ = −½ s (p_ψ/I3 − a) + (b − a)/(4s) from φ̇ ± ψ̇ above. Each term stays bounded and keeps its digits
        # near a vertical, where φ and ψ alone do not (u̇² ≤ β (1 ± u)(…) and (b ± a)² = β (1 ± u1)(…)).
        cos_half_theta, sin_half_theta = np.sqrt(0.5 * one_plus_u), np.sqrt(0.5 * one_minus_u)
        height_rate = 2.0 * self._nutation_depth * self.rate * sn * cn * dn
        b_plus_a, b_minus_a = self._b_plus_minus_a
        low, high = combinations
        if low.passage is None:
            sum_rate = 0.5 * self._spin_excess * cos_half_theta + b_plus_a / (4.0 * cos_half_theta)
            cos_rate = height_rate / (4.0 * cos_half_theta)
        else:
            # 1 + u1 = 0: c = √((1 + u2)/2) |sn| and ċ = (u2 − u1) λ ±cn dn / (2 √((1 + u2)/2)), + after the passage.
            sign = np.where(sn >= 0.0, 1.0, -1.0)
            cos_rate = self._nutation_depth * self.rate * sign * cn * dn / (2.0 * np.sqrt(0.5 * low.height_roots[1]))
            sum_rate = 0.5 * self._spin_excess * cos_half_theta
        if high.passage is None:
            difference_rate = -0.5 * self._spin_excess * sin_half_theta + b_minus_a / (4.0 * sin_half_theta)
            sin_rate = -height_rate / (4.0 * sin_half_theta)
        else:
            # 1 − u2 = 0: s = √((1 − u1)/2) cn (cn ≥ 0 at r) and ṡ = −(u2 − u1) λ sn dn / (2 √((1 − u1)/2)).
            sin_rate = -self._nutation_depth * self.rate * sn * dn / (2.0 * np.sqrt(0.5 * high.height_roots[0]))
            difference_rate = -0.5 * self._spin_excess * sin_half_theta
        cos_sum, sin_sum = np.cos(half_sum), np.sin(half_sum)
        cos_difference, sin_difference = np.cos(half_difference), np.sin(half_difference)
        # r of Rz(φ) Rx(θ) Rz(ψ), as in zxz_half_angles.
        r = np.stack(
            [
                cos_half_theta * cos_sum,
                sin_half_theta * cos_difference,
                sin_half_theta * sin_difference,
                cos_half_theta * sin_sum,
            ],
            axis=-1,
        )
        q = chain_apply(chain, r)
        r_rate = np.stack(
            [
                cos_rate * cos_sum - sum_rate * sin_sum,
                sin_rate * cos_difference - difference_rate * sin_difference,
                sin_rate * sin_difference + difference_rate * cos_difference,
                cos_rate * sin_sum + sum_rate * cos_sum,
            ],
            axis=-1,
        )
        return q, 2.0 * quat_mul(chain_apply(chain, r_rate), quat_conj(q))[..., 1:]

    def invariants(self, q: np.ndarray, omega_world: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(E, p_φ, p_ψ)`` of states ``q`` ``(..., 4)`` and ``omega_world`` ``(..., 3)``, in J, kg m²/s, kg m²/s:
        the energy (zero height at the pivot), the vertical and the axial angular momentum about the pivot."""
        q, omega_world = np.asarray(q, dtype=float), np.asarray(omega_world, dtype=float)
        omega_body = quat_rotate(quat_conj(q), omega_world)
        L_world = quat_rotate(q, omega_body @ np.asarray(self.inertia_body).T)
        axis_world = quat_rotate(q, np.broadcast_to(self.axis_body, omega_body.shape))
        weight = self.mass * float(np.linalg.norm(self.gravity_world)) * self.arm
        energy = 0.5 * dot(omega_world, L_world) + weight * dot(axis_world, self.up_world)
        return energy, dot(L_world, self.up_world), dot(L_world, axis_world)


def lagrange_top_from_body(
    inertia_body: Mat3, mass: float, com_from_pivot_body: Vec3, gravity_world: Vec3, q0: Quat, omega_world0: Vec3
) -> LagrangeTopSolution | None:
    """The closed form for a pivoted body under gravity, or ``None`` (never an exception) when there is none: the
    body is not a symmetric heavy top within :data:`SYMMETRY_RTOL` (unequal transverse moments, centre of mass off
    the axis or at the pivot, no gravity) or the state is one :meth:`LagrangeTopSolution.applies` refuses.
    Arguments as :meth:`LagrangeTopSolution.from_state`."""
    try:
        result = _solve(inertia_body, mass, com_from_pivot_body, gravity_world, q0, omega_world0)
    except (TypeError, ValueError):
        return None
    return None if isinstance(result, str) else result


def _solve(inertia_body, mass, com_from_pivot_body, gravity_world, q0, omega_world0) -> LagrangeTopSolution | str:
    """The :class:`LagrangeTopSolution`, or the reason there is none (a string)."""
    fields = solve(inertia_body, mass, com_from_pivot_body, gravity_world, q0, omega_world0)
    return fields if isinstance(fields, str) else LagrangeTopSolution(**fields)
