"""``im6``: the implicit midpoint rule composed by Kahan & Li's 9-stage scheme — sixth order, symmetric, L exact.

Nine implicit midpoint steps (:mod:`sim.integrators.implicit_midpoint`) of ``γ_i h`` with Kahan & Li's ``s9odr6a``
constants (Math. Comp. 66 (1997); Hairer, Lubich & Wanner, *Geometric Numerical Integration*, §V.3.2), three of
them backwards in time; see :mod:`sim.integrators.composition` for the constants, the torque, the cost and the
gyroscopic switch. A step costs about nine midpoint steps.
"""

from __future__ import annotations

from sim.integrators import implicit_midpoint
from sim.integrators.claims import Claims
from sim.integrators.composition import KAHAN_LI_9, step_composed
from sim.integrators.newton import NEWTON_DEFAULTS, NewtonOptions
from sim.integrators.state import BodyParams, BodyState, StepBuffers, StepCost

__all__ = ["step", "CLAIMS"]

# Kahan & Li's 9 stages of a symmetric second-order method; every stage carries L exactly.
CLAIMS = Claims(
    order=6, conserves_momentum=True, implicit=True, relative_cost=30.0, method="midpoint rule, Kahan–Li 9 stages"
)


def step(
    state: BodyState,
    params: BodyParams,
    h: float,
    *,
    backend: str = "numba",
    jacobian: str = "analytic",
    newton: NewtonOptions = NEWTON_DEFAULTS,
    out: StepBuffers | None = None,
) -> tuple[BodyState, StepCost]:
    """Advance N bodies by ``h`` seconds. Keyword-only options are the implicit midpoint rule's
    (``implicit.step_implicit``), passed to every stage."""
    return step_composed(
        "im6",
        implicit_midpoint.step,
        KAHAN_LI_9,
        state,
        params,
        h,
        backend=backend,
        jacobian=jacobian,
        newton=newton,
        out=out,
    )
