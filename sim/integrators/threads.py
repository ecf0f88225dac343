"""Both cores: a large batch is stepped in parts, one part per thread, by the same compiled kernel.

The kernels of :mod:`sim.integrators._kernels` release the GIL and step each body on its own (no body reads
another's result), so running them on consecutive parts of a batch, one part per thread, writes bit for bit what
one call over the whole batch writes, whatever the number of threads (a test holds it). The number of threads is
numba's (``NUMBA_NUM_THREADS``, ``numba.set_num_threads``; both cores by default). Handing a part to another
thread costs some tens of µs, so a batch smaller than the kernel's :data:`MIN_BODIES` (measured on a 2-core
machine: where the split starts to gain) is stepped in one call on the calling thread. Nothing more is compiled.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

__all__ = ["MIN_BODIES", "run", "thread_count"]

MIN_BODIES = {
    "euler_kernel": 2000,
    "euler_body_kernel": 2000,
    "magnus_kernel": 2000,
    "rkmk4_kernel": 500,
    "implicit_kernel": 500,
    "composed_kernel": 200,
    "split_kernel": 200,
    "axes_kernel": 500,
}
"""The fewest bodies a kernel is run in parts for: about 60 µs of work (handing a part to a thread and taking it
back costs some 17 µs here), from each kernel's body-steps/s on one thread. At least :data:`_SMALLEST`."""

_SMALLEST = 100
"""Arrays of fewer rows than this (a composition's coefficients) are never taken for per-body arrays."""

_pool: ThreadPoolExecutor | None = None


def thread_count() -> int:
    """numba's number of threads: the parts a large batch is cut into."""
    import numba

    return numba.get_num_threads()


def _parts(n_bodies: int, threads: int) -> list[slice]:
    bounds = [n_bodies * k // threads for k in range(threads + 1)]
    return [slice(bounds[k], bounds[k + 1]) for k in range(threads)]


def run(kernel: Any, n_bodies: int, *args: Any) -> None:
    """``kernel(*args)``, in parts of the batch of ``n_bodies`` when it is large enough (module docstring): each
    part gets the rows of every array argument with ``n_bodies`` rows (inputs and outputs alike), the other
    arguments whole."""
    threads = 1 if n_bodies < _SMALLEST or n_bodies < MIN_BODIES[kernel.__name__] else thread_count()
    if threads < 2:
        kernel(*args)
        return
    global _pool
    from concurrent.futures import ThreadPoolExecutor

    if _pool is None or _pool._max_workers < threads - 1:
        _pool = ThreadPoolExecutor(threads - 1, thread_name_prefix="spinlab-kernel")
    per_body = [isinstance(arg, np.ndarray) and arg.ndim > 0 and arg.shape[0] == n_bodies for arg in args]
    calls = [[arg[part] if rows else arg for arg, rows in zip(args, per_body, strict=True)]
             for part in _parts(n_bodies, threads)]  # fmt: skip
    futures = [_pool.submit(kernel, *call) for call in calls[1:]]
    kernel(*calls[0])
    for future in futures:
        future.result()
