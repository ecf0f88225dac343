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
whole by DLMF 19.7.9 instead (:func:`_periodic`). ``ω = 2 q̇ ⊗ q*`` comes from the derivative of the same
quaternion, whose terms stay bounded near a vertical where ``φ̇`` and ``ψ̇`` alone do not.

The cubic is solved in ``w = u − u0`` about the initial height, with coefficients read off the state
(``f(u0) = u̇0²``): its largest root by Newton's method from above (monotone), the other two from Vieta's
product and sum (their product ``−u̇0²/(β w3) ≤ 0`` has no cancellation), then ``1 ± u`` at the roots, which
near a vertical are also given by ``f(±1) = −(b ∓ a)²``, whichever rounds less. Near a vertical every small
quantity (``1 ∓ u0``, ``b ∓ a``, ``u̇0``) is read from the components of the state across the axis, so it keeps
the digits of its own size. So a top started at a turning point (``u̇0 = 0``: the cusp case), near steady
precession (``u1 ≈ u2``, where the roots of ``f`` are ill-conditioned but those of its deflated quadratic are
not) and near a vertical (measured to 1e-13 rad, where the swing stays as small) keep full accuracy. Motions near
the unstable upright separatrix (``m₁ ≲ 1e-6``: a top balanced near upright, barely spinning) are as
ill-conditioned as their physics: there DOP853 at rtol 1e-13 and 2.5e-14 differ more than either does from this.

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
to ``|E| + m |g| l`` and ``|L|``) over 1000 s; ``q(0) = q0`` and ``ω(0) = ω0`` to a few ulps. Evaluating 10⁴ times
takes about 6 ms, most of it in scipy's ``elliprj`` (twice per time).

Example::

    solution = LagrangeTopSolution.from_state(np.diag([0.42, 0.42, 0.125]), 1.0, [0, 0, 0.6], [0, 0, -9.81],
                                              quat_exp([np.pi / 6, 0, 0]), [0, -12.5, 21.7])
    t = np.linspace(0.0, 10.0, 1001)
    q, omega_world = solution.orientation_and_omega_world(t)        # (1001, 4), (1001, 3)
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from scipy.special import elliprc, elliprj

from sim.jacobi_elliptic import jacobi_sn_cn_dn, legendre_f, quarter_period, reduce_by_half_period
from sim.quaternion import quat_conj, quat_exp, quat_from_matrix, quat_mul, quat_rotate
from sim.vector import cross, dot

__all__ = [
    "SYMMETRY_RTOL",
    "VERTICAL_SIN",
    "NEAR_VERTICAL_RATIO",
    "COLLISION_M1",
    "LagrangeTopSolution",
    "lagrange_top_from_body",
]

Vec3 = np.ndarray  # (3,) float64
Quat = np.ndarray  # (4,) float64, (w, x, y, z)
Mat3 = np.ndarray  # (3, 3) float64

# The inertia about the pivot may differ from I1 (1 − e eᵀ) + I3 e eᵀ by this much (Frobenius norm, relative):
# it covers unequal transverse moments and a centre of mass off the symmetry axis alike.
SYMMETRY_RTOL = 1e-9
# An axis within this angle (rad) of a vertical is on it: the rounding of a unit vector. A top spinning there with
# ω within this angle of the axis is sleeping; one tilting away from it is refused.
VERTICAL_SIN = 8.0 * np.finfo(float).eps
# Refuse a start nearer a vertical than this, in 1 ∓ u0 against the farthest 1 ∓ u of the nutation: the Euler
# angles' rounding there grows as ε² (1 ∓ u_far)/(1 ∓ u0) (measured: 7e-8 rad at a ratio of 5e-24).
NEAR_VERTICAL_RATIO = 1e-18
# Refuse m₁ = (u3 − u2)/(u3 − u1) below this: u2 and u3 collide at 1 and the period K(m) ~ ½ ln(16/m₁) is lost.
COLLISION_M1 = 1e-12


