"""``axes2``: the free rigid body split into rotations about its principal axes, Strang's composition — explicit,
second order, symplectic, ``|L|`` kept to rounding.

    F_h = R₁(h/2) ∘ R₃(h/2) ∘ R₂(h) ∘ R₃(h/2) ∘ R₁(h/2)

each ``Rₖ`` the exact flow of ``Πₖ²/(2 Iₖ)``, a rotation about principal axis ``k`` (McLachlan 1993; Reich 1994;
Dullweber, Leimkuhler & McLachlan 1997; :mod:`sim.integrators.axes_splitting`). Claims:

- order 2, torque-free and under any torque that depends on the orientation only (gravity about a pivot), the
  step wrapped in the torque's kicks ``K_{h/2} ∘ F_h ∘ K_{h/2}``; symmetric and symplectic, so the energy stays
  bounded;
- torque-free the world ``L`` is carried exactly, ``|Π|`` to rounding;
- it accepts a torque: the constant ``params.torque_world`` and the keyword ``orientation_torque`` ``τ(q)``;
- explicit: five rotations (a sine and a cosine each), no Newton iteration.
"""

from __future__ import annotations

from spinlab.sim.integrators.axes_splitting import axes_step
from spinlab.sim.integrators.claims import Claims
from spinlab.sim.integrators.splitting import STRANG

__all__ = ["step", "CLAIMS"]

# Exact flows of a splitting of H, composed symmetrically: order 2 under τ(q), L exact torque-free.
CLAIMS = Claims(
    order=2,
    conserves_momentum=True,
    orientation_torque=True,
    method="rotations about the principal axes, Strang",
)


step = axes_step("axes2", STRANG)
