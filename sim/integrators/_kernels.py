"""The compiled kernels of the integrators (numba), one body at a time inside a loop over the batch.

One file on purpose: numba's on-disk cache (``cache=True``) checks only the modification time of the file that
defines a function, so a kernel cached from one file would keep running an old copy of helpers edited in another.
(The few constants imported below are compiled in the same way; after changing one, touch this file.)

3-vectors are tuples ``(x, y, z)``, quaternions tuples ``(w, x, y, z)`` (body → world) and 3×3 matrices tuples of
rows, so the inner loops allocate nothing. The formulas are those of :mod:`sim.taylor`, :mod:`sim.so3`,
:mod:`sim.quaternion` and the integrator modules, written for one body; the numpy code is the reference the
kernels are tested against. Each kernel fills the ``*_out`` arrays and a status per body (``checks.STATUS_*``):
the Python side raises. The kernels release the GIL (``nogil``): :mod:`sim.integrators.threads` steps a large
batch in parts on several threads. Every kernel is compiled with numpy's error model: a division by zero gives an
inf or a nan (then a non-finite status), never a Python exception from inside a kernel.

The same source also runs as plain Python (sim/jit.py's ``plain``: ``@njit`` then leaves each function as
written), on Python's floats, for a few bodies without numba (sim/integrators/kernel_twins.py): the compiled bits,
since both perform the same IEEE operations in the same order. What keeps that true, for every function the twins
call:

- arithmetic on floats (``+ − * /``, comparisons) and ``sqrt``, ``sin``, ``cos``, ``isfinite`` from ``math``, which
  numba compiles to the same correctly rounded operations and C library calls (and the plain run takes from
  ``math``, or numpy's for its fallback);
- constants read in the arithmetic are numbers or tuples of floats, not numpy arrays (whose elements would bring
  numpy's scalars, ten times slower, into the plain run); arrays come in as arguments and are read ``A[n, i]``
  (the plain run passes nested lists) and written ``A_out[n, i] = x``;
- helpers are called by their module name, which is the plain copy's own function in the plain run;
- no ``try``, no Python exceptions: a division by zero or a ``sin`` of an infinity gives an inf or a nan
  (``error_model="numpy"``), reported as a status per body. Python's floats raise there instead, and the plain run
  then takes the step again on numpy's scalars, which follow this model.

Explicit kernels (``euler_kernel``, ``magnus_kernel``, ``rkmk4_kernel``) follow their numpy versions operation for
operation.
``implicit_kernel``'s ``method`` selects the equation, each solved for the step's rotation vector:

    MIDPOINT            F(v) = v − h I⁻¹ R(−v/2) ℓ                       ℓ = Oᵀ (L + ½ h τ),  O' = O R(v)
    WORLD_TRAPEZOIDAL   G(w) = w − (h/2) (ω + R(w) A R(w)ᵀ L')            A = O I⁻¹ Oᵀ,        O' = R(w) O
    OBJECT_TRAPEZOIDAL  H(v) = v − (h/2) (I⁻¹ ℓ₀ + I⁻¹ R(v)ᵀ ℓ₁)           ℓ₀ = Oᵀ L, ℓ₁ = Oᵀ L', O' = O R(v)

The world trapezoidal rule is solved here in the start body frame: with ``w = O u``, ``R(w) = O R(u) Oᵀ``, so
``Oᵀ G(O u) = u − (h/2) (Ω + R(u) I⁻¹ R(u)ᵀ ℓ₁)`` with ``Ω = Oᵀ ω``, and ``O' = R(w) O = O R(u)``. Newton's method
is affine covariant (its Jacobian transforms as ``O J Oᵀ``), so the iterates are those of ``G`` rotated by ``Oᵀ``;
this saves two quaternion rotations per product with ``A``. The numpy reference solves ``G`` in the world frame.

A step of length ``h`` is cut into pieces of ``h / 2^k``. A piece is tried at the size its parent's first half
had; when Newton fails, the piece is halved, at most ``max_depth`` times; after a piece succeeds, the next one has
the size of the lowest set bit of the position reached (in units of ``h / 2^max_depth``), which visits the pieces
exactly as recursive halving would. Newton converges when ``|residual| ≤ tolerance |v|``, or, without
evaluating the residual, when an update ``Δv`` has ``curvature |Δv|² ≤ tolerance |v|`` (the bound of
:func:`sim.integrators.newton.newton_curvature` on the next residual), and a piece is
accepted only if ``|v|² ≤ max_step_angle_sq`` (see :mod:`sim.integrators.newton`). A step (each stage of a
composition) tries at most ``max_pieces`` pieces, converged or not: the work a step may take is bounded, at most
``max_pieces (max_iterations + 1)`` residuals. ``status_out[n]``: 0 success, 1 Newton failed at the deepest level,
2 the given or the new state is not finite, 3 the step was not done after ``max_pieces`` pieces.

The implicit kernels and ``axes_kernel`` carry the orientation as a double-double, ``q + q_low`` (``q_low`` in
after ``q``, ``q_low_out`` last; :class:`sim.integrators.state.BodyState`): each piece's (or step's) turn is added
as its difference from 1 by :func:`compensated_step`, so the rounding of ``q`` does not pile up over many steps.
"""

from __future__ import annotations

from math import cos, factorial, isfinite, sin, sqrt

import numpy as np

from spinlab.sim.integrators.checks import STATUS_NON_FINITE, STATUS_NOT_CONVERGED, STATUS_OK, STATUS_TOO_MANY_PIECES
from spinlab.sim.jit import njit
from spinlab.sim.taylor import TAYLOR_BRANCH_ANGLE_SQ

__all__ = ["euler_kernel", "euler_body_kernel", "magnus_kernel", "rkmk4_kernel", "implicit_kernel",
           "composed_kernel", "split_kernel", "axes_kernel", "newton_curvature", "rodrigues_coefficients",
           "left_jacobian_inv_coefficient", "KERNEL_METHODS", "EXPONENTIAL_EXACT",
           "EXPONENTIAL_THIRD_ORDER"]  # fmt: skip


# The Taylor polynomials of sim.taylor in a², highest coefficient first: s1, s2, s3 of math.md §Rodrigues.
_TERMS = 11
_S1 = tuple([(-1) ** k / factorial(2 * k + 1) for k in range(_TERMS)][::-1])
_S2 = tuple([(-1) ** k / factorial(2 * k + 2) for k in range(_TERMS)][::-1])
_S3 = tuple([(-1) ** k / factorial(2 * k + 3) for k in range(_TERMS)][::-1])
# s4 = (cos a − 1 + a²/2)/a⁴ = Σ (−1)ᵏ a²ᵏ/(2k + 4)!, for Jl⁻¹'s coefficient (left_jacobian_inv_coefficient).
_S4 = tuple([(-1) ** k / factorial(2 * k + 4) for k in range(_TERMS)][::-1])
# Fewer terms for smaller angles: below a² = bound, K terms leave out at most bound^K / (2K + 1)! ≤ 2⁻⁵⁶ of s1 ≈ 1
# (less of s2, s3), far below half an ulp. A Newton step's angles are small, and the Horner chain is the
# kernel's critical path. Above the last bound sim.taylor's full polynomial is used.
_TIER_BOUNDS = (1e-3, 1e-2, 1e-1)
_TIER_TERMS = (4, 5, 7)