@dataclass(frozen=True)
class _Combination:
    """One of the half-angle combinations ``(φ + ψ)/2`` (over ``1 + u``) and ``(φ − ψ)/2`` (over ``1 − u``):
    ``start + ½ rate t + ½ coefficient (P(v) − p0) + π · passages``, where ``P`` is ``G`` of the module docstring
    or, when ``transformed``, ``Π(n; am v | m)`` itself (see :func:`_periodic`). ``height_roots`` are
    ``(1 ± u1, 1 ± u2)``, ``one_minus_n`` is ``(1 ± u2)/(1 ± u1)``, ``conjugate`` is ``ω² = m/n`` (transformed),
    ``growth`` is ``P(v + 2K) − P(v)``, and ``passage`` is ``None``, or the offset (0 or 1, in units of K) of the
    phases ``v`` where the axis passes exactly through this combination's vertical."""

    start: float
    rate: float
    coefficient: float
    height_roots: tuple[float, float]
    one_minus_n: float
    transformed: bool
    conjugate: float
    growth: float
    p0: float
    passage: float | None


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
    _combinations: tuple[_Combination, _Combination] | None = None  # (φ + ψ)/2, (φ − ψ)/2
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
        for part in self._combinations:
            # Over one period P grows by part.growth; a passage through the vertical adds π.
            growth = 0.5 * part.coefficient * part.growth + (0.0 if part.passage is None else np.pi)
            total += 0.5 * part.rate + growth / period
        return total

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
        K = quarter_period(self.m_complement)
        v = self.rate * t + self.phase0
        half_periods, r = reduce_by_half_period(v, K)
        sn, cn, dn = jacobi_sn_cn_dn(r, self.m, self.m_complement)
        sn2, cn2 = sn * sn, cn * cn
        start_reduced = reduce_by_half_period(self.phase0, K)
        half_angles, heights = [], []
        for part in self._combinations:
            angle = part.start + 0.5 * part.rate * t
            if part.coefficient != 0.0:
                periodic = _periodic(part, half_periods, sn, sn2, cn2, self.m_complement)
                angle = angle + 0.5 * part.coefficient * (periodic - part.p0)
            if part.passage is not None:
                # Exactly through the vertical: the combination turns by π at each passage (the limit of the
                # term above as b ∓ a → 0), at r = 0 (the bottom, u1 = −1) or r = ±K (the top, u2 = 1).
                angle = angle + np.pi * (_passages(part, half_periods, r) - _passages(part, *start_reduced))
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
        low, high = self._combinations
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
        # r of Rz(φ) Rx(θ) Rz(ψ), as in _zxz_half_angles.
        r = np.stack(
            [
                cos_half_theta * cos_sum,
                sin_half_theta * cos_difference,
                sin_half_theta * sin_difference,
                cos_half_theta * sin_sum,
            ],
            axis=-1,
        )
        q = _chain_apply(self._chain, r)
        r_rate = np.stack(
            [
                cos_rate * cos_sum - sum_rate * sin_sum,
                sin_rate * cos_difference - difference_rate * sin_difference,
                sin_rate * sin_difference + difference_rate * cos_difference,
                cos_rate * sin_sum + sum_rate * cos_sum,
            ],
            axis=-1,
        )
        return q, 2.0 * quat_mul(_chain_apply(self._chain, r_rate), quat_conj(q))[..., 1:]

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


