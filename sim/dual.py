"""Forward-mode automatic differentiation with dual numbers, as a numpy duck array.

A dual number ``x + ε y`` (written ``(x, y)``) has a dual unit with ``ε² = 0``, so a Taylor series stops after its
linear term: ``f(x + ε y) = f(x) + ε y f'(x)``. Carrying ``(x, y)`` through a computation therefore carries the
derivative along with the value, one elementary function at a time (seed 000, "Automatically Computing the
Derivatives of a Vector Field using Dual Numbers"):

    (x, y) ± (a, b) = (x ± a, y ± b)
    (x, y) (a, b)   = (x a, y a + x b)
    (x, y) / (a, b) = (x / a, (y a − x b) / a²)
    f(x, y)         = (f(x), y f'(x))

For a vector field ``V``, ``V(x + ε y) = V(x) + ε (y·∇) V``: the dual part is the directional derivative, and seeding
``y = e_j`` gives the ``j``-th column of the Jacobian.

:class:`Dual` holds a float64 ``real`` and ``dual`` array of one shape and implements ``__array_ufunc__`` and
``__array_function__``, so code written for float arrays with ``np.sin``, ``np.stack``, ``np.einsum``, ``@`` …
runs unchanged on it. Plain arrays and scalars mixed in are constants (dual part 0). Comparisons look at the real
part and return plain bool arrays, so ``np.where(a < c, …)`` branches as it would on floats. An operation that is
not implemented raises ``TypeError`` rather than silently dropping the dual part.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np
from numpy.lib.mixins import NDArrayOperatorsMixin

__all__ = ["Dual", "sin", "cos", "sqrt", "matmul", "cross", "where", "jacobian", "directional_derivative"]

ArrayOrDual = Any  # np.ndarray | float | Dual; numpy-style code accepts all three alike


class Dual(NDArrayOperatorsMixin):
    """An array of dual numbers ``real + ε dual``; both parts float64 of one shape (broadcast on construction).

    ``real``: the values, any shape. ``dual``: the derivative parts, broadcastable to ``real`` (default 0).
    Python operators go through numpy's ufuncs (``NDArrayOperatorsMixin``), so ``ndarray * Dual``, ``2.0 - Dual``
    and ``Dual @ ndarray`` all return a :class:`Dual`.
    """

    # numpy defers to __array_ufunc__ anyway; the priority also wins the older __mul__/__rmul__ dispatch.
    __array_priority__ = 100.0

    def __init__(self, real: ArrayOrDual, dual: ArrayOrDual = None) -> None:
        real = np.asarray(real, dtype=np.float64)
        dual = np.zeros_like(real) if dual is None else np.asarray(dual, dtype=np.float64)
        if real.shape != dual.shape:
            shape = np.broadcast_shapes(real.shape, dual.shape)
            # Copies, because broadcast views are read-only and __setitem__ must be able to write.
            real, dual = np.array(np.broadcast_to(real, shape)), np.array(np.broadcast_to(dual, shape))
        self.real = real
        self.dual = dual

    shape = property(lambda self: self.real.shape, doc="Shape of both parts.")
    ndim = property(lambda self: self.real.ndim, doc="Number of axes.")
    size = property(lambda self: self.real.size, doc="Number of elements.")
    T = property(lambda self: Dual(self.real.T, self.dual.T), doc="Both parts transposed.")

    def __len__(self) -> int:
        return len(self.real)

    def __bool__(self) -> bool:
        # As for ndarray: the truth of a single value, ambiguous (ValueError) for several.
        return bool(self.real)

    def __getitem__(self, index: Any) -> Dual:
        return Dual(self.real[index], self.dual[index])

    def __setitem__(self, index: Any, value: ArrayOrDual) -> None:
        self.real[index] = _real(value)
        self.dual[index] = value.dual if isinstance(value, Dual) else 0.0

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        raise TypeError("a Dual cannot become a plain ndarray (the dual part would be lost); use .real or .dual")

    def __repr__(self) -> str:
        return f"Dual(real={self.real!r}, dual={self.dual!r})"

    def reshape(self, *shape: Any) -> Dual:
        """Both parts reshaped, as ``ndarray.reshape``."""
        # np.reshape dispatches to __array_function__, which returns a Dual.
        return cast(Dual, np.reshape(self, shape[0] if len(shape) == 1 else shape))

    def sum(self, axis: Any = None, keepdims: bool = False) -> Dual:
        """Sum of both parts over ``axis``, as ``ndarray.sum``."""
        return np.sum(self, axis=axis, keepdims=keepdims)

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if method != "__call__" or kwargs:
            return NotImplemented  # reduce/accumulate/out= are not supported: numpy raises TypeError
        if ufunc in _UNARY_DERIVATIVES:
            (x,) = inputs
            value = ufunc(x.real)
            # A derivative may be infinite where the function is not differentiable (sqrt at 0); that shows up as
            # inf/nan in the dual part, usually in a np.where branch that is discarded, so numpy need not warn.
            with np.errstate(divide="ignore", invalid="ignore"):
                return Dual(value, x.dual * _UNARY_DERIVATIVES[ufunc](x.real, value))
        if ufunc in _BINARY_RULES:
            return _BINARY_RULES[ufunc](*inputs)
        if ufunc in _REAL_PART_ONLY:
            return ufunc(*[_real(x) for x in inputs])
        if ufunc in _BOTH_PARTS:
            (x,) = inputs
            return _BOTH_PARTS[ufunc](x.real, x.dual)
        return NotImplemented

    def __array_function__(self, func: Callable, types: tuple, args: tuple, kwargs: dict) -> Any:
        if func not in _FUNCTIONS or not all(issubclass(t, (Dual, np.ndarray)) for t in types):
            return NotImplemented
        return _FUNCTIONS[func](*args, **kwargs)


def _real(x: ArrayOrDual) -> Any:
    return x.real if isinstance(x, Dual) else x


def _dual_or_zero(x: ArrayOrDual) -> np.ndarray:
    return x.dual if isinstance(x, Dual) else np.zeros(np.shape(x))


def _lift(x: ArrayOrDual) -> Dual:
    return x if isinstance(x, Dual) else Dual(x)


def _linear(operation: Callable[..., Any], *operands: ArrayOrDual) -> Dual:
    """Apply an operation that is linear in its operands to the real and the dual parts alike."""
    return Dual(operation(*[_real(x) for x in operands]), operation(*[_dual_or_zero(x) for x in operands]))


def _product_rule(operation: Callable[..., Any], *operands: ArrayOrDual) -> Dual:
    """An operation linear in each operand separately (product, matmul, cross, einsum): by ``ε² = 0``,

    ``B(x + ε y, a + ε b) = B(x, a) + ε (B(y, a) + B(x, b))``; the dual part has one term per Dual operand.
    """
    reals = [_real(x) for x in operands]
    derivative = 0.0
    for i, x in enumerate(operands):
        if isinstance(x, Dual):
            derivative = derivative + operation(*reals[:i], x.dual, *reals[i + 1 :])
    return Dual(operation(*reals), derivative)


def _divide(numerator: ArrayOrDual, denominator: ArrayOrDual) -> Dual:
    x, a = _lift(numerator), _lift(denominator)
    quotient = x.real / a.real
    # (y a − x b) / a², written as (y − (x/a) b) / a to reuse the quotient.
    return Dual(quotient, (x.dual - quotient * a.dual) / a.real)


def _power(base: ArrayOrDual, exponent: ArrayOrDual) -> Dual:
    x, p = _lift(base), _lift(exponent)
    value = np.power(x.real, _real(exponent))
    with np.errstate(divide="ignore", invalid="ignore"):
        # d(x^p)/dx = p x^(p−1); written out for p = 0, where 0 · 0^(−1) would be nan at x = 0.
        slope = np.where(p.real == 0.0, 0.0, p.real * np.power(x.real, p.real - 1.0))
        derivative = x.dual * slope
        if isinstance(exponent, Dual):
            # d(x^p)/dp = x^p log x, only when the exponent varies (a constant one allows x < 0).
            derivative = derivative + p.dual * value * np.log(x.real)
    return Dual(value, derivative)


def _arctan2(numerator: ArrayOrDual, denominator: ArrayOrDual) -> Dual:
    y, x = _lift(numerator), _lift(denominator)
    return Dual(np.arctan2(y.real, x.real), (x.real * y.dual - y.real * x.dual) / (x.real**2 + y.real**2))


def _select(take_first: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Callable[..., Dual]:
    """maximum/minimum: the derivative of whichever operand is taken (the first on a tie)."""

    def rule(first: ArrayOrDual, second: ArrayOrDual) -> Dual:
        a, b = _lift(first), _lift(second)
        first_taken = take_first(a.real, b.real)
        return Dual(np.where(first_taken, a.real, b.real), np.where(first_taken, a.dual, b.dual))

    return rule


def _sech_squared(x):
    """``1/cosh² x`` as ``4 e^(−2|x|) / (1 + e^(−2|x|))²``: no overflow, and no cancellation for large |x| (where
    ``1 − tanh² x`` is 0)."""
    e = np.exp(-2.0 * np.abs(x))
    return 4.0 * e / ((1.0 + e) * (1.0 + e))


# f'(x) for f(x, y) = (f(x), y f'(x)); each entry gets x and the value f(x), whichever is cheaper to use.
_UNARY_DERIVATIVES: dict[np.ufunc, Callable[[np.ndarray, np.ndarray], Any]] = {
    np.negative: lambda x, fx: -1.0,
    np.positive: lambda x, fx: 1.0,
    np.sin: lambda x, fx: np.cos(x),
    np.cos: lambda x, fx: -np.sin(x),
    np.tan: lambda x, fx: 1.0 + fx * fx,
    np.arcsin: lambda x, fx: 1.0 / np.sqrt(1.0 - x * x),
    np.arccos: lambda x, fx: -1.0 / np.sqrt(1.0 - x * x),
    np.arctan: lambda x, fx: 1.0 / (1.0 + x * x),
    np.sinh: lambda x, fx: np.cosh(x),
    np.cosh: lambda x, fx: np.sinh(x),
    np.tanh: lambda x, fx: _sech_squared(x),
    np.exp: lambda x, fx: fx,
    np.expm1: lambda x, fx: np.exp(x),
    np.log: lambda x, fx: 1.0 / x,
    np.log1p: lambda x, fx: 1.0 / (1.0 + x),
    np.sqrt: lambda x, fx: 0.5 / fx,
    np.square: lambda x, fx: 2.0 * x,
    np.reciprocal: lambda x, fx: -fx * fx,
    np.absolute: lambda x, fx: np.sign(x),
}

_BINARY_RULES: dict[np.ufunc, Callable[[Any, Any], Dual]] = {
    np.add: lambda a, b: _linear(np.add, a, b),
    np.subtract: lambda a, b: _linear(np.subtract, a, b),
    np.multiply: lambda a, b: _product_rule(np.multiply, a, b),
    np.matmul: lambda a, b: _product_rule(np.matmul, a, b),
    np.vecdot: lambda a, b: _product_rule(np.vecdot, a, b),
    np.divide: _divide,
    np.power: _power,
    np.arctan2: _arctan2,
    np.maximum: _select(np.greater_equal),
    np.minimum: _select(np.less_equal),
}

# Piecewise-constant results: their derivative is 0 almost everywhere, so they return plain arrays.
_REAL_PART_ONLY = {
    np.less, np.less_equal, np.greater, np.greater_equal, np.equal, np.not_equal,
    np.sign, np.floor, np.ceil, np.rint, np.trunc,
}  # fmt: skip

# Tests of the number itself: a Dual is finite when both parts are.
_BOTH_PARTS: dict[np.ufunc, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    np.isfinite: lambda r, d: np.isfinite(r) & np.isfinite(d),
    np.isnan: lambda r, d: np.isnan(r) | np.isnan(d),
    np.isinf: lambda r, d: np.isinf(r) | np.isinf(d),
}

_FUNCTIONS: dict[Callable, Callable[..., Any]] = {}

_function: Callable[..., Any]
# Linear in the first argument; the other arguments are axes, shapes and flags.
for _function in (
    np.reshape, np.swapaxes, np.moveaxis, np.expand_dims, np.squeeze, np.transpose, np.broadcast_to,
    np.sum, np.mean, np.trace, np.diagonal, np.copy, np.flip,
):  # fmt: skip
    _FUNCTIONS[_function] = lambda a, *args, _f=_function, **kwargs: _linear(lambda p: _f(p, *args, **kwargs), a)
for _function in (np.shape, np.ndim, np.size):
    _FUNCTIONS[_function] = lambda a, *args, _f=_function: _f(_real(a), *args)
for _function in (np.zeros_like, np.empty_like):
    _FUNCTIONS[_function] = lambda a, *args, **kwargs: Dual(np.zeros_like(_real(a), *args, **kwargs))
_FUNCTIONS[np.ones_like] = lambda a, *args, **kwargs: Dual(np.ones_like(_real(a), *args, **kwargs))
_FUNCTIONS[np.stack] = lambda arrays, *args, **kwargs: _linear(lambda *p: np.stack(p, *args, **kwargs), *arrays)
_FUNCTIONS[np.concatenate] = lambda arrays, *args, **kwargs: _linear(
    lambda *p: np.concatenate(p, *args, **kwargs), *arrays
)
_FUNCTIONS[np.where] = lambda condition, a, b: _linear(lambda p, q: np.where(_real(condition), p, q), a, b)
_FUNCTIONS[np.einsum] = lambda subscripts, *operands, **kwargs: _product_rule(
    lambda *p: np.einsum(subscripts, *p, **kwargs), *operands
)
_FUNCTIONS[np.cross] = lambda a, b, **kwargs: _product_rule(lambda p, q: np.cross(p, q, **kwargs), a, b)
for _function in (np.dot, np.outer):
    _FUNCTIONS[_function] = lambda a, b, _f=_function: _product_rule(_f, a, b)


def _clip(a: ArrayOrDual, a_min: ArrayOrDual = None, a_max: ArrayOrDual = None, **bounds: ArrayOrDual) -> Any:
    """Clip as ``minimum(maximum(a, a_min), a_max)``: the derivative passes where ``a`` is not clipped."""
    a_min, a_max = bounds.get("min", a_min), bounds.get("max", a_max)  # numpy 2 also spells them min=, max=
    if a_min is not None:
        a = np.maximum(a, a_min)
    return a if a_max is None else np.minimum(a, a_max)


def _solve(matrix: ArrayOrDual, rhs: ArrayOrDual) -> Dual:
    """``A x = b``: differentiating, ``dA x + A dx = db``, so ``dx = A⁻¹ (db − dA x)`` with the same ``A``."""
    A, b = _lift(matrix), _lift(rhs)
    vector = b.ndim == 1  # numpy 2 reads b as a vector only when it is 1-D
    b_real, b_dual = (b.real[:, None], b.dual[:, None]) if vector else (b.real, b.dual)
    x = np.linalg.solve(A.real, b_real)
    dx = np.linalg.solve(A.real, b_dual - A.dual @ x)
    return Dual(x[..., 0], dx[..., 0]) if vector else Dual(x, dx)


def _inv(matrix: ArrayOrDual) -> Dual:
    """``d(A⁻¹) = −A⁻¹ dA A⁻¹``."""
    A = _lift(matrix)
    inverse = np.linalg.inv(A.real)
    return Dual(inverse, -inverse @ A.dual @ inverse)


def _norm(x: ArrayOrDual, ord: None = None, axis: Any = None, keepdims: bool = False) -> Any:
    """Euclidean / Frobenius norm ``sqrt(Σ x²)``; other orders are not supported."""
    if ord is not None:
        raise TypeError("sim.dual supports np.linalg.norm only with ord=None")
    return np.sqrt(np.sum(x * x, axis=axis, keepdims=keepdims))


_FUNCTIONS.update({np.clip: _clip, np.linalg.solve: _solve, np.linalg.inv: _inv, np.linalg.norm: _norm})


# Readable names for numpy-style code that runs on floats and Duals alike: numpy itself dispatches each call to
# Dual.__array_ufunc__ / __array_function__ when an operand is a Dual, so the numpy functions are the wrappers.
sin, cos, sqrt, matmul, cross, where = np.sin, np.cos, np.sqrt, np.matmul, np.cross, np.where


def jacobian(f: Callable[[ArrayOrDual], ArrayOrDual], x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Jacobian ``J[..., i, j] = ∂f_i/∂x_j`` of a vector field by dual numbers, all ``n`` directions at once.

    ``f`` maps ``(..., n) -> (..., m)`` and is vectorised over leading axes (numpy-style code). ``x``: ``(..., n)``
    float. ``f`` is evaluated once, on a Dual whose real part is ``x`` repeated along a new axis ``(..., n, n)``
    and whose dual part is the identity: row ``j`` is ``x + ε e_j``, whose dual result is column ``j`` of the
    Jacobian (seed 000). Returns ``(J, fx)``: ``(..., m, n)`` and ``(..., m)``.
    """
    x = np.asarray(x, dtype=np.float64)
    n = x.shape[-1]
    shape = x.shape[:-1] + (n, n)
    seeded = Dual(np.broadcast_to(x[..., None, :], shape).copy(), np.broadcast_to(np.eye(n), shape).copy())
    result = _lift(f(seeded))
    if result.ndim != seeded.ndim or result.shape[:-1] != shape[:-1]:
        raise ValueError(f"f must map (..., n) to (..., m); on {shape} it returned {result.shape}")
    return np.swapaxes(result.dual, -1, -2), result.real[..., 0, :]


def directional_derivative(
    f: Callable[[ArrayOrDual], ArrayOrDual], x: np.ndarray, direction: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Derivative of ``f`` at ``x`` along ``direction``, ``(y·∇) f``, from one evaluation on ``x + ε y``.

    ``x``, ``direction``: ``(..., n)`` float, broadcastable. Returns ``(derivative, fx)``, each of ``f``'s
    output shape.
    """
    result = _lift(f(Dual(x, direction)))
    return result.dual, result.real
