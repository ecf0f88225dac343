"""What an integrator claims about itself, declared in its own module as ``CLAIMS`` and measured by the tests.

Every module of :data:`sim.integrators.INTEGRATORS` states, beside its ``step``, a :class:`Claims`; the registry
collects them (:data:`sim.integrators.CLAIMS`) and the contract test (tests/sim/test_integrators.py) checks each
one by measurement, with no table of expectations of its own.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Claims", "describe"]


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
    - ``torque_at``: where the step evaluates a torque ``τ(q)`` that depends on the orientation, and the order
      that leaves under it, in a few words (an engine's step: at the start of the step, or at each stage); empty:
      not said — the splittings evaluate it at each kick and keep ``order`` (``orientation_torque``), the others
      get it held at the step's midpoint from the world (sim/world.py).
    - ``pivot_aware``: ``step`` takes the keyword ``pivoted`` ((N,) bool: the bodies that turn about a fixed pivot,
      a ball joint, rather than freely) and steps those as its engine steps a ball joint (MuJoCo's implicitfast
      adds the gyroscopic derivative to a free joint only); ``False``: the keyword is not accepted.
    - ``implicit``: the step solves an equation by Newton's method (its ``StepCost`` counts iterations > 0);
      ``False``: explicit, no iterations.
    - ``relative_cost``: the time per body-step relative to ``euler``'s (numba, 100 000 bodies, as
      benchmarks/results/bench.json measured it, rounded); ``None`` when not benchmarked at that size.
    - ``method``: what the step is, in a few words (the panel's one-line description starts with it).
    - ``gyroscopic``: the step models the gyroscopic term ``ω × L`` when ``params.gyroscopic`` asks for it;
      ``False``: it leaves the term out whatever ``params.gyroscopic`` says (an engine's default, e.g. PhysX's and
      Godot's), so a torque-free ω stays constant and ``order`` is measured against that motion, not the
      closed form.
    - ``precision``: the arithmetic the step runs in, ``"float64"``, or ``"float32"`` for an engine's
      single-precision twin (sim/integrators/engines/common.py's ``engine_variants``): "to rounding" in the claims
      above means to that precision's rounding.
    """

    order: int | None
    conserves_momentum: bool
    accepts_torque: bool = True
    orientation_torque: bool = False
    torque_at: str = ""
    pivot_aware: bool = False
    implicit: bool = False
    relative_cost: float | None = None
    method: str = ""
    gyroscopic: bool = True
    precision: str = "float64"

    def __post_init__(self) -> None:
        if self.order is not None and not (isinstance(self.order, int) and self.order >= 1):
            raise ValueError(f"order must be a positive integer or None, got {self.order!r}")
        if self.orientation_torque and not self.accepts_torque:
            raise ValueError("an integrator that takes orientation_torque accepts a torque")
        if self.torque_at and not self.orientation_torque:
            raise ValueError("torque_at says where orientation_torque is evaluated: the step must take it")
        if self.precision not in ("float64", "float32"):
            raise ValueError(f"precision must be 'float64' or 'float32', got {self.precision!r}")


def describe(claims: Claims, *, under_torque: bool = False) -> str:
    """One line for a person choosing an integrator: the method, its order, what it conserves, explicit or
    implicit and its relative cost, all from ``claims``; e.g. ``"implicit midpoint rule · order 2 · keeps L ·
    implicit (Newton) · ~3.7× euler's cost"``. ``under_torque``: for a scene with a torque that depends on the
    orientation (gravity about a pivot), which the world holds at each step's midpoint for a method that does not
    take it as a function (sim/world.py): second order at most there."""
    order = "exact to rounding" if claims.order is None else f"order {claims.order}"
    if under_torque and claims.accepts_torque and not claims.orientation_torque and (claims.order or 0) > 2:
        order = f"order {claims.order} torque-free, 2 here (the torque held at each step's midpoint)"
    if not claims.gyroscopic and claims.order is None:
        order = "its constant-ω spin exact to rounding"
    keeps = "keeps L" if claims.conserves_momentum else "drifts L"
    if not claims.accepts_torque:
        keeps += ", torque-free only"
    elif claims.torque_at:
        keeps += f", {claims.torque_at}"
    elif claims.orientation_torque:
        keeps += ", order kept under gravity"
    kind = "implicit (Newton)" if claims.implicit else "explicit"
    cost = "cost not measured" if claims.relative_cost is None else f"~{claims.relative_cost:g}× euler's cost"
    return " · ".join(part for part in (claims.method, order, keeps, kind, cost) if part)