def _symmetric_heavy_top(inertia_body, mass, com_from_pivot_body, gravity_world):
    """``(axis_body, I1, I3, l, up_world)`` of a symmetric heavy top, or the reason it is not one."""
    inertia = np.asarray(inertia_body, dtype=float)
    com = np.asarray(com_from_pivot_body, dtype=float)
    gravity = np.asarray(gravity_world, dtype=float)
    if inertia.shape != (3, 3) or com.shape != (3,) or gravity.shape != (3,) or np.ndim(mass) != 0:
        return "inertia_body must be (3, 3), com_from_pivot_body and gravity_world (3,), mass a number"
    if not (np.all(np.isfinite(inertia)) and np.all(np.isfinite(com)) and np.all(np.isfinite(gravity))):
        return "the body's parameters are not finite"
    if not float(mass) > 0.0:
        return f"mass {mass} is not positive"
    g_norm, arm = float(np.linalg.norm(gravity)), float(np.linalg.norm(com))
    if g_norm == 0.0 or arm == 0.0:
        return "no torque (no gravity, or the centre of mass at the pivot): the torque-free closed form applies"
    axis = com / arm
    axial = float(axis @ inertia @ axis)
    transverse = 0.5 * (np.trace(inertia) - axial)
    symmetric = transverse * (np.eye(3) - np.outer(axis, axis)) + axial * np.outer(axis, axis)
    if np.linalg.norm(inertia - symmetric) > SYMMETRY_RTOL * np.linalg.norm(inertia):
        return "not a symmetric top: the inertia about the pivot is not symmetric about the axis through the COM"
    if not (transverse > 0.0 and axial > 0.0):
        return "the inertia about the pivot is not positive definite"
    return axis, transverse, axial, arm, -gravity / g_norm


