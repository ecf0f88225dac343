"""Tests for sim/contiguous_list.py: the list against a plain Python model, link widening, growth, fields."""

import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from spinlab.sim.contiguous_list import ContiguousList, Handle, StaleHandleError, link_dtype_for_size

FIELDS = {"mass": (np.float64, ()), "omega_world": (np.float64, (3,)), "tag": (np.int64, ())}
OFFSETS_OMEGA = np.array([0.0, 1.0, 2.0])


def _record(tag: int) -> dict[str, object]:
    """A record whose every field is a function of ``tag``, so a misplaced row shows up in any field."""
    return {"mass": 0.5 * tag, "omega_world": tag + OFFSETS_OMEGA, "tag": tag}


def _check_against_model(store: ContiguousList, model: list[tuple[Handle, int]]) -> None:
    """Assert that ``store`` holds exactly ``model``'s (handle, tag) pairs, in order, with matching rows."""
    handles = [handle for handle, _ in model]
    tags = [tag for _, tag in model]
    assert len(store) == len(model)
    assert list(store) == handles
    assert list(reversed(store)) == handles[::-1]
    order = store.ordered_slots()
    assert order.tolist() == [store.slot_of(handle) for handle in handles]
    assert store.values("tag")[order].tolist() == tags
    assert sorted(store.values("tag").tolist()) == sorted(tags)
    np.testing.assert_array_equal(store.values("mass")[order], 0.5 * np.array(tags, dtype=np.float64))
    np.testing.assert_array_equal(
        store.values("omega_world")[order], np.array(tags, dtype=np.float64).reshape(-1, 1) + OFFSETS_OMEGA
    )
    for handle, tag in model:
        assert store.contains(handle)
        assert store.get(handle, "tag") == tag
        assert store.handle_at(store.slot_of(handle)) == handle


class ContiguousListMachine(RuleBasedStateMachine):
    """Random appends, inserts, extends and erases, checked after every step against a Python list."""

    def __init__(self) -> None:
        super().__init__()
        self.store = ContiguousList(FIELDS, capacity=1)
        self.model: list[tuple[Handle, int]] = []
        self.erased: list[Handle] = []
        self.next_tag = 0

    def _new_tag(self) -> int:
        self.next_tag += 1
        return self.next_tag

    @rule()
    def append(self) -> None:
        tag = self._new_tag()
        self.model.append((self.store.append(_record(tag)), tag))

    @rule(count=st.integers(0, 20))
    def extend(self, count: int) -> None:
        tags = [self._new_tag() for _ in range(count)]
        columns = {"mass": [0.5 * tag for tag in tags], "tag": tags}
        columns["omega_world"] = np.array(tags, dtype=np.float64).reshape(-1, 1) + OFFSETS_OMEGA
        handles = self.store.extend(count, columns)
        self.model.extend(zip(handles, tags, strict=True))

    @precondition(lambda self: self.model)
    @rule(pick=st.integers(0, 10**6))
    def insert_after(self, pick: int) -> None:
        position = pick % len(self.model)
        tag = self._new_tag()
        handle = self.store.insert_after(self.model[position][0], _record(tag))
        self.model.insert(position + 1, (handle, tag))

    @precondition(lambda self: self.model)
    @rule(pick=st.integers(0, 10**6))
    def insert_before(self, pick: int) -> None:
        position = pick % len(self.model)
        tag = self._new_tag()
        handle = self.store.insert_before(self.model[position][0], _record(tag))
        self.model.insert(position, (handle, tag))

    @precondition(lambda self: self.model)
    @rule(pick=st.integers(0, 10**6))
    def erase(self, pick: int) -> None:
        handle, _ = self.model.pop(pick % len(self.model))
        self.store.erase(handle)
        self.erased.append(handle)

    @precondition(lambda self: self.model)
    @rule(pick=st.integers(0, 10**6), tag=st.integers(-1000, -1))
    def set_tag(self, pick: int, tag: int) -> None:
        position = pick % len(self.model)
        handle = self.model[position][0]
        for name, value in _record(tag).items():
            self.store.set(handle, name, value)
        self.model[position] = (handle, tag)

    @invariant()
    def matches_model(self) -> None:
        _check_against_model(self.store, self.model)

    @invariant()
    def erased_handles_are_stale(self) -> None:
        for handle in self.erased:
            assert not self.store.contains(handle)
            with pytest.raises(StaleHandleError):
                self.store.slot_of(handle)
            with pytest.raises(KeyError):
                self.store.get(handle, "mass")


