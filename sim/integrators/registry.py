"""The integrators, found in their own modules, and every table spinlab reads about them.

Discovery: every public module on the package's search path (``spinlab.sim.integrators.__path__``) and its
subpackages' is imported, and each ``INTEGRATOR`` (one :class:`~sim.integrators.record.Integrator`) or ``VARIANTS``
(a tuple of them) it declares is taken. Modules whose names start with ``_`` are not imported: ``_kernels`` imports
numba, which waits for the first compiled step. So a method is added by adding one module, and nothing else names it
(a colour it does not declare is picked for it, scene/model/palette.py): tests/sim/test_one_file_integrator.py writes
one into a copy of the checkout and finds it in ``run``, ``--integrator all``, the panel's list and the palette.

Every ``step(state, params, h, **options) -> (BodyState, StepCost)`` advances a batch of N bodies by ``h``
seconds (:mod:`sim.integrators.state`); options are keyword-only. Most integrators hold ``params.torque_world``
constant over a step; those in :data:`ORIENTATION_TORQUE` also take ``orientation_torque=τ(q)``
(:mod:`sim.integrators.torque`) and evaluate it where each of their stages needs it, keeping their order under
gravity about a pivot.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

from spinlab.sim.integrators.claims import Claims
from spinlab.sim.integrators.record import FALLBACKS, FAMILY_NAMES, Integrator

__all__ = [
    "RECORDS",
    "INTEGRATORS",
    "CLAIMS",
    "FAMILIES",
    "METHODS",
    "AXES",
    "ENGINE_STEPS",
    "ORIENTATION_TORQUE",
    "PIVOT_AWARE",
    "FALLBACK",
    "COMPILE_ORDER",
    "discover",
]


def _modules(package: str, folders: list[str]) -> Iterator[ModuleType]:
    """The public modules of ``package`` found in ``folders``, and of its subpackages, in name order."""
    for folder in folders:
        for entry in sorted(os.scandir(folder), key=lambda entry: entry.name):
            stem, suffix = os.path.splitext(entry.name)
            if entry.name.startswith("_") or not stem.isidentifier():
                continue
            if suffix == ".py" and entry.is_file():
                yield importlib.import_module(f"{package}.{stem}")
            elif not suffix and os.path.isfile(os.path.join(entry.path, "__init__.py")):
                yield from _modules(f"{package}.{stem}", [entry.path])


def discover(package: str, folders: list[str]) -> dict[str, Integrator]:
    """The records the modules of ``package`` (in ``folders``) declare, by name, in the order of the lists:
    family by family (:data:`~sim.integrators.record.FAMILY_NAMES`), then by place and name. Raises ``ValueError``
    for a name declared twice."""
    found: dict[str, Integrator] = {}
    for module in _modules(package, folders):
        declared = getattr(module, "VARIANTS", ())
        for record in ((module.INTEGRATOR,) if hasattr(module, "INTEGRATOR") else ()) + tuple(declared):
            if record.name in found and found[record.name] is not record:
                raise ValueError(f"integrator {record.name!r} is declared twice (in {module.__name__} too)")
            found[record.name] = record

    def listed(record: Integrator) -> tuple[int, bool, int, str]:
        return FAMILY_NAMES.index(record.family), record.place is None, record.place or 0, record.name

    return {record.name: record for record in sorted(found.values(), key=listed)}


# The package is in sys.modules (partly initialised) while this module runs: its search path is read from there,
# not imported, so that the package's __init__ may re-export this module without an import cycle.
RECORDS = discover(__package__ or "", list(sys.modules[__package__ or ""].__path__))
"""Every integrator's record, by name, in the order of the lists."""

INTEGRATORS: dict[str, Callable[..., Any]] = {name: record.step for name, record in RECORDS.items()}
"""name → ``step``: what the command line, the scene files, the panel and the world run."""

CLAIMS: dict[str, Claims] = {name: record.claims for name, record in RECORDS.items()}
"""Each integrator's claims, as its own module declares them."""

FAMILIES: dict[str, tuple[str, ...]] = {
    family: tuple(name for name, record in RECORDS.items() if record.family == family) for family in FAMILY_NAMES
}
"""The integrators a family name stands for on the command line: ``--integrator all`` (the maths' methods),
``axes`` (the splittings into rotations about the principal axes), ``engines`` (the engines' steps in double
precision) or ``engines_f32`` (their float32 twins)."""

METHODS = FAMILIES["all"]
"""The maths' methods: what ``--integrator all`` and "all side by side" run. The splittings into rotations about
the principal axes are a family of their own: every method side by side has a colour told apart from the others'
(scene/model/palette.py), and more views would shrink each one."""

AXES = FAMILIES["axes"]
"""The explicit splittings into rotations about the principal axes (sim/integrators/axes_splitting.py)."""

ENGINE_STEPS = frozenset(FAMILIES["engines"]) | frozenset(FAMILIES["engines_f32"])
"""The names that are an engine's rotation step (docs/engines.md), not a method of the maths reference."""

ORIENTATION_TORQUE = frozenset(name for name, claims in CLAIMS.items() if claims.orientation_torque)
"""The integrators that take ``orientation_torque=τ(q)`` and evaluate it at their own stages."""

PIVOT_AWARE = frozenset(name for name, claims in CLAIMS.items() if claims.pivot_aware)
"""The integrators that take ``pivoted=`` (N,) bool and step a body about a pivot apart from a free one."""

FALLBACK: dict[str, frozenset[str]] = {
    kind: frozenset(name for name, record in RECORDS.items() if record.fallback == kind) for kind in FALLBACKS
}
"""fallback kind (:data:`~sim.integrators.record.FALLBACKS`) → the integrators stepped so before their kernels
are loaded (sim/compiled.py)."""

COMPILE_ORDER = tuple(
    name
    for name, _ in sorted(
        ((name, record.compile_rank) for name, record in RECORDS.items() if record.compile_rank is not None),
        key=lambda item: (item[1], item[0]),
    )
)
"""The ranked integrators, in the order the window compiles a scene's own kernels (ui/kernel_loader.py)."""
