"""Seed 000's benchmark in Python: the contiguous list against a node list and a plain Python list.

Seed 000 ("Implementing Linked Lists with Contiguous Arrays") times ``cw::list`` (values and links in separate
contiguous arrays) against ``std::list`` (one allocation per node). Here the three contenders are
``sim.contiguous_list.ContiguousList``, a node list of Python objects (``_NodeList`` below, the ``std::list``
analogue) and a plain Python ``list`` of floats. Each element carries one float, ``mass``.

Operations, each timed as the best of k repeats with ``time.perf_counter`` (garbage collection off, as timeit
does), on freshly built structures where the operation changes them:

- ``build``: n appends, one call per element.
- ``ordered_sum``: sum of ``mass`` following list order, right after the build (linear order).
- ``order_free_sum``: sum of ``mass`` in any order (contiguous: ``values("mass").sum()``; node list: a walk;
  Python list: ``sum()``).
- ``random_erase``: erase n/10 random existing elements (handles / nodes / positions, seeded rng).
- ``ordered_sum_after_erase``: ``ordered_sum`` again after those erases, when swap-remove has scrambled the
  contiguous list's slot order so that its links must be followed (seed 000's nonlinear case).

``per_element_ns`` divides by the elements the operation touches: n, n/10 for the erase, 0.9 n after it.
"""

from __future__ import annotations

import gc
import math
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from spinlab.sim.contiguous_list import ContiguousList, Handle

__all__ = ["IMPLEMENTATIONS", "OPERATIONS", "format_table", "run"]

OPERATIONS = ("build", "ordered_sum", "order_free_sum", "random_erase", "ordered_sum_after_erase")
IMPLEMENTATIONS = ("contiguous", "node_list", "python_list")
SIZES = (10**3, 10**4, 10**5, 10**6)
SIZES_QUICK = (10**3, 10**4, 10**5)
SEED = 2024
RELATIVE_TOLERANCE_SUM = 1e-9  # the three sums add the same floats in different orders


class _Node:
    __slots__ = ("next", "prev", "value")

    def __init__(self, value: float) -> None:
        self.prev: _Node | None = None
        self.next: _Node | None = None
        self.value = value


class _NodeList:
    """A conventional doubly linked list: one Python object per node, linked by references."""

    __slots__ = ("head", "tail")

    def __init__(self) -> None:
        self.head: _Node | None = None
        self.tail: _Node | None = None

    def append(self, value: float) -> _Node:
        node = _Node(value)
        node.prev = self.tail
        if self.tail is None:
            self.head = node
        else:
            self.tail.next = node
        self.tail = node
        return node

    def erase(self, node: _Node) -> None:
        if node.prev is None:
            self.head = node.next
        else:
            node.prev.next = node.next
        if node.next is None:
            self.tail = node.prev
        else:
            node.next.prev = node.prev
        node.prev = node.next = None

    def sum_values(self) -> float:
        total, node = 0.0, self.head
        while node is not None:
            total += node.value
            node = node.next
        return total


def _contiguous_build(masses: list[float]) -> tuple[ContiguousList, list[Handle]]:
    store = ContiguousList({"mass": (np.float64, ())})
    return store, [store.append({"mass": mass}) for mass in masses]


def _contiguous_setup(masses: list[float]) -> tuple[ContiguousList, list[Handle]]:
    """The same structure as ``_contiguous_build`` (linear order, handles 0..n-1), built in one batch."""
    store = ContiguousList({"mass": (np.float64, ())})
    return store, store.extend(len(masses), {"mass": masses})


def _contiguous_ordered_sum(store: ContiguousList) -> float:
    return float(store.values("mass")[store.ordered_slots()].sum())


def _node_build(masses: list[float]) -> tuple[_NodeList, list[_Node]]:
    nodes = _NodeList()
    return nodes, [nodes.append(mass) for mass in masses]


def _python_build(masses: list[float]) -> list[float]:
    values: list[float] = []
    for mass in masses:
        values.append(mass)
    return values


