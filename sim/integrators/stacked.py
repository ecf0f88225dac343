"""The kernels' small-vector helpers over stacked arrays: one numpy operation for a whole vector or matrix.

:mod:`sim.integrators._kernels` writes a body's vector as a tuple of 3 numbers and a matrix as a tuple of rows, and
its helpers (``add``, ``dot``, ``cross``, ``matvec``, ``matmul``, ``solve``, ...) spell out every component.
sim/integrators/kernel_twins.py runs that code over all the bodies at once; there a vector is a (3, n) array (the
component first, the body last), a matrix a (3, 3, n) array (row, column, body), a quaternion (4, n), and these
helpers replace the kernel's: each computes every element by the IEEE operations the kernel performs for it, in
the same order (noted above each where it is not plain), but in a few numpy operations on the whole stack instead
of one per component. numpy's cost is ~0.5-1 µs an operation for the ~10² bodies a twin steps (more where one
operand is broadcast), so the count of operations is what matters: a step of the implicit midpoint rule for the 100
bodies of benchmarks/cloud.py takes 0.36 ms here against 0.63 ms over tuples; alike from 10⁴ bodies on, where the
arithmetic itself dominates.

The kernel's helpers not named here (``_residual``, ``_jacobian``, ``_kick``) run as written on top of these.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["overrides", "add", "sub", "scale", "dot", "cross", "matvec", "matmul", "transpose", "subtract", "hat",
           "hat_times", "first_order_map", "first_order_matrix", "identity_minus", "solve", "to_world", "to_body",
           "quat_mul", "quat_normalize", "compensated_step", "newton_curvature", "is_finite_state"]  # fmt: skip

# Component i of a cross product is a[i + 1] b[i + 2] − a[i + 2] b[i + 1] (indices mod 3): rows 1:4 of a vector's
# components taken in the order _CYCLE are its components i + 1, rows 2:5 its components i + 2. (``take`` with an
# index array: ~0.7 µs, where indexing with a list costs ~3 µs.)
_CYCLE = np.array([0, 1, 2, 0, 1])
# A matrix's 9 elements flat (row-major): its diagonal is [::4]; hat(x) has −x[i] at (i + 1, i + 2), flat 5, 6, 1,
# and x[i] at (i + 2, i + 1), flat 7, 2, 3.
_MINUS_AT, _PLUS_AT = np.array([5, 6, 1]), np.array([7, 2, 3])
# Elements (i + 1, k + 1), (i + 2, k + 2), (i + 1, k + 2), (i + 2, k + 1) of a matrix, flat, over every (i, k).
_NEXT_NEXT, _AFTER_AFTER, _NEXT_AFTER, _AFTER_NEXT = (
    np.array([3 * ((i + di) % 3) + (k + dk) % 3 for i in range(3) for k in range(3)])
    for di, dk in ((1, 1), (2, 2), (1, 2), (2, 1))
)


def add(a, b):
    return a + b


def sub(a, b):
    return a - b


def scale(s, a):
    return s * a


def dot(a, b):
    """Over the component axis (the first of a vector): ``(a0 b0 + a1 b1) + a2 b2``, the kernel's order."""
    products = a * b
    return products[0] + products[1] + products[2]


def cross(a, b):
    """``a × b`` over the first axis (broadcast over the others): ``a1 b2 − a2 b1``, … as the kernel writes it."""
    a, b = _cycled(a), _cycled(b)  # rows 1:4 are the components i + 1, rows 2:5 the components i + 2
    return a[1:4] * b[2:5] - a[2:5] * b[1:4]


def _cycled(a):
    """``a``'s rows 0, 1, 2, 0, 1: slices of it are its rows cycled, without gathering each."""
    return a.take(_CYCLE, axis=0)


def matvec(M, x):
    """``M x``: row i is ``(M[i,0] x0 + M[i,1] x1) + M[i,2] x2``, the kernel's order."""
    products = M * x[None]
    return products[:, 0] + products[:, 1] + products[:, 2]


def matmul(A, B):
    """``A B``: element (i, j) is ``(A[i,0] B[0,j] + A[i,1] B[1,j]) + A[i,2] B[2,j]``, as the kernel's
    ``_row_times`` sums the rows of ``B`` scaled."""
    products = A[:, :, None] * B[None]  # (i, k, j): A[i,k] B[k,j]
    return products[:, 0] + products[:, 1] + products[:, 2]


