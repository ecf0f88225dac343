"""``split4``: the Strang splitting (:mod:`sim.integrators.split2`) composed by Yoshida's triple jump — fourth
order under torque.

Three Strang stages of ``γ1 h, γ2 h, γ1 h`` (``γ1 = 1/(2 − 2^(1/3))``, ``γ2 = 1 − 2γ1``; Yoshida 1990, see
:mod:`sim.integrators.composition`), neighbouring half kicks merged: four kicks and three midpoint steps a step.
Claims:

- order 4 under any torque that depends on the orientation only (gravity about a pivot); symmetric and
  symplectic, so the total energy stays bounded;
- torque-free it is ``im4`` bit for bit: ``L`` is conserved exactly;
- it accepts a torque: the constant ``params.torque_world`` and the keyword ``orientation_torque`` ``τ(q)``.

Without the gyroscopic term every flow is exact (spins and kicks), composed to the same order.
"""

from __future__ import annotations

from spinlab.sim.integrators.claims import Claims
from spinlab.sim.integrators.composition import TRIPLE_JUMP
from spinlab.sim.integrators.record import Integrator
from spinlab.sim.integrators.splitting import split_step

__all__ = ["step", "INTEGRATOR"]


step = split_step("split4", TRIPLE_JUMP)


# The triple jump of split2: order 4 under τ(q), L exact torque-free.
INTEGRATOR = Integrator(
    "split4",
    step,
    Claims(
        order=4,
        conserves_momentum=True,
        orientation_torque=True,
        implicit=True,
        relative_cost=12.0,
        method="Strang splitting, Yoshida triple jump",
    ),
    place=13,
    kernel="split_kernel",
    fallback="twin",
    colour="#9c755f",
    compile_rank=3,
)
