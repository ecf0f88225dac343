"""The splitting into rotations about the principal axes (sim/integrators/axes_splitting.py; axes2 … axes8).

The contract every integrator meets (orders torque-free, backends, L) is in test_integrators.py, the orders under
gravity in test_torque_splitting.py. Here: the composition constants, the schedules, what the splitting keeps
exactly (world L, |Π|), time reversal, bounded energy, and independence of the body frame the inertia is given in.
References: the closed form (sim.exact) and the same body given in its principal frame.
"""

import numpy as np
import pytest

from spinlab.scene.files.scene_file import load_scene
from spinlab.sim.exact import TorqueFreeSolution
from spinlab.sim.integrators import AXES, CLAIMS, FAMILIES, INTEGRATORS, METHODS, ORIENTATION_TORQUE
from spinlab.sim.integrators.axes_splitting import AXIS_ORDER, CASIMIR, FAR, KICK, NEAR, reduced_axes, schedules
from spinlab.sim.integrators.composition import KAHAN_LI_9, KAHAN_LI_17, TRIPLE_JUMP
from spinlab.sim.integrators.state import BodyParams, BodyState, energy, to_body
from spinlab.sim.integrators.torque import LeverTorque
from spinlab.sim.quaternion import quat_conj, quat_identity, quat_log, quat_mul, quat_to_matrix
from spinlab.sim.world import World
from tests.sim.test_integrators import _random_bodies, _run, _t_handle
from tests.sim.world_reference import assert_same_bits

COEFFICIENTS = {"axes2": (1.0,), "axes4": TRIPLE_JUMP, "axes6": KAHAN_LI_9, "axes8": KAHAN_LI_17}
# Σγ = 1 and Σγ^(2k+1) = 0 for 2k + 1 < order: sums of at most 17 terms of size ≤ 1.7³, each rounded once.
ATOL_POWER_SUM = 1e-14
RTOL_MOMENTUM_NORM = 1e-13  # |Π| after 1000 steps of 69 rotations, each within a few ulps
ATOL_REVERSAL_RAD = 1e-13
ATOL_FRAME_RAD = 1e-12  # the same motion from inertia given in another body frame: eigh's axes differ in rounding


@pytest.mark.parametrize("name", AXES)
def test_the_composition_constants_sum_to_one_and_cancel_the_odd_powers_below_the_order(name):
    gammas = np.array(COEFFICIENTS[name])
    np.testing.assert_array_equal(gammas, gammas[::-1])  # palindromic: the composition is symmetric
    assert abs(gammas.sum() - 1.0) <= ATOL_POWER_SUM
    for power in range(3, CLAIMS[name].order, 2):
        assert abs(np.sum(gammas**power)) <= ATOL_POWER_SUM, power
    if CLAIMS[name].order < 8:  # the next odd power does not vanish: the order is not higher by accident
        assert abs(np.sum(gammas ** (CLAIMS[name].order + 1))) > 1e-3


@pytest.mark.parametrize("name", AXES)
def test_each_schedule_turns_about_every_axis_for_the_whole_step_and_kicks_for_it_once(name):
    codes, lengths = schedules(COEFFICIENTS[name])
    stages = len(COEFFICIENTS[name])
    free, driven = codes[0][codes[0] >= 0], codes[1][codes[1] >= 0]
    assert free.size == 2 * stages + 2 and set(free) == {FAR, NEAR, CASIMIR}
    assert np.count_nonzero(driven == KICK) == stages + 1 and driven.size == 6 * stages + 1
    for row, row_codes in ((0, (FAR, NEAR, CASIMIR)), (1, (0, 1, 2, KICK))):
        for code in row_codes:
            assert abs(lengths[row][codes[row] == code].sum() - 1.0) <= ATOL_POWER_SUM, (row, code)
        present = codes[row][codes[row] >= 0]
        assert np.all(present[1:] != present[:-1])  # neighbours merged
    assert free[0] == free[-2] == FAR and free[-1] == CASIMIR  # one rotation about L a step, at its end
    assert driven[0] == driven[-1] == KICK and driven[1] == AXIS_ORDER[0]


@pytest.mark.parametrize(
    ("moments", "far", "near"),
    [((1.3, 1.4, 2.5), 2, 0), ((1.0, 2.4, 2.5), 0, 2), ((1.0, 1.0, 2.0), 2, 0), ((1.0, 2.0, 2.0), 0, 2)],
)
def test_the_near_axis_is_the_one_whose_inverse_moment_is_nearest_the_intermediate_ones(moments, far, near):
    """T-handle-like (the two small moments close), the two large ones close, and both kinds of symmetric top;
    the reduced rates are 1/Iₖ − 1/I₂ (zero about the intermediate axis, and about the near axis of a top)."""
    got_far, got_near, reduced = reduced_axes(np.array([moments]))
    assert (got_far[0], got_near[0]) == (far, near)
    np.testing.assert_allclose(reduced[0], 1.0 / np.array(moments) - 1.0 / moments[1], rtol=1e-15, atol=0.0)
    assert reduced[0, 1] == 0.0


def test_the_family_is_listed_apart_from_the_grid_of_all_methods():
    assert FAMILIES["axes"] == AXES == ("axes2", "axes4", "axes6", "axes8")
    assert not set(AXES) & set(METHODS)
    assert set(AXES) <= ORIENTATION_TORQUE
    assert all(not CLAIMS[name].implicit and CLAIMS[name].conserves_momentum for name in AXES)


