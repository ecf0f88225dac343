"""The rotational integrators, one per module, each declaring its own record
(:class:`sim.integrators.record.Integrator`: name, step, claims, family, place, kernel, fallback, colour, compile
rank); :mod:`sim.integrators.registry` finds them and derives the tables re-exported here (``INTEGRATORS``,
``CLAIMS``, ``FAMILIES``, ``METHODS``, …). The engines' rotation steps are the subpackage
:mod:`sim.integrators.engines`.

The modules of this package import one another by their own names (``spinlab.sim.integrators.<module>``), never
through this one, so re-exporting the registry here makes no import cycle.
"""

from spinlab.sim.integrators.claims import Claims
from spinlab.sim.integrators.registry import (
    AXES,
    CLAIMS,
    COMPILE_ORDER,
    ENGINE_STEPS,
    FALLBACK,
    FAMILIES,
    INTEGRATORS,
    METHODS,
    ORIENTATION_TORQUE,
    PIVOT_AWARE,
    RECORDS,
)

__all__ = [
    "INTEGRATORS",
    "CLAIMS",
    "RECORDS",
    "ORIENTATION_TORQUE",
    "PIVOT_AWARE",
    "ENGINE_STEPS",
    "AXES",
    "METHODS",
    "FAMILIES",
    "FALLBACK",
    "COMPILE_ORDER",
    "Claims",
]
