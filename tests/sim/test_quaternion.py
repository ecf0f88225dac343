"""sim/quaternion.py against rotation matrices (sim/so3.py) and closed forms."""

import warnings

import numpy as np
from hypothesis import given, settings

from spinlab.sim.quaternion import (
    quat_canonical,
    quat_conj,
    quat_exp,
    quat_exp_third_order,
    quat_from_matrix,
    quat_identity,
    quat_log,
    quat_midpoint,
    quat_mul,
    quat_normalize,
    quat_rotate,
    quat_to_matrix,
)
from spinlab.sim.so3 import exp_so3
from tests.sim.conftest import rotation_vectors

ATOL = 1e-14
EPS = np.finfo(float).eps


def _random_quats(n: int, seed: int) -> np.ndarray:
    return quat_normalize(np.random.default_rng(seed).normal(size=(n, 4)))


def test_identity_and_conjugate():
    q = _random_quats(50, 1)
    np.testing.assert_allclose(quat_mul(q, quat_conj(q)), quat_identity((50,)), atol=ATOL)
    np.testing.assert_array_equal(quat_mul(quat_identity(), q), q)


def test_product_matches_matrix_product_and_is_associative():
    p, q, r = _random_quats(50, 2), _random_quats(50, 3), _random_quats(50, 4)
    np.testing.assert_allclose(quat_to_matrix(quat_mul(p, q)), quat_to_matrix(p) @ quat_to_matrix(q), atol=ATOL)
    np.testing.assert_allclose(quat_mul(quat_mul(p, q), r), quat_mul(p, quat_mul(q, r)), atol=ATOL)


def test_product_broadcasts():
    p, q = _random_quats(4, 5).reshape(4, 1, 4), _random_quats(3, 6)
    pq = quat_mul(p, q)
    assert pq.shape == (4, 3, 4)
    np.testing.assert_allclose(pq[2, 1], quat_mul(p[2, 0], q[1]), atol=0.0)


def test_rotate_matches_matrix_and_sandwich():
    q, v = _random_quats(50, 7), np.random.default_rng(8).normal(size=(50, 3))
    np.testing.assert_allclose(quat_rotate(q, v), np.einsum("nij,nj->ni", quat_to_matrix(q), v), atol=ATOL)
    pure = np.concatenate([np.zeros((50, 1)), v], axis=-1)
    np.testing.assert_allclose(quat_rotate(q, v), quat_mul(quat_mul(q, pure), quat_conj(q))[:, 1:], atol=ATOL)


@settings(max_examples=300, deadline=None)
@given(rotation_vectors)
def test_exp_agrees_with_rodrigues(v):
    np.testing.assert_allclose(quat_to_matrix(quat_exp(v)), exp_so3(v), atol=8 * EPS * max(1.0, np.linalg.norm(v)))
    np.testing.assert_allclose(np.linalg.norm(quat_exp(v)), 1.0, atol=2 * EPS)


def test_exp_is_a_homomorphism_on_one_axis():
    axis = np.array([0.6, 0.0, 0.8])
    np.testing.assert_allclose(quat_mul(quat_exp(0.3 * axis), quat_exp(1.1 * axis)), quat_exp(1.4 * axis), atol=ATOL)


def test_from_matrix_round_trip_for_all_kinds_of_rotation():
    """Shepperd's method: every pivot is exercised (angles near 0, near π about each axis, random)."""
    axes = np.concatenate([np.eye(3), np.random.default_rng(9).normal(size=(40, 3))])
    axes /= np.linalg.norm(axes, axis=-1, keepdims=True)
    angles = np.array([0.0, 1e-12, 1e-4, 1.0, 2.5, np.pi - 1e-9, np.pi])
    v = (angles[:, None, None] * axes[None]).reshape(-1, 3)
    q = quat_exp(v)
    recovered = quat_from_matrix(quat_to_matrix(q))
    np.testing.assert_allclose(recovered, quat_canonical(q), atol=ATOL)
    assert np.all(recovered[:, 0] >= 0.0)
    np.testing.assert_allclose(np.linalg.norm(recovered, axis=-1), 1.0, atol=2 * EPS)


