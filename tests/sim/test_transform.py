"""Tests for sim/transform.py and sim/dynamic_transform.py (seed 000, "The Dynamics of a Transform Hierarchy").

The group laws are checked on random batches; the dynamics formulas are checked against central finite
differences of smooth pose trajectories, which use nothing but the pose maps (compose, inverse, between).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spinlab.sim import dynamic_transform as dt
from spinlab.sim import transform as tf
from spinlab.sim.dynamic_transform import DynamicTransform, MotionDelta
from spinlab.sim.quaternion import quat_exp, quat_to_matrix
from spinlab.sim.so3 import vee
from spinlab.sim.transform import Transform

# Identities that hold exactly up to rounding; the quantities compared are at most O(100).
ATOL_ROUNDING = 1e-10
# Five-point stencils with a 1e-3 s step: truncation ~h⁴ ≈ 1e-12, rounding of the second derivative
# ~eps·|T|/h² ≈ 1e-9; derivatives of a wrong formula are off by O(1).
STEP_S = 1e-3
ATOL_FINITE_DIFFERENCE = 1e-6
BATCH = 16

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
FAST = settings(max_examples=25, deadline=None)


# ---------------------------------------------------------------------------------------------- random inputs


def random_vectors(rng: np.random.Generator, n: int = BATCH, magnitude: float = 1.0) -> np.ndarray:
    return magnitude * rng.normal(size=(n, 3))


def random_transform(rng: np.random.Generator, n: int = BATCH) -> Transform:
    # Scales spread over [e⁻¹, e]; rotations over the whole group (angles up to about 2π).
    return Transform(random_vectors(rng, n, 2.0), quat_exp(random_vectors(rng, n, 2.0)), np.exp(rng.uniform(-1, 1, n)))


def random_dynamic(rng: np.random.Generator, n: int = BATCH) -> DynamicTransform:
    return DynamicTransform(random_transform(rng, n), *(random_vectors(rng, n) for _ in range(4)))


def random_delta(rng: np.random.Generator, n: int = BATCH) -> MotionDelta:
    return MotionDelta(*(random_vectors(rng, n) for _ in range(4)))


def derivatives(dynamic: DynamicTransform) -> MotionDelta:
    return MotionDelta(dynamic.velocity, dynamic.acceleration, dynamic.angular_velocity, dynamic.angular_acceleration)


def difference(a: DynamicTransform, b: DynamicTransform) -> MotionDelta:
    return MotionDelta(*(x - y for x, y in zip(derivatives(a), derivatives(b), strict=True)))


def assert_transform_close(a: Transform, b: Transform, atol: float) -> None:
    np.testing.assert_allclose(a.translation, b.translation, rtol=0, atol=atol)
    np.testing.assert_allclose(quat_to_matrix(a.rotation), quat_to_matrix(b.rotation), rtol=0, atol=atol)
    np.testing.assert_allclose(a.scale, b.scale, rtol=0, atol=atol)


def assert_delta_close(a: MotionDelta, b: MotionDelta, atol: float) -> None:
    for name, x, y in zip(MotionDelta._fields, a, b, strict=True):
        np.testing.assert_allclose(x, y, rtol=0, atol=atol, err_msg=name)


def assert_dynamic_close(a: DynamicTransform, b: DynamicTransform, atol: float) -> None:
    assert_transform_close(a.transform, b.transform, atol)
    assert_delta_close(derivatives(a), derivatives(b), atol)


# ---------------------------------------------------------------------------------------------- Transform


@FAST
@given(SEEDS)
def test_transform_act_of_composition_is_act_in_turn(seed: int) -> None:
    rng = np.random.default_rng(seed)
    parent, child = random_transform(rng), random_transform(rng)
    points = random_vectors(rng)
    np.testing.assert_allclose(parent.compose(child).act(points), parent.act(child.act(points)), atol=ATOL_ROUNDING)
    np.testing.assert_allclose(parent.inverse().act(parent.act(points)), points, atol=ATOL_ROUNDING)
    np.testing.assert_allclose(parent.act_vector_inverse(parent.act_vector(points)), points, atol=ATOL_ROUNDING)
    # The linear part is the difference of two image points.
    np.testing.assert_allclose(
        parent.act_vector(points), parent.act(points) - parent.act(np.zeros(3)), atol=ATOL_ROUNDING
    )


@FAST
@given(SEEDS)
def test_transform_matrix_of_composition_is_product(seed: int) -> None:
    rng = np.random.default_rng(seed)
    parent, child = random_transform(rng), random_transform(rng)
    points = random_vectors(rng)
    np.testing.assert_allclose(
        parent.compose(child).to_matrix(), parent.to_matrix() @ child.to_matrix(), atol=ATOL_ROUNDING
    )
    homogeneous = np.concatenate([points, np.ones((BATCH, 1))], axis=-1)
    np.testing.assert_allclose(
        (parent.to_matrix() @ homogeneous[..., None])[..., :3, 0], parent.act(points), atol=ATOL_ROUNDING
    )


def test_transform_matrix_by_hand() -> None:
    # A quarter turn about z, doubled, then shifted: e_x ↦ 2 e_y + T.
    quarter_turn = Transform([1.0, 2.0, 3.0], quat_exp(np.array([0.0, 0.0, np.pi / 2])), 2.0)
    expected = np.array([[0, -2, 0, 1], [2, 0, 0, 2], [0, 0, 2, 3], [0, 0, 0, 1]], dtype=float)
    np.testing.assert_allclose(quarter_turn.to_matrix(), expected, atol=ATOL_ROUNDING)
    np.testing.assert_allclose(quarter_turn.inverse().act([1.0, 4.0, 3.0]), [1.0, 0.0, 0.0], atol=ATOL_ROUNDING)


def test_batches_broadcast_and_index() -> None:
    rng = np.random.default_rng(7)
    parent, children = random_dynamic(rng, 1)[0], random_dynamic(rng)
    composed = dt.compose(parent, children)
    assert composed.transform.batch_shape == (BATCH,)
    for i in (0, 5, BATCH - 1):
        assert_dynamic_close(composed[i], dt.compose(parent, children[i]), ATOL_ROUNDING)


# ---------------------------------------------------------------------------------------------- group laws


# One test per group law, stamped over both groups: (module, random element, closeness check).
GROUPS = [
    pytest.param(tf, random_transform, assert_transform_close, id="Transform"),
    pytest.param(dt, random_dynamic, assert_dynamic_close, id="DynamicTransform"),
]


@pytest.mark.parametrize(("group", "random_element", "assert_close"), GROUPS)
@FAST
@given(seed=SEEDS)
def test_compose_is_associative(group, random_element, assert_close, seed: int) -> None:
    rng = np.random.default_rng(seed)
    a, b, c = (random_element(rng) for _ in range(3))
    assert_close(group.compose(group.compose(a, b), c), group.compose(a, group.compose(b, c)), ATOL_ROUNDING)


@pytest.mark.parametrize(("group", "random_element", "assert_close"), GROUPS)
@FAST
@given(seed=SEEDS)
def test_inverse_and_identity(group, random_element, assert_close, seed: int) -> None:
    rng = np.random.default_rng(seed)
    a, b = random_element(rng), random_element(rng)
    identity = group.identity((BATCH,))
    assert_close(a.compose(a.inverse()), identity, ATOL_ROUNDING)
    assert_close(a.inverse().compose(a), identity, ATOL_ROUNDING)
    assert_close(group.compose(identity, a), a, ATOL_ROUNDING)
    assert_close(group.compose(a, identity), a, ATOL_ROUNDING)
    assert_close(a.compose(a.between(b)), b, ATOL_ROUNDING)


@FAST
@given(SEEDS)
def test_global_to_local_inverts_local_to_global(seed: int) -> None:
    rng = np.random.default_rng(seed)
    parent_global, child_local = random_dynamic(rng), random_dynamic(rng)
    child_global = dt.local_to_global(parent_global, child_local)
    assert_dynamic_close(dt.global_to_local(parent_global, child_global), child_local, ATOL_ROUNDING)
    # The seed's closed form equals the composition A₂⁻¹ ∘ A₃.
    assert_dynamic_close(
        parent_global.between(child_global), dt.compose(parent_global.inverse(), child_global), ATOL_ROUNDING
    )


# ---------------------------------------------------------------------------------------------- finite differences


class Trajectory(NamedTuple):
    """Smooth poses ``T(t) = c₀ + c₁ t + c₂ t² + c₃ sin(f t)``, ``R(t) = exp(r₀ + r₁ t + r₂ t²)``, constant S."""

    translation_coefficients: np.ndarray  # (4, n, 3)
    frequency: np.ndarray  # (n, 1), rad/s
    rotation_coefficients: np.ndarray  # (3, n, 3)
    scale: np.ndarray  # (n,)

    def pose(self, t: np.ndarray) -> Transform:
        """Poses at times ``t`` (k,): a Transform of batch shape (k, n)."""
        scale = np.broadcast_to(self.scale, t.shape + self.scale.shape)
        t = t[:, None, None]
        c0, c1, c2, c3 = self.translation_coefficients
        r0, r1, r2 = self.rotation_coefficients
        translation = c0 + c1 * t + c2 * t**2 + c3 * np.sin(self.frequency * t)
        rotation_vector = r0 + r1 * t + r2 * t**2
        return Transform(translation, quat_exp(rotation_vector), scale)


def random_trajectory(rng: np.random.Generator, n: int = BATCH) -> Trajectory:
    return Trajectory(
        rng.normal(size=(4, n, 3)),
        rng.uniform(0.5, 2.0, size=(n, 1)),
        rng.normal(size=(3, n, 3)),
        np.exp(rng.uniform(-1, 1, n)),
    )


def finite_difference_dynamic(pose, t0: float) -> DynamicTransform:
    """DynamicTransform at ``t0`` of the pose trajectory ``pose(t) -> Transform (k, n)``, by five-point stencils.

    ``ω`` is the vector of ``Ṙ Rᵀ``; ``α`` that of the skew part of ``R̈ Rᵀ = [α] + [ω]²`` (``[ω]²`` is symmetric).
    """
    poses = pose(t0 + STEP_S * np.arange(-2.0, 3.0))
    first = np.array([1.0, -8.0, 0.0, 8.0, -1.0]) / (12.0 * STEP_S)
    second = np.array([-1.0, 16.0, -30.0, 16.0, -1.0]) / (12.0 * STEP_S**2)
    translation, rotation = poses.translation, quat_to_matrix(poses.rotation)
    rotation_now_transposed = np.swapaxes(rotation[2], -1, -2)
    return DynamicTransform(
        poses[2],
        np.tensordot(first, translation, axes=1),
        np.tensordot(second, translation, axes=1),
        vee(np.tensordot(first, rotation, axes=1) @ rotation_now_transposed),
        vee(np.tensordot(second, rotation, axes=1) @ rotation_now_transposed),
    )


@FAST
@given(SEEDS)
def test_compose_derivatives_match_finite_differences(seed: int) -> None:
    rng = np.random.default_rng(seed)
    parent, child, t0 = random_trajectory(rng), random_trajectory(rng), rng.uniform(-1, 1)
    expected = finite_difference_dynamic(lambda t: tf.compose(parent.pose(t), child.pose(t)), t0)
    composed = dt.compose(finite_difference_dynamic(parent.pose, t0), finite_difference_dynamic(child.pose, t0))
    assert_dynamic_close(composed, expected, ATOL_FINITE_DIFFERENCE)


@FAST
@given(SEEDS)
def test_inverse_derivatives_match_finite_differences(seed: int) -> None:
    rng = np.random.default_rng(seed)
    trajectory, t0 = random_trajectory(rng), rng.uniform(-1, 1)
    expected = finite_difference_dynamic(lambda t: tf.inverse(trajectory.pose(t)), t0)
    assert_dynamic_close(dt.inverse(finite_difference_dynamic(trajectory.pose, t0)), expected, ATOL_FINITE_DIFFERENCE)


@FAST
@given(SEEDS)
def test_global_to_local_derivatives_match_finite_differences(seed: int) -> None:
    rng = np.random.default_rng(seed)
    parent, child_global, t0 = random_trajectory(rng), random_trajectory(rng), rng.uniform(-1, 1)
    expected = finite_difference_dynamic(lambda t: tf.between(parent.pose(t), child_global.pose(t)), t0)
    local = dt.global_to_local(
        finite_difference_dynamic(parent.pose, t0), finite_difference_dynamic(child_global.pose, t0)
    )
    assert_dynamic_close(local, expected, ATOL_FINITE_DIFFERENCE)


# ---------------------------------------------------------------------------------------------- inertial forces


@FAST
@given(SEEDS)
def test_free_particle_local_acceleration_is_inertial(seed: int) -> None:
    rng = np.random.default_rng(seed)
    parent_global, child_global = random_dynamic(rng), random_dynamic(rng)
    # No force: constant world velocity, zero world acceleration.
    free = DynamicTransform(
        child_global.transform, child_global.velocity, np.zeros((BATCH, 3)), *derivatives(child_global)[2:]
    )
    local = dt.global_to_local(parent_global, free)
    inertial = dt.inertial_accelerations(parent_global, local)
    np.testing.assert_allclose(local.acceleration, inertial.total, atol=ATOL_ROUNDING)


@FAST
@given(SEEDS)
def test_inertial_terms_account_for_world_minus_local_acceleration(seed: int) -> None:
    rng = np.random.default_rng(seed)
    parent_global, child_local, mass = random_dynamic(rng), random_dynamic(rng), np.exp(rng.uniform(-1, 1, BATCH))
    child_global = dt.compose(parent_global, child_local)
    inertial = dt.inertial_accelerations(parent_global, child_local)
    world_in_parent_basis = parent_global.transform.act_vector_inverse(child_global.acceleration)
    np.testing.assert_allclose(child_local.acceleration - world_in_parent_basis, inertial.total, atol=ATOL_ROUNDING)
    force_world = mass[:, None] * child_global.acceleration
    np.testing.assert_allclose(
        dt.local_acceleration_from_force(parent_global, child_local, force_world, mass),
        child_local.acceleration,
        atol=ATOL_ROUNDING,
    )


def test_inertial_terms_by_hand() -> None:
    # A parent turning about z at ω = 3 rad/s, α = 5 rad/s², accelerating at (1, 0, 0); a child at r e_x moving
    # at u e_y. Centrifugal ω² r e_x outward, Coriolis −2 ω e_z × u e_y = 2 ω u e_x, Euler −α r e_y.
    omega, alpha, r, u = 3.0, 5.0, 2.0, 0.5
    parent_global = DynamicTransform(tf.identity(), np.zeros(3), [1.0, 0, 0], [0, 0, omega], [0, 0, alpha])
    at_rest = np.zeros(3)
    child_local = DynamicTransform(Transform([r, 0, 0], [1.0, 0, 0, 0], 1.0), [0, u, 0], at_rest, at_rest, at_rest)
    inertial = dt.inertial_accelerations(parent_global, child_local)
    np.testing.assert_allclose(inertial.linear, [-1.0, 0, 0], atol=ATOL_ROUNDING)
    np.testing.assert_allclose(inertial.centrifugal, [omega**2 * r, 0, 0], atol=ATOL_ROUNDING)
    np.testing.assert_allclose(inertial.coriolis, [2 * omega * u, 0, 0], atol=ATOL_ROUNDING)
    np.testing.assert_allclose(inertial.euler, [0, -alpha * r, 0], atol=ATOL_ROUNDING)


# ---------------------------------------------------------------------------------------------- deltas


@FAST
@given(SEEDS)
def test_local_delta_then_convert_equals_convert_then_global_delta(seed: int) -> None:
    rng = np.random.default_rng(seed)
    parent_global, child_local, delta_local = random_dynamic(rng), random_dynamic(rng), random_delta(rng)
    child_global = dt.compose(parent_global, child_local)
    changed = dt.compose(parent_global, child_local.add_delta(delta_local))
    delta_global = dt.child_delta_to_global(parent_global, delta_local)
    assert_dynamic_close(changed, child_global.add_delta(delta_global), ATOL_ROUNDING)
    assert_delta_close(dt.child_delta_to_local(parent_global, delta_global), delta_local, ATOL_ROUNDING)


@FAST
@given(SEEDS)
def test_global_delta_then_convert_equals_convert_then_local_delta(seed: int) -> None:
    rng = np.random.default_rng(seed)
    parent_global, child_global, delta_global = random_dynamic(rng), random_dynamic(rng), random_delta(rng)
    changed = dt.global_to_local(parent_global, child_global.add_delta(delta_global))
    delta_local = dt.child_delta_to_local(parent_global, delta_global)
    assert_dynamic_close(changed, dt.global_to_local(parent_global, child_global).add_delta(delta_local), ATOL_ROUNDING)


@FAST
@given(SEEDS)
def test_child_delta_from_parent_delta(seed: int) -> None:
    rng = np.random.default_rng(seed)
    parent_global, child_local, delta_parent = random_dynamic(rng), random_dynamic(rng), random_delta(rng)
    before = dt.compose(parent_global, child_local)
    after = dt.compose(parent_global.add_delta(delta_parent), child_local)
    expected = dt.child_delta_from_parent(parent_global, child_local, delta_parent)
    assert_delta_close(difference(after, before), expected, ATOL_ROUNDING)


@FAST
@given(SEEDS)
def test_counteracted_child_keeps_its_global_motion(seed: int) -> None:
    rng = np.random.default_rng(seed)
    parent_global, child_local, delta_velocity = random_dynamic(rng), random_dynamic(rng), random_vectors(rng)
    zero = np.zeros((BATCH, 3))
    parent_changed = parent_global.add_delta(MotionDelta(delta_velocity, zero, zero, zero))
    child_changed = child_local.add_delta(dt.counteract_delta_local(parent_global, delta_velocity))
    before = dt.compose(parent_global, child_local)
    assert_dynamic_close(dt.compose(parent_changed, child_changed), before, ATOL_ROUNDING)
    # Without the correction the child does inherit the change, so the check above can fail.
    inherited = dt.compose(parent_changed, child_local)
    np.testing.assert_allclose(inherited.velocity - before.velocity, delta_velocity, atol=ATOL_ROUNDING)


@FAST
@given(SEEDS)
def test_impulse_changes_global_velocity_only(seed: int) -> None:
    rng = np.random.default_rng(seed)
    parent_global, child_local = random_dynamic(rng), random_dynamic(rng)
    impulse_world, mass = random_vectors(rng), np.exp(rng.uniform(-1, 1, BATCH))
    before = dt.compose(parent_global, child_local)
    after = dt.compose(parent_global, dt.apply_impulse(parent_global, child_local, impulse_world, mass))
    zero = np.zeros((BATCH, 3))
    assert_delta_close(
        difference(after, before), MotionDelta(impulse_world / mass[:, None], zero, zero, zero), ATOL_ROUNDING
    )
    # The seed's closed form: Δv₁ = J₂⁻¹ Δp / m, Δa₁ = −(2/m) J₂⁻¹ (ω₂ × Δp).
    pose, omega_parent = parent_global.transform, parent_global.angular_velocity
    expected_local = MotionDelta(
        pose.act_vector_inverse(impulse_world) / mass[:, None],
        -2.0 * pose.act_vector_inverse(np.cross(omega_parent, impulse_world)) / mass[:, None],
        zero,
        zero,
    )
    assert_delta_close(dt.impulse_delta_local(parent_global, impulse_world, mass), expected_local, ATOL_ROUNDING)
