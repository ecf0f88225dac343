"""The world's cheap step (one body within a few µs of its kernel) is the step that rebuilds everything,
bit for bit: the layout kept while the entity store's count of edits stands (sim/contiguous_list.py's
``watched_edits``), the state views kept with it, the integrators writing into each group's buffers (``out=``).
Compared with :func:`tests.sim.world_reference.reference_step`, which calls every integrator directly."""

import numpy as np
import pytest

from spinlab.sim.contiguous_list import ContiguousList
from spinlab.sim.errors import NumericalError
from spinlab.sim.integrators import INTEGRATORS
from spinlab.sim.integrators.newton import NewtonOptions
from spinlab.sim.world import BODY_FIELDS, INTEGRATOR_NAMES, World
from tests.sim.test_world import _add_random_body
from tests.sim.world_reference import assert_same_bits, reference_step

H_S = 1.0 / 120.0
SEVERAL = (
    "euler", "implicit_midpoint", "split2", "im4", "rkmk4", "implicit_midpoint", "magnus", "split4", "trapezoidal",
    "euler_body", "ot4",
)  # fmt: skip
COMPILED = [name for name in INTEGRATORS if name != "exact"]


def _world(integrators, *, gravity=(0.0, 0.0, 0.0), pivots=False, seed=3):
    rng = np.random.default_rng(seed)
    world = World(gravity=gravity)
    handles = [_add_random_body(world, rng, k, name, pivots) for k, name in enumerate(integrators)]
    return world, handles


def _step_both(world: World, reference: World, steps: int) -> None:
    for _ in range(steps):
        cost, expected = world.step(H_S), reference_step(reference, H_S)
        assert_same_bits(cost.newton_iterations, expected.newton_iterations)
        assert_same_bits(cost.substeps, expected.substeps)
        for name in BODY_FIELDS:
            # peek: a look that lends no view, so that the world's count of edits is not moved by the test itself
            assert_same_bits(world.bodies.peek(name), reference.values(name))


@pytest.mark.parametrize("gravity", [(0.0, 0.0, 0.0), (0.0, -9.81, 0.5)], ids=["no_gravity", "gravity"])
@pytest.mark.parametrize("pivots", [False, True], ids=["free", "pivots"])
def test_several_groups_through_layout_changes(gravity, pivots):
    """Several integrators in several groups; a change of integrator, a freeze, writes through ``values`` (one
    right away, one through a view held over a step, one through a view of a view): each honoured on the next
    step, bit for bit."""
    (world, handles), (reference, reference_handles) = (_world(SEVERAL, gravity=gravity, pivots=pivots) for _ in "ab")
    _step_both(world, reference, 4)
    for w, h in ((world, handles), (reference, reference_handles)):
        w.set_integrator(h[1], "euler_body")
    _step_both(world, reference, 3)
    for w in (world, reference):
        w.freeze([2, 5])
    _step_both(world, reference, 3)
    for w in (world, reference):
        w.values("integrator")[7] = INTEGRATOR_NAMES.index("rkmk4")
    _step_both(world, reference, 3)
    held = world.values("integrator")
    _step_both(world, reference, 1)
    held[0] = reference.values("integrator")[0] = INTEGRATOR_NAMES.index("im6")
    _step_both(world, reference, 2)
    part = world.values("frozen")[8:]
    del held
    _step_both(world, reference, 1)
    part[1] = reference.values("frozen")[9] = True  # the store's array, seen through a view of a view
    del part
    _step_both(world, reference, 3)


@pytest.mark.parametrize("name", COMPILED)
def test_one_body_of_each_integrator(name):
    """A world of one group of every body (its buffers are the new state before the commit), with and without a
    pivot under gravity (the predictor pass and the second one share the buffers)."""
    for gravity, pivots in (((0.0, 0.0, 0.0), False), ((0.0, 0.0, -9.81), True)):
        (world, _), (reference, _) = (_world([name], gravity=gravity, pivots=pivots) for _ in "ab")
        _step_both(world, reference, 6)


def _assert_unchanged(world: World, before: dict[str, np.ndarray]) -> None:
    for name in BODY_FIELDS:
        assert_same_bits(world.values(name), before[name])


