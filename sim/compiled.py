"""How each kernel runs in this process: compiled by numba, or its own source run by Python.

The kernels (sim/integrators/_kernels.py, scene/running/graph_kernel.py) are written once, for numba, and also run
as plain Python (sim/jit.py's ``plain``): called on Python's floats, a kernel performs the IEEE operations the
compiled code performs, in the same order (numba compiles without fast-math; ``sqrt`` and the division are
correctly rounded; ``sin`` and ``cos`` are the C library's in both), hence the compiled bits, without importing
numba, readying its compiler or compiling (seconds, cold). Body by body that pays for a few bodies; the implicit
kernels' run in lockstep over the batch (sim/integrators/kernel_lockstep.py) for a few thousand; compiled kernels
pay for more, their body-step some thirty times cheaper than body by body.

The policy, in one place:

- ``run`` (scene/model/runner.py) steps on the plain kernels when :func:`steps_without_numba` says that is
  cheaper than readying numba (and than compiling, on a cold cache), inside ``gated(stand_in="twin")``; else it
  loads the compiled kernels before its first step.
- The window (commands/gui.py) calls :func:`start_on_numpy`, then :func:`load_numba` before its first frame: from
  then on a kernel is called compiled only once :func:`mark_ready` names it, which ui/kernel_loader.py does between
  frames for each stage a worker process has put in numba's cache. Until then a group of fewer than
  :data:`PLAIN_BODIES` bodies of a :data:`TWINS` integrator steps on its plain kernel (``backend="twin"``), the
  :data:`KERNEL_BITS_ON_NUMPY` on their numpy paths, both the kernel's bits; any other group on its numpy reference,
  and the run is then recomputed once its kernels are ready (:func:`off_kernel_bits`, scene/model/replay.py).

Names are the integrators' (``INTEGRATORS``), :data:`FREE_FALL`, :data:`SCENE_GRAPH`, :data:`POLYLINE_KEEP` and
:data:`COLOUR_CONVERSION`.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from spinlab.sim.integrators.registry import FALLBACK, RECORDS

__all__ = [
    "FREE_FALL",
    "SCENE_GRAPH",
    "POLYLINE_KEEP",
    "COLOUR_CONVERSION",
    "KERNEL_BITS_ON_NUMPY",
    "TWINS",
    "PLAIN_BODIES",
    "load_numba",
    "steps_without_numba",
    "kernel_bits_without_numba",
    "start_on_numpy",
    "gated",
    "stand_in",
    "step_path",
    "COMPILED_KERNEL",
    "loading",
    "mark_ready",
    "is_ready",
    "not_ready",
    "off_kernel_bits",
]

FREE_FALL = "free_fall"
"""The world's free-fall kernel (sim/integrators/_kernels.py's ``free_fall_kernel``)."""
SCENE_GRAPH = "scene_graph"
"""The scene graph's composition (scene/running/graph_kernel.py; run plain meanwhile, the same bits)."""
POLYLINE_KEEP = "polyline_keep"
"""The trails' and plots' thinning (render/thinning.py; render/thinning_numpy.py meanwhile)."""
COLOUR_CONVERSION = "yuv"
"""The video's colour conversion (render/_yuv_kernels.py; render/yuv.py's numpy loops meanwhile, same bytes)."""

# Each integrator's record says which (sim/integrators/record.py's fallback); checked bit for bit against their
# kernels by tests/sim/test_kernel_twins.py, with and without torque, at steps from 1/240 s to 3 s.
KERNEL_BITS_ON_NUMPY = frozenset({FREE_FALL} | FALLBACK["numpy"])
"""The kernels whose numpy path (``backend="numpy"``) computes their bits, at any number of bodies."""
TWINS = FALLBACK["twin"]
"""The integrators whose ``backend="twin"`` runs their kernel plain (sim/integrators/kernel_twins.py; the
compositions stage by stage, as their kernel does): the kernel's bits."""
# Each twin's kernel (a function of sim/integrators/_kernels.py), as its record names it.
_TWINNED_KERNELS = {name: kernel for name, record in RECORDS.items() if (kernel := record.kernel) and name in TWINS}

