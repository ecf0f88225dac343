"""The closed forms of many bodies as rows (sim/torque_free_rows.py) against one
:class:`~sim.exact.TorqueFreeSolution` per body, bit for bit: every kind (constant, axisymmetric, periodic, the
separatrix), nearly symmetric bodies on both forms of the precession angle, states next to each principal axis and
to the separatrix, at scales from 1e-160 to 1e160 rad/s, at times from one short step to hours."""

import numpy as np
import pytest

from spinlab.sim.exact import TorqueFreeSolution
from spinlab.sim.jacobi_elliptic import _sn_cn_dn_reduced, quarter_period
from spinlab.sim.quaternion import quat_normalize, quat_to_matrix
from spinlab.sim.torque_free_rows import AXISYMMETRIC, CONSTANT, PERIODIC, SEPARATRIX, TorqueFreeRows, libm_power

# Times (s) at which every body is evaluated: short steps, multiples of 1/60 s over an hour, odd ones.
TIMES = (1.0 / 240.0, 1.0 / 60.0, 0.3, 1.7, 7.0 / 60.0, 600.0 / 60.0, 36000.0 / 60.0, 3600.0 + 1.0 / 3.0, 0.0)
SEPARATRIX_MOMENTS = (3.0, 4.0, 6.0)
# I3 (I3 − I2) Ω3² = I1 (I2 − I1) Ω1² exactly in binary floating point: L² = 2 E I2, the separatrix itself.
SEPARATRIX_OMEGA = (0.5, -1.0, 0.25)


def _rotated(moments, q) -> np.ndarray:
    axes = quat_to_matrix(q)
    return axes @ np.diag(moments) @ axes.T


