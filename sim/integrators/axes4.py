"""``axes4``: the splitting into rotations about the principal axes (:mod:`sim.integrators.axes2`) composed by
Yoshida's triple jump — explicit, order 4, symplectic, ``|L|`` kept to rounding.

3 Strang stages of ``γ_i h``, ``γ1 = γ3 = 1/(2 − 2^(1/3))``, ``γ2 = 1 − 2γ1`` (Yoshida, "Construction of higher
order symplectic integrators", Phys. Lett. A 150 (1990) 262–268; :mod:`sim.integrators.composition`), neighbouring
rotations merged: 8 rotations a step torque-free (7 about the far and near axes, 1 about ``L``); under a torque each
stage is wrapped in kicks, 4 of them a step (:mod:`sim.integrators.axes_splitting`). Its claims are
:mod:`sim.integrators.axes2`'s at order 4: torque-free and under a torque that depends on the orientation only,
symplectic, world ``L`` exact torque-free, explicit. Without the gyroscopic term it is
:mod:`sim.integrators.splitting`'s exact spins and kicks, composed alike."""

from __future__ import annotations

from spinlab.sim.integrators.axes_splitting import axes_step
from spinlab.sim.integrators.claims import Claims
from spinlab.sim.integrators.composition import TRIPLE_JUMP
from spinlab.sim.integrators.record import Integrator

__all__ = ["step", "INTEGRATOR"]


step = axes_step("axes4", TRIPLE_JUMP)


# The Yoshida triple jump of axes2: order 4 under τ(q), L exact torque-free.
INTEGRATOR = Integrator(
    "axes4",
    step,
    Claims(
        order=4,
        conserves_momentum=True,
        orientation_torque=True,
        relative_cost=2.9,
        method="rotations about the principal axes, Yoshida triple jump",
    ),
    family="axes",
    place=4,
    kernel="axes_kernel",
    fallback="reference",
    colour="#f28e2b",
)
