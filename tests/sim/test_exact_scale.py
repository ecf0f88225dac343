"""The closed form at any rate: ``Ω`` is scaled by a power of two before it is squared where its
largest component is beyond 2^±200 (sim/euler_poinsot.py), so that a body turning at 1e-300 or 1e300 rad/s moves as
the one at 5 rad/s does, in time scaled. Before: 2.7e-13 off at 1e-155 rad/s, 1.4e-3 at 1e-160, ZeroDivisionError
below ~1e-165 (p underflowed to 0), OverflowError from 1e154 up (|L|² and the exact gap overflowed)."""

import numpy as np
import pytest

from spinlab.sim.exact import TorqueFreeSolution
from spinlab.sim.exact_batch import TorqueFreeBatch

EPS = np.finfo(float).eps
# The motions at the two rates are evaluated at times t / scale that round differently; a few ulps of each phase
# (of size |Ω| t) move q and Ω/|Ω| by as much: the bound of tests/sim/test_exact_batch.py (measured: at most 1.6 of
# eps (1 + |Ω| t)).
ULPS = 8.0
INERTIA = np.diag([1.3, 1.4, 2.5])  # kg m², the T-handle's
STATES = {
    "about the intermediate axis": np.array([0.3, 5.0, 0.2]),
    "about the minor axis": np.array([5.0, 0.3, 1e-20]),
    "about the major axis": np.array([0.2, 0.1, 5.0]),
}
TIMES = np.array([0.0, 1.0, 30.0])  # s, at 5 rad/s
Q0 = np.array([1.0, 0.0, 0.0, 0.0])


@pytest.mark.parametrize("name", list(STATES))
@pytest.mark.parametrize("scale", [1e-300, 1e-200, 1e-160, 1e-155, 1e155, 1e200, 1e300])
def test_a_body_at_any_rate_moves_as_at_five_radians_a_second(name, scale):
    omega = STATES[name]
    q_expected, omega_expected = TorqueFreeSolution.from_body_state(INERTIA, Q0, omega).orientation_and_omega_body(
        TIMES
    )
    solution = TorqueFreeSolution.from_body_state(INERTIA, Q0, omega * scale)
    batch = TorqueFreeBatch.from_body_states(INERTIA[None], Q0[None], (omega * scale)[None])
    assert solution.motion.kind == "elliptic" and batch.rows.size == 1
    bound = ULPS * EPS * (1.0 + np.linalg.norm(omega) * TIMES)[:, None]
    for q, omega_body in (
        solution.orientation_and_omega_body(TIMES / scale),
        batch.orientation_and_omega_body(TIMES / scale),
    ):
        q, omega_body = q.reshape(-1, 4), omega_body.reshape(-1, 3)
        assert np.all(np.abs(q - q_expected) <= bound), np.abs(q - q_expected).max()
        speed = np.linalg.norm(omega)
        assert np.all(np.abs(omega_body / scale - omega_expected) <= speed * bound)
    assert solution.motion.L_norm == pytest.approx(np.linalg.norm(INERTIA @ omega) * scale, rel=4 * EPS)