@njit(cache=True, error_model="numpy")
def taylor_coefficients(angle_sq, start):
    """``(s1, s2, s3)`` at ``a² = angle_sq`` by their Taylor polynomials from term ``start`` on (Horner's rule)."""
    s1, s2, s3 = _S1[start], _S2[start], _S3[start]
    for k in range(start + 1, _TERMS):
        s1 = s1 * angle_sq + _S1[k]
        s2 = s2 * angle_sq + _S2[k]
        s3 = s3 * angle_sq + _S3[k]
    return s1, s2, s3


@njit(cache=True, error_model="numpy")
def rodrigues_coefficients(angle_sq):
    """``(s1, s2, s3)`` at ``a² = angle_sq``, as :func:`sim.taylor.rodrigues_coefficients` (to an ulp)."""
    if angle_sq < TAYLOR_BRANCH_ANGLE_SQ:
        start = 0
        for tier in range(len(_TIER_BOUNDS)):
            if angle_sq < _TIER_BOUNDS[tier]:
                start = _TERMS - _TIER_TERMS[tier]
                break
        return taylor_coefficients(angle_sq, start)
    a = sqrt(angle_sq)
    sin_a = sin(a)
    sin_half = sin(0.5 * a)
    return sin_a / a, 2.0 * sin_half * sin_half / angle_sq, (a - sin_a) / (angle_sq * a)


@njit(cache=True, error_model="numpy")
def left_jacobian_inv_coefficient(angle_sq, s2, s3):
    """``c(a) = (1 − (a/2) cot(a/2))/a²`` at ``a² = angle_sq``, given ``s2``, ``s3`` there, as
    :func:`sim.taylor.left_jacobian_inv_coefficient`: ``Jl(v)⁻¹ = 1 − ½[v] + c[v]²``, ``Jr(v)⁻¹ = 1 + ½[v] + c[v]²``.

    ``(a/2) cot(a/2) = s1/(2 s2)``, and with ``s1 = 1 − a² s3``, ``s2 = ½ − a² s4``, ``c = (s3 − 2 s4)/(2 s2)``: no
    cancellation below ``a = 1`` (``s3 − 2 s4 ≈ 1/12`` loses at most a bit), the closed form above.
    """
    if angle_sq < TAYLOR_BRANCH_ANGLE_SQ:
        s4 = _S4[0]
        for k in range(1, _TERMS):
            s4 = s4 * angle_sq + _S4[k]
        return (s3 - 2.0 * s4) / (2.0 * s2)
    half = 0.5 * sqrt(angle_sq)
    return (1.0 - half * cos(half) / sin(half)) / angle_sq


@njit(cache=True, error_model="numpy")
def add(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


@njit(cache=True, error_model="numpy")
def sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


@njit(cache=True, error_model="numpy")
def scale(s, a):
    return (s * a[0], s * a[1], s * a[2])


@njit(cache=True, error_model="numpy")
def dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@njit(cache=True, error_model="numpy")
def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


@njit(cache=True, error_model="numpy")
def matvec(M, x):
    """``M x`` for a 3×3 matrix given as a tuple of rows, summed in the order of
    :func:`sim.integrators.state.matvec`."""
    return (
        M[0][0] * x[0] + M[0][1] * x[1] + M[0][2] * x[2],
        M[1][0] * x[0] + M[1][1] * x[1] + M[1][2] * x[2],
        M[2][0] * x[0] + M[2][1] * x[1] + M[2][2] * x[2],
    )


@njit(cache=True, error_model="numpy")
def matrix(A, n):
    """Matrix ``A[n]`` of an (N, 3, 3) array as a tuple of rows (no array view in the inner loops)."""
    return (
        (A[n, 0, 0], A[n, 0, 1], A[n, 0, 2]),
        (A[n, 1, 0], A[n, 1, 1], A[n, 1, 2]),
        (A[n, 2, 0], A[n, 2, 1], A[n, 2, 2]),
    )


@njit(cache=True, error_model="numpy")
def row(A, n):
    """Row ``n`` of an (N, 3) array as a tuple."""
    return (A[n, 0], A[n, 1], A[n, 2])


@njit(cache=True, error_model="numpy")
def first_order_map(v, c1, c2, x):
    """``(1 + c1 [v] + c2 [v]²) x``: ``R(v) x`` with ``(s1, s2)``, ``Jl(v) x`` with ``(s2, s3)``."""
    vx = cross(v, x)
    return add(x, add(scale(c1, vx), scale(c2, cross(v, vx))))


@njit(cache=True, error_model="numpy")
def first_order_matrix(v, c1, c2):
    """Rows of ``1 + c1 [v] + c2 [v]² = (1 − c2 |v|²) 1 + c1 [v] + c2 v vᵀ``: ``R(v)`` or ``Jl(v)``."""
    diagonal = 1.0 - c2 * dot(v, v)
    x, y, z = v
    return (
        (diagonal + c2 * x * x, c2 * x * y - c1 * z, c2 * x * z + c1 * y),
        (c2 * y * x + c1 * z, diagonal + c2 * y * y, c2 * y * z - c1 * x),
        (c2 * z * x - c1 * y, c2 * z * y + c1 * x, diagonal + c2 * z * z),
    )


@njit(cache=True, error_model="numpy")
def hat(x):
    return ((0.0, -x[2], x[1]), (x[2], 0.0, -x[0]), (-x[1], x[0], 0.0))


@njit(cache=True, error_model="numpy")
def hat_times(x, A):
    """Rows of ``[x] A``."""
    return (
        sub(scale(x[1], A[2]), scale(x[2], A[1])),
        sub(scale(x[2], A[0]), scale(x[0], A[2])),
        sub(scale(x[0], A[1]), scale(x[1], A[0])),
    )


@njit(cache=True, error_model="numpy")
def _row_times(r, B):
    return add(add(scale(r[0], B[0]), scale(r[1], B[1])), scale(r[2], B[2]))


@njit(cache=True, error_model="numpy")
def matmul(A, B):
    return (_row_times(A[0], B), _row_times(A[1], B), _row_times(A[2], B))


@njit(cache=True, error_model="numpy")
def transpose(A):
    return ((A[0][0], A[1][0], A[2][0]), (A[0][1], A[1][1], A[2][1]), (A[0][2], A[1][2], A[2][2]))


@njit(cache=True, error_model="numpy")
def subtract(A, B):
    return (sub(A[0], B[0]), sub(A[1], B[1]), sub(A[2], B[2]))


@njit(cache=True, error_model="numpy")
def identity_minus(s, A):
    """Rows of ``1 − s A``."""
    return (
        (1.0 - s * A[0][0], -s * A[0][1], -s * A[0][2]),
        (-s * A[1][0], 1.0 - s * A[1][1], -s * A[1][2]),
        (-s * A[2][0], -s * A[2][1], 1.0 - s * A[2][2]),
    )


@njit(cache=True, error_model="numpy")
def solve(J, b):
    """``x`` with ``J x = b`` (rows): ``J⁻¹``'s columns are ``r₁ × r₂, r₂ × r₀, r₀ × r₁`` over ``det J`` (Cramer);
    ample for the near-identity Newton Jacobians."""
    c0, c1, c2 = cross(J[1], J[2]), cross(J[2], J[0]), cross(J[0], J[1])
    det = dot(J[0], c0)
    return scale(1.0 / det, add(add(scale(b[0], c0), scale(b[1], c1)), scale(b[2], c2)))


@njit(cache=True, error_model="numpy")
def quat_mul(p, q):
    """Hamilton product ``p ⊗ q``: rotate by ``q``, then by ``p``."""
    return (
        p[0] * q[0] - (p[1] * q[1] + p[2] * q[2] + p[3] * q[3]),
        p[0] * q[1] + q[0] * p[1] + (p[2] * q[3] - p[3] * q[2]),
        p[0] * q[2] + q[0] * p[2] + (p[3] * q[1] - p[1] * q[3]),
        p[0] * q[3] + q[0] * p[3] + (p[1] * q[2] - p[2] * q[1]),
    )


@njit(cache=True, error_model="numpy")
def quat_normalize(q):
    norm = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
    return (q[0] / norm, q[1] / norm, q[2] / norm, q[3] / norm)


@njit(cache=True, error_model="numpy")
def to_world(q, x):
    """``O x`` as :func:`sim.quaternion.quat_rotate`: ``x + w t + u × t`` with ``t = 2 u × x``."""
    u = (q[1], q[2], q[3])
    t = scale(2.0, cross(u, x))
    return add(add(x, scale(q[0], t)), cross(u, t))


@njit(cache=True, error_model="numpy")
def to_body(q, x):
    """``Oᵀ x``: rotation by the conjugate."""
    return to_world((q[0], -q[1], -q[2], -q[3]), x)


@njit(cache=True, error_model="numpy")
def quat_exp(v):
    """``exp(v/2)`` of a rotation vector, as :func:`sim.quaternion.quat_exp`."""
    half = scale(0.5, v)
    half_sq = dot(half, half)
    s1, s2, _ = rodrigues_coefficients(half_sq)
    return (1.0 - half_sq * s2, s1 * half[0], s1 * half[1], s1 * half[2])


NO_TURN = (0.0, 0.0, 0.0, 0.0)
"""A turn's difference from 1 where there is no turn: :func:`compensated_step`'s ``left`` or ``right``."""


@njit(cache=True, error_model="numpy")
def quat_exp_minus_one(v):
    """``exp(v/2) − 1``, as :func:`sim.quaternion.quat_exp_minus_one`: :func:`quat_exp`'s parts, its scalar part
    ``−|v/2|² s2`` without the 1 (to an ulp of itself)."""
    half = scale(0.5, v)
    half_sq = dot(half, half)
    s1, s2, _ = rodrigues_coefficients(half_sq)
    return (-(half_sq * s2), s1 * half[0], s1 * half[1], s1 * half[2])


@njit(cache=True, error_model="numpy")
def add4(a, b):
    """``a + b`` of two quaternions (4-tuples)."""
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3])


