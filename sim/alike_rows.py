"""A function of many rows taken once when every row is the same: a generated scene's 10⁵ bodies mostly share their
inertia tensor, whose inverse, principal frame and Euler frame a run would otherwise work out 10⁵ times (~0.1 s).

The functions this serves work on each row on its own (numpy's batched ``inv`` and ``eigh`` call LAPACK a matrix at
a time; elementwise arithmetic): the first row's result, repeated, is bit for bit what the whole batch gives. Rows
count as the same when their bytes are (0.0 and -0.0 apart, a NaN never the same as a number).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import numpy as np

__all__ = ["all_alike", "once_if_alike"]

Result = TypeVar("Result", np.ndarray, tuple[np.ndarray, ...])


def all_alike(array: np.ndarray) -> bool:
    """Whether the rows of ``array`` (K, ...) are two or more, all with the bytes of the first."""
    if len(array) < 2:
        return False
    bits = np.ascontiguousarray(array).reshape(len(array), -1).view(np.uint8)
    return bool((bits == bits[:1]).all())


def once_if_alike(function: Callable[[np.ndarray], Result], array: np.ndarray) -> Result:
    """``function(array)`` for a ``function`` of (K, ...) rows that takes each row on its own and returns arrays
    (or a tuple of them) of K rows: taken on the first row alone and repeated when every row is alike
    (:func:`all_alike`). The arrays returned are new and writable either way."""
    array = np.asarray(array)
    if not all_alike(array):
        return function(array)
    first = function(array[:1])
    if isinstance(first, tuple):
        return tuple(np.repeat(part, len(array), axis=0) for part in first)
    return np.repeat(first, len(array), axis=0)
