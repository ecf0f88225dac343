"""The closed forms of many bodies solved at once (sim/torque_free_solve.py) against one
:meth:`TorqueFreeSolution.from_body_state` per body: every constant of every row bit for bit, over every kind and
edge of tests/sim/test_torque_free_rows.py's states, and a state with no closed form left out."""

from dataclasses import fields

import numpy as np
import pytest

from spinlab.sim.exact import TorqueFreeSolution
from spinlab.sim.torque_free_rows import TorqueFreeRows
from spinlab.sim.torque_free_solve import solve_rows
from tests.sim.test_torque_free_rows import _states


@pytest.mark.parametrize("seed", [21, 22])
def test_rows_solved_together_are_each_body_s_own(seed):
    inertia, q0, omega_body0 = (np.array(column) for column in zip(*_states(seed), strict=True))
    with np.errstate(all="ignore"):
        expected = TorqueFreeRows.from_solutions(
            [TorqueFreeSolution.from_body_state(*state) for state in zip(inertia, q0, omega_body0, strict=True)]
        )
        solved, rows = solve_rows(inertia, q0, omega_body0)
    assert rows is not None
    np.testing.assert_array_equal(solved, np.arange(len(inertia)))
    for field in fields(TorqueFreeRows):
        np.testing.assert_array_equal(getattr(rows, field.name), getattr(expected, field.name), err_msg=field.name)


def test_a_state_beyond_the_case_analysis_is_left_out():
    inertia = np.broadcast_to(np.diag([1.3, 1.4, 2.5]), (3, 3, 3))
    q0 = np.tile([1.0, 0.0, 0.0, 0.0], (3, 1))
    omega_body0 = np.array([[0.05, 5.0, 0.05], [np.inf, 0.0, 0.0], [0.1, 0.2, 0.3]])  # inf: OverflowError
    with np.errstate(all="ignore"):
        failed = []
        for state in zip(inertia, q0, omega_body0, strict=True):
            try:
                TorqueFreeSolution.from_body_state(*state)
            except (ArithmeticError, ValueError):
                failed.append(True)
            else:
                failed.append(False)
        solved, _ = solve_rows(inertia, q0, omega_body0)
    assert failed == [False, True, False]
    np.testing.assert_array_equal(solved, [0, 2])
