"""spinlab's numerics. Importing any of it first makes sure numba has somewhere to cache compiled kernels."""

from spinlab.sim._numba_cache import ensure_numba_cache

ensure_numba_cache()