PLAIN_BODIES = 16
"""In the window, a group of fewer bodies than this steps on its plain kernel while its compiled one is not loaded,
a larger one on its numpy reference: the plain kernel's cost grows with the bodies (an implicit midpoint body-step
~35 µs), the reference's hardly (~1 ms a step up to a few dozen bodies); they meet at 16-32 bodies."""

# ``run``'s costs, s: numba costs a process ~0.5 s before its first compiled step when the kernels are cached
# (importing it, readying its compiler, loading them), and seconds a kernel when they must be compiled. A body-step
# of the implicit midpoint rule on its plain kernel with the simulation's own work; a group's step on a numpy path
# (the KERNEL_BITS_ON_NUMPY); a node of the scene graph composed plain. Other integrators in proportion to their
# Claims.relative_cost.
_WITHOUT_NUMBA_BUDGET_S = 0.5
_COLD_CACHE_BUDGET_S = 3.0  # compiling the implicit midpoint rule's kernel alone takes ~5 CPU-s
_PLAIN_BODY_STEP_S = 4.5e-5
# The implicit twins' step in lockstep from LOCKSTEP_BODIES bodies on (sim/integrators/kernel_lockstep.py): a
# step's cost, and a body's in it.
_LOCKSTEP_STEP_S = 0.7e-3
_LOCKSTEP_BODY_STEP_S = 1.5e-6
_LOCKSTEP_KERNELS = frozenset({"implicit_kernel", "composed_kernel"})  # stepped stage by stage through the former
_NUMPY_GROUP_STEP_S = 0.6e-3
_NUMPY_BODY_STEP_S = 1.0e-6
_GRAPH_NODE_S = 3e-5

_state: dict[str, Any] = {"gated": False, "plain_below": 0}
_ready: set[str] = set()
_thread = threading.local()  # .loading: this thread loads kernels (ui/kernel_loader.py), so calls them


def load_numba() -> None:
    """Import numba and ready its compiler in this process now (~0.5 s, most of it the typing and lowering
    registries it loads at its first compile or cache load), so that a kernel loaded from the cache later costs
    milliseconds: the window pays it before its first frame, not between two."""
    from spinlab.sim.jit import ready_numba

    ready_numba()


def kernel_bits_without_numba(names: Iterable[str | None]) -> bool:
    """Whether every one of ``names`` (``None`` skipped) has a path without numba that computes its kernel's bits."""
    return all(name is None or name in KERNEL_BITS_ON_NUMPY or name in TWINS for name in names)


def steps_without_numba(
    integrators: Iterable[str | None], steps: int, *, gyroscopic: bool = True, graph_nodes: int = 0
) -> bool:
    """Whether ``run`` should take ``steps`` steps of bodies with ``integrators`` (one a body, ``None`` for a
    kinematic one) and ``graph_nodes`` nodes composed onto a parent without numba: every integrator has a path that
    computes its kernel's bits there (:func:`kernel_bits_without_numba`; with the gyroscopic term, as those paths
    are checked), and the steps on them cost less than readying numba, or than compiling on a cold cache."""
    from spinlab.sim.integrators import CLAIMS

    bodies = Counter(name for name in integrators if name is not None)
    if not gyroscopic or not kernel_bits_without_numba(bodies):
        return False
    unit = CLAIMS["implicit_midpoint"].relative_cost or 1.0
    step_s = graph_nodes * _GRAPH_NODE_S
    for name, count in bodies.items():
        step_s += (CLAIMS[name].relative_cost or unit) / unit * _group_step_s(name, count)
    if steps * step_s <= _WITHOUT_NUMBA_BUDGET_S:
        return True
    return steps * step_s <= _COLD_CACHE_BUDGET_S and not _twins_cached(bodies)