ContiguousListMachine.TestCase.settings = settings(max_examples=100, stateful_step_count=40, deadline=None)
TestContiguousListMachine = ContiguousListMachine.TestCase


def test_link_dtype_for_size_boundaries() -> None:
    assert link_dtype_for_size(255) == np.uint8
    assert link_dtype_for_size(256) == np.uint16
    assert link_dtype_for_size(65535) == np.uint16
    assert link_dtype_for_size(65536) == np.uint32
    assert link_dtype_for_size(2**32 - 1) == np.uint32
    assert link_dtype_for_size(2**32) == np.uint64


def test_links_widen_with_size_and_stay_correct() -> None:
    store = ContiguousList({"tag": (np.int64, ())})
    model: list[tuple[Handle, int]] = []
    dtype_at_size = {}
    for tag in range(70_000):
        model.append((store.append({"tag": tag}), tag))
        dtype_at_size[len(store)] = store.link_dtype
    assert {dtype_at_size[size] for size in range(1, 255)} == {np.dtype(np.uint8)}
    assert dtype_at_size[255] == np.uint8
    assert dtype_at_size[256] == np.uint16
    assert dtype_at_size[65535] == np.uint16
    assert dtype_at_size[65536] == np.uint32
    assert list(store) == [handle for handle, _ in model]
    # Scramble the order (erases move the last slot around, inserts go in the middle), then check every link.
    rng = np.random.default_rng(7)
    for position in sorted(rng.choice(len(model), size=500, replace=False).tolist(), reverse=True):
        store.erase(model.pop(position)[0])
    for position in rng.integers(0, len(model), size=200).tolist():
        model.insert(position, (store.insert_before(model[position][0], {"tag": -position}), -position))
    order = store.ordered_slots()
    assert store.values("tag")[order].tolist() == [tag for _, tag in model]
    assert list(reversed(store)) == [handle for handle, _ in reversed(model)]
    assert store.link_dtype == np.uint32


def test_widening_from_uint8_remaps_the_null_link() -> None:
    store = ContiguousList({"tag": (np.int64, ())})
    handles = [store.append({"tag": tag}) for tag in range(255)]
    store.erase(handles[10])
    store.insert_after(handles[0], {"tag": 1000})
    new_handles = store.extend(2, {"tag": [2000, 2001]})
    assert store.link_dtype == np.uint16
    # The head's prev held uint8's null (255), which is a real slot under uint16: insert before the head and
    # after the tail, where an un-remapped null would be followed.
    store.insert_before(handles[0], {"tag": -1})
    store.insert_after(new_handles[-1], {"tag": 3000})
    expected = [-1, 0, 1000, *range(1, 10), *range(11, 255), 2000, 2001, 3000]
    assert store.values("tag")[store.ordered_slots()].tolist() == expected
    assert [int(store.get(handle, "tag")) for handle in reversed(store)] == expected[::-1]


def test_capacity_doubles_and_reserve_sets_it() -> None:
    store = ContiguousList({"mass": (np.float64, ())}, capacity=1)
    capacities = []
    for tag in range(20):
        store.append({"mass": float(tag)})
        capacities.append(store.capacity)
    assert sorted(set(capacities)) == [1, 2, 4, 8, 16, 32]
    store.reserve(100)
    assert store.capacity == 100
    store.reserve(50)
    assert store.capacity == 100
    for tag in range(20, 101):
        store.append({"mass": float(tag)})
    assert store.capacity == 200
    np.testing.assert_array_equal(store.values("mass"), np.arange(101, dtype=np.float64))


