"""Tests of sim/dual.py: every rule against closed-form derivatives and central finite differences.

The functions under test are written once in numpy style and run on floats (for finite differences and the
value) and on Duals (for the derivative), which is how the project uses the module.
"""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spinlab.sim.dual import Dual, cos, cross, directional_derivative, jacobian, matmul, sin, sqrt, where

ATOL_EXACT = 1e-12  # derivative rules and Jacobians against closed forms
RTOL_EXACT = 1e-12
ATOL_FINITE_DIFFERENCE = 1e-6  # central differences with step FD_STEP: error ~ FD_STEP² f''' + eps / FD_STEP
FD_STEP = 1e-6
BATCH = 7

HYPOTHESIS = settings(max_examples=50, deadline=None)
finite_floats = st.floats(-10.0, 10.0, allow_nan=False)


def central_difference(f, x, direction, step=FD_STEP):
    """``(f(x + step d) − f(x − step d)) / (2 step)`` on float arrays."""
    return (f(x + step * direction) - f(x - step * direction)) / (2.0 * step)


def finite_difference_jacobian(f, x):
    """``(..., m, n)`` Jacobian of ``f: (..., n) -> (..., m)`` by central differences, column by column."""
    identity = np.eye(x.shape[-1])
    return np.stack([central_difference(f, x, identity[j]) for j in range(x.shape[-1])], axis=-1)


def hat(v):
    """``[v]``, ``(..., 3) -> (..., 3, 3)``, written with np.stack so it runs on Duals too."""
    zero = np.zeros_like(v[..., 0])
    rows = [[zero, -v[..., 2], v[..., 1]], [v[..., 2], zero, -v[..., 0]], [-v[..., 1], v[..., 0], zero]]
    return np.stack([np.stack(row, axis=-1) for row in rows], axis=-2)


def rodrigues(v):
    """``R(v) = 1 + s1 [v] + s2 [v]²`` for angles well away from 0, numpy style (math.md §Rodrigues)."""
    angle = np.sqrt(np.sum(v * v, axis=-1))
    s1 = np.sin(angle) / angle
    s2 = 2.0 * np.square(np.sin(0.5 * angle)) / angle**2
    K = hat(v)
    return np.eye(3) + s1[..., None, None] * K + s2[..., None, None] * (K @ K)


def jacobian_coefficients(v):
    """``(s1, s2, s3)`` of math.md at ``v`` (float arrays), for the hand-written Jacobians."""
    angle = np.linalg.norm(v, axis=-1)[..., None, None]
    return np.sin(angle) / angle, (1.0 - np.cos(angle)) / angle**2, (angle - np.sin(angle)) / angle**3


def left_jacobian(v):
    """``Jl(v) = 1 + s2 [v] + s3 [v]²``."""
    _, s2, s3 = jacobian_coefficients(v)
    K = hat(v)
    return np.eye(3) + s2 * K + s3 * (K @ K)


def random_rotation_vectors(rng, count=BATCH, low=0.3, high=3.0):
    directions = rng.normal(size=(count, 3))
    directions /= np.linalg.norm(directions, axis=-1, keepdims=True)
    return directions * rng.uniform(low, high, size=(count, 1))


# name: (function, hand-written derivative, sample domain)
UNARY_CASES = {
    "sin": (np.sin, np.cos, (-4, 4)),
    "cos": (np.cos, lambda x: -np.sin(x), (-4, 4)),
    "tan": (np.tan, lambda x: 1.0 / np.cos(x) ** 2, (-1.2, 1.2)),
    "arcsin": (np.arcsin, lambda x: 1.0 / np.sqrt(1.0 - x**2), (-0.9, 0.9)),
    "arccos": (np.arccos, lambda x: -1.0 / np.sqrt(1.0 - x**2), (-0.9, 0.9)),
    "arctan": (np.arctan, lambda x: 1.0 / (1.0 + x**2), (-4, 4)),
    "sinh": (np.sinh, np.cosh, (-2, 2)),
    "cosh": (np.cosh, np.sinh, (-2, 2)),
    "tanh": (np.tanh, lambda x: 1.0 / np.cosh(x) ** 2, (-2, 2)),
    "exp": (np.exp, np.exp, (-2, 2)),
    "expm1": (np.expm1, np.exp, (-2, 2)),
    "log": (np.log, lambda x: 1.0 / x, (0.1, 5)),
    "log1p": (np.log1p, lambda x: 1.0 / (1.0 + x), (-0.5, 5)),
    "sqrt": (np.sqrt, lambda x: 0.5 / np.sqrt(x), (0.1, 5)),
    "square": (np.square, lambda x: 2.0 * x, (-3, 3)),
    "reciprocal": (np.reciprocal, lambda x: -1.0 / x**2, (0.2, 3)),
    "absolute": (np.abs, np.sign, (-3, 3)),
    "negative": (np.negative, lambda x: -np.ones_like(x), (-3, 3)),
    "positive": (np.positive, np.ones_like, (-3, 3)),
    "operator abs": (abs, np.sign, (-3, 3)),
    "operator neg": (lambda x: -x, lambda x: -np.ones_like(x), (-3, 3)),
    "wrapper sin": (sin, np.cos, (-4, 4)),
    "wrapper cos": (cos, lambda x: -np.sin(x), (-4, 4)),
    "wrapper sqrt": (sqrt, lambda x: 0.5 / np.sqrt(x), (0.1, 5)),
}


