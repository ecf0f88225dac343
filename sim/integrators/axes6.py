"""``axes6``: the splitting into rotations about the principal axes (:mod:`sim.integrators.axes2`) composed by
Kahan & Li's 9 stages — explicit, order 6, symplectic, ``|L|`` kept to rounding.

9 Strang stages of ``γ_i h`` with Kahan & Li's constants ``s9odr6a`` ("Composition constants for raising the orders
of unconventional schemes for ordinary differential equations", Math. Comp. 66 (1997) 1089–1099, as listed in
Hairer, Lubich & Wanner, *Geometric Numerical Integration*, §V.3.2; :mod:`sim.integrators.composition`),
neighbouring rotations merged: 20 rotations a step torque-free (19 about the far and near axes, 1 about ``L``);
under a torque each stage is wrapped in kicks, 10 of them a step (:mod:`sim.integrators.axes_splitting`). Its claims
are :mod:`sim.integrators.axes2`'s at order 6: torque-free and under a torque that depends on the orientation only,
symplectic, world ``L`` exact torque-free, explicit. Without the gyroscopic term it is
:mod:`sim.integrators.splitting`'s exact spins and kicks, composed alike."""

from __future__ import annotations

from spinlab.sim.integrators.axes_splitting import axes_step
from spinlab.sim.integrators.claims import Claims
from spinlab.sim.integrators.composition import KAHAN_LI_9
from spinlab.sim.integrators.record import Integrator

__all__ = ["step", "INTEGRATOR"]


step = axes_step("axes6", KAHAN_LI_9)


# The Kahan–Li 9 stages of axes2: order 6 under τ(q), L exact torque-free.
INTEGRATOR = Integrator(
    "axes6",
    step,
    Claims(
        order=6,
        conserves_momentum=True,
        orientation_torque=True,
        relative_cost=6.2,
        method="rotations about the principal axes, Kahan–Li 9 stages",
    ),
    family="axes",
    place=6,
    kernel="axes_kernel",
    fallback="reference",
    colour="#59a14f",
)
