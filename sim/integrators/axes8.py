"""``axes8``: the splitting into rotations about the principal axes (:mod:`sim.integrators.axes2`) composed by
Kahan & Li's 17 stages — explicit, order 8, symplectic, ``|L|`` kept to rounding.

17 Strang stages of ``γ_i h`` with Kahan & Li's constants ``s17odr8a`` (Math. Comp. 66 (1997) 1089–1099, as listed
in Hairer, Lubich & Wanner, *Geometric Numerical Integration*, §V.3.2; :mod:`sim.integrators.composition`),
neighbouring rotations merged: 36 rotations a step torque-free (35 about the far and near axes, 1 about ``L``);
under a torque each stage is wrapped in kicks, 18 of them a step (:mod:`sim.integrators.axes_splitting`). Its claims
are :mod:`sim.integrators.axes2`'s at order 8: torque-free and under a torque that depends on the orientation only,
symplectic, world ``L`` exact torque-free, explicit. Without the gyroscopic term it is
:mod:`sim.integrators.splitting`'s exact spins and kicks, composed alike."""

from __future__ import annotations

from spinlab.sim.integrators.axes_splitting import axes_step
from spinlab.sim.integrators.claims import Claims
from spinlab.sim.integrators.composition import KAHAN_LI_17
from spinlab.sim.integrators.record import Integrator

__all__ = ["step", "INTEGRATOR"]


step = axes_step("axes8", KAHAN_LI_17)


# The Kahan–Li 17 stages of axes2: order 8 under τ(q), L exact torque-free.
INTEGRATOR = Integrator(
    "axes8",
    step,
    Claims(
        order=8,
        conserves_momentum=True,
        orientation_torque=True,
        relative_cost=9.3,
        method="rotations about the principal axes, Kahan–Li 17 stages",
    ),
    family="axes",
    place=8,
    kernel="axes_kernel",
    fallback="reference",
    colour="#56b4e9",
)