@pytest.mark.parametrize("name", UNARY_CASES)
def test_unary_rule_matches_closed_form_and_finite_differences(name):
    function, derivative, (low, high) = UNARY_CASES[name]
    rng = np.random.default_rng(1)
    x = rng.uniform(low, high, size=(BATCH, 3))
    seed = rng.normal(size=x.shape)
    result = function(Dual(x, seed))
    assert isinstance(result, Dual)
    np.testing.assert_allclose(result.real, function(x), rtol=RTOL_EXACT, atol=ATOL_EXACT)
    np.testing.assert_allclose(result.dual, seed * derivative(x), rtol=RTOL_EXACT, atol=ATOL_EXACT)
    np.testing.assert_allclose(result.dual, central_difference(function, x, seed), atol=ATOL_FINITE_DIFFERENCE)


def test_product_and_quotient_rules_of_the_seed():
    rng = np.random.default_rng(2)
    x, y, a, b = rng.uniform(0.5, 2.0, size=(4, BATCH))
    product = Dual(x, y) * Dual(a, b)
    np.testing.assert_allclose(product.real, x * a, rtol=RTOL_EXACT)
    np.testing.assert_allclose(product.dual, y * a + x * b, rtol=RTOL_EXACT)
    quotient = Dual(x, y) / Dual(a, b)
    np.testing.assert_allclose(quotient.real, x / a, rtol=RTOL_EXACT)
    np.testing.assert_allclose(quotient.dual, (y * a - x * b) / a**2, rtol=RTOL_EXACT)


@pytest.mark.parametrize("exponent", [0, 1, 2, 3, -1, -2, 0.5, 2.5, -1.5])
def test_power_with_constant_exponent(exponent):
    x = np.random.default_rng(3).uniform(0.3, 2.0, size=BATCH)
    result = Dual(x, 1.0) ** exponent
    expected = exponent * x ** (exponent - 1) if exponent != 0 else np.zeros_like(x)
    np.testing.assert_allclose(result.real, x**exponent, rtol=RTOL_EXACT)
    np.testing.assert_allclose(result.dual, expected, rtol=RTOL_EXACT, atol=ATOL_EXACT)


def test_power_integer_exponent_of_negative_and_zero_base():
    x = np.array([-2.0, -0.5, 0.0, 0.0])
    assert np.allclose((Dual(x, 1.0) ** 3).dual, 3 * x**2, rtol=RTOL_EXACT)
    assert np.all((Dual(x, 1.0) ** 0).dual == 0.0)  # not 0 · 0⁻¹ = nan


def test_power_with_dual_exponent_and_dual_base():
    rng = np.random.default_rng(4)
    x, y, p, q = rng.uniform(0.5, 2.0, size=(4, BATCH))
    result = Dual(x, y) ** Dual(p, q)
    np.testing.assert_allclose(result.dual, y * p * x ** (p - 1) + q * x**p * np.log(x), rtol=RTOL_EXACT)
    np.testing.assert_allclose((2.0 ** Dual(p, 1.0)).dual, 2.0**p * np.log(2.0), rtol=RTOL_EXACT)


