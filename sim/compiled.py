"""Which compiled kernels this process has ready, for a start that never waits for numba (issue 22).

By default every kernel counts as ready: its first call compiles it or loads it from numba's cache, as ``run``,
``record`` and the tests have always done. The window instead calls :func:`start_on_numpy` before its first step:
from then on a kernel counts as ready only once :func:`mark_ready` names it (ui/kernel_loader.py does, after a
worker process has compiled it into the cache and this process has loaded it), and until then the world steps
the integrator's bodies through its numpy reference path (``backend="numpy"``) and its free fall with numpy's
arithmetic (sim/world.py), and the trails are thinned in numpy (render/overlays.py). Nothing here compiles anything.

Names are the integrators' (``INTEGRATORS``) and :data:`FREE_FALL` for the world's centre-of-mass update.

A kernel not ready is stood in for by its numpy path (:func:`stand_in`). For most integrators that path is its
kernel's arithmetic operation for operation, hence the kernel's bits (:data:`KERNEL_BITS_ON_NUMPY`); the implicit
ones solve the same equation by other formulas there, an ulp or two apart a step, but have a ``backend="twin"``
that runs their kernel's own code in numpy (:data:`TWINS`, sim/integrators/kernel_twins.py). ``run`` steps a small
world on these without numba at all (scene/running/runner.py): :func:`gated` with ``stand_in="twin"``. The window steps
on them too until their kernels arrive (:func:`start_on_numpy`); the others on their numpy references, so it still
recomputes a run when the kernels arrive (scene/running/replay.py).

:func:`lazy_module` gives a module that is imported at its first attribute access: the integrators reach their
kernels through one (``_kernels.euler_kernel``), so that importing the integrators does not import numba (~0.4 s
of a start) until a kernel is called.
"""

from __future__ import annotations

import contextlib
import importlib.util
import sys
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from types import ModuleType

from spinlab.sim.integrators.registry import FALLBACK, RECORDS

__all__ = [
    "FREE_FALL",
    "SCENE_GRAPH",
    "KERNEL_BITS_ON_NUMPY",
    "TWINS",
    "stand_in",
    "kernel_bits_without_numba",
    "twinned_kernels_cached",
    "off_kernel_bits",
    "POLYLINE_KEEP",
    "COLOUR_CONVERSION",
    "start_on_numpy",
    "gated",
    "loading",
    "mark_ready",
    "is_ready",
    "not_ready",
    "ready_names",
    "lazy_module",
]

FREE_FALL = "free_fall"
"""The world's free-fall kernel (sim/integrators/_kernels.py's ``free_fall_kernel``)."""
SCENE_GRAPH = "scene_graph"
"""The scene graph's composition (scene/running/graph_kernel.py; its own code run by Python on numpy's scalars
meanwhile, the same bits: sim/integrators/kernel_twins.py's ``without_numba``)."""
POLYLINE_KEEP = "polyline_keep"
"""The trails' and plots' thinning (render/thinning.py; render/thinning_numpy.py meanwhile)."""
COLOUR_CONVERSION = "yuv"
"""The video's colour conversion (render/_yuv_kernels.py; render/yuv.py's numpy loops meanwhile, same bytes)."""

# Each integrator's record says which (sim/integrators/record.py's fallback); checked bit for bit against their
# kernels by tests/sim/test_kernel_twins.py, with and without torque, at steps from 1/240 s to 3 s.
KERNEL_BITS_ON_NUMPY = frozenset({FREE_FALL} | FALLBACK["numpy"])
"""The kernels whose numpy path (``backend="numpy"``) computes their bits."""
TWINS = FALLBACK["twin"]
"""The kernels whose ``backend="twin"`` computes their bits (sim/integrators/kernel_twins.py; the compositions
stage by stage, as their kernel does; Magnus' and RKMK4's kernels as written, in one pass over the bodies)."""

_state = {"gated": False, "stand_in": "numpy"}
_ready: set[str] = set()
_thread = threading.local()  # .loading: this thread loads kernels (ui/kernel_loader.py), so calls them


