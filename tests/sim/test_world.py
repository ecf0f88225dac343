"""The world's step keeps what does not change between steps (its layout), and is bit for bit the step that
rebuilds everything (:func:`tests.sim.world_reference.reference_step`), before and after any edit of the world."""

from collections.abc import Callable

import numpy as np
import pytest

from spinlab.sim.contiguous_list import Handle
from spinlab.sim.errors import NumericalError
from spinlab.sim.integrators.state import StepCost
from spinlab.sim.quaternion import quat_normalize
from spinlab.sim.world import BODY_FIELDS, INTEGRATOR_NAMES, World
from tests.sim.world_reference import assert_same_bits, reference_step

H_S = 1.0 / 90.0
GRAVITY = (0.0, -9.81, 1.0)
# Interleaved, so that most groups are not contiguous slots. Every third body has a pivot (under gravity: the
# midpoint torque's second pass), every fifth is pinned, the rest fall freely; exact's body has no pivot.
MIXED = (
    "euler", "implicit_midpoint", "euler", "magnus", "implicit_midpoint", "im6", "euler", "trapezoidal",
    "object_trapezoidal", "magnus", "rkmk4", "im4", "ot4", "euler_body", "exact",
)  # fmt: skip


def _world(integrators=MIXED, *, gravity=GRAVITY, gyroscopic=True, seed=7) -> tuple[World, list[Handle]]:
    rng = np.random.default_rng(seed)
    world = World(gravity=gravity, gyroscopic=gyroscopic)
    handles = [_add_random_body(world, rng, k, name) for k, name in enumerate(integrators)]
    return world, handles


def _add_random_body(world: World, rng: np.random.Generator, k: int, integrator: str, pivots: bool = True) -> Handle:
    """Body ``k``: a random state and inertia; every third about a pivot (with ``pivots``), every fifth pinned."""
    spread = rng.normal(size=(3, 3))
    return world.add_body(
        q=quat_normalize(rng.normal(size=4)),
        omega_world=3.0 * rng.normal(size=3),
        inertia_body=spread @ spread.T + 3.0 * np.eye(3),
        integrator=integrator,
        mass=1.0 + k,
        position=rng.normal(size=3),
        velocity=rng.normal(size=3),
        pivot_body=rng.normal(size=3) if pivots and k % 3 == 0 else None,
        pinned=k % 5 == 4,
    )


def _assert_same_world(actual: World, expected: World) -> None:
    for name in BODY_FIELDS:
        assert_same_bits(actual.values(name), expected.values(name))


def _assert_same_cost(actual: StepCost, expected: StepCost) -> None:
    assert_same_bits(actual.newton_iterations, expected.newton_iterations)
    assert_same_bits(actual.substeps, expected.substeps)


def _step_both(cached: World, rebuilt: World, steps: int) -> None:
    for _ in range(steps):
        _assert_same_cost(cached.step(H_S), reference_step(rebuilt, H_S))
    _assert_same_world(cached, rebuilt)


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"integrators": ("implicit_midpoint",) * 6},  # one group of every body: the integrator's arrays are used
        {"integrators": ("euler",) * 3 + ("im6",) * 4 + ("magnus",) * 2},  # contiguous groups: slices
        {"gravity": (0.0, 0.0, 0.0)},  # pivots without torque: no second pass
        {"gyroscopic": False},
    ],
    ids=["mixed", "one_integrator", "contiguous", "no_gravity", "no_gyroscopic_term"],
)
def test_a_step_is_the_step_that_rebuilds_everything(options):
    cached, _ = _world(**options)
    rebuilt, _ = _world(**options)
    _step_both(cached, rebuilt, 40)


def _set_integrator(world, handles):
    world.set_integrator(handles[1], "euler_body")


def _integrator_in_the_store(world, handles):
    world.bodies.set(handles[3], "integrator", INTEGRATOR_NAMES.index("implicit_midpoint"))


def _inertia_through_values(world, handles):
    slot = world.bodies.slot_of(handles[0])  # euler: uses I (for L' from ω') and I⁻¹
    world.values("inertia_body")[slot] = np.diag([1.0, 2.0, 3.5])
    world.values("inertia_body_inv")[slot] = np.diag([1.0, 1.0 / 2.0, 1.0 / 3.5])


def _inertia_alone(world, handles):
    world.bodies.set(handles[2], "inertia_body", np.diag([2.0, 2.5, 4.0]))  # euler reads I for L' = O' I O'ᵀ ω'