def _returned(value: Any) -> Any:
    """``value`` itself: the set-up of a timing that works on an earlier timing's result."""
    return value


def _best_of(repeats: int, setup: Callable[[], Any], operation: Callable[[Any], Any]) -> tuple[float, Any]:
    """Best wall time of ``operation(setup())`` over ``repeats`` fresh setups, and the last result."""
    best, result = math.inf, None
    for _ in range(repeats):
        state = setup()
        gc_was_enabled = gc.isenabled()
        gc.disable()
        try:
            start = time.perf_counter()
            result = operation(state)
            best = min(best, time.perf_counter() - start)
        finally:
            if gc_was_enabled:
                gc.enable()
    return best, result


def _erase_all(erase: Callable[[Any], None], items: list[Any], picks: list[int]) -> None:
    for pick in picks:
        erase(items[pick])


def _measure_size(n: int, repeats: int, progress: Callable[[str], None]) -> dict[tuple[str, str], float]:
    """Seconds per (operation, implementation) at size ``n``; checks that the implementations agree."""
    rng = np.random.default_rng(SEED + n)
    masses = rng.random(n).tolist()
    erase_count = n // 10
    erase_picks = rng.choice(n, size=erase_count, replace=False).tolist()
    # Positions into a shrinking Python list: the i-th erase picks uniformly among the n - i left.
    erase_positions = (rng.random(erase_count) * (n - np.arange(erase_count))).astype(np.int64).tolist()

    def erase_positions_from(values: list[float]) -> list[float]:
        for position in erase_positions:
            del values[position]
        return values

    def contiguous_erase(state: tuple[ContiguousList, list[Handle]]) -> ContiguousList:
        _erase_all(state[0].erase, state[1], erase_picks)
        return state[0]

    def node_erase(state: tuple[_NodeList, list[_Node]]) -> _NodeList:
        _erase_all(state[0].erase, state[1], erase_picks)
        return state[0]

    # (setup, operation) per implementation and operation; setups are not timed.
    cases: dict[str, dict[str, tuple[Callable[[], Any], Callable[[Any], Any]]]] = {
        "contiguous": {
            "build": (lambda: masses, _contiguous_build),
            "ordered_sum": (lambda: _contiguous_setup(masses)[0], _contiguous_ordered_sum),
            "order_free_sum": (lambda: _contiguous_setup(masses)[0], lambda s: float(s.values("mass").sum())),
            "random_erase": (lambda: _contiguous_setup(masses), contiguous_erase),
        },
        "node_list": {
            "build": (lambda: masses, _node_build),
            "ordered_sum": (lambda: _node_build(masses)[0], _NodeList.sum_values),
            "order_free_sum": (lambda: _node_build(masses)[0], _NodeList.sum_values),
            "random_erase": (lambda: _node_build(masses), node_erase),
        },
        "python_list": {
            "build": (lambda: masses, _python_build),
            "ordered_sum": (lambda: list(masses), sum),
            "order_free_sum": (lambda: list(masses), sum),
            "random_erase": (lambda: list(masses), erase_positions_from),
        },
    }
    after_erase_sum: dict[str, Callable[[Any], Any]] = {
        "contiguous": _contiguous_ordered_sum,
        "node_list": _NodeList.sum_values,
    }
    after_erase_sum["python_list"] = sum
    seconds: dict[tuple[str, str], float] = {}
    sums: dict[tuple[str, str], float] = {}
    for operation in OPERATIONS[:-1]:
        progress(f"n={n} {operation} ...")
        for implementation in IMPLEMENTATIONS:
            setup, timed = cases[implementation][operation]
            seconds[operation, implementation], result = _best_of(repeats, setup, timed)
            if operation == "random_erase":
                operation_after = "ordered_sum_after_erase"
                seconds[operation_after, implementation], sums[operation_after, implementation] = _best_of(
                    repeats, partial(_returned, result), after_erase_sum[implementation]
                )
            elif operation != "build":
                sums[operation, implementation] = result
    _check_sums_agree(n, sums)
    return seconds