def test_arctan2_in_every_quadrant():
    rng = np.random.default_rng(5)
    numerator, denominator = rng.normal(size=(2, 4 * BATCH))
    direction_y, direction_x = rng.normal(size=(2, 4 * BATCH))
    result = np.arctan2(Dual(numerator, direction_y), Dual(denominator, direction_x))
    expected = (denominator * direction_y - numerator * direction_x) / (numerator**2 + denominator**2)
    np.testing.assert_allclose(result.real, np.arctan2(numerator, denominator), rtol=RTOL_EXACT)
    np.testing.assert_allclose(result.dual, expected, rtol=RTOL_EXACT, atol=ATOL_EXACT)


BROADCAST_CASES = {
    "ndarray * Dual": lambda d, c: c * d,
    "Dual * ndarray": lambda d, c: d * c,
    "scalar - Dual": lambda d, c: 2.0 - d,
    "Dual - scalar": lambda d, c: d - 2.0,
    "numpy scalar * Dual": lambda d, c: np.float64(3.0) * d,
    "ndarray / Dual": lambda d, c: c / d,
    "Dual / scalar": lambda d, c: d / 4.0,
    "scalar / Dual": lambda d, c: 1.0 / d,
    "ndarray + Dual": lambda d, c: c + d,
    "ndarray ** Dual": lambda d, c: np.abs(c) ** d,
    "ndarray @ Dual": lambda d, c: c[..., None, :] @ d[..., :, None],
    "Dual @ matrix": lambda d, c: d @ np.arange(9.0).reshape(3, 3),
    "np.maximum": lambda d, c: np.maximum(c, d),
    "np.minimum": lambda d, c: np.minimum(d, c),
}


@pytest.mark.parametrize("name", BROADCAST_CASES)
def test_mixed_operands_broadcast_and_differentiate(name):
    operation = BROADCAST_CASES[name]
    rng = np.random.default_rng(6)
    x, direction = rng.uniform(0.5, 2.0, size=(2, 3))  # (3,) Dual against (BATCH, 3) constants
    constant = rng.uniform(0.5, 2.0, size=(BATCH, 3))
    result = operation(Dual(x, direction), constant)
    expected_value = operation(x, constant)
    assert isinstance(result, Dual) and result.shape == np.shape(expected_value)
    np.testing.assert_allclose(result.real, expected_value, rtol=RTOL_EXACT)
    finite = central_difference(lambda t: operation(t, constant), x, direction)
    np.testing.assert_allclose(result.dual, finite, atol=ATOL_FINITE_DIFFERENCE)


def test_comparisons_give_plain_bool_arrays_from_the_real_part():
    d = Dual(np.array([0.0, 1.0, 2.0]), np.array([5.0, -5.0, 0.0]))
    for result, expected in [(d < 1.0, [True, False, False]), (1.0 <= d, [False, True, True]),
                             (d == 2.0, [False, False, True]), (np.greater(d, 0.5), [False, True, True])]:  # fmt: skip
        assert type(result) is np.ndarray and result.dtype == bool
        assert result.tolist() == expected


def sine_times_reversed(x):
    return np.sin(x) * x[..., ::-1]


def sine_times_reversed_jacobian(x):
    n = x.shape[-1]
    reversal = np.eye(n)[::-1]
    return np.cos(x)[..., :, None] * x[..., ::-1, None] * np.eye(n) + np.sin(x)[..., :, None] * reversal


AXIS = np.array([0.3, -1.2, 0.7])


def cross_plus_cubic(x):
    return cross(AXIS, x) + x * np.sum(x * x, axis=-1, keepdims=True)


def cross_plus_cubic_jacobian(x):
    squared_norm = np.sum(x * x, axis=-1)[..., None, None]
    return hat(AXIS) + squared_norm * np.eye(3) + 2.0 * x[..., :, None] * x[..., None, :]


ROTATED = np.array([0.4, 1.1, -0.8])


def rotate_fixed_vector(v):
    return np.einsum("...ij,...j->...i", rodrigues(v), ROTATED)


def rotate_fixed_vector_jacobian(v):
    """``∂(R(v) y)/∂v = −R(v) [y] Jr(v)`` (math.md §Rodrigues), with ``Jr(v) = Jl(−v)``."""
    return -rodrigues(v) @ hat(ROTATED) @ left_jacobian(-v)


STEP = 0.05  # h, s
INERTIA_BODY = np.diag([2.5, 1.4, 1.3])  # seed 003's T-handle
MOMENTUM_BODY = np.array([3.0, -20.0, 7.0])


def midpoint_residual(v):
    """``F(v) = v − h I⁻¹ R(−v/2) ℓ`` (math.md, implicit midpoint)."""
    rotated = matmul(rodrigues(-0.5 * v), MOMENTUM_BODY[:, None])[..., 0]
    return v - STEP * np.linalg.solve(INERTIA_BODY, rotated[..., None])[..., 0]