def _inverse_inertia_alone(world, handles):
    world.bodies.set(handles[4], "inertia_body_inv", np.diag([0.5, 0.25, 0.2]))  # implicit midpoint reads I⁻¹ only


def _pin(world, handles):
    world.bodies.set(handles[1], "pinned", True)  # a free body stops falling


def _unpin(world, handles):
    world.bodies.set(handles[4], "pinned", False)


def _release_pivot(world, handles):
    world.bodies.set(handles[3], "has_pivot", False)


def _remove_and_add(world, handles):
    # Swap-remove moves the last body into the hole: the slots of two groups change, their sizes do not.
    world.remove_body(handles[2])
    _add_random_body(world, np.random.default_rng(3), 2, "euler")


def _add(world, handles):
    _add_random_body(world, np.random.default_rng(4), 15, "magnus")


def _remove_a_group(world, handles):
    world.remove_body(handles[13])  # the only euler_body


EDITS = [
    _set_integrator, _integrator_in_the_store, _inertia_through_values, _inertia_alone, _inverse_inertia_alone,
    _pin, _unpin, _release_pivot, _remove_and_add, _add, _remove_a_group,
]  # fmt: skip


@pytest.mark.parametrize("edit", EDITS, ids=lambda edit: edit.__name__.strip("_"))
def test_an_edit_is_honoured_on_the_next_step(edit: Callable[[World, list[Handle]], None]):
    """Whichever way the world's bodies or their constants change, the next step sees it. The edit matters: the
    world left as it was steps elsewhere, which a step with a stale layout would do."""
    (cached, cached_handles), (rebuilt, rebuilt_handles), (unedited, _) = _world(), _world(), _world()
    _step_both(cached, rebuilt, 5)
    edit(cached, cached_handles)
    edit(rebuilt, rebuilt_handles)
    _step_both(cached, rebuilt, 3)
    for _ in range(8):
        unedited.step(H_S)
    assert any(unedited.values(name).tobytes() != rebuilt.values(name).tobytes() for name in ("q", "position"))


def test_switching_the_gyroscopic_term_is_honoured_on_the_next_step():
    """What the window's checkbox does (``Session.set_gyroscopic``): the world's flag, read at every step."""
    (cached, _), (rebuilt, _) = _world(), _world()
    _step_both(cached, rebuilt, 5)
    cached.gyroscopic = rebuilt.gyroscopic = False
    _step_both(cached, rebuilt, 3)
    cached.gyroscopic = rebuilt.gyroscopic = True
    _step_both(cached, rebuilt, 3)


def test_the_layout_is_kept_while_the_constants_are_unchanged():
    world, handles = _world()
    layout = world._current_layout()
    for _ in range(3):
        world.step(H_S)
    world.values("omega_world")[0] *= 2.0  # state, not a constant
    world.gravity = np.array([0.0, 0.0, -1.0])
    world.step(H_S)
    assert world._current_layout() is layout
    world.set_integrator(handles[0], "magnus")
    assert world._current_layout() is not layout


def test_a_failing_group_names_world_slots_and_leaves_the_world_unchanged():
    # exact's group is slots 2 and 5 (not contiguous). It refuses a body under torque: slot 5, once it hangs from
    # a pivot under gravity.
    world, handles = _world(("euler", "magnus", "exact", "magnus", "euler", "exact"), seed=11)
    world.step(H_S)
    world.bodies.set(handles[5], "has_pivot", True)
    world.bodies.set(handles[5], "com_from_pivot_body", [0.0, 0.0, 0.5])
    before = {name: world.values(name).copy() for name in BODY_FIELDS}
    with pytest.raises(NumericalError) as raised:
        world.step(H_S)
    np.testing.assert_array_equal(raised.value.bodies, [5])
    for name in BODY_FIELDS:
        assert_same_bits(world.values(name), before[name])