@pytest.mark.parametrize("backend", ["numba", "numpy"])
@pytest.mark.parametrize("name", AXES)
def test_torque_free_the_world_momentum_is_kept_bit_for_bit_and_the_body_momentum_to_rounding(name, backend):
    state, params = _random_bodies(6, seed=31, torque=False)
    end = _run(name, state, params, 0.05, 1000, backend=backend)
    assert_same_bits(end.L_world, state.L_world)
    body_momentum = to_body(end.q, end.L_world)
    np.testing.assert_allclose(
        np.linalg.norm(body_momentum, axis=-1), np.linalg.norm(state.L_world, axis=-1), rtol=RTOL_MOMENTUM_NORM
    )


@pytest.mark.parametrize("name", AXES)
def test_a_step_back_undoes_a_step_under_torque(name):
    """Symmetric: ``Φ_{−h} ∘ Φ_h`` is the identity (to rounding), with a lever torque and a constant one."""
    state, params = _random_bodies(5, seed=32)
    lever = LeverTorque(np.random.default_rng(32).normal(size=(5, 3)), np.tile([0.0, 0.0, -9.81], (5, 1)))
    there, _ = INTEGRATORS[name](state, params, 0.05, orientation_torque=lever)
    back, _ = INTEGRATORS[name](there, params, -0.05, orientation_torque=lever)
    angle = np.linalg.norm(quat_log(quat_mul(quat_conj(state.q), back.q)), axis=-1)
    assert angle.max() <= ATOL_REVERSAL_RAD
    np.testing.assert_allclose(back.L_world, state.L_world, rtol=0.0, atol=1e-13 * np.abs(state.L_world).max())


@pytest.mark.parametrize("name", AXES)
def test_the_motion_does_not_depend_on_the_body_frame_the_inertia_is_given_in(name):
    """The T-handle given with diagonal inertia, and again in a body frame turned by ``R``: the same world motion."""
    state, params = _t_handle(1)
    turn = np.array([[0.8, -0.2, 0.4, 0.4]])
    turn /= np.linalg.norm(turn)
    R = quat_to_matrix(turn)
    inertia = R @ params.inertia_body @ np.swapaxes(R, -1, -2)  # x_new = R x_old
    turned = BodyState(quat_mul(state.q, quat_conj(turn)), state.omega_world, state.L_world)
    a = _run(name, state, params, 0.02, 200)
    b = _run(name, turned, BodyParams.from_inertia(inertia), 0.02, 200)
    angle = np.linalg.norm(quat_log(quat_mul(quat_conj(a.q), quat_mul(b.q, turn))))
    assert angle <= ATOL_FRAME_RAD
    np.testing.assert_allclose(b.omega_world, a.omega_world, rtol=0.0, atol=ATOL_FRAME_RAD * 5.0)


# Orientation error after 1 s at h = 0.01 (100 steps) of symmetric bodies and a sphere, against the closed form.
# Torque-free the near axis's reduced rate is zero for them and the far axis's rotation commutes with the one about
# L, so every order is exact to rounding (measured 4.8e-16 … 2.1e-15; the three-axis split gave axes2 1.4e-4).
BOUND_DEGENERATE_RAD = 1e-14


@pytest.mark.parametrize("moments", [(1.0, 1.0, 2.0), (1.0, 2.0, 2.0), (2.0, 2.0, 2.0)])
def test_symmetric_bodies_and_a_sphere_step_exactly_with_their_degenerate_frames(moments):
    inertia = np.diag(moments)[None]
    omega_body = np.array([0.3, -1.0, 4.0])
    state = BodyState.from_omega_body(quat_identity((1,)), omega_body[None], inertia)
    params = BodyParams.from_inertia(inertia)
    exact = TorqueFreeSolution.from_body_state(inertia[0], quat_identity(), omega_body)
    q_exact = exact.orientation(np.array([1.0]))[0]
    for name in AXES:
        end = _run(name, state, params, 0.01, 100)
        angle = np.linalg.norm(quat_log(quat_mul(quat_conj(q_exact), end.q[0])))
        assert angle < BOUND_DEGENERATE_RAD, (name, angle)


def test_the_energy_of_the_t_handle_stays_bounded_over_ten_thousand_steps():
    """Symplectic: the error of E oscillates with the flips and does not drift (means of the first and last
    quarter agree to a small part of the oscillation)."""
    state, params = _t_handle()
    start = energy(state)[0]
    relative = np.empty(10_000)
    for k in range(relative.size):
        state, _ = INTEGRATORS["axes2"](state, params, 1.0 / 60.0)
        relative[k] = energy(state)[0] / start - 1.0
    assert np.abs(relative).max() < 1e-3
    assert abs(relative[-2500:].mean() - relative[:2500].mean()) < 0.05 * np.abs(relative).max()


def test_the_world_gives_the_rotations_their_gravity_torque_as_a_function_of_the_orientation():
    spec = load_scene("heavy_top")
    body = spec.bodies[0]
    world = World(gravity=spec.gravity)
    world.add_body(q=body.orientation, omega_world=body.omega_parent, inertia_body=body.inertia_body,
                   integrator="axes6", mass=body.mass, position=body.position, pivot_body=body.pivot)  # fmt: skip
    values = world.values
    lever = LeverTorque(values("com_from_pivot_body").copy(), values("mass")[:, None] * world.gravity)
    params = BodyParams(values("inertia_body").copy(), values("inertia_body_inv").copy(), np.zeros((1, 3)))
    state = BodyState(values("q").copy(), values("omega_world").copy(), values("L_world").copy())
    for _ in range(5):  # the world carries the orientation's low part from step to step, as the state does
        world.step(1.0 / 120.0)
        state, _ = INTEGRATORS["axes6"](state, params, 1.0 / 120.0, orientation_torque=lever)
        assert_same_bits(values("q"), state.q)
        assert_same_bits(values("L_world"), state.L_world)
        assert_same_bits(values("q_low"), state.q_low)
