"""Where numba caches the compiled kernels (``@njit(cache=True)``), chosen before numba is imported.

numba writes its cache beside the sources (``__pycache__``), else in the user's cache folder, and raises
``RuntimeError: cannot cache function`` at the first call when it can write neither (a read-only install run by a
user whose home is read-only too). Then the cache goes to a new temporary folder instead, removed at exit: the
kernels compile on each start (about 10 s), but everything works. A ``NUMBA_CACHE_DIR`` the person set is left
alone. The folder is named ``spinlab-numba-<pid>-<random>``: one a killed process left (SIGKILL: no exit to remove
it at) is removed by the next process that makes one, once that pid is gone (sim/processes.py).

What numba reads back is checked (:func:`checked_cache`, the cache of every spinlab kernel, sim/jit.py): a cache
file cut short, emptied or garbled (a full disk, a killed writer, a bad sector) reads as no entry, and the kernel
is compiled and saved again, where numba's own loader raised ``EOFError`` or ``UnpicklingError`` at every call
until the file was deleted by hand, or handed a garbled object code to LLVM.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import Any

__all__ = ["ensure_numba_cache", "is_cached", "remove_stale_folders", "checked_cache"]

TEMPORARY_PREFIX = "spinlab-numba-"
_TEMPORARY_NAME = re.compile(r"spinlab-numba-([0-9]+)-[^/]+")

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
    # removed at exit; those of killed processes first.
    import atexit
    import shutil
    import tempfile

    remove_stale_folders(tempfile.gettempdir())
    folder = tempfile.mkdtemp(prefix=f"{TEMPORARY_PREFIX}{os.getpid()}-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    os.environ["NUMBA_CACHE_DIR"] = folder
    if "numba" in sys.modules:  # imported already: its configuration is read again
        from numba.core import config

        config.reload_config()


def remove_stale_folders(directory: str | os.PathLike[str]) -> list[Path]:
    """Remove the temporary cache folders in ``directory`` whose process is gone, and return them; a live
    process's folder is kept, as is anything not named as :func:`ensure_numba_cache` names them (a symbolic link
    among them). Never raises."""
    import contextlib
    import shutil

    from spinlab.sim.processes import process_alive

    removed = []
    with contextlib.suppress(OSError), os.scandir(directory) as entries:
        for entry in entries:
            match = _TEMPORARY_NAME.fullmatch(entry.name) if entry.name.startswith(TEMPORARY_PREFIX) else None
            if match is None or not entry.is_dir(follow_symlinks=False) or process_alive(int(match[1])):
                continue
            shutil.rmtree(entry.path, ignore_errors=True)
            if not os.path.lexists(entry.path):
                removed.append(Path(entry.path))
    return removed


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


# What unpickling a damaged index raises: pickle's own errors for data cut short or garbled (EOFError,
# UnpicklingError, and, for bytes that happen to parse, AttributeError, ImportError, IndexError, as the pickle
# module documents), and ValueError or TypeError when what parsed is not the (stamp, overloads) pair numba wrote.
_DAMAGED_INDEX = (EOFError, AttributeError, ImportError, IndexError, ValueError, TypeError)
_DIGEST_BYTES = 16


def _digest(payload: bytes) -> bytes:
    import hashlib  # here: only a process that loads numba's cache needs it (see _cache_folders)

    return hashlib.blake2b(payload, digest_size=_DIGEST_BYTES).digest()


def checked_cache(py_func: Callable[..., Any]) -> Any:
    """numba's cache of ``py_func`` (a ``FunctionCache``, as ``@njit(cache=True)`` makes) whose damaged files read
    as absent (module docstring): an index that does not unpickle, or a data file whose digest does not match its
    bytes. Each data file is written led by a digest of its bytes (16 bytes of BLAKE2b), which numba's format
    lacks: a file written by numba alone fails the check once, and is compiled and written again."""
    return _checked_cache_class()(py_func)


@cache
def _checked_cache_class() -> type:
    import pickle

    from numba.core.caching import FunctionCache, IndexDataCacheFile

    class CheckedFile(IndexDataCacheFile):
        def _load_index(self) -> dict:
            try:
                overloads = super()._load_index()
            except (pickle.UnpicklingError, *_DAMAGED_INDEX):
                return {}  # and a save writes a whole new index
            return overloads if isinstance(overloads, dict) else {}

        def _save_data(self, name: str, data: Any) -> None:
            payload = self._dump(data)
            with self._open_for_write(self._data_path(name)) as file:
                file.write(_digest(payload) + payload)

        def _load_data(self, name: str) -> Any:
            with open(self._data_path(name), "rb") as file:
                stored = file.read()
            payload = stored[_DIGEST_BYTES:]
            if stored[:_DIGEST_BYTES] != _digest(payload):
                return None  # compiled, and saved over it
            return pickle.loads(payload)

    class CheckedCache(FunctionCache):
        def __init__(self, py_func: Callable[..., Any]) -> None:
            super().__init__(py_func)
            self._cache_file = CheckedFile(
                cache_path=self._cache_path,
                filename_base=self._impl.filename_base,
                source_stamp=self._impl.locator.get_source_stamp(),
            )

    return CheckedCache
