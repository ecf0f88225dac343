"""spinlab's numerics. Importing any of it first makes sure numba has somewhere to cache compiled kernels, and that
the kernels do their math with the C library's functions, as on every machine: numba would call Intel's SVML vector
math where it is installed (some conda environments), whose last bits differ, and the pinned trace digests with them.
A ``NUMBA_DISABLE_INTEL_SVML`` the person set is left alone.
"""

import os

from spinlab.sim._numba_cache import ensure_numba_cache

os.environ.setdefault("NUMBA_DISABLE_INTEL_SVML", "1")
ensure_numba_cache()