def _solve(inertia_body, mass, com_from_pivot_body, gravity_world, q0, omega_world0):
    """The :class:`LagrangeTopSolution`, or the reason there is none (a string)."""
    body = _symmetric_heavy_top(inertia_body, mass, com_from_pivot_body, gravity_world)
    if isinstance(body, str):
        return body
    axis, i1, i3, arm, up = body
    q0, omega0 = np.array(q0, dtype=float), np.array(omega_world0, dtype=float)
    if q0.shape != (4,) or omega0.shape != (3,) or not (np.all(np.isfinite(q0)) and np.all(np.isfinite(omega0))):
        return "q0 must be a finite (4,) quaternion and omega_world0 a finite (3,) vector"
    weight = float(mass) * float(np.linalg.norm(gravity_world)) * arm  # m |g| l, J
    axis_world = quat_rotate(q0, axis)
    # Unit to rounding (q0 may be off by an ulp or two), so that |up × n|² below is sin² θ0 to rounding.
    axis_world /= np.linalg.norm(axis_world)
    omega_axial = float(omega0 @ axis_world)
    omega_across = omega0 - omega_axial * axis_world  # ω⊥ = n × ṅ
    u0 = float(axis_world @ up)
    tilt = cross(up, axis_world)  # sin θ0 times the line of nodes
    # Near a vertical, n's component along it holds 1 ∓ u0 to an ulp of 1 only; its components across hold
    # sin² θ0 = |up × n|² to an ulp of their own. So the smaller of 1 ± u0 is sin² θ0 over the larger.
    sin_sq_theta0 = float(tilt @ tilt)
    if u0 < 0.0:
        one_minus_u0 = 1.0 - u0
        one_plus_u0 = sin_sq_theta0 / one_minus_u0
    else:
        one_plus_u0 = 1.0 + u0
        one_minus_u0 = sin_sq_theta0 / one_plus_u0
    # L = I1 ω⊥ + I3 ω∥ n for a body symmetric about n.
    L_world = i1 * omega_across + i3 * omega_axial * axis_world
    common = dict(
        inertia_body=np.array(inertia_body, dtype=float),
        mass=float(mass),
        com_from_pivot_body=np.array(com_from_pivot_body, dtype=float),
        gravity_world=np.array(gravity_world, dtype=float),
        q0=q0,
        omega_world0=omega0,
        axis_body=axis,
        transverse_moment=i1,
        axial_moment=i3,
        arm=arm,
        up_world=up,
        energy=0.5 * float(omega0 @ L_world) + weight * u0,
        L_vertical=float(L_world @ up),
        L_axis=i3 * omega_axial,
    )
    if sin_sq_theta0 <= VERTICAL_SIN**2:
        if float(omega_across @ omega_across) <= VERTICAL_SIN**2 * float(omega0 @ omega0):
            return LagrangeTopSolution(kind="sleeping", **common)
        return "the axis starts vertical while tilting: the Euler angles are singular at t = 0"
    a, beta = common["L_axis"] / i1, 2.0 * weight / i1
    # b − a u0 = ω·up⊥ with up⊥ = up − u0 n = n × (up × n), the vertical across the axis: small near a vertical,
    # where ω⊥·up would carry the rounding of ω⊥ along n into it (ε |ω| against sin θ0).
    up_across = cross(axis_world, tilt)
    # up × n again, now from up⊥: across n to rounding of its own size (the first one's rounding is an ulp of 1).
    tilt = cross(up_across, axis_world)
    across_vertical = float(omega0 @ up_across)
    across_sq = float(omega_across @ omega_across)  # α − β u0
    height_rate = -float(omega0 @ tilt)  # u̇0 = (ω × n)·up
    # f(u0 + w) = f0 + f1 w + f2 w² + β w³ (expanding (1 − u²)(α − β u) − (b − a u)² about u0).
    f0 = height_rate**2
    f1_terms = (-one_minus_u0 * one_plus_u0 * beta, -2.0 * u0 * across_sq, 2.0 * a * across_vertical)
    f1 = sum(f1_terms)
    f2 = 2.0 * u0 * beta - across_sq - a * a
    w1, w2, w3 = _cubic_roots(beta, f2, f1, f0, f1_scale=sum(abs(term) for term in f1_terms))
    m_complement = (w3 - w2) / (w3 - w1)
    if not m_complement >= COLLISION_M1:
        return f"the roots u2 and u3 of the cubic collide at 1 (m1 = {m_complement:.3g}): the period diverges"
    b_plus_a, b_minus_a = across_vertical + a * one_plus_u0, across_vertical - a * one_minus_u0
    one_minus_u1, one_plus_u2 = one_minus_u0 - w1, one_plus_u0 + w2
    one_plus_u1, one_minus_u2 = one_plus_u0 + w1, one_minus_u0 - w2
    # Where 1 + u1 or 1 − u2 cancels, f(∓1) = −(b ± a)² = ∓β (1 ∓ u1)(1 ∓ u2)(1 ∓ u3) may give it without: taken
    # when its own rounding (relative, from b ± a and u3 − 1) is the smaller.
    u3_minus_one, u3_plus_one = w3 - one_minus_u0, one_plus_u0 + w3
    depth = w2 - w1
    low = _height_at_vertical(
        one_plus_u1,
        one_plus_u0,
        b_plus_a,
        abs(across_vertical) + abs(a) * one_plus_u0,
        beta * one_plus_u2 * u3_plus_one,
        u3_plus_one,
        0.0,
    )
    if low is not None:
        # 1 − u1 = 2 − (1 + u1) keeps its digits (it is at least 1), and (1 + u) + (1 − u) = 2 stays exact.
        one_plus_u1, one_minus_u1 = low, 2.0 - low
        if u0 < 0.0:
            depth = one_plus_u2 - one_plus_u1  # the heights and their rates then agree to rounding
    high = _height_at_vertical(
        one_minus_u2,
        one_minus_u0,
        b_minus_a,
        abs(across_vertical) + abs(a) * one_minus_u0,
        beta * one_minus_u1 * u3_minus_one,
        u3_minus_one,
        w3,
    )
    if high is not None:
        one_minus_u2, one_plus_u2 = high, 2.0 - high
        if u0 >= 0.0:
            depth = one_minus_u1 - one_minus_u2
    one_plus_u1, one_minus_u2 = max(one_plus_u1, 0.0), max(one_minus_u2, 0.0)
    start_height, far_height = (one_minus_u0, one_minus_u1) if u0 >= 0.0 else (one_plus_u0, one_plus_u2)
    if start_height < NEAR_VERTICAL_RATIO * far_height:
        return (
            f"the axis starts {np.sqrt(sin_sq_theta0):.1e} rad from the vertical and swings away from it: the Euler"
            " angles are too near singular at t = 0"
        )
    rate = 0.5 * np.sqrt(beta * (w3 - w1))
    m = depth / (w3 - w1)
    # u0 = u1 + (u2 − u1) sn² v₀ with sn v₀ signed as u̇0 and cn v₀ ≥ 0: v₀ ∈ [−K, K]. sn² : cn² is read off
    # the heights the evaluation uses on the side of the nearer vertical, (1 − u1) − (1 − u0) : (1 − u0) − (1 − u2)
    # or its mirror, so that 1 ∓ u at t = 0 come out as 1 ∓ u0 to rounding however small they are.
    if u0 >= 0.0:
        below, above = one_minus_u1 - one_minus_u0, one_minus_u0 - one_minus_u2
    else:
        below, above = one_plus_u0 - one_plus_u1, one_plus_u2 - one_plus_u0
    sign = 1.0 if height_rate >= 0.0 else -1.0
    phase0 = 0.0
    if depth > 0.0 and max(below, above) > 0.0:
        phase0 = float(legendre_f(sign * np.sqrt(max(below, 0.0)), np.sqrt(max(above, 0.0)), m_complement))
    sn0, cn0, _ = jacobi_sn_cn_dn(np.array(phase0), m, m_complement)
    # ψ0: from the line of nodes (φ0 = 0) to e₁ about n, in the world.
    axes_euler = _transverse_frame(axis)
    e1_world = quat_rotate(q0, axes_euler[:, 0])
    psi0 = float(np.arctan2(cross(tilt, e1_world) @ axis_world, tilt @ e1_world))
    spin_excess = common["L_axis"] / i3 - a  # p_ψ/I3 − a, rad/s
    combinations = []
    for start, spin_part, b_pm_a, roots, sign_n, passage_offset in (
        (0.5 * psi0, spin_excess, b_plus_a, (one_plus_u1, one_plus_u2), -1.0, 0.0),
        (-0.5 * psi0, -spin_excess, b_minus_a, (one_minus_u1, one_minus_u2), 1.0, 1.0),
    ):
        # ∫₀ᵗ dt/(1 ± u) = (Π(n∓; v) − Π(n∓; v₀))/(λ (1 ± u1)), n∓ = ∓(u2 − u1)/(1 ± u1) (module docstring).
        n = sign_n * depth / roots[0] if b_pm_a != 0.0 else 0.0
        transformed = n < -1.0
        rate_part, coefficient = spin_part, 0.0
        if b_pm_a != 0.0 and transformed:
            coefficient = b_pm_a / (rate * roots[0])
        elif b_pm_a != 0.0:
            rate_part += b_pm_a / roots[0]
            coefficient = b_pm_a * n / (3.0 * rate * roots[0])
        one_minus_n = roots[1] / roots[0] if b_pm_a != 0.0 else 1.0
        conjugate = m / n if transformed else 0.0
        passage = passage_offset if b_pm_a == 0.0 and roots[int(passage_offset)] == 0.0 else None
        part = _Combination(
            start, rate_part, coefficient, roots, one_minus_n, transformed, conjugate, 0.0, 0.0, passage
        )
        growth = 2.0 * _complete(part, m_complement)
        p0 = float(_periodic(part, 0.0, sn0, sn0 * sn0, cn0 * cn0, m_complement)) if coefficient != 0.0 else 0.0
        combinations.append(replace(part, growth=growth, p0=p0))
    r0 = _zxz_half_angles(one_plus_u0, one_minus_u0, 0.5 * psi0, -0.5 * psi0)
    q_body_euler = quat_from_matrix(axes_euler)
    q_world_vertical = quat_mul(quat_mul(q0, q_body_euler), quat_conj(r0))
    return LagrangeTopSolution(
        kind="nutating",
        cos_theta_roots=(u0 + w1, u0 + w2, u0 + w3),
        rate=float(rate),
        m=float(m),
        m_complement=float(m_complement),
        phase0=phase0,
        _nutation_depth=depth,
        _b_plus_minus_a=(b_plus_a, b_minus_a),
        _spin_excess=spin_excess,
        _combinations=tuple(combinations),
        _chain=quat_mul(quat_mul(q_world_vertical, np.eye(4)), quat_conj(q_body_euler)),
        **common,
    )


