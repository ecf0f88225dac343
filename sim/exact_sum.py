"""Correctly rounded sums of many short rows, compiled: bit for bit :func:`math.fsum` of each row.

:func:`sim.exact_batch.separatrix_gaps` sums 32 exact terms a body; ``math.fsum`` over a Python list a row is a
Python call a body, which a scene of 10⁵ bodies should not pay. The algorithm is CPython's own
(Modules/mathmodule.c, ``math_fsum``, after Shewchuk, "Adaptive precision floating-point arithmetic", 1997):
non-overlapping partials kept exactly by two-sums, then added from the largest with the round-half-even correction
across partials. For finite terms whose partial
sums stay finite it returns what ``math.fsum`` returns; a row whose sum overflows comes out non-finite (where
``math.fsum`` raises), and the caller takes another path for it.
"""

from __future__ import annotations

import numpy as np

from spinlab.sim.jit import njit

__all__ = ["fsum_rows"]


@njit(cache=True, error_model="numpy")
def fsum_rows(terms):
    """(K,) the correctly rounded sum of each row of ``terms`` (K, T) float64."""
    count, width = terms.shape
    sums = np.empty(count)
    partials = np.empty(width + 1)
    for k in range(count):
        n = 0
        for j in range(width):
            x = terms[k, j]
            i = 0
            for m in range(n):
                y = partials[m]
                if abs(x) < abs(y):
                    x, y = y, x
                hi = x + y
                lo = y - (hi - x)
                if lo != 0.0:
                    partials[i] = lo
                    i += 1
                x = hi
            n = i
            if x != 0.0:
                partials[n] = x
                n += 1
        hi, lo = 0.0, 0.0
        if n > 0:
            n -= 1
            hi = partials[n]
            while n > 0:
                x = hi
                n -= 1
                y = partials[n]
                hi = x + y
                lo = y - (hi - x)
                if lo != 0.0:
                    break
            # Half-even rounding across partials: hi was rounded from hi + lo, and what is below lo is in p[n-1].
            if n > 0 and ((lo < 0.0 and partials[n - 1] < 0.0) or (lo > 0.0 and partials[n - 1] > 0.0)):
                y = lo * 2.0
                x = hi + y
                if y == x - hi:
                    hi = x
        sums[k] = hi
    return sums
