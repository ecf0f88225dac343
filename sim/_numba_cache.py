"""Where numba caches the compiled kernels (``@njit(cache=True)``), chosen before numba is imported.

numba writes its cache beside the sources (``__pycache__``), else in the user's cache folder, and raises
``RuntimeError: cannot cache function`` at the first call when it can write neither (a read-only install run by a
user whose home is read-only too). Then the cache goes to a new temporary folder instead, removed at exit: the
kernels compile on each start (about 10 s), but everything works. A ``NUMBA_CACHE_DIR`` the person set is left
alone.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from pathlib import Path

__all__ = ["ensure_numba_cache", "is_cached"]

# numba caches a kernel in the __pycache__ beside its module when it can: sim/'s stands for them all.
KERNEL_CACHE_DIR = Path(__file__).resolve().parent / "__pycache__"


def _can_write_in(folder: Path) -> bool:
    """Whether a file can be created in ``folder`` (made if missing); ``os.access`` is not enough for root.

    Every process asks (sim/__init__.py), so first by an unnamed file where the system has them (Linux's
    ``O_TMPFILE``), which needs neither :mod:`tempfile` nor the :mod:`shutil`, :mod:`random` and compression modules
    it imports (~5 ms of a short ``run``); where that is refused, by :func:`tempfile.TemporaryFile`."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    unnamed = getattr(os, "O_TMPFILE", None)
    if unnamed is not None:
        try:
            os.close(os.open(folder, unnamed | os.O_WRONLY, 0o600))
            return True
        except OSError:
            pass  # a file system without unnamed files, or a folder not writable: tempfile tells which
    import tempfile

    try:
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
    import atexit
    import shutil
    import tempfile

    folder = tempfile.mkdtemp(prefix="spinlab-numba-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    os.environ["NUMBA_CACHE_DIR"] = folder
    if "numba" in sys.modules:  # imported already: its configuration is read again
        from numba.core import config

        config.reload_config()


def _cache_folders(source: Path) -> list[Path]:
    """Where numba keeps the cache of the functions defined in ``source`` (numba/core/caching.py's locators): the
    folder ``NUMBA_CACHE_DIR`` names, else the ``__pycache__`` beside the source or the user's cache folder."""
    import hashlib  # here, not at the top: loading OpenSSL costs every process ~3 ms, and only this look needs it

    folder = source.parent
    subpath = f"{folder.name}_{hashlib.sha1(str(folder).encode()).hexdigest()}"
    configured = os.environ.get("NUMBA_CACHE_DIR")
    if configured:
        return [Path(configured) / subpath]
    return [folder / "__pycache__", _user_cache_dir() / subpath]


def is_cached(source: str | os.PathLike, functions: Iterable[str]) -> bool:
    """Whether numba's cache holds, for each of ``functions`` defined in ``source``, an index written since the
    source last changed. A look at names and times only, without importing numba (which checks the source's stamp
    itself when it loads): enough to tell a cache that is cold, or stale after an edit, from one that is not."""
    source = Path(os.path.abspath(source))
    try:
        changed = source.stat().st_mtime
    except OSError:
        return False
    folders = _cache_folders(source)
    for function in functions:
        indexes = (index for folder in folders for index in folder.glob(f"{source.stem}.{function}-*.nbi"))
        if not any(_modified(index) >= changed for index in indexes):
            return False
    return True


def _modified(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return float("-inf")
