"""The rotational integrators, one per module, and their registry.

Every ``step(state, params, h, **options) -> (BodyState, StepCost)`` advances a batch of N bodies by ``h``
seconds (:mod:`sim.integrators.state`); options are keyword-only. ``INTEGRATORS`` maps the names the command
line, the panel and the tests use to those functions.
"""

from sim.integrators import (
    euler,
    euler_body,
    exact,
    im4,
    im6,
    implicit_midpoint,
    magnus,
    object_trapezoidal,
    ot4,
    rkmk4,
    trapezoidal,
)

__all__ = ["INTEGRATORS"]

INTEGRATORS = {
    "euler": euler.step,
    "euler_body": euler_body.step,
    "magnus": magnus.step,
    "implicit_midpoint": implicit_midpoint.step,
    "trapezoidal": trapezoidal.step,
    "object_trapezoidal": object_trapezoidal.step,
    "im4": im4.step,
    "im6": im6.step,
    "ot4": ot4.step,
    "rkmk4": rkmk4.step,
    "exact": exact.step,
}