def _group_step_s(name: str, count: int) -> float:
    """``run``'s estimate of a step of ``count`` bodies of ``name`` without numba, s, as the implicit midpoint
    rule's (:func:`steps_without_numba` scales it by the integrator's relative cost)."""
    from spinlab.sim.integrators.kernel_lockstep import LOCKSTEP_BODIES

    if name in KERNEL_BITS_ON_NUMPY:
        return _NUMPY_GROUP_STEP_S + count * _NUMPY_BODY_STEP_S
    if count >= LOCKSTEP_BODIES and _TWINNED_KERNELS.get(name) in _LOCKSTEP_KERNELS:
        return _LOCKSTEP_STEP_S + count * _LOCKSTEP_BODY_STEP_S
    return count * _PLAIN_BODY_STEP_S


def _twins_cached(names: Iterable[str]) -> bool:
    """Whether numba's cache holds the kernels of those of ``names`` that have twins, up to date with their source
    (a look at the files: nothing is imported or compiled)."""
    from spinlab.sim._numba_cache import is_cached

    kernels = {_TWINNED_KERNELS[name] for name in names if name in _TWINNED_KERNELS}
    return is_cached(Path(__file__).with_name("integrators") / "_kernels.py", kernels)


def start_on_numpy() -> None:
    """From now on a kernel is ready only once :func:`mark_ready` has named it (the window's start); meanwhile a
    group of fewer than :data:`PLAIN_BODIES` bodies of the :data:`TWINS` steps on its plain kernel."""
    _state.update(gated=True, plain_below=PLAIN_BODIES)


@contextlib.contextmanager
def gated(ready: Iterable[str] = (), *, stand_in: str = "numpy") -> Iterator[None]:
    """Gated, with only ``ready`` ready, for the block; then as before (the tests' way, and ``run``'s without
    numba). ``stand_in="twin"``: the :data:`TWINS` not ready step on their plain kernels, whatever their number."""
    before, ready_before = dict(_state), set(_ready)
    _state.update(gated=True, plain_below=sys.maxsize if stand_in == "twin" else 0)
    _ready.clear()
    _ready.update(ready)
    try:
        yield
    finally:
        _state.update(before)
        _ready.clear()
        _ready.update(ready_before)


def stand_in(name: str, bodies: int = 1) -> str:
    """The ``backend`` that steps a group of ``bodies`` bodies of ``name`` while its kernel is not ready: ``"twin"``
    for the :data:`TWINS` where the gate lets that many step plain, else ``"numpy"``."""
    return "twin" if name in TWINS and bodies < _state["plain_below"] else "numpy"


COMPILED_KERNEL = "compiled kernel"


def step_path(name: str, bodies: int = 1) -> str:
    """What steps a group of ``bodies`` bodies of ``name`` now, in a few words (the window's cost column says it
    beside each figure): :data:`COMPILED_KERNEL`; ``"numpy"`` for an integrator with no kernel (the closed form, the
    engines: a call's fixed cost, ~0.1 ms, then spread over its bodies); while its kernel is not ready, its stand-in
    (:func:`stand_in`), ``"plain kernel, compiling"`` or ``"numpy, compiling"``, dearer by tens of times."""
    if RECORDS[name].kernel is None:
        return "numpy"
    if is_ready(name):
        return COMPILED_KERNEL
    return "plain kernel, compiling" if stand_in(name, bodies) == "twin" else "numpy, compiling"


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
    """Those of ``names`` (one a body) that step now, kernel not ready, on a stand-in whose numbers part from their
    kernel's by an ulp or so: a numpy reference (:func:`stand_in`) not among :data:`KERNEL_BITS_ON_NUMPY`. A run
    that stepped any of them is recomputed once their kernels are ready (scene/model/replay.py); one that stepped
    none already has the kernels' bits."""
    bodies = Counter(name for name in names if name is not None)
    return frozenset(
        name
        for name in not_ready(bodies)
        if name not in KERNEL_BITS_ON_NUMPY and stand_in(name, bodies[name]) == "numpy"
    )
