"""The rotational integrators, one per module, and their registry.

Every ``step(state, params, h, **options) -> (BodyState, StepCost)`` advances a batch of N bodies by ``h``
seconds (:mod:`sim.integrators.state`); options are keyword-only. ``INTEGRATORS`` maps the names the command
line, the panel and the tests use to those functions.
"""

from sim.integrators import euler, euler_body, implicit_midpoint, magnus, object_trapezoidal, trapezoidal

__all__ = ["INTEGRATORS"]

INTEGRATORS = {
    "euler": euler.step,
    "euler_body": euler_body.step,
    "magnus": magnus.step,
    "implicit_midpoint": implicit_midpoint.step,
    "trapezoidal": trapezoidal.step,
    "object_trapezoidal": object_trapezoidal.step,
}
