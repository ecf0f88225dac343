"""scene/model/measures.py: each measure as its docstring defines it, and the one choice of reference solution."""

import numpy as np
import pytest

from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.model.measures import (
    NO_CLOSED_FORM_NOTE,
    energy_error,
    energy_scale,
    momentum_error,
    orientation_error,
    reference_solution,
    torque_free,
)
from spinlab.scene.running.simulation import Simulation
from spinlab.sim.exact import TorqueFreeSolution
from spinlab.sim.lagrange_top import LagrangeTopSolution
from spinlab.sim.quaternion import quat_exp, quat_mul


def test_the_energy_error_is_signed_and_relative_to_kinetic_plus_potential_magnitudes():
    kinetic0, potential0 = np.array([2.0, 3.0, 0.0]), np.array([0.0, -3.0, 0.0])
    scale = energy_scale(kinetic0, potential0)
    np.testing.assert_array_equal(scale, [2.0, 6.0, 0.0])
    energy0 = kinetic0 + potential0  # the heavy top's E₀ = 0: |E₀| alone would divide by zero
    error = energy_error(np.array([[1.9, 0.06, 0.0], [2.1, -0.06, 1.0]]), energy0, scale)
    np.testing.assert_allclose(error[:, :2], [[-0.05, 0.01], [0.05, -0.01]], rtol=1e-12)
    assert np.isnan(error[:, 2]).all(), "a body at rest at the potential's zero has no relative error"


def test_the_momentum_error_does_not_overflow_and_has_none_at_rest():
    L0 = np.array([[3e200, 4e200, 0.0], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0]])
    L = np.array([[3e200, 4e200, 5e199], [1.0, 0.0, 0.0], [1.0, 1e-3, 0.0]])
    error = momentum_error(L, L0)
    np.testing.assert_allclose(error[[0, 2]], [0.1, 1e-3], rtol=1e-12)
    assert np.isnan(error[1])


def test_the_orientation_error_is_the_rotation_angle():
    q0 = quat_exp(np.array([0.1, -0.2, 0.3]))
    for angle in (0.0, 1e-8, 0.5, 3.0):
        # q0 then a turn by angle about y: the angle between them, whatever the sign of the quaternion.
        turned = quat_mul(q0, quat_exp(np.array([0.0, angle, 0.0])))
        assert orientation_error(turned, q0) == pytest.approx(angle, abs=1e-12)
        assert orientation_error(-turned, q0) == pytest.approx(angle, abs=1e-12)


def test_torque_free_and_the_reference_each_body_gets():
    handle, top = load_scene("t_handle"), load_scene("heavy_top")
    assert torque_free(handle, handle.bodies[0]) and not torque_free(top, top.bodies[0])
    for scene, kind in ((handle, TorqueFreeSolution), (top, LagrangeTopSolution)):
        snapshot = Simulation(scene).snapshot()
        solution, note = reference_solution(scene, 0, snapshot.q[0], snapshot.omega_world[0])
        assert isinstance(solution, kind) and note is None
    assert reference_solution(handle, 0, snapshot.q[0], np.zeros(3)) == (None, None), "at rest: nothing to measure"


def test_a_state_the_closed_form_cannot_take_has_a_note():
    scene = load_scene("t_handle")
    solution, note = reference_solution(scene, 0, np.array([1.0, 0.0, 0.0, 0.0]), np.array([1e300, 1e300, 1e-300]))
    assert solution is None and note == NO_CLOSED_FORM_NOTE
