"""World.freeze: a frozen body keeps its state and costs nothing; the others step bit for bit as without it."""

import numpy as np

from spinlab.sim.world import World

INERTIA = np.diag([1.0, 2.0, 3.0])


def world_of(integrators, gravity=(0.0, 0.0, 0.0), pivot=False):
    world = World(gravity=np.array(gravity))
    for k, name in enumerate(integrators):
        world.add_body(
            q=np.array([1.0, 0.0, 0.0, 0.0]),
            omega_world=np.array([0.1 * (k + 1), 3.0, 0.2]),
            inertia_body=INERTIA,
            integrator=name,
            mass=2.0,
            position=np.array([0.0, 0.0, 1.0]),
            pivot_body=np.array([0.0, 0.0, -0.5]) if pivot else None,
        )
    return world


def state(world, rows):
    return [world.values(name)[rows].copy() for name in ("q", "omega_world", "L_world", "position", "velocity")]


def test_frozen_body_keeps_its_state_and_costs_nothing():
    world = world_of(["implicit_midpoint", "euler_body", "rkmk4"])
    world.step(0.01)
    before = state(world, [1])
    world.freeze([1])
    cost = world.step(0.01)
    for kept, now in zip(before, state(world, [1]), strict=True):
        np.testing.assert_array_equal(kept, now)
    assert cost.newton_iterations[1] == 0 and cost.substeps[1] == 0
    assert cost.substeps[0] == 1 and cost.substeps[2] == 1
    assert set(world.group_seconds) == {"implicit_midpoint", "rkmk4"}


def test_others_step_bit_for_bit_as_if_the_frozen_body_were_not_there():
    for gravity, pivot in (((0.0, 0.0, 0.0), False), ((0.0, 0.0, -9.81), True), ((0.0, 0.0, -9.81), False)):
        names = ["implicit_midpoint", "euler_body", "rkmk4", "split4", "implicit_midpoint"]
        full = world_of(names, gravity, pivot)
        alone = world_of([names[i] for i in (0, 2, 3, 4)], gravity, pivot)
        # alone's bodies start as full's 0, 2, 3, 4 did: give them those initial rates.
        for name in ("q", "omega_world", "L_world", "position", "velocity", "pivot_world"):
            alone.values(name)[...] = full.values(name)[[0, 2, 3, 4]]
        full.freeze([1])
        for _ in range(50):
            full.step(0.01)
            alone.step(0.01)
        for a, b in zip(state(full, [0, 2, 3, 4]), state(alone, slice(None)), strict=True):
            np.testing.assert_array_equal(a, b)


def test_one_integrator_with_a_frozen_body_and_every_body_frozen():
    world = world_of(["rkmk4", "rkmk4", "rkmk4"])
    reference = world_of(["rkmk4", "rkmk4", "rkmk4"])
    world.freeze([0])
    kept = state(world, [0])
    for _ in range(10):
        world.step(0.01)
        reference.step(0.01)
    for a, b in zip(state(world, [1, 2]), state(reference, [1, 2]), strict=True):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(kept, state(world, [0]), strict=True):
        np.testing.assert_array_equal(a, b)
    world.freeze([1, 2])
    everything = state(world, slice(None))
    cost = world.step(0.01)
    assert not cost.substeps.any() and world.group_seconds == {}
    for a, b in zip(everything, state(world, slice(None)), strict=True):
        np.testing.assert_array_equal(a, b)
