"""Both cores change nothing: every compiled integrator steps a batch of spread bodies bit for bit the same on one
thread as on two (the batch in parts, sim.integrators.threads), with and without torque and gyroscopic term."""

import numba
import numpy as np
import pytest

from spinlab.sim.errors import NumericalError
from spinlab.sim.integrators import ENGINE_STEPS, INTEGRATORS, ORIENTATION_TORQUE, _kernels, threads
from spinlab.sim.integrators.state import BodyParams, BodyState
from spinlab.sim.integrators.torque import LeverTorque
from spinlab.sim.quaternion import quat_normalize
from tests.sim.world_reference import assert_same_bits

N_BODIES = 5000  # every kernel runs in parts (threads.MIN_BODIES)
H_S = 1.0 / 60.0
# exact is the closed form, in Python; the engines' steps are numpy alone (docs/engines.md): no threads.
COMPILED = [name for name in INTEGRATORS if name != "exact" and name not in ENGINE_STEPS]

pytestmark = pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="numba has one thread here")


def _spread_bodies(seed: int = 17) -> tuple[BodyState, np.ndarray, np.ndarray]:
    """N_BODIES bodies with random orientations, inertias and angular velocities from slow to a turn a step."""
    rng = np.random.default_rng(seed)
    spread = rng.normal(size=(N_BODIES, 3, 3))
    inertia = spread @ np.swapaxes(spread, -1, -2) + 0.5 * np.eye(3)
    omega_body = rng.normal(size=(N_BODIES, 3)) * 10.0 ** rng.uniform(-2.0, 2.5, size=(N_BODIES, 1))
    state = BodyState.from_omega_body(quat_normalize(rng.normal(size=(N_BODIES, 4))), omega_body, inertia)
    return state, inertia, rng.normal(size=(N_BODIES, 3))


def _steps(name: str, state: BodyState, params: BodyParams, options: dict, steps: int = 3):
    """``steps`` chained steps: the states and costs, or the error's message and bodies."""
    results = []
    for _ in range(steps):
        try:
            state, cost = INTEGRATORS[name](state, params, H_S, **options)
        except NumericalError as error:
            return results, (str(error), error.bodies)
        results.append((state, cost))
    return results, None


@pytest.fixture
def threads_restored():
    before = numba.get_num_threads()
    yield
    numba.set_num_threads(before)


@pytest.mark.parametrize("gyroscopic", [True, False])
@pytest.mark.parametrize("torque", [False, True])
@pytest.mark.parametrize("name", COMPILED)
def test_two_threads_step_bit_for_bit_as_one(name, torque, gyroscopic, threads_restored):
    state, inertia, torque_world = _spread_bodies()
    params = BodyParams.from_inertia(inertia, torque_world if torque else None, gyroscopic=gyroscopic)
    options = {}
    if torque and name in ORIENTATION_TORQUE:
        rng = np.random.default_rng(3)
        options["orientation_torque"] = LeverTorque(rng.normal(size=(N_BODIES, 3)), rng.normal(size=(N_BODIES, 3)))
    runs = []
    for count in (1, 2):
        numba.set_num_threads(count)
        runs.append(_steps(name, state, params, options))
    (one, one_error), (two, two_error) = runs
    assert one_error == two_error or (one_error[0] == two_error[0] and np.array_equal(one_error[1], two_error[1]))
    assert len(one) == len(two) and len(one) > 0
    for (state_one, cost_one), (state_two, cost_two) in zip(one, two, strict=True):
        for field in ("q", "omega_world", "L_world"):
            assert_same_bits(getattr(state_two, field), getattr(state_one, field))
        assert_same_bits(cost_two.newton_iterations, cost_one.newton_iterations)
        assert_same_bits(cost_two.substeps, cost_one.substeps)


def test_every_kernel_is_run_in_parts_at_this_batch_size():
    # Otherwise the test above would compare one call with itself.
    kernels = {name for name in _kernels.__all__ if name.endswith("_kernel")}
    assert set(threads.MIN_BODIES) == kernels
    assert all(threads._SMALLEST <= threads.MIN_BODIES[name] <= N_BODIES for name in kernels)


def test_the_parts_cover_the_batch_once_in_order():
    for n_bodies, count in ((1000, 2), (1001, 2), (7, 3), (5, 8)):
        parts = threads._parts(n_bodies, count)
        assert np.array_equal(np.concatenate([np.arange(n_bodies)[part] for part in parts]), np.arange(n_bodies))