def test_add_bodies_is_add_body_bit_for_bit():
    from spinlab.sim.world import World

    rng = np.random.default_rng(5)
    count = 7
    q = rng.normal(size=(count, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    omega, position, pivot = rng.normal(size=(count, 3)), rng.normal(size=(count, 3)), rng.normal(size=(count, 3))
    inertia = np.array([np.diag(rng.uniform(1.0, 2.0, 3)) for _ in range(count)])
    mass, has_pivot, pinned = rng.uniform(1.0, 2.0, count), np.arange(count) % 2 == 0, np.arange(count) % 3 == 0
    names = ["implicit_midpoint", "euler", "magnus", "implicit_midpoint", "euler", "magnus", "trapezoidal"]
    one_by_one, together = World(gravity=[0.0, 0.0, -9.81]), World(gravity=[0.0, 0.0, -9.81])
    for k in range(count):
        one_by_one.add_body(
            q=q[k], omega_world=omega[k], inertia_body=inertia[k], integrator=names[k], mass=mass[k],
            position=position[k], pivot_body=pivot[k] if has_pivot[k] else None, pinned=bool(pinned[k]),
        )  # fmt: skip
    together.add_bodies(
        q=q, omega_world=omega, inertia_body=inertia, integrator=names, mass=mass, position=position,
        pivot_body=pivot, has_pivot=has_pivot, pinned=pinned,
    )  # fmt: skip
    for name in one_by_one.bodies.fields:
        np.testing.assert_array_equal(together.values(name), one_by_one.values(name))
    one_by_one.step(0.01)
    together.step(0.01)
    np.testing.assert_array_equal(together.values("q"), one_by_one.values("q"))


def test_the_groups_take_turns_at_stepping_first(monkeypatch):
    # The first kernel call after a frame was drawn runs on cold caches: in a fixed order one integrator would always
    # pay for it in the window's cost column. The turns change no number (test_a_step_is_the_step_that_rebuilds_...).
    world, _ = _world(gravity=(0.0, 0.0, 0.0))
    order: list[str] = []
    real = World._step_group

    def recorded(self, h, group, *args):
        order.append(group.name)
        return real(self, h, group, *args)

    monkeypatch.setattr(World, "_step_group", recorded)
    groups = len(set(MIXED))
    firsts = []
    for _ in range(2 * groups):
        order.clear()
        world.step(H_S)
        assert sorted(order) == sorted(set(MIXED)), "every group steps once a step"
        firsts.append(order[0])
    assert sorted(firsts[:groups]) == sorted(set(MIXED)) and firsts[groups:] == firsts[:groups]


def test_timing_the_groups_alone_changes_nothing():
    world, _ = _world()
    world.step(H_S)
    before = {name: world.values(name).copy() for name in BODY_FIELDS}
    last_step = dict(world.group_seconds)
    seconds = world.time_groups(H_S)
    assert set(seconds) == set(MIXED) and all(0.0 < s < 1.0 for s in seconds.values())
    for name in BODY_FIELDS:
        assert_same_bits(world.values(name), before[name])
    assert world.group_seconds == last_step
    again, _ = _world()
    again.step(H_S)
    world.step(H_S)
    again.step(H_S)
    _assert_same_world(world, again)  # and the next step is the one it would have been


def test_a_group_whose_kernel_is_compiling_is_not_timed():
    """While the window steps an integrator on its numpy path (sim/compiled.py), the cost column does not time it:
    that is not the step it names, and on compare side by side it cost a frame 0.14 s."""
    from spinlab.sim import compiled

    world, _ = _world()
    world.step(H_S)
    ready = sorted(set(MIXED))[:1]
    with compiled.gated(ready):
        assert set(world.time_groups(H_S)) == set(ready)


def test_an_integrator_stepping_two_groups_is_timed_over_both(monkeypatch):
    """Bodies with a gyroscopic switch of their own step in a group apart (World.set_gyroscopic): the integrator's
    cost per body-step is both groups' seconds over both groups' bodies, not the last group's alone."""
    from spinlab.sim import compiled, timing

    world = World()
    for _ in range(3):
        world.add_body(q=np.array([1.0, 0.0, 0.0, 0.0]), omega_world=np.array([0.1, 5.0, 0.1]),
                       inertia_body=np.diag([1.3, 1.4, 2.5]), integrator="euler")  # fmt: skip
    world.set_gyroscopic(False, [2])  # groups of 2 and 1 bodies
    world.step(H_S)
    assert len(world._current_layout().groups) == 2
    calls = iter([4.0, 2.0])  # seconds a call, the first group's then the second's
    monkeypatch.setattr(timing, "best_seconds_per_call", lambda call, repeats, number: next(calls))
    monkeypatch.setattr(compiled, "is_ready", lambda name: True)
    assert world.time_groups(H_S) == {"euler": (4.0 + 2.0) / 3}
