"""The batched closed form (sim/exact_batch.py) against TorqueFreeSolution body by body, and the exact gap."""

import numpy as np

from spinlab.sim.euler_poinsot import _separatrix_gap, principal_frame
from spinlab.sim.exact import TorqueFreeSolution
from spinlab.sim.exact_batch import TorqueFreeBatch, separatrix_gaps


def _states(count: int, seed: int = 1):
    rng = np.random.default_rng(seed)
    inertia = np.tile(np.diag([2.5, 1.4, 1.3]), (count, 1, 1))
    inertia[::5] = np.diag([1.0, 2.0, 2.0])  # axisymmetric: solved one by one
    inertia[1::7] = np.eye(3)  # a sphere
    q0 = rng.normal(size=(count, 4))
    q0 /= np.linalg.norm(q0, axis=1, keepdims=True)
    omega = np.array([0.0, 5.0, 0.0]) + rng.normal(0.0, 0.3, (count, 3))
    omega[3] = [0.0, 4.0, 0.0]  # a steady spin
    return inertia, q0, omega


# The batch and the single body compute the same closed form in a different order of operations (arrays of bodies
# against one body's scalars), and numpy's vector and scalar paths round differently on different CPUs, so they agree
# to rounding, not bit for bit. The phases (precession, spin, the elliptic argument λt) grow as |ω| t, and a few
# ulps of a phase of size |ω| t move a unit quaternion by as much: hence ULPS · eps · (1 + |ω| t), and |ω| times that
# for the body rates. Measured on an AMD EPYC (AVX-512), with and without numpy's AVX-512 and AVX2 paths: at most
# 0.98 of that unit in q, 0 in ω.
ULPS = 8.0
EPS = np.finfo(float).eps


def test_batch_matches_each_body_to_rounding():
    inertia, q0, omega = _states(300)
    batch = TorqueFreeBatch.from_states(inertia, q0, omega)
    assert 0 < batch.rows.size < 300 and len(batch.others) == 300 - batch.rows.size
    t = np.array([0.0, 0.25, 3.7, 41.0])
    q, omega_body = batch.orientation_and_omega_body(t)
    assert q.shape == (4, 300, 4) and omega_body.shape == (4, 300, 3)
    for k in range(300):
        q_k, omega_k = TorqueFreeSolution.from_state(inertia[k], q0[k], omega[k]).orientation_and_omega_body(t)
        speed = np.linalg.norm(omega[k])
        bound_q = ULPS * EPS * (1.0 + speed * t)[:, None]
        assert np.all(np.abs(q[:, k] - q_k) <= bound_q), (k, np.abs(q[:, k] - q_k).max(axis=1) / bound_q[:, 0])
        assert np.all(np.abs(omega_body[:, k] - omega_k) <= speed * bound_q), k


def test_batch_at_one_time_and_initial_state():
    inertia, q0, omega = _states(50, seed=2)
    batch = TorqueFreeBatch.from_states(inertia, q0, omega)
    q, _ = batch.orientation_and_omega_body(np.float64(0.0))
    assert q.shape == (50, 4)
    np.testing.assert_allclose(np.abs(np.sum(q * q0, axis=-1)), 1.0, atol=1e-14)


def test_separatrix_gaps_are_the_rational_ones_bit_for_bit():
    rng = np.random.default_rng(3)
    moments, axes = principal_frame(np.tile(np.diag([2.5, 1.4, 1.3]), (500, 1, 1)))
    omega = rng.normal(size=(500, 3)) * 10.0 ** rng.integers(-20, 20, (500, 1))
    omega[:50, 0] = 1e-45  # outside the splitting's range: the rational path
    gaps = separatrix_gaps(moments, omega)
    expected = [_separatrix_gap(moments[k], omega[k]) for k in range(500)]
    np.testing.assert_array_equal(gaps, expected)
    # Exactly on the separatrix: L² = 2E I2 gives 0.
    i1, i2, i3 = 1.0, 2.0, 3.0
    on = np.array([[np.sqrt(i3 * (i3 - i2)), 0.3, np.sqrt(i1 * (i2 - i1))]])
    assert separatrix_gaps(np.array([[i1, i2, i3]]), on)[0] == _separatrix_gap(np.array([i1, i2, i3]), on[0])


def test_the_start_orientation_is_the_orientation_at_zero_bit_for_bit(monkeypatch):
    import spinlab.sim.exact_batch as exact_batch

    inertia, q0, omega = _states(400, seed=4)
    omega[::6, 1] = 0.0  # Ω₂ = ±0: a phase of -0.0, whose G at t = 0 may take the other zero
    omega[1::6, 1] = -0.0
    omega[2::9] = 0.0  # at rest
    calls = []
    rj = exact_batch.carlson_rj_near_saddle
    monkeypatch.setattr(exact_batch, "carlson_rj_near_saddle", lambda *args: calls.append(1) or rj(*args))
    batch = TorqueFreeBatch.from_states(inertia, q0, omega)
    # R_J once, for G at the initial phase: not for the complete integral (an arithmetic-geometric mean with K), nor
    # again for the angles at t = 0.
    assert len(calls) == 1
    start = batch.start_orientation()
    assert len(calls) == 1
    assert start.tobytes() == batch.orientation(np.zeros(())).tobytes()


def test_separatrix_gaps_over_pieces_are_the_whole_batch_s(monkeypatch):
    import spinlab.sim.exact_batch as exact_batch

    rng = np.random.default_rng(5)
    moments, _ = principal_frame(np.tile(np.diag([2.5, 1.4, 1.3]), (50, 1, 1)))
    omega = rng.normal(size=(50, 3))
    omega[7, 0] = 1e-45  # the rational path, inside a piece
    whole = separatrix_gaps(moments, omega)
    monkeypatch.setattr(exact_batch, "_GAP_PIECE", 7)
    np.testing.assert_array_equal(separatrix_gaps(moments, omega), whole)
    np.testing.assert_array_equal(whole[7], _separatrix_gap(moments[7], omega[7]))


def test_the_landen_chain_is_made_once_a_batch_and_gives_the_fresh_chain_s_bits(monkeypatch):
    import spinlab.sim.exact_batch as exact_batch
    from spinlab.sim.jacobi_elliptic import _sn_cn_dn_reduced

    inertia, q0, omega = _states(60, seed=5)
    batch = TorqueFreeBatch.from_states(inertia, q0, omega)
    calls = []
    chain = exact_batch._descending_chain
    monkeypatch.setattr(exact_batch, "_descending_chain", lambda *args: calls.append(1) or chain(*args))
    times = [np.float64(0.3), np.array([1.0, 2.5]), np.float64(17.0)]
    evaluated = [batch.orientation_and_omega_body(t) for t in times]
    assert len(calls) == 1  # the first evaluation's, kept for the others
    # Each evaluation's sn, cn, dn are those of the chain made afresh from the batch's m and m₁.
    monkeypatch.setattr(exact_batch, "_ascending", lambda v, *chain_: _sn_cn_dn_reduced(v, batch.m, batch.m_complement))
    fresh = TorqueFreeBatch.from_states(inertia, q0, omega)
    for t, (q, omega_body) in zip(times, evaluated, strict=True):
        q_fresh, omega_fresh = fresh.orientation_and_omega_body(t)
        assert q.tobytes() == q_fresh.tobytes() and omega_body.tobytes() == omega_fresh.tobytes()
