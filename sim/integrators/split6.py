"""``split6``: the Strang splitting (:mod:`sim.integrators.split2`) composed by Kahan & Li's 9 stages — sixth
order under torque.

Nine Strang stages of ``γ_i h`` with Kahan & Li's ``s9odr6a`` constants (Math. Comp. 66 (1997); Hairer, Lubich &
Wanner, *Geometric Numerical Integration*, §V.3.2; see :mod:`sim.integrators.composition`), three of them
backwards in time, neighbouring half kicks merged: ten kicks and nine midpoint steps a step. Claims:

- order 6 under any torque that depends on the orientation only (gravity about a pivot); symmetric and
  symplectic, so the total energy stays bounded;
- torque-free it is ``im6`` bit for bit: ``L`` is conserved exactly;
- it accepts a torque: the constant ``params.torque_world`` and the keyword ``orientation_torque`` ``τ(q)``.

Without the gyroscopic term every flow is exact (spins and kicks), composed to the same order.
"""

from __future__ import annotations

from spinlab.sim.integrators.claims import Claims
from spinlab.sim.integrators.composition import KAHAN_LI_9
from spinlab.sim.integrators.record import Integrator
from spinlab.sim.integrators.splitting import split_step

__all__ = ["step", "INTEGRATOR"]


step = split_step("split6", KAHAN_LI_9)


# Kahan & Li's 9 stages of split2: order 6 under τ(q), L exact torque-free.
INTEGRATOR = Integrator(
    "split6",
    step,
    Claims(
        order=6,
        conserves_momentum=True,
        orientation_torque=True,
        implicit=True,
        relative_cost=29.0,
        method="Strang splitting, Kahan–Li 9 stages",
    ),
    place=14,
    kernel="split_kernel",
    fallback="twin",
    colour="#ff9da7",
    compile_rank=1,
)