def _height_at_vertical(direct, height0, b_pm_a, b_scale, denominator, gap, gap_scale) -> float | None:
    """``1 ± u`` at the root nearer the vertical ``∓1`` from ``(b ± a)²/denominator`` (``f(∓1) = −(b ± a)²``), or
    ``None`` to keep ``direct = (1 ± u0) ± w``. The formula's relative rounding is ε (2 b_scale/|b ± a| +
    gap_scale/gap + 4) (``gap`` is the third root's distance from the vertical, rounded at ``gap_scale``), the
    direct one's ε (1 ± u0)/direct. ``b ± a = 0`` puts a root exactly at the vertical: this one, unless ``gap`` is
    the smaller (then the third root is the one at the vertical)."""
    if b_pm_a == 0.0:
        return 0.0 if direct < gap else None
    if not (gap > 0.0 and denominator > 0.0):
        return None
    formula_error = 2.0 * b_scale / abs(b_pm_a) + gap_scale / gap + 4.0
    direct_error = height0 / direct if direct > 0.0 else np.inf
    return b_pm_a**2 / denominator if formula_error < direct_error else None


def _cubic_roots(beta: float, f2: float, f1: float, f0: float, f1_scale: float) -> tuple[float, float, float]:
    """Roots ``w1 ≤ 0 ≤ w2 ≤ w3`` of ``β w³ + f2 w² + f1 w + f0`` (``β > 0``, ``f0 ≥ 0``, three real roots);
    ``f1_scale`` is the sum of the magnitudes of the terms ``f1`` was summed from (its rounding is ε times it).

    ``w3`` by Newton's method from above a Cauchy bound: beyond the largest root the cubic is increasing and
    convex, so the iterates decrease monotonically; stop when they no longer do. Then ``w1 w2 = −f0/(β w3) ≤ 0``
    and ``w1 + w2`` either ``−f2/β − w3`` or ``(f1/β − w1 w2)/w3`` (Vieta), whichever rounds less: the second
    keeps the small roots' relative accuracy when they are small (a top near a vertical, where f1 is small too).
    The quadratic's discriminant is then a sum of squares, and the smaller root in magnitude is taken as the
    product over the larger, so neither cancels.
    """
    w = 1.0 + max(abs(f2), abs(f1), abs(f0)) / beta
    for _ in range(500):
        value = ((beta * w + f2) * w + f1) * w + f0
        slope = (3.0 * beta * w + 2.0 * f2) * w + f1
        if not (value > 0.0 and slope > 0.0):
            break
        step = w - value / slope
        if not step < w:
            break
        w = step
    w3 = w
    product = -f0 / (beta * w3)
    total = -f2 / beta - w3
    if (f1_scale / beta + abs(product)) / w3 < abs(f2) / beta + w3:
        total = (f1 / beta - product) / w3
    root = np.sqrt(total * total - 4.0 * product)
    if total >= 0.0:
        w2 = 0.5 * (total + root)
        w1 = product / w2 if w2 > 0.0 else 0.0
    else:
        w1 = 0.5 * (total - root)
        w2 = product / w1
    return min(w1, 0.0), max(w2, 0.0), w3