def transpose(A):
    return A.swapaxes(0, 1)


def subtract(A, B):
    return A - B


def hat(x):
    """``[x]``: zeros on the diagonal (the kernel's ``0.0``), ``∓x`` off it."""
    return _skew(0.0, x)


def _skew(diagonal, x):
    """A matrix with ``diagonal`` on its diagonal and ``[x]``'s elements off it, ``−x[i]`` as ``-(x[i])``."""
    flat = np.empty((9, *x.shape[1:]))
    flat[::4] = diagonal
    flat[_MINUS_AT] = -x
    flat[_PLUS_AT] = x
    return flat.reshape(3, 3, *x.shape[1:])


def hat_times(x, A):
    """Rows of ``[x] A``: row i is ``x[i+1] A[i+2] − x[i+2] A[i+1]``, a cross product of ``x`` with ``A``'s rows."""
    return cross(x[:, None], A)


def first_order_map(v, c1, c2, x):
    """``(1 + c1 [v] + c2 [v]²) x`` as the kernel: ``x + (c1 (v × x) + c2 (v × (v × x)))``."""
    v = _cycled(v)  # once for both cross products
    x_cycled = _cycled(x)
    vx = v[1:4] * x_cycled[2:5] - v[2:5] * x_cycled[1:4]
    vx_cycled = _cycled(vx)
    return x + (c1 * vx + c2 * (v[1:4] * vx_cycled[2:5] - v[2:5] * vx_cycled[1:4]))


def first_order_matrix(v, c1, c2):
    """``1 + c1 [v] + c2 [v]²``: element (i, j) is ``c2 v_i v_j`` (``(c2 v_i) v_j``) plus ``1 − c2 |v|²`` on the
    diagonal and ``±c1 v_k`` off it, the kernel's terms (``p − c1 z`` as ``p + (−(c1 z))``: the same bits)."""
    return (c2 * v)[:, None] * v[None] + _skew(1.0 - c2 * dot(v, v), c1 * v)


def identity_minus(s, A):
    """``1 − s A``: ``(−s) A[i,j]`` off the diagonal and ``1 − s A[i,i]`` on it, the kernel's operations."""
    result = -s * A
    result.reshape(9, -1)[::4] = 1.0 - s * A.reshape(9, -1)[::4]
    return result


def solve(J, b):
    """``J x = b`` by Cramer as the kernel: ``c_i = J[i+1] × J[i+2]``, ``det = J0 · c0``, then
    ``(1/det) ((b0 c0 + b1 c1) + b2 c2)``."""
    # Component k of c_i: J[i+1, k+1] J[i+2, k+2] − J[i+1, k+2] J[i+2, k+1], every (i, k) at once.
    flat = J.reshape(9, -1)
    columns = flat.take(_NEXT_NEXT, axis=0) * flat.take(_AFTER_AFTER, axis=0)
    columns = (columns - flat.take(_NEXT_AFTER, axis=0) * flat.take(_AFTER_NEXT, axis=0)).reshape(J.shape)
    det = dot(J[0], columns[0])
    terms = b[:, None] * columns
    return (1.0 / det) * (terms[0] + terms[1] + terms[2])


def to_world(q, x):
    """``O x`` as the kernel: ``t = 2 (u × x)``, ``(x + w t) + u × t``."""
    return _rotate(q[0], q[1:], x)


def to_body(q, x):
    """``Oᵀ x``: :func:`to_world` by the conjugate ``(w, −u)``."""
    return _rotate(q[0], -q[1:], x)


def _rotate(w, u, x):
    u = _cycled(u)  # once for both cross products
    x = _cycled(x)
    t = 2.0 * (u[1:4] * x[2:5] - u[2:5] * x[1:4])
    t_cycled = _cycled(t)
    return x[:3] + w * t + (u[1:4] * t_cycled[2:5] - u[2:5] * t_cycled[1:4])


