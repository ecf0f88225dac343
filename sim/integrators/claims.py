"""What an integrator claims about itself, declared in its own module as ``CLAIMS`` and measured by the tests.

Every module of :data:`sim.integrators.INTEGRATORS` states, beside its ``step``, a :class:`Claims`; the registry
collects them (:data:`sim.integrators.CLAIMS`) and the contract test (tests/sim/test_integrators.py) checks each
one by measurement, with no table of expectations of its own.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Claims"]


@dataclass(frozen=True)
class Claims:
    """The claims of one integrator.

    - ``order``: the order of convergence of the orientation and ω (error ~ hᵖ) on torque-free motion with the
      gyroscopic term; ``None`` when the step has no truncation error (its error is rounding at every ``h``).
    - ``conserves_momentum``: torque-free, the world angular momentum ``L`` (kg m²/s) is kept to rounding.
    - ``accepts_torque``: a non-zero constant ``params.torque_world`` (N m, world) is taken, held over the step;
      ``False``: it is refused with :class:`sim.errors.NumericalError` naming the bodies.
    - ``orientation_torque``: ``step`` takes the keyword ``orientation_torque=τ(q)``
      (:mod:`sim.integrators.torque`) and evaluates it at its own stages, keeping ``order`` under it; ``False``:
      the keyword is not accepted (``TypeError``), and a torque that depends on the orientation is held.
    """

    order: int | None
    conserves_momentum: bool
    accepts_torque: bool = True
    orientation_torque: bool = False

    def __post_init__(self) -> None:
        if self.order is not None and not (isinstance(self.order, int) and self.order >= 1):
            raise ValueError(f"order must be a positive integer or None, got {self.order!r}")
        if self.orientation_torque and not self.accepts_torque:
            raise ValueError("an integrator that takes orientation_torque accepts a torque")