@njit(cache=True, error_model="numpy")
def dot4(a, b):
    """``((a0 b0 + a1 b1) + a2 b2) + a3 b3`` of two quaternions."""
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]


@njit(cache=True, error_model="numpy")
def two_sum(a, b):
    """``(s, e)`` with ``s = fl(a + b)`` and ``a + b = s + e`` exactly (Knuth's TwoSum: no condition on the
    sizes of ``a`` and ``b``)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


@njit(cache=True, error_model="numpy")
def compensated_step(q_high, q_low, left, right):
    """The new orientation ``C ⊗ q ⊗ B`` of ``q = q_high + q_low`` (a double-double, body → world), with
    ``C = 1 + left`` (world frame) and ``B = 1 + right`` (body frame) rotations given by their small differences
    from 1: the increment ``δ = (C − 1) ⊗ q ⊗ B + q ⊗ (B − 1)`` is summed in float64 (an ulp of ``δ``, not of
    ``q``), the norm set back to 1 to first order (a radial nudge, no turn), and ``δ`` added by compensated
    summation. Returns ``(high, low)``, ``|low|`` at most half an ulp of ``high``. A ``q`` off unit length by more
    than 1e-8 (given from outside) is normalised in float64 instead, its low part dropped."""
    delta, excess = compensated_increment(q_high, q_low, left, right)
    if not abs(excess) <= 1e-8:
        return quat_normalize(add4(add4(q_high, q_low), delta)), (0.0, 0.0, 0.0, 0.0)
    return compensated_sum(q_high, q_low, delta, excess)


@njit(cache=True, error_model="numpy")
def compensated_increment(q_high, q_low, left, right):
    """:func:`compensated_step`'s increment ``δ`` and the excess ``|q + δ|² − 1`` it would leave."""
    delta = add4(quat_mul(q_high, right), quat_mul(q_low, right))
    delta = add4(add4(delta, quat_mul(left, q_high)), quat_mul(left, add4(q_low, delta)))
    excess = (dot4(q_high, q_high) - 1.0) + 2.0 * dot4(q_high, add4(q_low, delta)) + dot4(delta, delta)
    return delta, excess


@njit(cache=True, error_model="numpy")
def compensated_sum(q_high, q_low, delta, excess):
    """:func:`compensated_step`'s new ``(high, low)`` from its increment and excess (at most 1e-8)."""
    half_excess = 0.5 * excess
    w = _double_sum(q_high[0], q_low[0], delta[0] - half_excess * (q_high[0] + delta[0]))
    x = _double_sum(q_high[1], q_low[1], delta[1] - half_excess * (q_high[1] + delta[1]))
    y = _double_sum(q_high[2], q_low[2], delta[2] - half_excess * (q_high[2] + delta[2]))
    z = _double_sum(q_high[3], q_low[3], delta[3] - half_excess * (q_high[3] + delta[3]))
    return (w[0], x[0], y[0], z[0]), (w[1], x[1], y[1], z[1])


@njit(cache=True, error_model="numpy")
def _double_sum(high, low, increment):
    """``high + low + increment`` as a new ``(high, low)`` pair, ``|low|`` at most half an ulp of ``high``."""
    total, error = two_sum(high, increment)
    error = error + low
    new_high = total + error
    return new_high, error - (new_high - total)


@njit(cache=True, error_model="numpy")
def quat_exp_third_order(v):
    """Seed 000's normalised third-order ``exp(v/2)``, as :func:`sim.quaternion.quat_exp_third_order`."""
    half = scale(0.5, v)
    x2 = dot(half, half)
    w = 1.0 - 0.5 * x2
    k = 1.0 - x2 / 6.0
    norm = sqrt(w * w + k * k * x2)
    return (w / norm, k / norm * half[0], k / norm * half[1], k / norm * half[2])


@njit(cache=True, error_model="numpy")
def is_finite_state(q, omega, L):
    """Whether every component of a body's new ``q``, ``ω`` and ``L`` is finite."""
    finite = isfinite(q[0]) and isfinite(q[1]) and isfinite(q[2]) and isfinite(q[3])
    finite = finite and isfinite(omega[0]) and isfinite(omega[1]) and isfinite(omega[2])
    return finite and isfinite(L[0]) and isfinite(L[1]) and isfinite(L[2])


# The explicit integrators.

EXPONENTIAL_EXACT, EXPONENTIAL_THIRD_ORDER = 0, 1


@njit(cache=True, error_model="numpy")
def _start(n, q, omega_world, L_world, inertia_inv, torque_world, h, gyroscopic):
    """Body ``n``'s ``q``, ``ω``, ``α = I_w⁻¹ (τ − g ω × L)`` (``I_w⁻¹ = O I⁻¹ Oᵀ``, math.md §Torque) and
    ``ω' = ω + h α``."""
    qn = (q[n, 0], q[n, 1], q[n, 2], q[n, 3])
    omega = row(omega_world, n)
    net = sub(row(torque_world, n), cross(omega, row(L_world, n))) if gyroscopic else row(torque_world, n)
    alpha = to_world(qn, matvec(matrix(inertia_inv, n), to_body(qn, net)))
    return qn, omega, alpha, add(omega, scale(h, alpha))


