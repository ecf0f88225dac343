"""sim/so3.py: identities of math.md, scipy's expm as reference, Jacobians by perturbation."""

import mpmath
import numpy as np
from hypothesis import given, settings
from scipy.linalg import expm

from spinlab.sim.dual import jacobian
from spinlab.sim.so3 import (
    exp_so3,
    hat,
    left_jacobian_inv_so3,
    left_jacobian_so3,
    log_so3,
    nearest_rotation,
    right_jacobian_inv_so3,
    right_jacobian_so3,
    vee,
)
from tests.sim.conftest import rotation_vectors, sweep_vectors

ATOL_MATRIX = 1e-14
ATOL_RAD = 1e-12
EPS = np.finfo(float).eps


def _random_vectors(n: int, seed: int, scale: float = 1.0) -> np.ndarray:
    return scale * np.random.default_rng(seed).normal(size=(n, 3))


def test_hat_is_the_cross_product_and_vee_inverts_it():
    a, b = _random_vectors(50, 1), _random_vectors(50, 2)
    np.testing.assert_allclose(np.einsum("nij,nj->ni", hat(a), b), np.cross(a, b), atol=1e-15)
    np.testing.assert_array_equal(vee(hat(a)), a)
    np.testing.assert_array_equal(hat(a), -np.swapaxes(hat(a), -1, -2))


def test_exp_matches_scipy_expm_over_the_sweep_and_random_angles():
    v = np.concatenate([sweep_vectors(), _random_vectors(100, 3, scale=1.0)])
    expected = np.array([expm(hat(x)) for x in v])
    np.testing.assert_allclose(exp_so3(v), expected, atol=ATOL_MATRIX)


def test_exp_of_huge_angles_matches_high_precision():
    """Above a few radians scipy's expm itself errs by ~1e-12, so the reference is mpmath at 40 digits."""
    mpmath.mp.dps = 40
    v = _random_vectors(8, 4, scale=40.0)
    expected = np.array([np.array(mpmath.expm(mpmath.matrix(hat(x).tolist())).tolist(), dtype=float) for x in v])
    np.testing.assert_allclose(exp_so3(v), expected, atol=ATOL_MATRIX)


def test_exp_is_a_rotation():
    R = exp_so3(_random_vectors(200, 5, scale=10.0))
    np.testing.assert_allclose(R @ np.swapaxes(R, -1, -2), np.broadcast_to(np.eye(3), R.shape), atol=1e-14)
    np.testing.assert_allclose(np.linalg.det(R), 1.0, atol=1e-14)


def test_exp_of_tiny_angles_keeps_every_digit():
    v = np.array([[1e-9, -2e-9, 3e-9], [1e-300, 0.0, 0.0], [0.0, 0.0, 0.0]])
    # exp([v]) = 1 + [v] + ½[v]² + O(|v|³): the skew part must be [v] to the last digit, not lost to cancellation.
    R = exp_so3(v)
    np.testing.assert_allclose(vee(R), v, rtol=1e-15, atol=0.0)
    symmetric = R + np.swapaxes(R, -1, -2)
    np.testing.assert_allclose(symmetric, 2 * np.eye(3) + hat(v) @ hat(v), rtol=0.0, atol=1e-24)  # ulp of 1e-9


@settings(max_examples=300, deadline=None)
@given(rotation_vectors)
def test_log_inverts_exp(v):
    angle = np.linalg.norm(v)
    R = exp_so3(v)
    np.testing.assert_allclose(exp_so3(log_so3(R)), R, atol=4 * EPS * max(1.0, angle))
    if angle < np.pi - 1e-6:
        # log is the inverse of exp on the open ball |v| < π; its conditioning near π is 1/sin(a).
        np.testing.assert_allclose(log_so3(R), v, rtol=1e-14, atol=EPS * max(1.0, angle) / np.sin(max(angle, 1e-300)))


def test_log_near_pi_recovers_the_axis():
    axes = np.random.default_rng(6).normal(size=(20, 3))
    axes /= np.linalg.norm(axes, axis=-1, keepdims=True)
    for angle in (np.pi - 1e-6, np.pi - 1e-10, np.pi):
        v = log_so3(exp_so3(angle * axes))
        np.testing.assert_allclose(np.linalg.norm(v, axis=-1), angle, atol=1e-12)
        # At π the sign of the axis is arbitrary: compare the rotations, and the axis up to sign.
        np.testing.assert_allclose(np.abs(np.sum(v * axes, axis=-1)), angle, atol=1e-8)
        np.testing.assert_allclose(exp_so3(v), exp_so3(angle * axes), atol=1e-14)


@settings(max_examples=200, deadline=None)
@given(rotation_vectors)
def test_jacobian_identities(v):
    Jl, Jr = left_jacobian_so3(v), right_jacobian_so3(v)
    scale = max(1.0, float(np.linalg.norm(v)))
    np.testing.assert_allclose(Jr @ v, v, atol=4 * EPS * scale)
    np.testing.assert_allclose(Jl @ v, v, atol=4 * EPS * scale)
    np.testing.assert_allclose(Jr, left_jacobian_so3(-v), atol=0.0)
    np.testing.assert_allclose(Jr, exp_so3(v).T @ Jl, atol=8 * EPS * scale)