def test_multi_field_records_keep_their_shapes() -> None:
    fields = {
        "q": (np.float64, (4,)),
        "omega_world": (np.float64, (3,)),
        "inertia_body": (np.float64, (3, 3)),
        "mass": (np.float64, ()),
        "kind": (np.uint8, ()),
    }
    store = ContiguousList(fields)
    rng = np.random.default_rng(3)
    records = [
        {
            "q": rng.normal(size=4),
            "omega_world": rng.normal(size=3),
            "inertia_body": np.diag(rng.uniform(1, 2, size=3)),
            "mass": float(rng.uniform(1, 2)),
        }
        for _ in range(12)
    ]
    handles = [store.append(record) for record in records]
    store.erase(handles[3])
    assert store.fields["inertia_body"] == (np.dtype(np.float64), (3, 3))
    for name, (dtype, shape) in fields.items():
        assert store.values(name).shape == (11, *shape)
        assert store.values(name).dtype == dtype
    for handle, record in zip(handles, records, strict=True):
        if handle == handles[3]:
            continue
        for name, value in record.items():
            np.testing.assert_array_equal(store.get(handle, name), value)
        assert store.get(handle, "kind") == 0  # fields left out of a record are zero
    copy = store.get(handles[0], "q")
    copy[:] = 0.0
    np.testing.assert_array_equal(store.get(handles[0], "q"), records[0]["q"])


def test_values_view_writes_through_for_batch_updates() -> None:
    store = ContiguousList({"mass": (np.float64, ())})
    handles = store.extend(5, {"mass": np.arange(5.0)})
    store.values("mass")[:] *= 2.0
    assert [float(store.get(handle, "mass")) for handle in handles] == [0.0, 2.0, 4.0, 6.0, 8.0]


def test_erased_index_is_reused_with_a_new_generation() -> None:
    store = ContiguousList({"mass": (np.float64, ())})
    first = store.append({"mass": 1.0})
    store.erase(first)
    second = store.append({"mass": 2.0})
    assert second.index == first.index and second.generation == first.generation + 1
    assert not store.contains(first) and store.contains(second)
    with pytest.raises(StaleHandleError, match="not live"):
        store.erase(first)
    assert not store.contains(Handle(99, 0))


def test_empty_list_and_unknown_field() -> None:
    store = ContiguousList({"mass": (np.float64, ())})
    assert len(store) == 0 and list(store) == [] and store.ordered_slots().shape == (0,)
    with pytest.raises(KeyError, match="unknown fields"):
        store.append({"masss": 1.0})


def test_extend_without_handles_stores_the_same_and_makes_none(monkeypatch) -> None:
    """A caller that never names the elements (the simulation's 10^5 bodies) asks for no handles: none is made, and
    the list holds what it would hold, the handles later issued and the ones found by slot the same."""
    made = []
    monkeypatch.setattr(ContiguousList, "_handles_at", lambda self, slots: made.append(len(slots)) or iter(()))
    quiet = ContiguousList({"mass": (np.float64, ())})
    assert quiet.extend(5, {"mass": np.arange(5.0)}, handles=False) == [] and made == []
    monkeypatch.undo()
    named = ContiguousList({"mass": (np.float64, ())})
    handles = named.extend(5, {"mass": np.arange(5.0)})
    np.testing.assert_array_equal(quiet.values("mass"), named.values("mass"))
    assert [quiet.handle_at(slot) for slot in range(5)] == handles
    assert quiet.append({"mass": 5.0}) == named.append({"mass": 5.0})
    np.testing.assert_array_equal(quiet.ordered_slots(), named.ordered_slots())
