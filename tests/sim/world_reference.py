"""The world's step as it was before the layout cache: the reference the cached step must match bit for bit.

Every call gathers each integrator group's state and parameters from the world's arrays by index arrays and
boolean masks, with nothing kept from one step to the next, so whatever was edited in the world (integrators,
inertia, flags, bodies added or removed) is seen by construction.
"""

from __future__ import annotations

import numpy as np

from sim.integrators import INTEGRATORS
from sim.integrators.state import BodyParams, BodyState, StepCost
from sim.quaternion import quat_conj, quat_exp, quat_log, quat_mul, quat_rotate
from sim.world import INTEGRATOR_NAMES, World

__all__ = ["reference_step", "assert_same_bits"]


def reference_step(world: World, h: float) -> StepCost:
    """Advance every body of ``world`` by ``h`` seconds as :meth:`World.step` does, rebuilding everything."""
    values = world.values
    q = values("q")
    new_q, new_omega, new_L, cost = _step_groups(world, h, world.torque_world(q))
    if np.any(values("has_pivot")) and np.any(world.gravity != 0.0):
        predicted = cost
        midpoint = quat_mul(q, quat_exp(0.5 * quat_log(quat_mul(quat_conj(q), new_q))))
        new_q, new_omega, new_L, cost = _step_groups(world, h, world.torque_world(midpoint))
        cost = StepCost(cost.newton_iterations + predicted.newton_iterations, cost.substeps)
    q[...], values("omega_world")[...], values("L_world")[...] = new_q, new_omega, new_L
    position, velocity = values("position"), values("velocity")
    pivoted, pinned = values("has_pivot"), values("pinned")
    free = ~(pivoted | pinned)
    position[free] += h * velocity[free] + 0.5 * h * h * world.gravity
    velocity[free] += h * world.gravity
    if pivoted.any():
        position[pivoted] = values("pivot_world")[pivoted] + quat_rotate(
            values("q")[pivoted], values("com_from_pivot_body")[pivoted]
        )
    return cost


def assert_same_bits(actual: np.ndarray, expected: np.ndarray) -> None:
    """``actual`` is ``expected`` bit for bit: same dtype, shape and bytes (so −0.0 ≠ 0.0 and NaN = NaN)."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert (actual.dtype, actual.shape) == (expected.dtype, expected.shape)
    assert actual.tobytes() == expected.tobytes(), f"differs at {np.argwhere(actual != expected)[:5].tolist()}"


def _step_groups(world: World, h: float, torque: np.ndarray):
    values = world.values
    q, omega, L = values("q"), values("omega_world"), values("L_world")
    new_q, new_omega, new_L = q.copy(), omega.copy(), L.copy()
    iterations = np.zeros(len(world), dtype=np.int64)
    substeps = np.ones(len(world), dtype=np.int64)
    codes = values("integrator")
    for code in np.unique(codes):
        name, slots = INTEGRATOR_NAMES[int(code)], np.flatnonzero(codes == code)
        state = BodyState(q[slots], omega[slots], L[slots])
        params = BodyParams(
            values("inertia_body")[slots], values("inertia_body_inv")[slots], torque[slots], world.gyroscopic
        )
        new, cost = INTEGRATORS[name](state, params, h, **world.integrator_options.get(name, {}))
        new_q[slots], new_omega[slots], new_L[slots] = new.q, new.omega_world, new.L_world
        iterations[slots], substeps[slots] = cost.newton_iterations, cost.substeps
    return new_q, new_omega, new_L, StepCost(iterations, substeps)
