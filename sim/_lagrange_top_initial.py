"""From a heavy symmetric top's initial state to the constants of its closed form: the case analysis.

Private to :mod:`sim.lagrange_top` (its module docstring states the equations and the cases).
:func:`symmetric_heavy_top` reads the body (axis, moments, arm, up), :func:`solve` the state: the invariants, the
cubic ``f(u)``'s roots, the Jacobi constants, the two half-angle combinations (:mod:`sim._lagrange_top_angles`)
and the frame chain, returned as the fields of :class:`sim.lagrange_top.LagrangeTopSolution`, or the reason
(one line) the closed form does not apply.

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
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from spinlab.sim._lagrange_top_angles import (
    Combination,
    complete_part,
    periodic_part,
    transverse_frame,
    zxz_half_angles,
)
from spinlab.sim.jacobi_elliptic import jacobi_sn_cn_dn, legendre_f
from spinlab.sim.quaternion import quat_conj, quat_from_matrix, quat_mul, quat_rotate
from spinlab.sim.vector import cross

__all__ = ["SYMMETRY_RTOL", "VERTICAL_SIN", "NEAR_VERTICAL_RATIO", "COLLISION_M1", "symmetric_heavy_top", "solve"]

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


def symmetric_heavy_top(inertia_body, mass, com_from_pivot_body, gravity_world):
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


def solve(inertia_body, mass, com_from_pivot_body, gravity_world, q0, omega_world0) -> dict | str:
    """The fields of the :class:`sim.lagrange_top.LagrangeTopSolution` (a dict), or the reason there is none (a
    string). Arguments as :meth:`sim.lagrange_top.LagrangeTopSolution.from_state`."""
    body = symmetric_heavy_top(inertia_body, mass, com_from_pivot_body, gravity_world)
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
            return dict(kind="sleeping", **common)
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
    w1, w2, w3 = cubic_roots(beta, f2, f1, f0, f1_scale=sum(abs(term) for term in f1_terms))
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
    low = height_at_vertical(
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
    high = height_at_vertical(
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
    axes_euler = transverse_frame(axis)
    e1_world = quat_rotate(q0, axes_euler[:, 0])
    psi0 = float(np.arctan2(cross(tilt, e1_world) @ axis_world, tilt @ e1_world))
    spin_excess = common["L_axis"] / i3 - a  # p_ψ/I3 − a, rad/s
    combinations = []
    for start, spin_part, b_pm_a, roots, sign_n, passage_offset in (
        (0.5 * psi0, spin_excess, b_plus_a, (one_plus_u1, one_plus_u2), -1.0, 0.0),
        (-0.5 * psi0, -spin_excess, b_minus_a, (one_minus_u1, one_minus_u2), 1.0, 1.0),
    ):
        # ∫₀ᵗ dt/(1 ± u) = (Π(n∓; v) − Π(n∓; v₀))/(λ (1 ± u1)), n∓ = ∓(u2 − u1)/(1 ± u1) (sim.lagrange_top's docstring).
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
        part = Combination(start, rate_part, coefficient, roots, one_minus_n, transformed, conjugate, 0.0, 0.0, passage)
        growth = 2.0 * complete_part(part, m_complement)
        p0 = float(periodic_part(part, 0.0, sn0, sn0 * sn0, cn0 * cn0, m_complement)) if coefficient != 0.0 else 0.0
        combinations.append(replace(part, growth=growth, p0=p0))
    r0 = zxz_half_angles(one_plus_u0, one_minus_u0, 0.5 * psi0, -0.5 * psi0)
    q_body_euler = quat_from_matrix(axes_euler)
    q_world_vertical = quat_mul(quat_mul(q0, q_body_euler), quat_conj(r0))
    return dict(
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


def height_at_vertical(direct, height0, b_pm_a, b_scale, denominator, gap, gap_scale) -> float | None:
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


def cubic_roots(beta: float, f2: float, f1: float, f0: float, f1_scale: float) -> tuple[float, float, float]:
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