def test_jacobian_inverses_below_two_pi():
    v = np.concatenate([sweep_vectors(7), _random_vectors(100, 8, scale=1.5)])
    v = v[np.linalg.norm(v, axis=-1) < 5.0]
    eye = np.broadcast_to(np.eye(3), (len(v), 3, 3))
    np.testing.assert_allclose(left_jacobian_so3(v) @ left_jacobian_inv_so3(v), eye, atol=1e-14)
    np.testing.assert_allclose(right_jacobian_so3(v) @ right_jacobian_inv_so3(v), eye, atol=1e-14)


def test_left_jacobian_is_the_average_rotation():
    """Seed 003: Jl(v) = ∫₀¹ R(s v) ds, by 20-point Gauss–Legendre quadrature (exact to rounding here)."""
    nodes, weights = np.polynomial.legendre.leggauss(20)
    s = 0.5 * (nodes + 1.0)
    for v in _random_vectors(10, 9, scale=1.5):
        integral = np.einsum("k,kij->ij", 0.5 * weights, exp_so3(s[:, None] * v))
        np.testing.assert_allclose(left_jacobian_so3(v), integral, atol=1e-14)


def test_derivative_of_exp_along_a_path():
    """d/dt R(v(t)) = R(v)[Jr(v) v̇] = [Jl(v) v̇] R(v), checked by a 4th-order central difference."""
    rng = np.random.default_rng(10)
    for _ in range(20):
        v0, v1, v2 = rng.normal(size=(3, 3))
        path = lambda t, v0=v0, v1=v1, v2=v2: v0 + v1 * t + v2 * t * t  # noqa: E731
        t, step = 0.3, 1e-3
        dR = (
            -exp_so3(path(t + 2 * step))
            + 8 * exp_so3(path(t + step))
            - 8 * exp_so3(path(t - step))
            + exp_so3(path(t - 2 * step))
        ) / (12 * step)
        v, v_dot = path(t), v1 + 2 * v2 * t
        R = exp_so3(v)
        np.testing.assert_allclose(R @ hat(right_jacobian_so3(v) @ v_dot), dR, atol=1e-10)
        np.testing.assert_allclose(hat(left_jacobian_so3(v) @ v_dot) @ R, dR, atol=1e-10)


def test_action_jacobian_by_perturbation():
    """∂(R(u) x)/∂u = −R(u) [x] Jr(u), by central differences in each direction."""
    rng = np.random.default_rng(11)
    step = 1e-6
    for u, x in rng.normal(size=(20, 2, 3)):
        J_Rx_u = -exp_so3(u) @ hat(x) @ right_jacobian_so3(u)
        numeric = np.stack(
            [(exp_so3(u + step * e) @ x - exp_so3(u - step * e) @ x) / (2 * step) for e in np.eye(3)], axis=-1
        )
        np.testing.assert_allclose(J_Rx_u, numeric, atol=1e-8)


def test_nearest_rotation_recovers_a_drifted_rotation():
    rng = np.random.default_rng(12)
    R = exp_so3(rng.normal(size=(100, 3)))
    drift = 1e-3 * rng.normal(size=(100, 3, 3))
    fixed = nearest_rotation(R + drift)
    np.testing.assert_allclose(fixed @ np.swapaxes(fixed, -1, -2), np.broadcast_to(np.eye(3), R.shape), atol=1e-14)
    np.testing.assert_allclose(np.linalg.det(fixed), 1.0, atol=1e-14)
    # The polar factor is closer to the drifted matrix than the original rotation is (it is the nearest one).
    assert np.all(np.linalg.norm(fixed - (R + drift), axis=(1, 2)) <= np.linalg.norm(drift, axis=(1, 2)) + 1e-15)
    np.testing.assert_allclose(nearest_rotation(R), R, atol=1e-14)


def test_nearest_rotation_is_the_polar_factor():
    """M (MᵀM)^(−1/2), by eigen-decomposition of the symmetric MᵀM (seed 004)."""
    rng = np.random.default_rng(13)
    M = exp_so3(rng.normal(size=(30, 3))) + 0.05 * rng.normal(size=(30, 3, 3))
    values, vectors = np.linalg.eigh(np.swapaxes(M, -1, -2) @ M)
    inv_sqrt = vectors @ (values[:, :, None] ** -0.5 * np.swapaxes(vectors, -1, -2))
    np.testing.assert_allclose(nearest_rotation(M), M @ inv_sqrt, atol=1e-13)


def test_dual_number_jacobian_of_the_action_equals_the_hand_written_one():
    """exp_so3 runs on dual numbers: ∂(R(u) x)/∂u from sim.dual equals −R(u)[x]Jr(u) to 1e-12 (math.md)."""
    rng = np.random.default_rng(14)
    u = np.concatenate([sweep_vectors(15), rng.normal(size=(30, 3))])
    x = rng.normal(size=(len(u), 3))
    # jacobian() seeds the three directions along a new axis before the vector axis: (n, 3 directions, 3).
    J_Rx_u, value = jacobian(lambda w: np.einsum("...ij,...j->...i", exp_so3(w), x[:, None, :]), u)
    hand_written = -exp_so3(u) @ hat(x) @ right_jacobian_so3(u)
    np.testing.assert_allclose(J_Rx_u, hand_written, atol=1e-12)
    np.testing.assert_allclose(value, np.einsum("nij,nj->ni", exp_so3(u), x), atol=0.0)