def _transverse_frame(axis: Vec3) -> Mat3:
    """A right-handed frame ``(e₁, e₂, e)`` (columns, body coordinates) with ``e = axis``."""
    helper = np.zeros(3)
    helper[np.argmin(np.abs(axis))] = 1.0
    e1 = helper - (helper @ axis) * axis
    e1 /= np.linalg.norm(e1)
    return np.stack([e1, cross(axis, e1), axis], axis=-1)


def _zxz_half_angles(one_plus_u, one_minus_u, half_sum, half_difference) -> np.ndarray:
    """The quaternion ``(..., 4)`` of ``Rz(φ) Rx(θ) Rz(ψ)`` from ``1 ± cos θ`` and ``(φ ± ψ)/2``
    (sim/exact.py's :func:`quat_from_zxz_euler`, with ``cos θ/2``, ``sin θ/2`` taken without cancellation)."""
    cos_half_theta, sin_half_theta = np.sqrt(0.5 * one_plus_u), np.sqrt(0.5 * one_minus_u)
    return np.stack(
        np.broadcast_arrays(
            cos_half_theta * np.cos(half_sum),
            sin_half_theta * np.cos(half_difference),
            sin_half_theta * np.sin(half_difference),
            cos_half_theta * np.sin(half_sum),
        ),
        axis=-1,
    )


