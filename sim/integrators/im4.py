"""``im4``: the implicit midpoint rule composed by Yoshida's triple jump — fourth order, symmetric, L exact.

Three implicit midpoint steps (:mod:`sim.integrators.implicit_midpoint`) of ``γ1 h, γ2 h, γ1 h`` with
``γ1 = 1/(2 − 2^(1/3)) ≈ 1.3512`` and ``γ2 = 1 − 2γ1 ≈ −1.7024`` (Yoshida 1990; see
:mod:`sim.integrators.composition` for the conditions, the torque, the cost and the gyroscopic switch). Each stage
runs the compiled midpoint kernel, so a step costs about three midpoint steps.
"""

from __future__ import annotations

from spinlab.sim.integrators.claims import Claims
from spinlab.sim.integrators.composition import TRIPLE_JUMP, composed_step
from spinlab.sim.integrators.implicit_midpoint import step as midpoint_step
from spinlab.sim.integrators.record import Integrator

__all__ = ["step", "INTEGRATOR"]


step = composed_step("im4", midpoint_step, TRIPLE_JUMP, "the implicit midpoint rule")


# The triple jump of a symmetric second-order method; every stage carries L exactly.
INTEGRATOR = Integrator(
    "im4",
    step,
    Claims(
        order=4, conserves_momentum=True, implicit=True, relative_cost=9.7, method="midpoint rule, Yoshida triple jump"
    ),
    place=7,
    kernel="composed_kernel",
    fallback="twin",
    colour="#2ca02c",
    compile_rank=5,
)