def test_log_inverts_exp(sweep):
    v = np.concatenate([sweep, np.random.default_rng(10).normal(size=(100, 3))])
    v = v[np.linalg.norm(v, axis=-1) < np.pi - 1e-6]
    np.testing.assert_allclose(quat_log(quat_exp(v)), v, rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(quat_log(-quat_exp(v)), v, rtol=1e-14, atol=1e-15)


def test_third_order_exponential_is_unit_and_fourth_order_accurate():
    """Seed 000's normalised third-order form: |q| = 1, and its angle error shrinks like |v|⁵ (32 per halving)."""
    axis = np.array([1.0, 2.0, -2.0]) / 3.0
    angles = 0.4 / 2.0 ** np.arange(6)
    approx = quat_exp_third_order(angles[:, None] * axis)
    np.testing.assert_allclose(np.linalg.norm(approx, axis=-1), 1.0, atol=2 * EPS)
    error = np.linalg.norm(quat_log(quat_mul(quat_conj(quat_exp(angles[:, None] * axis)), approx)), axis=-1)
    order = np.log2(error[:-1] / error[1:])
    np.testing.assert_allclose(order, 5.0, atol=0.01)
    # It keeps the rotation axis exactly: only the angle is approximated.
    np.testing.assert_allclose(np.cross(approx[:, 1:], axis), 0.0, atol=1e-16)


def test_sweep_has_exact_small_angle_behaviour(sweep):
    q = quat_exp(sweep)
    # Near zero exp(v/2) = (1 − |v|²/8, v/2) to second order, with no digit lost in the vector part.
    tiny = np.linalg.norm(sweep, axis=-1) < 1e-5
    np.testing.assert_allclose(q[tiny, 1:], 0.5 * sweep[tiny], rtol=1e-11)


def test_log_of_a_half_turn_is_silent_and_exact():
    # w = 0: the series branch (small |u|) must not divide by w where it is not taken.
    half_turns = np.array([[0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.6, 0.8], [-0.0, 0.0, 0.0, -1.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        v = quat_log(half_turns)
    np.testing.assert_allclose(np.linalg.norm(v, axis=-1), np.pi, rtol=1e-15)
    back = quat_exp(v)
    sign = np.sign(np.sum(back * half_turns, axis=-1, keepdims=True))
    np.testing.assert_allclose(sign * back, half_turns, atol=2e-16)


def test_the_midpoint_is_the_slerp_at_one_half_on_the_shorter_arc():
    """``quat_midpoint(p, q)`` against ``p ⊗ exp(½ log(p* ⊗ q))``, for pairs up to half a turn apart and with ``q``'s
    sign flipped (the same rotation: the same midpoint up to sign); both are within a few ulps of the exact one."""
    rng = np.random.default_rng(7)
    p = rng.normal(size=(500, 4))
    p /= np.linalg.norm(p, axis=-1, keepdims=True)
    turns = rng.normal(size=(500, 3)) * rng.uniform(0.0, 3.0, size=(500, 1))
    q = quat_mul(p, quat_exp(turns))
    q[::2] *= -1.0
    expected = quat_mul(p, quat_exp(0.5 * quat_log(quat_mul(quat_conj(p), q))))
    got = quat_midpoint(p, q)
    assert np.abs(np.linalg.norm(got, axis=-1) - 1.0).max() < 4 * np.finfo(float).eps
    np.testing.assert_allclose(quat_canonical(got), quat_canonical(expected), rtol=0.0, atol=1e-14)


def _product_by_sum(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The Hamilton product as slices, np.sum and a concatenation: the form whose bits quat_mul keeps."""
    pw, pv, qw, qv = p[..., :1], p[..., 1:], q[..., :1], q[..., 1:]
    w = pw * qw - np.sum(pv * qv, axis=-1, keepdims=True)
    v = pw * qv + qw * pv + np.cross(pv, qv)
    batch = np.broadcast_shapes(w.shape[:-1], v.shape[:-1])
    return np.concatenate([np.broadcast_to(w, batch + (1,)), np.broadcast_to(v, batch + (3,))], axis=-1)


def test_product_is_the_summed_form_bit_for_bit():
    rng = np.random.default_rng(41)
    special = np.array([0.0, -0.0, 1.0, -1.0, 2.5, np.inf, -np.inf, np.nan, 1e-310, 1e308])
    cases = [
        (rng.choice(special, (4000, 4)), rng.choice(special, (4000, 4))),
        (rng.normal(size=(500, 4)), rng.normal(size=(500, 4))),
        (rng.normal(size=(50, 1, 4)), np.eye(4)),
        (rng.normal(size=4), rng.normal(size=(3, 4))),
    ]
    with np.errstate(all="ignore"):
        for p, q in cases:
            for dtype in (np.float64, np.float32):
                ours, summed = (
                    quat_mul(p.astype(dtype), q.astype(dtype)),
                    _product_by_sum(p.astype(dtype), q.astype(dtype)),
                )
                assert ours.dtype == summed.dtype and ours.shape == summed.shape
                assert ours.tobytes() == summed.tobytes()