def quat_mul(p, q):
    """``p ⊗ q`` as the kernel: ``w = p0 q0 − ((p1 q1 + p2 q2) + p3 q3)``, ``u = (p0 u_q + q0 u_p) + u_p × u_q``."""
    p_vector, q_vector = p[1:], q[1:]
    w = p[0] * q[0] - dot(p_vector, q_vector)
    return np.concatenate((w[None], p[0] * q_vector + q[0] * p_vector + cross(p_vector, q_vector)))


def quat_normalize(q):
    """``q / |q|``, ``|q|² = ((q0² + q1²) + q2²) + q3²`` as the kernel sums it."""
    squares = q * q
    return q / np.sqrt(squares[0] + squares[1] + squares[2] + squares[3])


def _dot4(a, b):
    """``((a0 b0 + a1 b1) + a2 b2) + a3 b3``, the kernel's ``dot4``."""
    products = a * b
    return products[0] + products[1] + products[2] + products[3]


def compensated_step(q_high, q_low, left, right):
    """The kernel's ``compensated_step`` (``C ⊗ q ⊗ B`` of the double-double ``q_high + q_low``, (4, n) each) over
    the stack, ``None`` for a side with no turn (the kernel's ``NO_TURN``: its zero products are taken here too, so
    the signs of zeros agree): ``(high, low)``."""
    zero = np.zeros_like(q_high)
    left, right = zero if left is None else left, zero if right is None else right
    delta = quat_mul(q_high, right) + quat_mul(q_low, right)
    delta = (delta + quat_mul(left, q_high)) + quat_mul(left, q_low + delta)
    excess = (_dot4(q_high, q_high) - 1.0) + 2.0 * _dot4(q_high, q_low + delta) + _dot4(delta, delta)
    increment = delta - (0.5 * excess) * (q_high + delta)
    total = q_high + increment  # Knuth's TwoSum, then the low part added and the pair renormalised
    bb = total - q_high
    error = ((q_high - (total - bb)) + (increment - bb)) + q_low
    high = total + error
    low = error - (high - total)
    far_off = ~(np.abs(excess) <= 1e-8)
    if far_off.any():
        high[:, far_off] = quat_normalize((q_high[:, far_off] + q_low[:, far_off]) + delta[:, far_off])
        low[:, far_off] = 0.0
    return high, low


def newton_curvature(M, L, torque, h):
    """``2 |h| |I⁻¹|_F (|L| + |h| |τ|)`` as the kernel: ``|I⁻¹|_F² = (M0·M0 + M1·M1) + M2·M2``, each row's dot
    product in its order."""
    squares = M * M
    rows = squares[:, 0] + squares[:, 1] + squares[:, 2]
    size_M = np.sqrt(rows[0] + rows[1] + rows[2])
    h_abs = abs(h)
    return 2.0 * h_abs * size_M * (np.sqrt(dot(L, L)) + h_abs * np.sqrt(dot(torque, torque)))


def is_finite_state(q, omega, L):
    """(n,) bool: every component of a body's q, ω and L finite."""
    return np.isfinite(np.concatenate((q, omega, L))).all(axis=0)


def overrides(kernels: dict[str, Any]) -> dict[str, Any]:
    """The names of ``kernels`` (the namespace of ``_kernels.py`` run as plain Python) to replace for stacked
    arrays: these helpers, and ``quat_exp`` on the namespace's own ``rodrigues_coefficients``."""
    rodrigues_coefficients = kernels["rodrigues_coefficients"]

    def quat_exp(v):
        """``exp(v/2)`` as the kernel: ``(1 − |v/2|² s2, s1 v/2)``."""
        half = 0.5 * v
        half_sq = dot(half, half)
        s1, s2, _ = rodrigues_coefficients(half_sq)
        return np.concatenate(((1.0 - half_sq * s2)[None], s1 * half))

    def quat_exp_minus_one(v):
        """``exp(v/2) − 1`` as the kernel: ``(−|v/2|² s2, s1 v/2)``."""
        half = 0.5 * v
        half_sq = dot(half, half)
        s1, s2, _ = rodrigues_coefficients(half_sq)
        return np.concatenate(((-(half_sq * s2))[None], s1 * half))

    helpers = {name: globals()[name] for name in __all__ if name != "overrides"}
    return helpers | {"quat_exp": quat_exp, "quat_exp_minus_one": quat_exp_minus_one}
