"""render/trail.py and render/overlays.py: the herpolhode ring buffer and the invariable plane; no GL."""

import numpy as np

from spinlab.render.overlays import plane_matrices, trail_segments
from spinlab.render.trail import HerpolhodeTrail, invariable_plane
from spinlab.sim.quaternion import quat_normalize, quat_to_matrix

ATOL = 1e-12


def test_the_ring_buffer_keeps_the_newest_samples_oldest_first():
    trail = HerpolhodeTrail(n_bodies=2, capacity=4)
    for k in range(6):
        trail.push(np.full((2, 3), float(k)))
    assert trail.count == 4
    history, age = trail.omega_world()
    assert np.array_equal(history[:, 0, 0], [2.0, 3.0, 4.0, 5.0]) and np.array_equal(age, [3, 2, 1, 0])
    assert trail.omega_world([1])[0].shape == (4, 1, 3)
    # Stride 2: the samples of even absolute index (sample k holds k), and the newest.
    thinned, age = trail.omega_world([0, 1], max_values=4)
    assert np.array_equal(thinned[:, 1, 0], [2.0, 4.0, 5.0]) and np.array_equal(age, [3, 1, 0])
    assert np.array_equal(trail.sample_index(age), [2, 4, 5])
    trail.clear()
    assert trail.count == 0


def test_omega_lies_in_the_invariable_plane():
    # ω · L̂ = 2E/|L| for any body and state: 2E = ω·L and L̂ = L/|L|.
    rng = np.random.default_rng(4)
    rotation = quat_to_matrix(quat_normalize(rng.normal(size=(10, 4))))
    inertia_world = rotation @ np.diag([1.3, 1.4, 2.5]) @ rotation.transpose(0, 2, 1)
    omega = rng.normal(size=(10, 3))
    L = np.einsum("nij,nj->ni", inertia_world, omega)
    energy = 0.5 * np.einsum("ni,ni->n", omega, L)
    normal, distance = invariable_plane(L, energy)
    assert np.allclose(np.einsum("ni,ni->n", omega, normal), distance, atol=ATOL)
    # Drawn from the body's centre with scale s, the tip of s·ω lies on the drawn disc's plane.
    position = rng.normal(size=(10, 3))
    disc = plane_matrices(position, L, energy, omega[None], 0.2, 1.2, np.zeros(10))
    normal_drawn, center = disc[:, :3, 2] / np.linalg.norm(disc[:, :3, 2], axis=1, keepdims=True), disc[:, :3, 3]
    tips = position + 0.2 * omega
    assert np.allclose(np.einsum("ni,ni->n", tips - center, normal_drawn), 0.0, atol=1e-12)
    # ...and inside the disc, whose radius is 1.2 times the tip's distance from the L axis.
    disc_radius = np.linalg.norm(disc[:, :3, 0], axis=1)
    assert np.allclose(np.linalg.norm(tips - center, axis=1) * 1.2, disc_radius)


def test_the_plane_reaches_past_the_farthest_omega_of_the_history():
    """The disc's radius is ``margin`` times the farthest that any ω of the history (scaled) gets from the L axis,
    computed here as the plain distance from the axis, sample by sample; at least ``min_radius``."""
    rng = np.random.default_rng(11)
    history = rng.normal(size=(40, 6, 3))
    L, energy, position = rng.normal(size=(6, 3)), rng.uniform(0.5, 2.0, 6), rng.normal(size=(6, 3))
    min_radius = np.array([0.0, 0.0, 0.0, 0.0, 0.0, 50.0])
    disc = plane_matrices(position, L, energy, history, 0.2, 1.2, min_radius)
    normal = L / np.linalg.norm(L, axis=1, keepdims=True)
    along = np.sum(history * normal, axis=2, keepdims=True) * normal
    farthest = np.linalg.norm(history - along, axis=2).max(axis=0)
    expected = np.maximum(1.2 * 0.2 * farthest, min_radius)
    np.testing.assert_allclose(np.linalg.norm(disc[:, :3, 0], axis=1), expected, rtol=1e-12)  # rounding alone
    assert np.linalg.norm(disc[5, :3, 0]) == 50.0


def test_trail_segments_join_consecutive_kept_tips_and_fade_with_age():
    tips = np.arange(2 * 5 * 3, dtype=float).reshape(2, 5, 3)  # two trails of five samples
    keep = np.ones((2, 5), dtype=bool)
    keep[1, [1, 2]] = False
    ends, alpha, trail = trail_segments(tips, np.arange(4, -1, -1), 10, keep)
    assert ends.shape == (2 * (4 + 2), 3) and np.array_equal(trail, [0] * 8 + [1] * 4)
    assert np.array_equal(ends[:8], tips[0, [0, 1, 1, 2, 2, 3, 3, 4]])
    assert np.array_equal(ends[8:], tips[1, [0, 3, 3, 4]])  # no segment joins the two trails
    assert alpha[7] == 1.0 and np.all(np.diff(alpha[1:8:2]) > 0) and np.isclose(alpha[0], 0.6**2)
    assert np.allclose(alpha[8:], [0.6**2, 0.9**2, 0.9**2, 1.0])
