"""The rotational integrators, one per module, and their registry.

Every ``step(state, params, h, **options) -> (BodyState, StepCost)`` advances a batch of N bodies by ``h``
seconds (:mod:`sim.integrators.state`); options are keyword-only. ``INTEGRATORS`` maps the names the command
line, the panel and the tests use to those functions.

Most integrators hold ``params.torque_world`` constant over a step. Those in ``ORIENTATION_TORQUE`` also take the
keyword ``orientation_torque``, a torque ``τ(q)`` that depends on the orientation (:mod:`sim.integrators.torque`),
and evaluate it where each of their stages needs it: that keeps their order under gravity about a pivot.
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
    split2,
    split4,
    split6,
    trapezoidal,
)

__all__ = ["INTEGRATORS", "ORIENTATION_TORQUE"]

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
    "split2": split2.step,
    "split4": split4.step,
    "split6": split6.step,
}

ORIENTATION_TORQUE = frozenset({"split2", "split4", "split6"})
"""The integrators that take ``orientation_torque=τ(q)`` and evaluate it at their own stages."""
