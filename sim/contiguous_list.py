"""The entity store: a doubly linked list kept in contiguous arrays (seed 000).

Seed 000 ("Implementing Linked Lists with Contiguous Arrays", cwzx) stores a linked list's values and its links
in separate contiguous arrays; the value of ``links[i]`` is implicitly ``values[i]``:

    values  [--q--][--q--][--q--] ...     one array per field (structure of arrays), leading axis = slot
    links   prev next prev next ...       (capacity, 2) unsigned integers, the smallest type that fits

The ``size`` elements occupy slots ``0 .. size-1``. Insertion pushes to the back and links the new slot in;
erasure moves the last slot into the hole and patches the links (swap-remove). So order-free work (a batched
integration step, a sum of energies) runs straight over ``values(name)``, and ordered work follows the
compact links (``ordered_slots``).

Swap-remove moves elements, so callers hold ``Handle(index, generation)`` ids (as Box2D v3 does): a handle
table maps handle index -> slot and slot -> handle index, and erasing bumps the generation, so a stale handle
raises ``StaleHandleError``. Links use the link type's largest value as null, so uint8 links up to 255
elements, uint16 up to 65 535, and so on; the type widens as the size passes those limits and, like the
capacity, never narrows.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from sys import getrefcount
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

__all__ = ["ContiguousList", "FieldSpec", "Handle", "StaleHandleError", "link_dtype_for_size"]

FieldSpec = tuple[DTypeLike, tuple[int, ...]]
"""A field's declaration: (dtype, per-element shape), e.g. ``(np.float64, (4,))`` or ``(np.float64, ())``."""

_PREV = 0
_NEXT = 1
_NONE = -1  # head/tail when the list is empty; the links array uses the dtype's null value instead
# (dtype, its null value = its max), narrowest first; the null is also the largest size the dtype can link.
_LINK_TYPES = tuple((np.dtype(t), int(np.iinfo(t).max)) for t in (np.uint8, np.uint16, np.uint32, np.uint64))


class Handle(NamedTuple):
    """A stable id for one element: an index into the handle table and the generation it was issued with."""

    index: int  # type: ignore[assignment]  # the field's name shadows tuple.index on purpose: the slot's index
    generation: int