@njit(cache=True, error_model="numpy")
def _write(n, q, omega, L, q_out, omega_out, L_out, status_out):
    """Write body ``n``'s new ``q``, ``ω``, ``L`` and its status (non-finite or not)."""
    for i in range(4):
        q_out[n, i] = q[i]
    for i in range(3):
        omega_out[n, i] = omega[i]
        L_out[n, i] = L[i]
    status_out[n] = STATUS_OK if is_finite_state(q, omega, L) else STATUS_NON_FINITE


@njit(cache=True, error_model="numpy")
def _store(n, q, omega, inertia, q_out, omega_out, L_out, status_out):
    """Write body ``n``'s new ``q`` and ``ω`` and ``L = O' I O'ᵀ ω'``."""
    _write(n, q, omega, to_world(q, matvec(inertia, to_body(q, omega))), q_out, omega_out, L_out, status_out)


@njit(cache=True, error_model="numpy")
def _euler_orientation(q, omega, h):
    """``normalise(q + (h/2) [0, ω] ⊗ q)``: Euler's orientation update (math.md)."""
    rate = quat_mul((0.0, omega[0], omega[1], omega[2]), q)
    half_h = 0.5 * h
    return quat_normalize(
        (q[0] + half_h * rate[0], q[1] + half_h * rate[1], q[2] + half_h * rate[2], q[3] + half_h * rate[3])
    )


@njit(cache=True, error_model="numpy", nogil=True)
def euler_kernel(q, omega_world, L_world, inertia, inertia_inv, torque_world, h, gyroscopic,
                 q_out, omega_out, L_out, status_out):  # fmt: skip
    """Explicit Euler: ``ω' = ω + h α``, ``q' = normalise(q + (h/2) [0, ω] ⊗ q)``, both from the state at t."""
    for n in range(q.shape[0]):
        qn, omega, alpha, omega_new = _start(n, q, omega_world, L_world, inertia_inv, torque_world, h, gyroscopic)
        q_new = _euler_orientation(qn, omega, h)
        _store(n, q_new, omega_new, matrix(inertia, n), q_out, omega_out, L_out, status_out)


@njit(cache=True, error_model="numpy", nogil=True)
def euler_body_kernel(q, omega_world, L_world, inertia, inertia_inv, torque_world, h, gyroscopic,
                      q_out, omega_out, L_out, status_out):  # fmt: skip
    """Explicit Euler on Euler's equations in the body frame: ``Ω' = Ω + h α_b`` and the same ``q'`` as
    :func:`euler_kernel`; the new ``ω' = O' Ω'`` (not ``O Ω'``)."""
    for n in range(q.shape[0]):
        qn, omega, alpha, omega_new = _start(n, q, omega_world, L_world, inertia_inv, torque_world, h, gyroscopic)
        q_new = _euler_orientation(qn, omega, h)
        if gyroscopic:
            # ω + h α = O (Ω + h α_b) = O Ω': the body-frame update, carried to the world by the new orientation.
            omega_new = to_world(q_new, to_body(qn, omega_new))
        else:
            # q' turns about ω, so O' Ω = ω: O' Ω' = ω + h O' α_b, and a torque-free ω is kept bit for bit.
            alpha_body = matvec(matrix(inertia_inv, n), to_body(qn, row(torque_world, n)))
            omega_new = add(omega, scale(h, to_world(q_new, alpha_body)))
        _store(n, q_new, omega_new, matrix(inertia, n), q_out, omega_out, L_out, status_out)


@njit(cache=True, error_model="numpy", nogil=True)
def magnus_kernel(q, omega_world, L_world, inertia, inertia_inv, torque_world, h, gyroscopic, terms, exponential,
                  q_out, omega_out, L_out, status_out):  # fmt: skip
    """Magnus with constant α (seed 000): ``q' = exp(½ (Ω₁ + Ω₂ + Ω₃)) ⊗ q``, the first ``terms`` terms."""
    for n in range(q.shape[0]):
        qn, omega, alpha, omega_new = _start(n, q, omega_world, L_world, inertia_inv, torque_world, h, gyroscopic)
        rotation = scale(0.5 * h, add(omega, omega_new))
        if terms >= 2:
            rotation = add(rotation, scale(h * h / 12.0, cross(omega_new, omega)))
        if terms >= 3:
            rotation = add(rotation, scale(h**5 / 240.0, cross(alpha, cross(alpha, omega))))
        if exponential == EXPONENTIAL_EXACT:
            increment = quat_exp(rotation)
        else:
            increment = quat_exp_third_order(rotation)
        q_new = quat_normalize(quat_mul(increment, qn))
        _store(n, q_new, omega_new, matrix(inertia, n), q_out, omega_out, L_out, status_out)


@njit(cache=True, error_model="numpy")
def _rkmk4_rates(v, M, ell, omega, torque_body, gyroscopic):
    """One stage of :func:`rkmk4_kernel` at ``v``: ``(v̇, u̇)``.

    Gyroscopic: ``v̇ = Jr(v)⁻¹ I⁻¹ R(v)ᵀ ℓ`` (``omega``, ``torque_body`` unused, ``u̇ = 0``). Without:
    ``v̇ = Jr(v)⁻¹ R(v)ᵀ u`` and ``u̇ = R(v) I⁻¹ R(v)ᵀ τ_b`` with ``u = omega``, ``τ_b = torque_body``.
    """
    angle_sq = dot(v, v)
    s1, s2, s3 = rodrigues_coefficients(angle_sq)
    c = left_jacobian_inv_coefficient(angle_sq, s2, s3)
    minus_v = scale(-1.0, v)
    if gyroscopic:
        omega_body = matvec(M, first_order_map(minus_v, s1, s2, ell))
        return first_order_map(v, 0.5, c, omega_body), (0.0, 0.0, 0.0)
    omega_body = first_order_map(minus_v, s1, s2, omega)
    alpha = first_order_map(v, s1, s2, matvec(M, first_order_map(minus_v, s1, s2, torque_body)))
    return first_order_map(v, 0.5, c, omega_body), alpha


@njit(cache=True, error_model="numpy")
def _rk4_sum(h, k1, k2, k3, k4):
    """``(h/6) (k1 + 2 k2 + 2 k3 + k4)``."""
    return scale(h / 6.0, add(add(k1, scale(2.0, add(k2, k3))), k4))


