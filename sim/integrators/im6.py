"""``im6``: the implicit midpoint rule composed by Kahan & Li's 9-stage scheme — sixth order, symmetric, L exact.

Nine implicit midpoint steps (:mod:`sim.integrators.implicit_midpoint`) of ``γ_i h`` with Kahan & Li's ``s9odr6a``
constants (Math. Comp. 66 (1997); Hairer, Lubich & Wanner, *Geometric Numerical Integration*, §V.3.2), three of
them backwards in time; see :mod:`sim.integrators.composition` for the constants, the torque, the cost and the
gyroscopic switch. A step costs about nine midpoint steps.
"""

from __future__ import annotations

from spinlab.sim.integrators.claims import Claims
from spinlab.sim.integrators.composition import KAHAN_LI_9, composed_step
from spinlab.sim.integrators.implicit_midpoint import step as midpoint_step
from spinlab.sim.integrators.record import Integrator

__all__ = ["step", "INTEGRATOR"]


step = composed_step("im6", midpoint_step, KAHAN_LI_9, "the implicit midpoint rule")


# Kahan & Li's 9 stages of a symmetric second-order method; every stage carries L exactly.
INTEGRATOR = Integrator(
    "im6",
    step,
    Claims(
        order=6, conserves_momentum=True, implicit=True, relative_cost=28.0, method="midpoint rule, Kahan–Li 9 stages"
    ),
    place=8,
    kernel="composed_kernel",
    fallback="twin",
    colour="#98df8a",
    compile_rank=2,
)