@pytest.mark.parametrize("integrators", [("euler",), ("rkmk4", "euler", "implicit_midpoint", "euler")])
def test_a_non_finite_state_leaves_the_world_unchanged_and_names_the_slots(integrators):
    world, _ = _world(integrators)
    reference, _ = _world(integrators)
    _step_both(world, reference, 2)
    slot = len(integrators) - 1
    good = world.values("omega_world")[slot].copy()
    world.values("omega_world")[slot] = [1e300, -1e300, 1e300]  # the next ω overflows
    world.values("L_world")[slot] = [1e300, -1e300, 1e300]
    before = {name: world.values(name).copy() for name in BODY_FIELDS}
    with pytest.raises(NumericalError, match="not finite") as raised, np.errstate(all="ignore"):
        world.step(H_S)
    # The failing body alone, not every slot of its integrator's group.
    np.testing.assert_array_equal(raised.value.bodies, [slot])
    _assert_unchanged(world, before)
    # Put right, it steps on as if the failed step had not been tried (nothing of it stayed in the buffers).
    world.values("omega_world")[slot], world.values("L_world")[slot] = good, reference.values("L_world")[slot]
    _step_both(world, reference, 2)


@pytest.mark.parametrize("name", ["implicit_midpoint", "im4", "split2"])
def test_a_newton_failure_leaves_the_world_unchanged_and_names_the_slots(name):
    integrators = ("euler", name, "rkmk4", name)
    world, _ = _world(integrators)
    reference, _ = _world(integrators)
    _step_both(world, reference, 2)
    world.values("L_world")[3] *= 400.0  # far too fast for one Newton iteration and no halving
    world.values("omega_world")[3] *= 400.0
    reference.values("L_world")[3] *= 400.0
    reference.values("omega_world")[3] *= 400.0
    world.integrator_options[name] = {"newton": NewtonOptions(max_iterations=3, max_substep_depth=0)}
    before = {field: world.values(field).copy() for field in BODY_FIELDS}
    with pytest.raises(NumericalError, match="failed for body 1: Newton's method did not converge") as raised:
        world.step(H_S)
    np.testing.assert_array_equal(raised.value.bodies, [3])  # the slot of the group's row 1, the one that failed
    _assert_unchanged(world, before)
    del world.integrator_options[name]
    _step_both(world, reference, 2)


def test_the_store_counts_every_way_a_watched_field_may_change():
    store = ContiguousList({"mass": (np.float64, ()), "tag": (np.int64, ())}, capacity=1, watched=["tag"])
    counts = [store.watched_edits()]

    def moved() -> bool:
        """Whether the count moved since the last look (no view may be alive: pytest keeps an assert's values, so
        the looks through views below are statements of their own)."""
        counts.append(store.watched_edits())
        assert None not in counts[-2:]
        return counts[-1] != counts[-2]

    handle = store.append({"mass": 1.0, "tag": 1})
    assert moved()
    store.values("mass")[0] = 2.0  # not watched: not counted
    assert not moved()
    tag = int(store.peek("tag")[0])  # read-only, lends nothing
    assert tag == 1 and not moved()
    with pytest.raises(ValueError):
        store.peek("tag")[0] = 3
    store.values("tag")[0] = 3
    assert moved()
    store.set(handle, "tag", 4)
    assert moved()
    store.reserve(64)
    assert moved()
    other = store.append({"tag": 5})
    assert moved()
    store.erase(other)
    assert moved()
    view = store.values("tag")
    assert store.watched_edits() is None  # a view is out: a write through it could not be counted
    part = view[:1]
    del view
    assert store.watched_edits() is None  # a view of the view holds the array too
    del part
    assert store.watched_edits() is not None


def test_a_look_through_peek_does_not_move_the_count():
    world, _ = _world(SEVERAL)
    world.step(H_S)
    edits, layout = world.bodies.watched_edits(), world._current_layout()
    frozen = int(world.peek("frozen").sum())  # (not in an assert: pytest would keep the view for its message)
    assert frozen == 0 and world.bodies.watched_edits() == edits
    world.values("frozen")
    assert world.bodies.watched_edits() != edits and world._current_layout() is layout  # compared, unchanged


def test_the_world_needs_a_store_that_watches_its_layout():
    with pytest.raises(ValueError, match="LAYOUT_FIELDS"):
        World(bodies=ContiguousList(BODY_FIELDS))


def test_a_batch_run_in_parts_on_both_cores_writes_its_buffers_bit_for_bit():
    """Large groups run their kernels in parts, one a thread (sim/integrators/threads.py): each part writes its
    rows of the group's buffers."""
    integrators = ["implicit_midpoint", "split2", "im4"] * 600  # each group over its kernel's threads.MIN_BODIES
    (world, _), (reference, _) = (_world(integrators, gravity=(0.0, 0.0, -9.81), pivots=True) for _ in "ab")
    _step_both(world, reference, 2)