@njit(cache=True, error_model="numpy", nogil=True)
def rkmk4_kernel(q, omega_world, L_world, inertia, inertia_inv, torque_world, h, gyroscopic,
                 q_out, omega_out, L_out, status_out):  # fmt: skip
    """Classical RK4 on the rotation vector ``v`` of ``O(t) = O R(v(t))`` (:mod:`sim.integrators.rkmk4`), with
    ``ℓ(t) = Oᵀ (L + t τ)`` exact (gyroscopic) or with ``u = Oᵀ ω`` integrated alongside (without)."""
    zero = (0.0, 0.0, 0.0)
    for n in range(q.shape[0]):
        qn = (q[n, 0], q[n, 1], q[n, 2], q[n, 3])
        M, torque, omega = matrix(inertia_inv, n), row(torque_world, n), row(omega_world, n)
        torque_body = to_body(qn, torque)
        half_h = 0.5 * h
        if gyroscopic:
            L = row(L_world, n)
            ell = to_body(qn, L)
            ell_half = add(ell, scale(half_h, torque_body))
            k1 = matvec(M, ell)
            k2, _ = _rkmk4_rates(scale(half_h, k1), M, ell_half, zero, zero, True)
            k3, _ = _rkmk4_rates(scale(half_h, k2), M, ell_half, zero, zero, True)
            k4, _ = _rkmk4_rates(scale(h, k3), M, add(ell, scale(h, torque_body)), zero, zero, True)
            q_new = quat_normalize(quat_mul(qn, quat_exp(_rk4_sum(h, k1, k2, k3, k4))))
            L_new = add(L, scale(h, torque))
            omega_new = to_world(q_new, matvec(M, to_body(q_new, L_new)))
        else:
            u = to_body(qn, omega)
            k1, m1 = u, matvec(M, torque_body)
            k2, m2 = _rkmk4_rates(scale(half_h, k1), M, zero, add(u, scale(half_h, m1)), torque_body, False)
            k3, m3 = _rkmk4_rates(scale(half_h, k2), M, zero, add(u, scale(half_h, m2)), torque_body, False)
            k4, m4 = _rkmk4_rates(scale(h, k3), M, zero, add(u, scale(h, m3)), torque_body, False)
            q_new = quat_normalize(quat_mul(qn, quat_exp(_rk4_sum(h, k1, k2, k3, k4))))
            # ω' = ω + O Δu: a torque-free body's Δu is exactly zero, so it keeps its ω to the last bit.
            omega_new = add(omega, to_world(qn, _rk4_sum(h, m1, m2, m3, m4)))
            L_new = to_world(q_new, matvec(matrix(inertia, n), to_body(q_new, omega_new)))
        _write(n, q_new, omega_new, L_new, q_out, omega_out, L_out, status_out)


# The implicit integrators.

MIDPOINT, WORLD_TRAPEZOIDAL, OBJECT_TRAPEZOIDAL = 0, 1, 2
KERNEL_METHODS = {
    "implicit_midpoint": MIDPOINT,
    "trapezoidal": WORLD_TRAPEZOIDAL,
    "object_trapezoidal": OBJECT_TRAPEZOIDAL,
}


@njit(cache=True, error_model="numpy")
def _residual(method, v, a, b, M, h):
    """The residual at ``v``, with what :func:`_jacobian` reuses at the same ``v``: the Rodrigues coefficients
    ``(s1, s2, s3)`` at ``|v/2|²`` (midpoint) or ``|v|²``, and the rotated momentum ``R(−v/2) ℓ`` (midpoint) or
    ``R(v)ᵀ ℓ₁``. ``a``, ``b`` are the per-method data set up in :func:`_attempt`."""
    if method == MIDPOINT:
        u = scale(-0.5, v)
        s1, s2, s3 = rodrigues_coefficients(dot(u, u))
        rotated = first_order_map(u, s1, s2, a)
        return sub(v, scale(h, matvec(M, rotated))), (s1, s2, s3), rotated
    s1, s2, s3 = rodrigues_coefficients(dot(v, v))
    body_end = first_order_map(scale(-1.0, v), s1, s2, b)  # R(v)ᵀ ℓ₁
    if method == WORLD_TRAPEZOIDAL:
        F = sub(v, scale(0.5 * h, add(a, first_order_map(v, s1, s2, matvec(M, body_end)))))
        return F, (s1, s2, s3), body_end
    return sub(v, scale(0.5 * h, add(a, matvec(M, body_end)))), (s1, s2, s3), body_end


@njit(cache=True, error_model="numpy")
def _jacobian(method, v, a, b, M, h, coefficients, rotated):
    """Rows of the residual's Jacobian (math.md; derivations in the numpy modules), as products of 3×3 matrices;
    ``coefficients`` and ``rotated`` are those :func:`_residual` returned at ``v``.

    The midpoint and object trapezoidal Jacobians have the form ``1 − (h/2) I⁻¹ R(−x) [ℓ] Jl(x)``; with
    ``R [ℓ] = [R ℓ] R`` and ``Jl(x) = R(x) Jr(x)``, that is ``1 − (h/2) I⁻¹ [R(−x) ℓ] Jl(−x)``: the rotated momentum
    of the residual and one matrix product, not two and the rotation matrix."""
    s1, s2, s3 = coefficients
    if method == MIDPOINT:
        # ∂F/∂v = 1 − (h/2) I⁻¹ R(−v/2) [ℓ] Jl(v/2) = 1 − (h/2) I⁻¹ [R(−v/2) ℓ] Jl(−v/2)
        J_left = first_order_matrix(scale(-0.5, v), s2, s3)
        return identity_minus(0.5 * h, matmul(M, hat_times(rotated, J_left)))
    J_left = first_order_matrix(scale(-1.0, v), s2, s3)
    if method == WORLD_TRAPEZOIDAL:
        # In body coordinates: 1 − (h/2) (B [ℓ₁] − [B ℓ₁]) Jl(u), B = R(u) I⁻¹ R(u)ᵀ; row i of B [ℓ₁] is Bᵢ × ℓ₁.
        R_transpose = first_order_matrix(scale(-1.0, v), s1, s2)
        B = matmul(transpose(R_transpose), matmul(M, R_transpose))
        B_hat = (cross(B[0], b), cross(B[1], b), cross(B[2], b))
        return identity_minus(0.5 * h, matmul(subtract(B_hat, hat(matvec(B, b))), first_order_matrix(v, s2, s3)))
    # ∂H/∂v = 1 − (h/2) I⁻¹ R(v)ᵀ [ℓ₁] Jl(v) = 1 − (h/2) I⁻¹ [R(v)ᵀ ℓ₁] Jl(−v)
    return identity_minus(0.5 * h, matmul(M, hat_times(rotated, J_left)))


@njit(cache=True, error_model="numpy")
def _attempt_start(method, q, omega, L, M, torque, h):
    """:func:`_attempt`'s data ``a``, ``b`` for the residual, Newton's first ``v`` and the curvature bound."""
    L_end = add(L, scale(h, torque))
    if method == MIDPOINT:
        a = to_body(q, add(L, scale(0.5 * h, torque)))
        b = a
        v = scale(h, matvec(M, a))
    else:
        a = to_body(q, omega) if method == WORLD_TRAPEZOIDAL else matvec(M, to_body(q, L))
        b = to_body(q, L_end)
        v = scale(0.5 * h, add(a, matvec(M, b)))
    return a, b, v, newton_curvature(M, L, torque, h)


@njit(cache=True, error_model="numpy")
def _attempt(method, q, omega, L, M, torque, h, tolerance, max_iterations, max_step_angle_sq):
    """One Newton solve over a piece of length ``h``: ``(converged, iterations, v)``."""
    a, b, v, curvature = _attempt_start(method, q, omega, L, M, torque, h)
    converged = False
    iterations = 0
    for iteration in range(max_iterations + 1):
        F, coefficients, rotated = _residual(method, v, a, b, M, h)
        size_sq = dot(F, F)
        if not isfinite(size_sq):
            break
        if sqrt(size_sq) <= tolerance * sqrt(dot(v, v)):
            converged = dot(v, v) <= max_step_angle_sq
            break
        if iteration == max_iterations:
            break
        update = solve(_jacobian(method, v, a, b, M, h, coefficients, rotated), F)
        v = sub(v, update)
        iterations += 1
        # The residual after the update is at most curvature |Δv|² (sim.integrators.newton): converged without
        # evaluating it. False for a nan; then the residual is evaluated and found not finite.
        if curvature * dot(update, update) <= tolerance * sqrt(dot(v, v)):
            converged = dot(v, v) <= max_step_angle_sq
            break
    return converged, iterations, v