def _check_sums_agree(n: int, sums: dict[tuple[str, str], float]) -> None:
    """The sums must agree (the Python list erases other elements, so it is left out after the erase)."""
    groups = [
        [sums["ordered_sum", implementation] for implementation in IMPLEMENTATIONS]
        + [sums["order_free_sum", implementation] for implementation in IMPLEMENTATIONS],
        [sums["ordered_sum_after_erase", "contiguous"], sums["ordered_sum_after_erase", "node_list"]],
    ]
    for group in groups:
        if not all(math.isclose(total, group[0], rel_tol=RELATIVE_TOLERANCE_SUM) for total in group):
            raise RuntimeError(f"contiguous_list benchmark: implementations disagree at n={n}: {group}")


def run(quick: bool, *, progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Run the benchmark; ``quick`` uses n up to 10**5 and fewer repeats. JSON-serialisable result.

    Returns ``{"name", "results": [{"n", "operation", "implementation", "seconds", "per_element_ns"}],
    "ratios": {operation: {str(n): {"node_list_over_contiguous", "python_list_over_contiguous"}}}}``.
    """
    report = progress if progress is not None else (lambda message: None)
    sizes, repeats = (SIZES_QUICK, 3) if quick else (SIZES, 5)
    results: list[dict[str, Any]] = []
    ratios: dict[str, dict[str, dict[str, float]]] = {operation: {} for operation in OPERATIONS}
    for n in sizes:
        seconds = _measure_size(n, repeats if n < 10**6 else 3, report)
        touched = {"random_erase": n // 10, "ordered_sum_after_erase": n - n // 10}
        for operation in OPERATIONS:
            for implementation in IMPLEMENTATIONS:
                elapsed = seconds[operation, implementation]
                per_element_ns = elapsed / touched.get(operation, n) * 1e9
                results.append(
                    {
                        "n": n,
                        "operation": operation,
                        "implementation": implementation,
                        "seconds": elapsed,
                        "per_element_ns": per_element_ns,
                    }
                )
            contiguous = seconds[operation, "contiguous"]
            ratios[operation][str(n)] = {
                "node_list_over_contiguous": seconds[operation, "node_list"] / contiguous,
                "python_list_over_contiguous": seconds[operation, "python_list"] / contiguous,
            }
    return {"name": "contiguous_list", "quick": quick, "repeats": repeats, "results": results, "ratios": ratios}


def _format_seconds(seconds: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:7.3g} {unit}"
    return f"{seconds / 1e-9:7.3g} ns"


def _row(cells: list[str], widths: list[int]) -> str:
    # The first column (the operation) reads best left-aligned, the numbers right-aligned.
    return "".join(
        f"{cell:>{width}}" if column else f"{cell:<{width}}"
        for column, (cell, width) in enumerate(zip(cells, widths, strict=True))
    )


def format_table(result: dict[str, Any]) -> str:
    """A fixed-width table: one row per operation and n; times, then node list and Python list over contiguous.

    A ratio above 1 means the contiguous list was faster.
    """
    seconds = {(row["operation"], row["n"], row["implementation"]): row["seconds"] for row in result["results"]}
    sizes = sorted({row["n"] for row in result["results"]})
    widths = [24, 8, 12, 12, 12, 12, 14]
    header = ["operation", "n", "contiguous", "node list", "python list", "node/contig", "pylist/contig"]
    lines = [_row(header, widths), "-" * sum(widths)]
    for operation in OPERATIONS:
        for n in sizes:
            ratio = result["ratios"][operation][str(n)]
            cells = [operation, f"1e{round(math.log10(n))}" if n == 10 ** round(math.log10(n)) else str(n)]
            cells += [_format_seconds(seconds[operation, n, implementation]) for implementation in IMPLEMENTATIONS]
            cells += [f"{ratio['node_list_over_contiguous']:.2f}", f"{ratio['python_list_over_contiguous']:.2f}"]
            lines.append(_row(cells, widths))
    return "\n".join(lines)