def start_on_numpy() -> None:
    """From now on a kernel is ready only once :func:`mark_ready` has named it (the window's start); meanwhile the
    :data:`TWINS` step on their twins (their kernels' bits, and a third faster than the numpy references)."""
    _state.update(gated=True, stand_in="twin")


@contextlib.contextmanager
def gated(ready: Iterable[str] = (), *, stand_in: str = "numpy") -> Iterator[None]:
    """Gated, with only ``ready`` ready, for the block; then as before (the tests' way, and ``run``'s on a small
    world). ``stand_in="twin"``: the implicit integrators not ready step on their twins (:func:`stand_in`)."""
    before, ready_before = dict(_state), set(_ready)
    _state.update(gated=True, stand_in=stand_in)
    _ready.clear()
    _ready.update(ready)
    try:
        yield
    finally:
        _state.update(before)
        _ready.clear()
        _ready.update(ready_before)


def stand_in(name: str) -> str:
    """The ``backend`` that steps ``name`` while its kernel is not ready: ``"twin"`` for :data:`TWINS` inside
    ``gated(stand_in="twin")``, else ``"numpy"``."""
    return "twin" if _state["stand_in"] == "twin" and name in TWINS else "numpy"


# The kernel (a function of sim/integrators/_kernels.py) each twin stands in for.
_TWINNED_KERNELS = {name: kernel for name, record in RECORDS.items() if (kernel := record.kernel) and name in TWINS}


def twinned_kernels_cached(names: Iterable[str | None]) -> bool:
    """Whether numba's cache holds the kernels of those of ``names`` that have twins, up to date with their source
    (sim/_numba_cache.py's look at the files: nothing is imported or compiled)."""
    from spinlab.sim._numba_cache import is_cached

    kernels = {_TWINNED_KERNELS[name] for name in names if name in _TWINNED_KERNELS}
    return is_cached(Path(__file__).with_name("integrators") / "_kernels.py", kernels)


def kernel_bits_without_numba(names: Iterable[str | None]) -> bool:
    """Whether every one of ``names`` (``None`` skipped) has a path without numba that computes its kernel's bits."""
    return all(name is None or name in KERNEL_BITS_ON_NUMPY or name in TWINS for name in names)


def mark_ready(names: Iterable[str]) -> None:
    """The kernels ``names`` are loaded in this process: calling them compiles nothing."""
    _ready.update(names)


def is_ready(name: str) -> bool:
    """Whether the compiled kernel of ``name`` may be called without compiling (always, unless gated)."""
    return not _state["gated"] or name in _ready or getattr(_thread, "loading", False)


@contextlib.contextmanager
def loading() -> Iterator[None]:
    """Every kernel counts as ready on this thread for the block: its calls load (or compile) the kernels."""
    _thread.loading = True
    try:
        yield
    finally:
        _thread.loading = False


def not_ready(names: Iterable[str | None]) -> frozenset[str]:
    """Those of ``names`` (``None`` skipped) whose kernels are not ready."""
    return frozenset(name for name in names if name is not None and not is_ready(name))


def off_kernel_bits(names: Iterable[str | None]) -> frozenset[str]:
    """Those of ``names`` that step now, kernel not ready, on a stand-in whose numbers part from their kernel's by
    an ulp or so: not :data:`KERNEL_BITS_ON_NUMPY`, nor a :data:`TWINS` member stepping on its twin. A run that
    stepped any of them is recomputed once their kernels are ready (scene/running/replay.py); one that stepped none
    already has the kernels' bits."""
    return frozenset(
        name
        for name in not_ready(names)
        if name not in KERNEL_BITS_ON_NUMPY and not (name in TWINS and stand_in(name) == "twin")
    )


def ready_names() -> frozenset[str]:
    """The names :func:`mark_ready` has named so far."""
    return frozenset(_ready)


def lazy_module(name: str) -> ModuleType:
    """Module ``name``, executed only at its first attribute access (``importlib.util.LazyLoader``); the one already
    imported, if it is."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ModuleNotFoundError(f"no module named {name!r}", name=name)
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    return module