def midpoint_residual_jacobian(v):
    """``∂F/∂v = 1 − (h/2) I⁻¹ R(−v/2) [ℓ] Jl(v/2)``."""
    product = rodrigues(-0.5 * v) @ hat(MOMENTUM_BODY) @ left_jacobian(0.5 * v)
    return np.eye(3) - 0.5 * STEP * np.linalg.inv(INERTIA_BODY) @ product


VECTOR_FIELDS = {
    "sin(x) * reversed x": (sine_times_reversed, sine_times_reversed_jacobian),
    "a × x + x |x|²": (cross_plus_cubic, cross_plus_cubic_jacobian),
    "R(x) y": (rotate_fixed_vector, rotate_fixed_vector_jacobian),
    "implicit midpoint residual": (midpoint_residual, midpoint_residual_jacobian),
}


@pytest.mark.parametrize("name", VECTOR_FIELDS)
def test_jacobian_matches_hand_written_and_finite_differences(name):
    field, hand_written = VECTOR_FIELDS[name]
    x = random_rotation_vectors(np.random.default_rng(7))
    J, value = jacobian(field, x)
    assert J.shape == (BATCH, 3, 3) and value.shape == (BATCH, 3)
    np.testing.assert_allclose(value, field(x), rtol=RTOL_EXACT, atol=ATOL_EXACT)
    np.testing.assert_allclose(J, hand_written(x), rtol=RTOL_EXACT, atol=ATOL_EXACT)
    np.testing.assert_allclose(J, finite_difference_jacobian(field, x), atol=ATOL_FINITE_DIFFERENCE)


def test_jacobian_of_non_square_field_and_unbatched_input():
    def field(x):  # (..., 2) -> (..., 3)
        return np.stack([x[..., 0] * x[..., 1], np.sin(x[..., 0]), x[..., 1] ** 2], axis=-1)

    x = np.array([0.7, -1.3])
    J, value = jacobian(field, x)
    expected = [[x[1], x[0]], [np.cos(x[0]), 0.0], [0.0, 2.0 * x[1]]]
    np.testing.assert_allclose(J, expected, rtol=RTOL_EXACT, atol=ATOL_EXACT)
    np.testing.assert_allclose(value, field(x), rtol=RTOL_EXACT)


def test_jacobian_rejects_a_field_that_is_not_vectorised():
    with pytest.raises(ValueError, match=r"\(\.\.\., n\) to \(\.\.\., m\)"):
        jacobian(lambda x: np.sum(x * x, axis=-1), np.ones(3))


def test_directional_derivative_is_jacobian_times_direction():
    rng = np.random.default_rng(8)
    x = random_rotation_vectors(rng)
    direction = rng.normal(size=x.shape)
    derivative, value = directional_derivative(rotate_fixed_vector, x, direction)
    J, _ = jacobian(rotate_fixed_vector, x)
    np.testing.assert_allclose(derivative, np.einsum("...ij,...j->...i", J, direction), atol=ATOL_EXACT)
    np.testing.assert_allclose(value, rotate_fixed_vector(x), rtol=RTOL_EXACT)


# Operations that are linear in the Dual: the dual part must be the same operation on the dual parts.
LINEAR_OPERATIONS = {
    "index": lambda a: a[..., 1],
    "slice": lambda a: a[1:, ::-1],
    "bool mask": lambda a: a[a.real > 0] if isinstance(a, Dual) else a[a > 0],
    "none axis": lambda a: a[..., None],
    ".T": lambda a: a.T,
    "np.sum axis": lambda a: np.sum(a, axis=-1),
    "np.sum keepdims": lambda a: np.sum(a, axis=0, keepdims=True),
    ".sum()": lambda a: a.sum(),
    "np.mean": lambda a: np.mean(a, axis=0),
    "np.stack": lambda a: np.stack([a, 2.0 * a], axis=-1),
    "np.concatenate": lambda a: np.concatenate([a, a], axis=0),
    "np.reshape": lambda a: np.reshape(a, (-1,)),
    ".reshape": lambda a: a.reshape(3, BATCH),
    "np.swapaxes": lambda a: np.swapaxes(a, 0, 1),
    "np.moveaxis": lambda a: np.moveaxis(a, -1, 0),
    "np.expand_dims": lambda a: np.expand_dims(a, 1),
    "np.broadcast_to": lambda a: np.broadcast_to(a, (2, BATCH, 3)),
    "np.transpose": lambda a: np.transpose(a),
    "np.einsum trace-like": lambda a: np.einsum("ij->j", a),
    "np.trace": lambda a: np.trace(a[:3]),
}


