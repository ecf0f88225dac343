"""The world's step as it was before the layout cache: the reference the cached step must match bit for bit.

Every call gathers each integrator group's state and parameters from the world's arrays by index arrays and
boolean masks, with nothing kept from one step to the next, so whatever was edited in the world (integrators,
inertia, flags, bodies added or removed or frozen) is seen by construction. Each integrator is called directly,
without the world's buffers. Frozen bodies are left as they are (zero cost); the integrators of
:data:`sim.integrators.ORIENTATION_TORQUE` get gravity's torque about a pivot as the function of the orientation
(:class:`sim.integrators.torque.LeverTorque`) and take no second pass; those of
:data:`sim.integrators.PIVOT_AWARE` are told which of their bodies turn about a pivot.
"""

from __future__ import annotations

import numpy as np

from spinlab.sim.integrators import INTEGRATORS, ORIENTATION_TORQUE, PIVOT_AWARE
from spinlab.sim.integrators.state import BodyParams, BodyState, StepCost
from spinlab.sim.integrators.torque import LeverTorque
from spinlab.sim.quaternion import quat_midpoint, quat_rotate
from spinlab.sim.world import INTEGRATOR_NAMES, World

__all__ = ["reference_step", "assert_same_bits"]


def reference_step(world: World, h: float) -> StepCost:
    """Advance every body of ``world`` by ``h`` seconds as :meth:`World.step` does, rebuilding everything."""
    values = world.values
    q = values("q")
    stepped = ~values("frozen")
    under_gravity = np.any(values("has_pivot") & stepped) and np.any(world.gravity != 0.0)
    lever = (
        LeverTorque(values("com_from_pivot_body"), values("mass")[:, None] * world.gravity) if under_gravity else None
    )
    pivots = np.any(values("has_pivot") & stepped)
    torque = world.torque_world(q) if pivots else np.zeros((len(world), 3))
    new_q, new_omega, new_L, new_low, cost = _step_groups(world, h, torque, lever)
    held = np.isin(values("integrator"), [INTEGRATOR_NAMES.index(name) for name in ORIENTATION_TORQUE], invert=True)
    if under_gravity and np.any(held & stepped):
        predicted = cost
        midpoint = quat_midpoint(q, new_q)
        again = _step_groups(world, h, world.torque_world(midpoint), None)
        new_q[held], new_omega[held], new_L[held] = again[0][held], again[1][held], again[2][held]
        new_low[held] = again[3][held]
        iterations = cost.newton_iterations.copy()
        iterations[held] = again[4].newton_iterations[held] + predicted.newton_iterations[held]
        substeps = np.where(held, again[4].substeps, cost.substeps)
        cost = StepCost(iterations, substeps)
    q[...], values("omega_world")[...], values("L_world")[...], values("q_low")[...] = new_q, new_omega, new_L, new_low
    position, velocity = values("position"), values("velocity")
    pivoted, pinned = values("has_pivot") & stepped, values("pinned")
    free = ~(values("has_pivot") | pinned) & stepped
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


def _step_groups(world: World, h: float, torque: np.ndarray, lever: LeverTorque | None):
    values = world.values
    q, omega, L, q_low = values("q"), values("omega_world"), values("L_world"), values("q_low")
    new_q, new_omega, new_L, new_low = q.copy(), omega.copy(), L.copy(), q_low.copy()
    stepped = ~values("frozen")
    iterations = np.zeros(len(world), dtype=np.int64)
    substeps = stepped.astype(np.int64)
    codes = values("integrator")
    for code in np.unique(codes[stepped]):
        name, slots = INTEGRATOR_NAMES[int(code)], np.flatnonzero((codes == code) & stepped)
        state = BodyState(q[slots], omega[slots], L[slots], q_low[slots])
        options = dict(world.integrator_options.get(name, {}))
        if name in PIVOT_AWARE:
            options["pivoted"] = values("has_pivot")[slots]
        if name in ORIENTATION_TORQUE:
            group_torque = np.zeros((slots.size, 3))
            if lever is not None:
                options["orientation_torque"] = lever[slots]
        else:
            group_torque = torque[slots]
        params = BodyParams(
            values("inertia_body")[slots], values("inertia_body_inv")[slots], group_torque, world.gyroscopic
        )
        new, cost = INTEGRATORS[name](state, params, h, **options)
        new_q[slots], new_omega[slots], new_L[slots] = new.q, new.omega_world, new.L_world
        new_low[slots] = 0.0 if new.q_low is None else new.q_low  # the orientation's low part (BodyState)
        iterations[slots], substeps[slots] = cost.newton_iterations, cost.substeps
    return new_q, new_omega, new_L, new_low, StepCost(iterations, substeps)
