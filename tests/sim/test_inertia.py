"""Tests of sim/inertia.py: the closed forms against Monte Carlo integration over each solid, the parallel-axis
theorem, and the checks every rigid body's tensor must pass."""

import warnings

import numpy as np
import pytest

from spinlab.sim.inertia import (
    SHAPES,
    SIZE_DEFAULTS,
    box,
    check_inertia,
    cylinder,
    parallel_axis,
    principal_moments,
    sphere,
    t_handle,
)

# Monte Carlo with N_SAMPLES points in the bounding box: the statistical error of a second moment is about
# 1/sqrt(points inside) ≈ 0.2 %, so 1 % of the largest moment is a loose, seed-independent bound.
N_SAMPLES = 1_000_000
RTOL_MONTE_CARLO = 1e-2
ATOL_COM_M = 3e-3
ATOL_EXACT = 1e-12


def _monte_carlo(inside, low, high, mass, seed=0, about=None):
    """COM (3,) and inertia (3, 3) of a uniform solid ``inside(points) -> bool mask`` within the box [low, high],
    the inertia about ``about`` (default: the sampled COM)."""
    points = np.random.default_rng(seed).uniform(low, high, size=(N_SAMPLES, 3))
    points = points[inside(points)]
    com = points.mean(axis=0)
    r = points - (com if about is None else np.asarray(about))
    # I = ∫ (|r|² 1 − r rᵀ) dm, with dm = mass / (number of points inside).
    second = r.T @ r / len(r)
    return com, mass * (np.trace(second) * np.eye(3) - second)


def _box_solid(size):
    half = 0.5 * np.asarray(size)
    return (lambda p: np.ones(len(p), dtype=bool)), -half, half


def _sphere_solid(radius):
    return (lambda p: np.sum(p * p, axis=1) <= radius**2), -np.full(3, radius), np.full(3, radius)


def _cylinder_solid(radius, length):
    def inside(p):
        return (p[:, 0] ** 2 + p[:, 1] ** 2 <= radius**2) & (np.abs(p[:, 2]) <= 0.5 * length)

    extent = np.array([radius, radius, 0.5 * length])
    return inside, -extent, extent


def _t_handle_solid(radius, length, bar_length):
    """The T as described in t_handle's docstring, as a point-membership test (an independent description)."""

    def inside(p):
        x, y, z = p.T
        handle = (x >= 0.0) & (x <= length) & (y * y + z * z <= radius**2)
        bar = ((x - length - radius) ** 2 + z * z <= radius**2) & (np.abs(y) <= 0.5 * bar_length)
        return handle | bar

    half_y = max(0.5 * bar_length, radius)
    return inside, np.array([0.0, -half_y, -radius]), np.array([length + 2.0 * radius, half_y, radius])


MASS_KG = 2.0
CASES = [
    ("box", box(MASS_KG, (0.3, 0.7, 1.1)), _box_solid((0.3, 0.7, 1.1))),
    ("sphere", sphere(MASS_KG, 0.4), _sphere_solid(0.4)),
    ("cylinder", cylinder(MASS_KG, 0.2, 0.9), _cylinder_solid(0.2, 0.9)),
    ("t_handle default", t_handle(MASS_KG), _t_handle_solid(**SIZE_DEFAULTS["t_handle"])),
    ("t_handle long", t_handle(MASS_KG, 0.05, 1.0, 0.4), _t_handle_solid(0.05, 1.0, 0.4)),
    ("t_handle wide", t_handle(MASS_KG, 0.1, 0.3, 1.2), _t_handle_solid(0.1, 0.3, 1.2)),
]


@pytest.mark.parametrize(("name", "properties", "solid"), CASES, ids=[case[0] for case in CASES])
def test_closed_form_matches_monte_carlo(name, properties, solid):
    com, inertia = _monte_carlo(*solid, MASS_KG)
    np.testing.assert_allclose(com, properties.com_offset, atol=ATOL_COM_M)
    scale = np.max(np.linalg.eigvalsh(properties.inertia))
    np.testing.assert_allclose(inertia, properties.inertia, atol=RTOL_MONTE_CARLO * scale)


def test_parallel_axis_matches_monte_carlo_about_an_offset_point():
    offset = np.array([0.3, -0.2, 0.5])
    properties = cylinder(MASS_KG, 0.2, 0.9)
    _, inertia = _monte_carlo(*_cylinder_solid(0.2, 0.9), MASS_KG, about=offset)
    expected = parallel_axis(properties.inertia, MASS_KG, offset)
    np.testing.assert_allclose(inertia, expected, atol=RTOL_MONTE_CARLO * np.max(np.linalg.eigvalsh(expected)))


def test_parallel_axis_of_a_point_mass():
    # A point mass m at d: I = m (|d|² 1 − d dᵀ), which has d as a null vector and trace 2 m |d|².
    offset = np.array([1.0, 2.0, -2.0])
    inertia = parallel_axis(np.zeros((3, 3)), 3.0, offset)
    np.testing.assert_allclose(inertia @ offset, 0.0, atol=ATOL_EXACT)
    assert np.trace(inertia) == pytest.approx(2.0 * 3.0 * 9.0)
    np.testing.assert_allclose(inertia, inertia.T, atol=0.0)


