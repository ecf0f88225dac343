"""``axes2``: the free rigid body split into rotations about its principal axes, Strang's composition — explicit,
second order, symplectic, ``|L|`` kept to rounding.

    torque-free:   F_h = C(h) ∘ F(h/2) ∘ N(h) ∘ F(h/2)
    under τ(q):    K(h/2) ∘ R₁(h/2) ∘ R₃(h/2) ∘ R₂(h) ∘ R₃(h/2) ∘ R₁(h/2) ∘ K(h/2)

each ``Rₖ`` the exact flow of ``Πₖ²/(2 Iₖ)``, a rotation about principal axis ``k`` (McLachlan 1993; Reich 1994;
Dullweber, Leimkuhler & McLachlan 1997); torque-free, ``C`` turns about world ``L`` by ``|L|/I₂`` (the Casimir
``|L|²/(2 I₂)``, which commutes with everything) and ``F``, ``N`` about the far and the near axis by the reduced
rates ``Πₖ (1/Iₖ − 1/I₂)``, so the fast spin is exact and only the slow motion of ``Π`` is split
(:mod:`sim.integrators.axes_splitting`). Claims:

- order 2, torque-free and under any torque that depends on the orientation only (gravity about a pivot), the
  step wrapped in the torque's kicks ``K_{h/2} ∘ F_h ∘ K_{h/2}``; symmetric and symplectic, so the energy stays
  bounded;
- torque-free the world ``L`` is carried exactly, ``|Π|`` to rounding;
- it accepts a torque: the constant ``params.torque_world`` and the keyword ``orientation_torque`` ``τ(q)``;
- explicit: four rotations torque-free, five and two kicks under a torque (a sine and a cosine a rotation),
  no Newton iteration.
"""

from __future__ import annotations

from spinlab.sim.integrators.axes_splitting import axes_step
from spinlab.sim.integrators.claims import Claims
from spinlab.sim.integrators.record import Integrator
from spinlab.sim.integrators.splitting import STRANG

__all__ = ["step", "INTEGRATOR"]


step = axes_step("axes2", STRANG)


# Exact flows of a splitting of H, composed symmetrically: order 2 under τ(q), L exact torque-free.
INTEGRATOR = Integrator(
    "axes2",
    step,
    Claims(
        order=2,
        conserves_momentum=True,
        orientation_torque=True,
        relative_cost=2.1,
        method="rotations about the principal axes, Strang",
    ),
    family="axes",
    place=2,
    kernel="axes_kernel",
    fallback="reference",
    colour="#d37295",
)