@pytest.mark.parametrize("name", LINEAR_OPERATIONS)
def test_linear_operation_applies_to_both_parts(name):
    operation = LINEAR_OPERATIONS[name]
    rng = np.random.default_rng(9)
    real, dual = rng.normal(size=(2, BATCH, 3))
    result = operation(Dual(real, dual))
    assert isinstance(result, Dual)
    np.testing.assert_array_equal(result.real, operation(real))
    expected_dual = operation(dual) if name != "bool mask" else dual[real > 0]
    np.testing.assert_array_equal(result.dual, expected_dual)


# Operations with a product rule or a selection; checked against finite differences along a random direction.
NONLINEAR_OPERATIONS = {
    "np.where": lambda a: np.where(a[..., 0] > 0, a[..., 1] * a[..., 2], np.sin(a[..., 2])),
    "where wrapper": lambda a: where(a < 0.2, a**2, 3.0 * a),
    "np.einsum 2 operands": lambda a: np.einsum("...i,...j->...ij", a, np.sin(a)),
    "np.cross": lambda a: np.cross(a, a[..., ::-1] ** 2),
    "np.dot": lambda a: np.dot(a, np.cos(a[0])),
    "matmul": lambda a: a[..., :, None] @ a[..., None, :],
    "np.vecdot": lambda a: np.vecdot(a, a**3),
    "np.clip": lambda a: np.clip(a, -0.5, 0.8),
    "np.clip min= max=": lambda a: np.clip(a, min=-0.5, max=None),
    "np.linalg.norm": lambda a: np.linalg.norm(a, axis=-1),
    "np.linalg.solve vector": lambda a: np.linalg.solve(np.eye(3) * 3.0 + np.outer(a[0], a[0]), a[1]),
    "np.linalg.solve batch": lambda a: np.linalg.solve(3.0 * np.eye(3) + hat(a), np.cos(a)[..., None]),
    "np.linalg.inv": lambda a: np.linalg.inv(3.0 * np.eye(3) + hat(a)),
}


@pytest.mark.parametrize("name", NONLINEAR_OPERATIONS)
def test_nonlinear_operation_matches_finite_differences(name):
    operation = NONLINEAR_OPERATIONS[name]
    rng = np.random.default_rng(10)
    x, direction = rng.normal(size=(2, BATCH, 3))
    derivative, value = directional_derivative(operation, x, direction)
    np.testing.assert_allclose(value, operation(x), rtol=RTOL_EXACT, atol=ATOL_EXACT)
    finite = central_difference(operation, x, direction)
    np.testing.assert_allclose(derivative, finite, atol=ATOL_FINITE_DIFFERENCE)


def test_clip_passes_the_derivative_inside_and_stops_it_where_clipped():
    result = np.clip(Dual(np.array([-2.0, 0.0, 2.0]), 1.0), -1.0, 1.0)
    np.testing.assert_array_equal(result.real, [-1.0, 0.0, 1.0])
    np.testing.assert_array_equal(result.dual, [0.0, 1.0, 0.0])


def test_where_keeps_nan_of_the_discarded_branch_out():
    x = Dual(np.array([0.0, 4.0]), 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        result = np.where(x < 1.0, 1.0 + x, np.sqrt(x))  # sqrt' is infinite at 0, in the branch not taken
    np.testing.assert_array_equal(result.dual, [1.0, 0.25])


def test_setitem_writes_both_parts_and_a_float_clears_the_derivative():
    target = np.zeros_like(Dual(np.ones((2, 3)), 1.0))
    assert isinstance(target, Dual) and np.all(target.dual == 0.0)
    target[0] = Dual(np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0, 6.0]))
    target[1, 2] = 9.0
    np.testing.assert_array_equal(target.real, [[1.0, 2.0, 3.0], [0.0, 0.0, 9.0]])
    np.testing.assert_array_equal(target.dual, [[4.0, 5.0, 6.0], [0.0, 0.0, 0.0]])
    ones = np.ones_like(Dual(np.zeros(2), 1.0))
    np.testing.assert_array_equal(ones.real, [1.0, 1.0])
    np.testing.assert_array_equal(ones.dual, [0.0, 0.0])