@njit(cache=True, error_model="numpy")
def newton_curvature(M, L, torque, h):
    """``2 |h| |I⁻¹|_F (|L| + |h| |τ|)``, as :func:`sim.integrators.newton.newton_curvature`."""
    size_M = sqrt(dot(M[0], M[0]) + dot(M[1], M[1]) + dot(M[2], M[2]))
    h_abs = abs(h)
    return 2.0 * h_abs * size_M * (sqrt(dot(L, L)) + h_abs * sqrt(dot(torque, torque)))


@njit(cache=True, error_model="numpy")
def _advance(method, qn, q_low, omega, L, M, torque, h, tolerance, max_iterations, max_depth, max_step_angle_sq,
             max_pieces):  # fmt: skip
    """One body's step of ``h`` in pieces (module docstring): ``(q, q_low, ω, L, iterations, substeps, status)``.
    The orientation is the double-double ``q + q_low``; each piece's turn is added to it by
    :func:`compensated_step`."""
    pieces = 1 << max_depth
    position, size, iterations, substeps, status, tried = 0, pieces, 0, 0, STATUS_OK, 0
    if not is_finite_state(qn, omega, L):
        status, position = STATUS_NON_FINITE, pieces  # reported as such, not as a Newton failure
    while position < pieces:
        if tried == max_pieces:
            status = STATUS_TOO_MANY_PIECES
            break
        tried += 1
        h_piece = h * (size / pieces)
        converged, piece_iterations, v = _attempt(
            method, qn, omega, L, M, torque, h_piece, tolerance, max_iterations, max_step_angle_sq
        )
        iterations += piece_iterations
        if not converged:
            size >>= 1
            if size == 0:
                status = STATUS_NOT_CONVERGED
                break
            continue
        qn, q_low = compensated_step(qn, q_low, NO_TURN, quat_exp_minus_one(v))
        L = add(L, scale(h_piece, torque))
        omega = to_world(qn, matvec(M, to_body(qn, L)))
        position += size
        substeps += 1
        size = position & -position
    if status == STATUS_OK and not is_finite_state(qn, omega, L):
        status = STATUS_NON_FINITE
    return qn, q_low, omega, L, iterations, substeps, status


@njit(cache=True, error_model="numpy")
def _write_low(n, low, q_low_out):
    """Write body ``n``'s orientation's low part."""
    for i in range(4):
        q_low_out[n, i] = low[i]


@njit(cache=True, error_model="numpy")
def _write_implicit(n, qn, omega, L, iterations, substeps, status, q_out, omega_out, L_out, iterations_out,
                    substeps_out, status_out):  # fmt: skip
    for i in range(4):
        q_out[n, i] = qn[i]
    for i in range(3):
        omega_out[n, i] = omega[i]
        L_out[n, i] = L[i]
    iterations_out[n], substeps_out[n], status_out[n] = iterations, substeps, status


@njit(cache=True, error_model="numpy", nogil=True)
def implicit_kernel(method, q, q_low, omega_world, L_world, inertia_inv, torque_world, h, tolerance, max_iterations,
                    max_depth, max_step_angle_sq, max_pieces, q_out, omega_out, L_out, iterations_out, substeps_out,
                    status_out, q_low_out):  # fmt: skip
    """Step every body; see the module docstring. Inputs (N, 4), (N, 4), (N, 3), (N, 3), (N, 3, 3), (N, 3)."""
    for n in range(q.shape[0]):
        qn, low = (q[n, 0], q[n, 1], q[n, 2], q[n, 3]), (q_low[n, 0], q_low[n, 1], q_low[n, 2], q_low[n, 3])
        M, torque = matrix(inertia_inv, n), row(torque_world, n)
        qn, low, omega, L, iterations, substeps, status = _advance(
            method, qn, low, row(omega_world, n), row(L_world, n), M, torque, h, tolerance, max_iterations,
            max_depth, max_step_angle_sq, max_pieces,
        )  # fmt: skip
        _write_implicit(n, qn, omega, L, iterations, substeps, status, q_out, omega_out, L_out, iterations_out,
                        substeps_out, status_out)  # fmt: skip
        _write_low(n, low, q_low_out)


@njit(cache=True, error_model="numpy", nogil=True)
def composed_kernel(method, coefficients, q, q_low, omega_world, L_world, inertia_inv, torque_world, h, tolerance,
                    max_iterations, max_depth, max_step_angle_sq, max_pieces, q_out, omega_out, L_out, iterations_out,
                    substeps_out, status_out, q_low_out):  # fmt: skip
    """Step every body by the composition of ``method`` with ``coefficients`` (K,), as
    :func:`sim.integrators.composition.step_composed` does with one :func:`implicit_kernel` call per stage, all
    stages of a body in one go: stage ``i`` is a step of ``coefficients[i] h`` (sub-stepped as above);
    ``iterations_out`` sums the stages, ``substeps_out`` is the most pieces of any stage, and the step ends with
    ``L' = L + h τ``, ``ω' = O' I⁻¹ O'ᵀ L'``. A body stops at its first failing stage with that stage's status
    (its outputs are then meaningless: the caller re-runs the stages one by one to report it)."""
    for n in range(q.shape[0]):
        qn, low = (q[n, 0], q[n, 1], q[n, 2], q[n, 3]), (q_low[n, 0], q_low[n, 1], q_low[n, 2], q_low[n, 3])
        omega, L_start = row(omega_world, n), row(L_world, n)
        M, torque = matrix(inertia_inv, n), row(torque_world, n)
        L = L_start
        iterations, substeps, status = 0, 1, STATUS_OK
        for stage in range(coefficients.shape[0]):
            qn, low, omega, L, stage_iterations, stage_substeps, status = _advance(
                method, qn, low, omega, L, M, torque, coefficients[stage] * h, tolerance, max_iterations, max_depth,
                max_step_angle_sq, max_pieces,
            )  # fmt: skip
            iterations += stage_iterations
            substeps = max(substeps, stage_substeps)
            if status != STATUS_OK:
                break
        L = add(L_start, scale(h, torque))
        omega = to_world(qn, matvec(M, to_body(qn, L)))
        _write_implicit(n, qn, omega, L, iterations, substeps, status, q_out, omega_out, L_out, iterations_out,
                        substeps_out, status_out)  # fmt: skip
        _write_low(n, low, q_low_out)


# The splitting integrators (sim.integrators.splitting).


@njit(cache=True, error_model="numpy")
def _kick(qn, omega, L, M, torque, lever, force, length, gyroscopic):
    """The torque's exact flow over ``length`` s at fixed ``q``: ``τ = τ₀ + (O r) × f``, ``L' = L + length τ``
    (without the gyroscopic term ``ω' = ω + length O I⁻¹ Oᵀ τ``). Returns ``(ω', L')``."""
    total = add(torque, cross(to_world(qn, lever), force))
    if gyroscopic:
        return omega, add(L, scale(length, total))
    return add(omega, scale(length, to_world(qn, matvec(M, to_body(qn, total))))), L


