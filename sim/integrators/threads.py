"""Both cores: whether a batch is stepped by a kernel's serial or its parallel compilation.

Every kernel of :mod:`sim.integrators._kernels` has a twin ``<name>_parallel`` that shares the bodies among
numba's threads (``prange``). Each body's arithmetic is the same function in both, and no body reads another's
result, so the parallel kernel's output is bit for bit the serial one's whatever the number of threads (a test
holds it). Starting the threads costs a few µs a call, so a batch smaller than the kernel's :data:`MIN_BODIES`
(where the two cores first gain, measured on a 2-core machine: benchmarks/integrators.py) runs serially, and
so does every batch when numba has one thread (``NUMBA_NUM_THREADS=1`` or ``numba.set_num_threads(1)``). The
parallel kernels compile (about a second more) only when a large batch first needs them.
"""

from __future__ import annotations

from typing import Any

__all__ = ["MIN_BODIES", "kernel_for"]

MIN_BODIES = {
    "euler_kernel": 1000,
    "euler_body_kernel": 1000,
    "magnus_kernel": 1000,
    "rkmk4_kernel": 300,
    "implicit_kernel": 200,
    "composed_kernel": 100,
    "split_kernel": 100,
}
"""The fewest bodies for which a kernel runs in parallel."""


def kernel_for(kernel: Any, n_bodies: int) -> Any:
    """``kernel`` (a serial kernel of :mod:`sim.integrators._kernels`), or its parallel twin for a batch of
    ``n_bodies`` when that gains (module docstring)."""
    if n_bodies < MIN_BODIES[kernel.__name__]:
        return kernel
    import numba

    if numba.get_num_threads() < 2:
        return kernel
    from sim.integrators import _kernels

    return getattr(_kernels, kernel.__name__ + "_parallel")
