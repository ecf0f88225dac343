"""One source for each kernel module, two ways to run it: compiled by numba, or as plain Python.

The kernel modules (sim/integrators/_kernels.py, scene/running/graph_kernel.py) decorate their functions with
:func:`njit`, numba's. :func:`plain` loads such a module again, from the same source and bytecode cache, as a module
of its own in which :func:`njit` leaves every function as written: a kernel called there runs its loops in Python,
with no numba imported. When that gives the compiled bits, and when it pays: sim/compiled.py.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

__all__ = ["njit", "plain", "ready_numba"]

Function = TypeVar("Function", bound=Callable[..., Any])

_PLAIN = "__spinlab_plain__"  # set in a plain copy's namespace before its code runs


def njit(**options: Any) -> Callable[[Function], Function]:
    """numba's ``njit(**options)``, but in a :func:`plain` copy of a module, where the function is left as written.
    Importing a module that uses it compiled imports numba. With ``cache=True`` the cache is numba's with its
    files checked when read (sim/_numba_cache.py's ``checked_cache``): a damaged one is compiled again."""

    def decorate(function: Function) -> Function:
        if function.__globals__.get(_PLAIN, False):
            return function
        ready_numba()
        from numba import njit as numba_njit

        dispatcher = numba_njit(**{**options, "cache": False})(function)
        if options.get("cache"):
            from spinlab.sim._numba_cache import checked_cache

            dispatcher._cache = checked_cache(dispatcher.py_func)  # what numba's enable_caching sets
        return dispatcher

    return decorate


@cache
def ready_numba() -> None:
    """Import numba and ready its compiler (the typing and lowering registries its first compile or cache load
    reads), with ``scipy.linalg`` kept out of it: numba imports that (~0.2 CPU s, a third of readying numba) only to
    find BLAS for ``np.dot`` and ``np.linalg`` in compiled code, which no kernel here calls. So numba is told there is
    none; a later ``import scipy.linalg`` in the process is not affected. Under numba's compiler lock, as numba
    refreshes it itself: a thread compiling or loading a kernel meanwhile (the window's loader, a plot's first
    thinning) walks the same registries."""
    hidden = "scipy.linalg" not in sys.modules
    if hidden:
        sys.modules["scipy.linalg"] = None  # type: ignore[assignment]  # an import of it raises ImportError
    try:
        from numba.core.compiler_lock import global_compiler_lock
        from numba.core.registry import cpu_target

        with global_compiler_lock:
            cpu_target.target_context.refresh()
    finally:
        if hidden and sys.modules.get("scipy.linalg", "") is None:
            del sys.modules["scipy.linalg"]


@cache
def plain(path: str | Path, *, numpy_math: bool = False, variant: str = "") -> ModuleType:
    """The kernels' module at ``path`` loaded again as plain Python (its own module object, not in ``sys.modules``;
    the source's bytecode cache serves both): its ``@njit`` functions are left as written, so a kernel called runs
    its loops in Python. Never imports numba.

    ``numpy_math``: with numpy's ``sqrt``, ``sin``, ``cos`` and ``isfinite`` in place of the ``math`` functions its
    source imports. Called on numpy's float64 scalars, the kernels then follow numba's error model (a division by
    zero, or ``sin`` of an infinity, gives an inf or a nan), where Python's floats raise.

    ``variant``: a copy of its own under that name, which its caller may change (replace a function in) without
    touching the others (sim/integrators/kernel_lockstep.py's)."""
    path = Path(path)
    name = f"spinlab.plain.{path.stem}{'.numpy_math' if numpy_math else ''}{f'.{variant}' if variant else ''}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None, f"{path} is a Python source file"
    module = importlib.util.module_from_spec(spec)
    setattr(module, _PLAIN, True)
    spec.loader.exec_module(module)
    if numpy_math:
        import numpy as np

        vars(module).update(sqrt=np.sqrt, sin=np.sin, cos=np.cos, isfinite=np.isfinite)
    return module