@njit(cache=True, error_model="numpy", nogil=True)
def split_kernel(coefficients, kicks, q, q_low, omega_world, L_world, inertia, inertia_inv, torque_world, lever_body,
                 force_world, h, gyroscopic, tolerance, max_iterations, max_depth, max_step_angle_sq, max_pieces, q_out,
                 omega_out, L_out, iterations_out, substeps_out, status_out, q_low_out):  # fmt: skip
    """Strang stages ``K ∘ F_{γ_i h} ∘ K`` with merged kicks (:mod:`sim.integrators.splitting`): kick ``i`` lasts
    ``kicks[i] h`` (``kicks`` (K + 1,)), free flow ``i`` is a midpoint step of ``coefficients[i] h`` with zero torque
    (sub-stepped as above), or the spin ``q' = exp(γ_i h ω) q`` without the gyroscopic term. The torque at a kick is
    ``τ₀ + (O r) × f`` (``torque_world``, ``lever_body``, ``force_world``, each (N, 3)). A body stops at its first
    failing stage with that stage's status."""
    zero = (0.0, 0.0, 0.0)
    stages = coefficients.shape[0]
    for n in range(q.shape[0]):
        qn, low = (q[n, 0], q[n, 1], q[n, 2], q[n, 3]), (q_low[n, 0], q_low[n, 1], q_low[n, 2], q_low[n, 3])
        omega, L = row(omega_world, n), row(L_world, n)
        M, torque, lever, force = matrix(inertia_inv, n), row(torque_world, n), row(lever_body, n), row(force_world, n)
        iterations, substeps = 0, 1
        status = STATUS_OK if is_finite_state(qn, omega, L) else STATUS_NON_FINITE
        for stage in range(stages + 1):
            if status != STATUS_OK:
                break
            omega, L = _kick(qn, omega, L, M, torque, lever, force, kicks[stage] * h, gyroscopic)
            if stage == stages:
                break
            stage_h = coefficients[stage] * h
            if not gyroscopic:
                qn, low = compensated_step(qn, low, quat_exp_minus_one(scale(stage_h, omega)), NO_TURN)
                continue
            qn, low, omega, L, stage_iterations, stage_substeps, status = _advance(
                MIDPOINT, qn, low, omega, L, M, zero, stage_h, tolerance, max_iterations, max_depth,
                max_step_angle_sq, max_pieces,
            )  # fmt: skip
            iterations += stage_iterations
            substeps = max(substeps, stage_substeps)
        if gyroscopic:
            omega = to_world(qn, matvec(M, to_body(qn, L)))
        else:
            L = to_world(qn, matvec(matrix(inertia, n), to_body(qn, omega)))
        if status == STATUS_OK and not is_finite_state(qn, omega, L):
            status = STATUS_NON_FINITE
        _write_implicit(n, qn, omega, L, iterations, substeps, status, q_out, omega_out, L_out, iterations_out,
                        substeps_out, status_out)  # fmt: skip
        _write_low(n, low, q_low_out)


# The splitting into rotations about the principal axes (sim.integrators.axes_splitting).

AXES_KICK = 3  # sim.integrators.axes_splitting.KICK
AXES_FAR, AXES_NEAR, AXES_CASIMIR = 4, 5, 6  # sim.integrators.axes_splitting.FAR, NEAR, CASIMIR


# sin x / x and (1 − cos x)/x² as polynomials in x² of 7 terms each (Taylor, as sim/taylor.py's): below x² = 0.1
# the first term left out is at most 0.1⁷/15! < 2⁻⁵⁶ of s1 ≈ 1 (less of s2 ≈ ½), far below half an ulp.
_SIN_TERMS = tuple([(-1) ** k / factorial(2 * k + 1) for k in range(7)][::-1])
_COS_TERMS = tuple([(-1) ** k / factorial(2 * k + 2) for k in range(7)][::-1])
_POLYNOMIAL_BOUND_SQ = 0.1


@njit(cache=True, error_model="numpy")
def _sin_cos_polynomials(x_sq):
    """``(sin x / x, (1 − cos x)/x²)`` at ``x_sq = x²`` below :data:`_POLYNOMIAL_BOUND_SQ`, to an ulp."""
    s1, s2 = _SIN_TERMS[0], _COS_TERMS[0]
    for k in range(1, 7):
        s1 = s1 * x_sq + _SIN_TERMS[k]
        s2 = s2 * x_sq + _COS_TERMS[k]
    return s1, s2


@njit(cache=True, error_model="numpy")
def _cos_m1_sin(x):
    """``(cos x − 1, sin x)``, each to an ulp of itself (``cos x − 1`` never as a difference of nearly equal
    numbers): fixed polynomials at a step's small angles (a few times cheaper than the C library's pair),
    ``−2 sin²(x/2)`` and the library's sine above."""
    x_sq = x * x
    if x_sq >= _POLYNOMIAL_BOUND_SQ:
        half = sin(0.5 * x)
        return -2.0 * half * half, sin(x)
    s1, s2 = _sin_cos_polynomials(x_sq)
    return -(x_sq * s2), x * s1


@njit(cache=True, error_model="numpy")
def _cos_m1_sinc(x):
    """``(cos x − 1, sin x / x)`` as :func:`_cos_m1_sin` (``sin x / x`` is 1 at ``x = 0``)."""
    x_sq = x * x
    if x_sq >= _POLYNOMIAL_BOUND_SQ:
        half = sin(0.5 * x)
        return -2.0 * half * half, sin(x) / x
    s1, s2 = _sin_cos_polynomials(x_sq)
    return -(x_sq * s2), s1


@njit(cache=True, error_model="numpy")
def _principal_turn(rho, momentum, axis, half_angle):
    """``H_axis``'s flow, on the step's right factor so far ``R = 1 + ρ`` (principal frame) and on ``Π``:
    ``ρ' = (1 + ρ) ⊗ (cos(θ/2), sin(θ/2) e_axis) − 1`` and ``Π' = R_axis(−θ) Π``, as
    :func:`sim.integrators.axes_splitting._turn` (``(k, i, j)`` cyclic). ``ρ`` is small, and kept to an ulp of
    itself: it is summed from increments, never formed as ``R − 1``."""
    cm1, s = _cos_m1_sin(half_angle)
    c = 1.0 + cm1
    cos_angle, sin_angle = 1.0 - 2.0 * s * s, 2.0 * s * c
    w, x, y, z = rho
    w1 = 1.0 + w
    p0, p1, p2 = momentum
    if axis == 0:
        rho_new = (w + (cm1 * w1 - s * x), x + (cm1 * x + s * w1), y + (cm1 * y + s * z), z + (cm1 * z - s * y))
        return rho_new, (p0, cos_angle * p1 + sin_angle * p2, cos_angle * p2 - sin_angle * p1)
    if axis == 1:
        rho_new = (w + (cm1 * w1 - s * y), x + (cm1 * x - s * z), y + (cm1 * y + s * w1), z + (cm1 * z + s * x))
        return rho_new, (cos_angle * p0 - sin_angle * p2, p1, cos_angle * p2 + sin_angle * p0)
    rho_new = (w + (cm1 * w1 - s * z), x + (cm1 * x + s * y), y + (cm1 * y - s * x), z + (cm1 * z + s * w1))
    return rho_new, (cos_angle * p0 + sin_angle * p1, cos_angle * p1 - sin_angle * p0, p2)


AXES_BLOCK = 8
"""Bodies stepped together, flow by flow, by :func:`axes_kernel`: one body's rotations form one long chain of
dependent operations (a division and a polynomial each), so the CPU overlaps the chains of several bodies instead
(measured ~2.5× the throughput of one body at a time)."""


