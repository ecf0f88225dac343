"""Where numba caches the compiled kernels (``@njit(cache=True)``), chosen before numba is imported.

numba writes its cache beside the sources (``__pycache__``), else in the user's cache folder, and raises
``RuntimeError: cannot cache function`` at the first call when it can write neither (a read-only install run by a
user whose home is read-only too). Then the cache goes to a new temporary folder instead, removed at exit: the
kernels compile on each start (about 10 s), but everything works. A ``NUMBA_CACHE_DIR`` the person set is left
alone.
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

__all__ = ["ensure_numba_cache"]

# numba caches a kernel in the __pycache__ beside its module when it can: sim/'s stands for them all.
KERNEL_CACHE_DIR = Path(__file__).resolve().parent / "__pycache__"


def _can_write_in(folder: Path) -> bool:
    """Whether a file can be created in ``folder`` (made if missing); ``os.access`` is not enough for root."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            return True
    except OSError:
        return False


def _user_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "numba"


def ensure_numba_cache() -> None:
    """Point ``NUMBA_CACHE_DIR`` at a temporary folder when numba could cache nowhere else."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    if _can_write_in(KERNEL_CACHE_DIR) or _can_write_in(_user_cache_dir()):
        return
    # A folder of this process's own (a shared, predictable one could be planted with code by another user),
    # removed at exit.
    folder = tempfile.mkdtemp(prefix="spinlab-numba-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    os.environ["NUMBA_CACHE_DIR"] = folder
    if "numba" in sys.modules:  # imported already: its configuration is read again
        from numba.core import config

        config.reload_config()