def test_t_handle_is_two_cylinders_moved_to_the_common_com():
    # By hand, for radius 0.1, handle 0.6, bar 0.9 and mass 1.5: masses 0.6 and 0.9 kg (by length),
    # centres at x = 0.3 and 0.7, so the COM is at x = (0.6·0.3 + 0.9·0.7)/1.5 = 0.54.
    properties = t_handle(1.5, 0.1, 0.6, 0.9)
    np.testing.assert_allclose(properties.com_offset, [0.54, 0.0, 0.0], atol=ATOL_EXACT)
    handle = np.diag([0.5 * 0.6 * 0.01, 0.6 * (0.03 + 0.36) / 12, 0.6 * (0.03 + 0.36) / 12])
    bar = np.diag([0.9 * (0.03 + 0.81) / 12, 0.5 * 0.9 * 0.01, 0.9 * (0.03 + 0.81) / 12])
    shift_handle = 0.6 * 0.24**2 * np.diag([0.0, 1.0, 1.0])
    shift_bar = 0.9 * 0.16**2 * np.diag([0.0, 1.0, 1.0])
    np.testing.assert_allclose(properties.inertia, handle + bar + shift_handle + shift_bar, atol=ATOL_EXACT)


def test_default_t_handle_has_seed_003_ratios_with_the_intermediate_axis_along_y():
    # Seed 003's moments (2.5, 1.4, 1.3) with x and z swapped, to 0.1 % (the defaults are rounded).
    inertia = t_handle().inertia
    np.testing.assert_allclose(inertia, np.diag(np.diag(inertia)), atol=0.0)
    moments = np.diag(inertia) * 2.5 / inertia[2, 2]
    np.testing.assert_allclose(moments, [1.3, 1.4, 2.5], rtol=1e-3)
    assert moments[0] < moments[1] < moments[2]


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_default_shapes_are_about_one_metre(shape):
    sizes = SIZE_DEFAULTS[shape]
    assert SHAPES[shape]().inertia.shape == (3, 3)
    extents = [np.max(v) if isinstance(v, tuple) else v for v in sizes.values()]
    assert 0.1 <= max(extents) <= 1.5


EXTREME_TENSORS = [
    box(1.0, (1.0, 1.0, 1.0)).inertia,
    box(1.0, (1.0, 1e-5, 1e-5)).inertia,  # a thin rod: I₁ ≈ 0, I₂ = I₃
    box(1.0, (1.0, 1.0, 1e-9)).inertia,  # a flat plate: I₃ = I₁ + I₂
    cylinder(1.0, 1.0, 1e-9).inertia,  # a flat disc
    cylinder(1.0, 1e-5, 1.0).inertia,  # a thin cylindrical rod
    sphere(3.0, 0.1).inertia,
    t_handle().inertia,
    t_handle(1.0, 1e-4, 1.0, 1.0).inertia,  # a thin T: nearly planar
    parallel_axis(sphere(1.0, 0.5).inertia, 1.0, [3.0, 0.0, 0.0]),
]


@pytest.mark.parametrize("index", range(len(EXTREME_TENSORS)))
def test_every_shape_passes_the_checks_in_any_orientation(index):
    inertia = EXTREME_TENSORS[index]
    assert check_inertia(inertia) is None
    rotation, _ = np.linalg.qr(np.random.default_rng(index).normal(size=(3, 3)))
    rotated = rotation @ inertia @ rotation.T
    assert check_inertia(0.5 * (rotated + rotated.T)) is None


def test_principal_moments_rebuild_the_tensor_with_a_proper_rotation():
    rng = np.random.default_rng(7)
    rotation, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    inertia = rotation @ np.diag([2.5, 1.3, 1.4]) @ rotation.T
    moments, axes = principal_moments(inertia)
    np.testing.assert_allclose(moments, [1.3, 1.4, 2.5], atol=1e-12)
    assert np.linalg.det(axes) == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(axes @ np.diag(moments) @ axes.T, inertia, atol=1e-12)
    np.testing.assert_allclose(axes.T @ axes, np.eye(3), atol=1e-12)


@pytest.mark.parametrize(
    ("inertia", "reason"),
    [
        (np.array([[1.0, 0.1, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]), "not symmetric"),
        (np.diag([1.0, -1.0, 1.0]), "not positive definite"),
        (np.diag([1.0, 1.0, 0.0]), "not positive definite"),
        (np.zeros((3, 3)), "zero"),
        (np.diag([1.0, 1.0, 3.0]), "triangle inequality"),
        (np.diag([1.0, 1.0, 2.0 + 1e-6]), "triangle inequality"),
        (np.diag([1.0, np.nan, 1.0]), "non-finite"),
        (np.ones(3), "3×3"),
    ],
)
def test_check_inertia_rejects(inertia, reason):
    message = check_inertia(inertia)
    assert message is not None and reason in message


def test_huge_tensors_are_checked_without_overflow():
    # Entries near float64's largest: their squares overflow, so the tensor is diagonalised scaled.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert check_inertia(np.diag([1e308, 1.2e308, 1.3e308])) is None
        assert "not positive definite" in check_inertia(np.full((3, 3), 1e308))
        assert "triangle" in check_inertia(np.diag([1e307, 1e307, 1e308]))


def test_a_stack_of_tensors_gives_each_ones_principal_frame_as_alone():
    rng = np.random.default_rng(5)
    halves = rng.normal(size=(40, 3, 3))
    tensors = halves @ np.swapaxes(halves, 1, 2) + np.eye(3)
    moments, axes = principal_moments(tensors)
    for tensor, stacked_moments, stacked_axes in zip(tensors, moments, axes, strict=True):
        alone_moments, alone_axes = principal_moments(tensor)
        np.testing.assert_array_equal(stacked_moments, alone_moments)
        np.testing.assert_array_equal(stacked_axes, alone_axes)
        assert np.linalg.det(stacked_axes) > 0.0  # proper rotations, those whose eigenvectors came improper too