def _states(seed: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(inertia_body, q0, omega_body0) of every case: random bodies, then the edges of the case analysis."""
    rng = np.random.default_rng(seed)

    def rotation():
        return quat_normalize(rng.normal(size=4))

    states = []
    for _ in range(300):  # asymmetric bodies, rotated principal axes, ω ~ 3 rad/s
        states.append((_rotated(rng.uniform(1.0, 3.0, 3), rotation()), rotation(), 3.0 * rng.normal(size=3)))
    for gap in (1e-13, 1e-10, 1e-7, 1e-4, 1e-2):  # nearly symmetric: n far below −64 (Π whole) and above
        for moments in ((1.0, 1.0 + gap, 2.0), (1.0, 2.0 - gap, 2.0)):
            for _ in range(4):
                states.append((_rotated(moments, rotation()), rotation(), 3.0 * rng.normal(size=3)))
    for moments in ((1.0, 1.0, 2.0), (1.0, 2.0, 2.0), (2.0, 2.0, 2.0)):  # axisymmetric bodies and a sphere
        for _ in range(6):
            states.append((_rotated(moments, rotation()), rotation(), 3.0 * rng.normal(size=3)))
    t_handle = np.diag([1.3, 1.4, 2.5])
    for axis in range(3):  # next to each principal axis, and a steady spin about it (constant)
        for offset in (0.0, 1e-150, 1e-12, 1e-6, 1e-3):
            omega = offset * rng.normal(size=3)
            omega[axis] = 5.0
            states.append((t_handle, rotation(), omega))
    states.append((t_handle, rotation(), np.zeros(3)))  # rest
    separatrix_body = np.diag(SEPARATRIX_MOMENTS)
    for scale in (1.0, 0.25, 4.0):  # the separatrix (exact powers of two keep it), and 1e-8 … 1e-14 off it
        for sign in ((1, 1, 1), (-1, 1, 1), (1, -1, -1)):
            omega = scale * np.multiply(SEPARATRIX_OMEGA, sign)
            states.append((separatrix_body, rotation(), omega))
            for off in (1e-8, -1e-8, 1e-14, -1e-14):
                states.append((separatrix_body, rotation(), omega * [1.0, 1.0, 1.0 + off]))
    for scale in (1e-160, 1e-100, 1e100, 1e160):  # beyond 2^±200 Ω is scaled before it is squared
        states.append((t_handle, rotation(), scale * np.array([0.05, 5.0, 0.05])))
    return states


def _solutions(seed: int) -> list[TorqueFreeSolution]:
    with np.errstate(all="ignore"):
        return [TorqueFreeSolution.from_body_state(*state) for state in _states(seed)]


def _assert_same_bits(actual: np.ndarray, expected: np.ndarray, what: str) -> None:
    same = ((actual == expected) | (np.isnan(actual) & np.isnan(expected))).all(axis=-1)
    assert same.all(), f"{what}: {np.count_nonzero(~same)} rows differ, the first {np.flatnonzero(~same)[:5]}"


@pytest.mark.parametrize("seed", [11, 12])
def test_rows_give_each_solution_s_orientation_bit_for_bit(seed):
    solutions = _solutions(seed)
    rows = TorqueFreeRows.from_solutions(solutions)
    assert {CONSTANT, AXISYMMETRIC, PERIODIC, SEPARATRIX} <= set(rows.kind.tolist())
    assert rows.transformed.any() and (~rows.transformed[rows.kind == PERIODIC]).any()
    rng = np.random.default_rng(seed)
    for time in TIMES:
        t = np.full(len(rows), time)
        t[::3] = time * rng.uniform(0.5, 2.0)  # and each body at its own time
        with np.errstate(all="ignore"):
            actual = rows.orientation(t)
            expected = np.array([solution.orientation(np.array(t[k])) for k, solution in enumerate(solutions)])
        _assert_same_bits(actual, expected, f"t ~ {time}")


def test_rows_taken_and_joined_keep_their_bits():
    solutions = _solutions(13)
    rows = TorqueFreeRows.from_solutions(solutions)
    order = np.random.default_rng(13).permutation(len(rows))
    t = np.full(len(rows), 2.5)
    with np.errstate(all="ignore"):
        expected = rows.orientation(t)
        joined = TorqueFreeRows.concatenate([rows.take(order[:50]), rows.take(order[50:])])
        _assert_same_bits(joined.orientation(t), expected[order], "taken and joined")
        # Rows solved apart, whose descending chains differ in length (none at all for the first part).
        level_less = np.flatnonzero(rows.kind != PERIODIC)
        apart = [TorqueFreeRows.from_solutions([solutions[k] for k in part]) for part in (level_less, order)]
        assert apart[0].descent_moduli.shape[1] < apart[1].descent_moduli.shape[1]
        joined = TorqueFreeRows.concatenate(apart)
        _assert_same_bits(joined.orientation(np.full(len(joined), 2.5)), expected[np.concatenate([level_less, order])],
                          "solved apart and joined")  # fmt: skip


def test_libm_power_is_numpy_scalar_power():
    rng = np.random.default_rng(14)
    x = np.concatenate([rng.uniform(-2.0, 2.0, 4000), [0.0, -0.0, np.nan, np.inf, 1e200, -1e200, 5e-324]])
    for exponent in (2, 3):
        with np.errstate(all="ignore"):
            expected = np.array([np.float64(value) ** exponent for value in x])
        _assert_same_bits(libm_power(x, exponent)[:, None], expected[:, None], f"x ** {exponent}")


def test_the_descending_chain_of_many_bodies_is_each_body_s():
    """``_sn_cn_dn_reduced`` over arrays with :func:`libm_power` against one body's numpy scalars (whose squares are
    C's ``pow``): with numpy's array power 18 of these 20000 differ in the last bit."""
    rng = np.random.default_rng(15)
    m_complement = np.concatenate([10.0 ** rng.uniform(-300.0, 0.0, 10000), rng.uniform(0.0, 1.0, 10000)])
    m = 1.0 - m_complement
    v = rng.uniform(-1.0, 1.0, m.size) * np.array([quarter_period(value) for value in m_complement])
    expected = [_sn_cn_dn_reduced(np.float64(v[k]), float(m[k]), float(m_complement[k])) for k in range(m.size)]
    actual = np.stack(_sn_cn_dn_reduced(v, m, m_complement, power=libm_power), axis=-1)
    _assert_same_bits(actual, np.array(expected, dtype=float), "sn, cn, dn")