def test_shape_protocol():
    d = Dual(np.zeros((BATCH, 3)), np.ones(3))  # dual part broadcast on construction
    assert d.shape == (BATCH, 3) and d.dual.shape == (BATCH, 3)
    assert d.ndim == 2 and len(d) == BATCH and d.size == 3 * BATCH
    assert np.shape(d) == (BATCH, 3) and np.ndim(d) == 2
    assert [row.shape for row in d] == [(3,)] * BATCH


def test_isfinite_looks_at_both_parts():
    d = Dual(np.array([1.0, 1.0, np.inf]), np.array([1.0, np.nan, 0.0]))
    np.testing.assert_array_equal(np.isfinite(d), [True, False, False])
    np.testing.assert_array_equal(np.isnan(d), [False, True, False])


def test_unsupported_operations_raise_instead_of_losing_the_derivative():
    d = Dual(np.ones(3), 1.0)
    with pytest.raises(TypeError):
        np.asarray(d)
    with pytest.raises(TypeError):
        np.fmod(d, 2.0)
    with pytest.raises(TypeError):
        np.add.reduce(d)
    with pytest.raises(TypeError):
        np.linalg.det(np.stack([d, d, d]))
    plain = np.zeros(3)
    with pytest.raises(TypeError):
        plain[:] = d


@HYPOTHESIS
@given(finite_floats, finite_floats)
def test_pythagorean_identity_has_zero_derivative(x, direction):
    result = np.sin(Dual(x, direction)) ** 2 + np.cos(Dual(x, direction)) ** 2
    assert abs(result.real - 1.0) < ATOL_EXACT
    assert abs(result.dual) < ATOL_EXACT * max(1.0, abs(direction))


@HYPOTHESIS
@given(st.floats(0.01, 100.0), finite_floats)
def test_exp_of_log_is_identity(x, direction):
    result = np.exp(np.log(Dual(x, direction)))
    assert abs(result.dual - direction) <= RTOL_EXACT * abs(direction) + ATOL_EXACT


@HYPOTHESIS
@given(st.lists(finite_floats, min_size=6, max_size=6), st.lists(finite_floats, min_size=3, max_size=3))
def test_product_rule_of_composed_functions(values, direction):
    """``d(f g) = f' g + f g'`` for ``f = sin(u·x)``, ``g = exp(x₀/10)`` along a direction."""
    u, x = np.array(values[:3]), np.array(values[3:])
    direction = np.array(direction)
    d = Dual(x, direction)
    product = np.sin(np.dot(u, d)) * np.exp(d[0] / 10.0)
    f, df = np.sin(u @ x), np.cos(u @ x) * (u @ direction)
    g, dg = np.exp(x[0] / 10.0), np.exp(x[0] / 10.0) * direction[0] / 10.0
    scale = max(1.0, float(np.abs(df * g)), float(np.abs(f * dg)))
    assert abs(product.dual - (df * g + f * dg)) <= RTOL_EXACT * scale


@HYPOTHESIS
@given(st.lists(finite_floats, min_size=12, max_size=12))
def test_jacobian_of_affine_map_is_its_matrix(values):
    matrix, offset = np.array(values[:9]).reshape(3, 3), np.array(values[9:])
    J, value = jacobian(lambda x: x @ matrix.T + offset, np.array([[0.1, 0.2, 0.3], [1.0, -1.0, 2.0]]))
    np.testing.assert_array_equal(J, np.broadcast_to(matrix, (2, 3, 3)))


@pytest.mark.parametrize(
    ("function", "x", "derivative"),
    [
        (np.tanh, 20.0, 4.0 * np.exp(-40.0) / (1.0 + np.exp(-40.0)) ** 2),
        (np.tanh, -30.0, 4.0 * np.exp(-60.0) / (1.0 + np.exp(-60.0)) ** 2),
        (np.tanh, 800.0, 0.0),  # below the smallest double: 0, without an overflow warning
        (np.expm1, -40.0, np.exp(-40.0)),
    ],
)
def test_derivatives_keep_their_digits_for_large_arguments(function, x, derivative):
    # 1 − tanh²x and expm1(x) + 1 cancel to 0 there; the derivative is tiny but has every digit.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = function(Dual(np.array([x]), np.array([1.0])))
    np.testing.assert_allclose(result.dual, [derivative], rtol=4e-16, atol=0.0)