class StaleHandleError(KeyError):
    """Raised when a handle was erased (its generation moved on) or never belonged to this list."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "stale handle"


def link_dtype_for_size(size: int) -> np.dtype:
    """The smallest unsigned type whose values cover slots ``0 .. size-1`` plus the null value (its max)."""
    for dtype, null in _LINK_TYPES:
        if size <= null:
            return dtype
    raise OverflowError(f"a list of {size} elements does not fit a 64-bit link")


class ContiguousList:
    """A doubly linked list whose values live in one flat numpy array per field (seed 000).

    ``fields``: ``{name: (dtype, per-element shape)}``; field ``name`` is stored as an array of shape
    ``(capacity, *shape)``, of which ``values(name)`` exposes the live rows ``[:size]``.
    ``capacity``: initial number of slots; appending past it doubles the capacity.
    ``watched``: fields whose changes :meth:`watched_edits` tells a cache about (the world's layout).
    """

    def __init__(self, fields: Mapping[str, FieldSpec], capacity: int = 8, watched: Iterable[str] = ()) -> None:
        self._capacity = max(int(capacity), 1)
        self._values = {name: np.empty((self._capacity, *shape), dtype) for name, (dtype, shape) in fields.items()}
        self._watched = frozenset(watched)
        if self._watched - self._values.keys():
            raise KeyError(f"unknown watched fields {sorted(self._watched - self._values.keys())}")
        self._edits = 0
        self._watch_arrays()
        self._link_dtype, self._null = _LINK_TYPES[0]
        self._links = np.empty((self._capacity, 2), dtype=self._link_dtype)
        self._size, self._head, self._tail = 0, _NONE, _NONE
        # Handle table. It never holds more indices than the peak size, so it shares the capacity.
        self._slot_of_handle = np.empty(self._capacity, dtype=np.int64)
        self._generation = np.empty(self._capacity, dtype=np.int64)
        self._handle_of_slot = np.empty(self._capacity, dtype=np.int64)
        self._handle_count = 0
        self._free_handles: list[int] = []

    def __len__(self) -> int:
        return self._size

    @property
    def capacity(self) -> int:
        """Number of slots allocated in every array."""
        return self._capacity

    @property
    def link_dtype(self) -> np.dtype:
        """The unsigned integer type of the links array (uint8, uint16, uint32 or uint64)."""
        return self._link_dtype

    @property
    def fields(self) -> dict[str, tuple[np.dtype, tuple[int, ...]]]:
        """The declared fields, ``{name: (dtype, per-element shape)}``."""
        return {name: (array.dtype, array.shape[1:]) for name, array in self._values.items()}

    def contains(self, handle: Handle) -> bool:
        """Whether ``handle`` refers to a live element of this list."""
        index, generation = handle
        return (
            0 <= index < self._handle_count
            and int(self._generation[index]) == generation
            and int(self._slot_of_handle[index]) >= 0
        )

    def slot_of(self, handle: Handle) -> int:
        """The slot (row of every values array) holding ``handle``'s element; valid until the next erase."""
        if not self.contains(handle):
            raise StaleHandleError(f"handle {tuple(handle)} is not live in this list (erased or foreign)")
        return int(self._slot_of_handle[handle[0]])

    def handle_at(self, slot: int) -> Handle:
        """The handle of the element in ``slot`` (0 <= slot < size)."""
        index = int(self._handle_of_slot[slot])
        return Handle(index, int(self._generation[index]))

    @property
    def watched(self) -> frozenset[str]:
        """The fields :meth:`watched_edits` counts the changes of."""
        return self._watched

    def values(self, name: str) -> np.ndarray:
        """The live rows of field ``name``: a view of shape ``(size, *shape)`` in slot order, not list order.

        This is the hot path for order-free batch work; write through it to update many elements at once.
        The view is valid until the next append, insert, erase or reserve.
        """
        if name in self._watched:
            self._edits += 1  # the view lent may be written through
        return self._values[name][: self._size]

    def peek(self, name: str) -> np.ndarray:
        """The live rows of field ``name`` as :meth:`values` gives them, but read-only: reading a watched field
        this way lends no view to write through, so :meth:`watched_edits` does not count it."""
        view = self._values[name][: self._size]
        view.flags.writeable = False
        return view

    def watched_edits(self) -> int | None:
        """A counter that moves whenever the :attr:`watched` fields may have changed, for a cache of what they
        hold to check cheaply: every write through the list's methods (and any change of size) and every view of
        them :meth:`values` lends count. ``None`` while a view of a watched field is alive outside the list, since a
        write through it would not be counted: the cache must then compare the values themselves. Views are seen
        by the references to the arrays they share (a view of a view holds the array too), cheap to count."""
        if sum(map(getrefcount, self._watched_arrays)) != self._unlent_references:
            return None
        return self._edits

    def _watch_arrays(self) -> None:
        """Note the watched arrays and their references now, when no view of them exists (new arrays)."""
        self._watched_arrays = tuple(self._values[name] for name in sorted(self._watched))
        self._unlent_references = sum(map(getrefcount, self._watched_arrays))

    def get(self, handle: Handle, name: str) -> np.ndarray:
        """A copy of field ``name`` of ``handle``'s element, of the field's per-element shape."""
        return self._values[name][self.slot_of(handle)].copy()

    def set(self, handle: Handle, name: str, value: ArrayLike) -> None:
        """Write field ``name`` of ``handle``'s element."""
        self._values[name][self.slot_of(handle)] = value
        self._edits += 1

    def ordered_slots(self) -> np.ndarray:
        """Slot indices in list order, shape ``(size,)`` intp: ``values(name)[ordered_slots()]``."""
        return _follow_links(self._links[: self._size, _NEXT], self._head, step=1)

    def __iter__(self) -> Iterator[Handle]:
        """Handles in list order."""
        return self._handles_at(self.ordered_slots())

    def __reversed__(self) -> Iterator[Handle]:
        """Handles in reverse list order, following the prev links."""
        return self._handles_at(_follow_links(self._links[: self._size, _PREV], self._tail, step=-1))

    def reserve(self, capacity: int) -> None:
        """Make room for ``capacity`` elements without reallocating (never shrinks)."""
        if capacity > self._capacity:
            self._reallocate(int(capacity))

    def append(self, values: Mapping[str, ArrayLike] | None = None) -> Handle:
        """Push an element at the back of the arrays and link it at the tail. Missing fields are zero."""
        slot = self._push(values)
        self._link_between(slot, self._tail, _NONE)
        return self._issue_handle(slot)

    def insert_after(self, anchor: Handle, values: Mapping[str, ArrayLike] | None = None) -> Handle:
        """Insert an element right after ``anchor`` in list order; it is stored at the back of the arrays."""
        anchor_slot = self.slot_of(anchor)
        slot = self._push(values)
        self._link_between(slot, anchor_slot, self._link(anchor_slot, _NEXT))
        return self._issue_handle(slot)

    def insert_before(self, anchor: Handle, values: Mapping[str, ArrayLike] | None = None) -> Handle:
        """Insert an element right before ``anchor`` in list order; it is stored at the back of the arrays."""
        anchor_slot = self.slot_of(anchor)
        slot = self._push(values)
        self._link_between(slot, self._link(anchor_slot, _PREV), anchor_slot)
        return self._issue_handle(slot)

    def extend(
        self, count: int, values: Mapping[str, ArrayLike] | None = None, *, handles: bool = True
    ) -> list[Handle]:
        """Append ``count`` elements at the tail in one vectorised step; ``values[name]``: (count, *shape). Their
        handles, or none made when not ``handles`` (a caller that never names them: 10^5 handles are ~40 ms)."""
        if count <= 0:
            return []
        first, end = self._size, self._size + count
        self._resize(end)
        self._write_values(slice(first, end), values)
        slots = np.arange(first, end)
        # Chain the new slots to each other, then splice the chain in after the old tail.
        self._links[first + 1 : end, _PREV] = slots[:-1]
        self._links[first : end - 1, _NEXT] = slots[1:]
        self._links[end - 1, _NEXT] = self._null
        old_tail = self._tail
        self._links[first, _PREV] = self._null if old_tail == _NONE else old_tail
        self._point(old_tail, _NEXT, first)
        self._tail = end - 1
        # Handle indices: reuse freed ones first (most recently freed first, as single appends do).
        reused = [self._free_handles.pop() for _ in range(min(count, len(self._free_handles)))]
        fresh = range(self._handle_count, self._handle_count + count - len(reused))
        indices = np.array(reused + list(fresh), dtype=np.int64)
        self._handle_count += len(fresh)
        self._generation[fresh.start : fresh.stop] = 0
        self._slot_of_handle[indices] = slots
        self._handle_of_slot[first:end] = indices
        return list(self._handles_at(slots)) if handles else []

    # Erase is O(1): unlinking touches the erased slot's two neighbours; moving the last slot into the hole
    # copies one row per field and one (prev, next) pair, then patches the moved element's two neighbours and
    # its handle-table entry. Nothing depends on the size, and no array shrinks or reallocates, so the only
    # work is a fixed number of row copies (the seed's "move the back node/value, then pop").
    def erase(self, handle: Handle) -> None:
        """Remove ``handle``'s element; the last slot moves into its place. The handle becomes stale."""
        slot = self.slot_of(handle)
        prev_slot, next_slot = self._link(slot, _PREV), self._link(slot, _NEXT)
        self._point(prev_slot, _NEXT, next_slot)
        self._point(next_slot, _PREV, prev_slot)
        last = self._size - 1
        if slot != last:
            for array in self._values.values():
                array[slot] = array[last]
            # Read the last slot's links only now: if it neighboured the erased slot, they were just patched.
            last_prev, last_next = self._link(last, _PREV), self._link(last, _NEXT)
            self._links[slot] = self._links[last]
            self._point(last_prev, _NEXT, slot)
            self._point(last_next, _PREV, slot)
            moved_index = int(self._handle_of_slot[last])
            self._slot_of_handle[moved_index] = slot
            self._handle_of_slot[slot] = moved_index
        self._size = last
        self._edits += 1
        self._generation[handle[0]] += 1
        self._slot_of_handle[handle[0]] = _NONE
        self._free_handles.append(handle[0])

    def _link(self, slot: int, column: int) -> int:
        link = int(self._links[slot, column])
        return _NONE if link == self._null else link

    def _point(self, slot: int, column: int, target: int) -> None:
        """Set ``slot``'s link in ``column`` to ``target``. With no ``slot``, ``target`` becomes the head (for
        a next link: nothing precedes it) or the tail (for a prev link: nothing follows it)."""
        if slot != _NONE:
            self._links[slot, column] = self._null if target == _NONE else target
        elif column == _NEXT:
            self._head = target
        else:
            self._tail = target

    def _link_between(self, slot: int, prev_slot: int, next_slot: int) -> None:
        self._point(slot, _PREV, prev_slot)
        self._point(slot, _NEXT, next_slot)
        self._point(prev_slot, _NEXT, slot)
        self._point(next_slot, _PREV, slot)

    def _handles_at(self, slots: np.ndarray) -> Iterator[Handle]:
        indices = self._handle_of_slot[slots]
        for index, generation in zip(indices.tolist(), self._generation[indices].tolist(), strict=True):
            yield Handle(index, generation)

    def _push(self, values: Mapping[str, ArrayLike] | None) -> int:
        slot = self._size
        self._resize(slot + 1)
        self._write_values(slot, values)
        return slot

    def _write_values(self, rows: int | slice, values: Mapping[str, ArrayLike] | None) -> None:
        given = {} if values is None else values
        unknown = given.keys() - self._values.keys()
        if unknown:
            raise KeyError(f"unknown fields {sorted(unknown)}; declared: {sorted(self._values)}")
        for name, array in self._values.items():
            array[rows] = given.get(name, 0)

    def _resize(self, size: int) -> None:
        """Set the size to ``size``, first growing the arrays (by doubling) and widening the links to fit."""
        if size > self._capacity:
            self._reallocate(max(size, 2 * self._capacity))
        if size > self._null:
            old_null, live = self._null, self._links[: self._size]
            self._link_dtype = link_dtype_for_size(size)
            self._null = int(np.iinfo(self._link_dtype).max)
            widened = np.empty((self._capacity, 2), dtype=self._link_dtype)
            # Copy first, then remap the null value: np.where(live == old_null, new_null, live) would keep
            # the narrow dtype and wrap the new null back to the old one.
            widened[: self._size] = live
            widened[: self._size][live == old_null] = self._null
            self._links = widened
        self._size = size
        self._edits += 1

    def _reallocate(self, capacity: int) -> None:
        def moved(array: np.ndarray, rows: int) -> np.ndarray:
            grown = np.empty((capacity, *array.shape[1:]), dtype=array.dtype)
            grown[:rows] = array[:rows]
            return grown

        self._values = {name: moved(array, self._size) for name, array in self._values.items()}
        self._links = moved(self._links, self._size)
        self._handle_of_slot = moved(self._handle_of_slot, self._size)
        self._slot_of_handle = moved(self._slot_of_handle, self._handle_count)
        self._generation = moved(self._generation, self._handle_count)
        self._capacity = capacity
        self._edits += 1  # the arrays changed: views of the old ones are not the list's any more
        self._watch_arrays()

    def _issue_handle(self, slot: int) -> Handle:
        if self._free_handles:
            index = self._free_handles.pop()
        else:
            index = self._handle_count
            self._handle_count += 1
            self._generation[index] = 0
        self._slot_of_handle[index] = slot
        self._handle_of_slot[slot] = index
        return Handle(index, int(self._generation[index]))


def _follow_links(links: np.ndarray, start: int, step: int) -> np.ndarray:
    """Slots visited from ``start`` along ``links`` ((size,) unsigned), as (size,) intp.

    ``step``: +1 for next links, -1 for prev links (the direction in which an append-only list runs).
    """
    size = links.shape[0]
    slots = np.arange(size, dtype=np.intp)
    # Fast path: a list built by appends only is linked 0 -> 1 -> ... -> size-1 (seed 000's linear order),
    # which one vectorised comparison recognises.
    if step == 1 and (size == 0 or (start == 0 and np.array_equal(links[:-1], slots[1:]))):
        return slots
    if step == -1 and (size == 0 or (start == size - 1 and np.array_equal(links[1:], slots[:-1]))):
        return slots[::-1].copy()
    # Chasing links is sequential: a compiled loop over the compact links (the seed's pure traversal), imported
    # here so that the list itself does not import numba.
    from spinlab.sim.link_chase import chase

    return chase(np.ascontiguousarray(links), start, size)