@njit(cache=True, error_model="numpy", nogil=True)
def axes_kernel(codes, lengths, q, q_low, L_world, inertia_inv, moments, frame_q, torque_world, lever_body,
                force_world, h, q_out, q_low_out, omega_out, L_out, status_out):  # fmt: skip
    """Each body through its schedule (:func:`sim.integrators.axes_splitting.schedules`): ``codes[row]`` and
    ``lengths[row]`` (2, K), row 1 for a body some torque acts on (a non-zero ``torque_world`` or both ``lever_body``
    and ``force_world`` non-zero), else row 0. Code ``k`` < 3 rotates about principal axis ``k`` (``moments`` (N, 3)
    ascending, ``frame_q`` (N, 4): ``q_p = q ⊗ p``) for ``lengths h`` s; :data:`AXES_KICK` kicks ``L`` and ``Π`` by
    the torque ``τ₀ + (O r) × f`` at the current orientation; :data:`AXES_FAR` and :data:`AXES_NEAR` rotate about the
    body's far and near axis by the reduced rates ``Πₖ (1/Iₖ − 1/I₂)`` and :data:`AXES_CASIMIR` about world ``L`` by
    ``|L|/I₂`` (:func:`sim.integrators.axes_splitting.reduced_axes`); −1 ends.

    The rotations are gathered as the step's left factor ``C = 1 + γ`` (about ``L``, world) and right factor
    ``R = 1 + ρ`` (principal frame), so that ``q_p' = C ⊗ q_p ⊗ R``, and ``q + q_low`` (a double-double) takes them
    by :func:`compensated_step` with ``B = p ⊗ R ⊗ p*``; ``Π`` is found from ``q`` in float64 at the step's start.
    Then ``ω' = O' I⁻¹ O'ᵀ L'``. The bodies go in blocks of :data:`AXES_BLOCK`, each body's arithmetic that of a
    body alone."""
    turns = np.empty((AXES_BLOCK, 15))  # ρ (4), Π (3), γ (4) and q_p at the step's start (4) of each body
    momentum_world = np.empty((AXES_BLOCK, 3))
    levers = np.empty((AXES_BLOCK, 3))
    inverse = np.empty((AXES_BLOCK, 3))  # 1/Iₖ: a product on the rotations' chain, not a division
    reduced = np.empty((AXES_BLOCK, 3))  # 1/Iₖ − 1/I₂, the rates about the far and the near axis (row 0)
    pair = np.empty((AXES_BLOCK, 2), np.int64)  # the far axis and the near one
    schedules = np.empty(AXES_BLOCK, np.int64)
    for start in range(0, q.shape[0], AXES_BLOCK):
        count = min(AXES_BLOCK, q.shape[0] - start)
        for b in range(count):
            n = start + b
            p = (frame_q[n, 0], frame_q[n, 1], frame_q[n, 2], frame_q[n, 3])
            torque, lever, force = row(torque_world, n), row(lever_body, n), row(force_world, n)
            driven = torque != (0.0, 0.0, 0.0) or (lever != (0.0, 0.0, 0.0) and force != (0.0, 0.0, 0.0))
            schedules[b] = 1 if driven else 0
            qp = quat_mul((q[n, 0], q[n, 1], q[n, 2], q[n, 3]), p)
            momentum = to_body(qp, row(L_world, n))
            for i in range(4):
                turns[b, i] = 0.0
                turns[b, 7 + i] = 0.0
                turns[b, 11 + i] = qp[i]
            for i in range(3):
                turns[b, 4 + i] = momentum[i]
                momentum_world[b, i] = L_world[n, i]
            lever_principal = to_body(p, lever)
            for i in range(3):
                levers[b, i] = lever_principal[i]
                inverse[b, i] = 1.0 / moments[n, i]
            for i in range(3):
                reduced[b, i] = inverse[b, i] - inverse[b, 1]
            near = 0 if reduced[b, 0] <= -reduced[b, 2] else 2
            pair[b, 0], pair[b, 1] = 2 - near, near
        for flow in range(codes.shape[1]):
            for b in range(count):
                code = codes[schedules[b], flow]
                if code < 0:
                    continue
                n = start + b
                t = lengths[schedules[b], flow] * h
                rho = (turns[b, 0], turns[b, 1], turns[b, 2], turns[b, 3])
                momentum = (turns[b, 4], turns[b, 5], turns[b, 6])
                if code == AXES_KICK:
                    gamma = (turns[b, 7], turns[b, 8], turns[b, 9], turns[b, 10])
                    qp = (turns[b, 11], turns[b, 12], turns[b, 13], turns[b, 14])
                    qp = add4(qp, quat_mul(qp, rho))
                    qp = add4(qp, quat_mul(gamma, qp))  # C ⊗ q_p ⊗ R: the orientation now, in float64
                    total = add(row(torque_world, n), cross(to_world(qp, row(levers, b)), row(force_world, n)))
                    L = add(row(momentum_world, b), scale(t, total))
                    for i in range(3):
                        momentum_world[b, i] = L[i]
                    momentum = add(momentum, scale(t, to_body(qp, total)))
                elif code == AXES_CASIMIR:
                    # C' = (cos x, sin x L/|L|) ⊗ C, x = ½ t |L|/I₂: Π is left as it is.
                    L = row(momentum_world, b)
                    cm1, sinc = _cos_m1_sinc((0.5 * t) * sqrt(dot(L, L)) * inverse[b, 1])
                    f = sinc * (0.5 * t) * inverse[b, 1]
                    turn = (cm1, f * L[0], f * L[1], f * L[2])
                    gamma = (turns[b, 7], turns[b, 8], turns[b, 9], turns[b, 10])
                    gamma = add4(add4(gamma, turn), quat_mul(turn, gamma))
                    for i in range(4):
                        turns[b, 7 + i] = gamma[i]
                elif code >= AXES_FAR:
                    axis = pair[b, code - AXES_FAR]
                    rho, momentum = _principal_turn(rho, momentum, axis, (0.5 * t) * momentum[axis] * reduced[b, axis])
                else:
                    rho, momentum = _principal_turn(rho, momentum, code, (0.5 * t) * momentum[code] * inverse[b, code])
                for i in range(4):
                    turns[b, i] = rho[i]
                for i in range(3):
                    turns[b, 4 + i] = momentum[i]
        for b in range(count):
            n = start + b
            p = (frame_q[n, 0], frame_q[n, 1], frame_q[n, 2], frame_q[n, 3])
            turn_body = to_world(p, (turns[b, 1], turns[b, 2], turns[b, 3]))  # B − 1 = p ⊗ ρ ⊗ p*
            high, low = compensated_step(
                (q[n, 0], q[n, 1], q[n, 2], q[n, 3]),
                (q_low[n, 0], q_low[n, 1], q_low[n, 2], q_low[n, 3]),
                (turns[b, 7], turns[b, 8], turns[b, 9], turns[b, 10]),
                (turns[b, 0], turn_body[0], turn_body[1], turn_body[2]),
            )
            for i in range(4):
                q_low_out[n, i] = low[i]
            L = row(momentum_world, b)
            omega = to_world(high, matvec(matrix(inertia_inv, n), to_body(high, L)))
            _write(n, high, omega, L, q_out, omega_out, L_out, status_out)


# The world's centres of mass (sim.world).


@njit(cache=True, error_model="numpy", nogil=True)
def free_fall_kernel(position, velocity, bodies, h, half_h_sq, gravity):
    """Constant gravity, exactly: ``x' = x + (h v + (½ h²) g)``, then ``v' = v + h g``, for the rows ``bodies``
    (K,) of ``position`` and ``velocity`` (N, 3), in place; the arithmetic of numpy's
    ``x += h v + ½ h² g; v += h g`` element by element (``half_h_sq`` is ``0.5 * h * h``)."""
    for k in range(bodies.shape[0]):
        n = bodies[k]
        for i in range(3):
            position[n, i] = position[n, i] + (h * velocity[n, i] + half_h_sq * gravity[i])
            velocity[n, i] = velocity[n, i] + h * gravity[i]