def _chain_apply(chain: np.ndarray, r: np.ndarray) -> np.ndarray:
    """``q_world_vertical ⊗ r ⊗ q_body_euler*`` as ``Σ_k r_k chain[k]``: the product is linear in ``r``."""
    return r[..., :1] * chain[0] + r[..., 1:2] * chain[1] + r[..., 2:3] * chain[2] + r[..., 3:] * chain[3]


def _passages(part: _Combination, half_periods, r):
    """How many passages through ``part``'s vertical lie before ``v = 2K j + r`` (up to a constant): at ``r = 0``
    for the bottom, counted from ``r = 0`` on; at ``r = ±K`` for the top, counted from ``r = −K`` on, so that a
    passage is counted exactly where the reduction puts ``v`` after it (the signs in the rates of ω agree)."""
    if part.passage == 0.0:
        return half_periods + (r >= 0.0)
    return half_periods


def _periodic(part: _Combination, half_periods, sn, sn2, cn2, m_complement: float):
    """``P(v)`` of ``part`` at ``v = 2K j + r`` from ``j`` and ``sn r``, ``sn² r``, ``cn² r``.

    Plain: ``G(v) = 3 (Π(n; am v | m) − v)/n`` (module docstring). Transformed, for ``n < −1``, where ``v`` and
    ``(n/3) G`` would cancel (an axis passing near the downward vertical): ``Π`` itself by DLMF 19.7.9 with
    the conjugate ``ω² = m/n ∈ (−1, 0)``, written over ``sn² = 1/c`` as
    ``Π(n; am r) = −(ω²/3) sn³ R_J(cn², dn², 1, 1 − ω² sn²) + sn R_C(cn² dn², (1 − n sn²)(1 − ω² sn²))``.
    """
    dn2 = cn2 + m_complement * sn2
    height = cn2 + part.one_minus_n * sn2  # 1 − n sn²
    if not part.transformed:
        return 2.0 * half_periods * _complete(part, m_complement) + sn * sn2 * elliprj(cn2, dn2, 1.0, height)
    conjugate = part.conjugate
    conjugate_height = cn2 + (1.0 - conjugate) * sn2  # 1 − ω² sn²
    partial = -conjugate / 3.0 * sn * sn2 * elliprj(cn2, dn2, 1.0, conjugate_height)
    partial = partial + sn * elliprc(cn2 * dn2, height * conjugate_height)
    return partial + 2.0 * half_periods * _complete(part, m_complement)


def _complete(part: _Combination, m_complement: float) -> float:
    """``P(K)``, so that ``P(v + 2K) = P(v) + 2 P(K)``: ``R_J(0, m₁, 1, 1 − n)`` plain, the complete ``Π(n | m)``
    transformed (``R_C(0, y) = π/(2√y)``)."""
    if not part.transformed:
        return float(elliprj(0.0, m_complement, 1.0, part.one_minus_n))
    conjugate = part.conjugate
    rj = float(elliprj(0.0, m_complement, 1.0, 1.0 - conjugate))
    return -conjugate / 3.0 * rj + 0.5 * np.pi / np.sqrt(part.one_minus_n * (1.0 - conjugate))
