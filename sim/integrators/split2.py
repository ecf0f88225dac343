"""``split2``: Strang splitting of the torque's kick and the free rigid body — second order under torque.

    S_h = K_{h/2} ∘ F_h ∘ K_{h/2}

``K_t`` turns the momentum by the torque at the current orientation, ``L' = L + t τ(q)`` (exact at fixed ``q``);
``F_h`` is one implicit midpoint step of the torque-free body (:mod:`sim.integrators.splitting`). Claims:

- order 2 under any torque that depends on the orientation only (gravity about a pivot), with the torque
  evaluated at the kicks, not held over the step; symmetric and symplectic, so the total energy stays bounded;
- torque-free it is the implicit midpoint rule bit for bit: ``L`` is conserved exactly;
- it accepts a torque: the constant ``params.torque_world`` and the keyword ``orientation_torque`` ``τ(q)``
  (:mod:`sim.integrators.torque`), which the world passes for a body about a pivot under gravity.

Without the gyroscopic term the free flow is the spin ``q' = exp(h ω) q`` and the kick ``ω' = ω + t I_w⁻¹ τ(q)``:
a torque-free body keeps its ω bit for bit. A step costs about one midpoint step and two torque evaluations.
"""

from __future__ import annotations

from spinlab.sim.integrators.claims import Claims
from spinlab.sim.integrators.record import Integrator
from spinlab.sim.integrators.splitting import STRANG, split_step

__all__ = ["step", "INTEGRATOR"]


step = split_step("split2", STRANG)


# Kicks are exact flows and the free flow a midpoint step: order 2 under τ(q), L exact torque-free.
INTEGRATOR = Integrator(
    "split2",
    step,
    Claims(
        order=2,
        conserves_momentum=True,
        orientation_torque=True,
        implicit=True,
        relative_cost=4.9,
        method="Strang splitting: kick, free body, kick",
    ),
    place=12,
    kernel="split_kernel",
    fallback="twin",
    colour="#009e73",
    compile_rank=6,
)
