"""Chasing a contiguous list's links, compiled (sim/contiguous_list.py's traversal of a list whose order is not
its slots' order); in a module of its own so that importing the list does not import numba."""

from __future__ import annotations

import numpy as np

from spinlab.sim.jit import njit

__all__ = ["chase"]


@njit(cache=True)
def chase(links: np.ndarray, start: int, size: int) -> np.ndarray:
    """(size,) intp: the slots visited from ``start`` along ``links`` (size,)."""
    order = np.empty(size, dtype=np.intp)
    slot = start
    for position in range(size):
        order[position] = slot
        slot = links[slot]
    return order
