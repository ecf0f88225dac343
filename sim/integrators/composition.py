"""Symmetric compositions of a symmetric one-step method: higher order from the same exact conservation of L.

If ``Φ_h`` is symmetric (``Φ_h⁻¹ = Φ_{−h}``) and of order 2, the composition ``Φ_{γ_s h} ∘ … ∘ Φ_{γ_1 h}``
with palindromic ``γ`` (``γ_i = γ_{s+1−i}``) is symmetric, hence of even order, and is of order 4 when
``Σ γ = 1`` and ``Σ γ³ = 0`` (Hairer, Lubich & Wanner, *Geometric Numerical Integration*, 2nd ed., §II.4 and
§V.3). Order 6 needs, besides ``Σ γ⁵ = 0``, one condition on a nested commutator, which is why it takes more
stages than equations in the powers alone:

- ``TRIPLE_JUMP``, order 4, 3 stages: ``γ1 = γ3 = 1/(2 − 2^(1/3))``, ``γ2 = 1 − 2γ1 = −2^(1/3) γ1`` (Yoshida,
  "Construction of higher order symplectic integrators", Phys. Lett. A 150 (1990) 262–268; also Suzuki 1990,
  Creutz & Gocksch 1989). The middle stage runs backwards in time (``γ2 ≈ −1.70``).
- ``KAHAN_LI_9``, order 6, 9 stages: Kahan & Li's ``s9odr6a``, "Composition constants for raising the orders of
  unconventional schemes for ordinary differential equations", Math. Comp. 66 (1997) 1089–1099, as listed in
  Hairer, Lubich & Wanner §V.3.2. It costs two stages more than Yoshida's 7-stage sixth-order solution A but has
  a far smaller error constant, and its constants are known to all digits (Yoshida's were published to 15).
- ``KAHAN_LI_17``, order 8, 17 stages: Kahan & Li's ``s17odr8a`` (same paper, same listing in Hairer, Lubich &
  Wanner §V.3.2), which there beats Yoshida's and McLachlan's 15-stage eighth-order solutions at equal work.
  Used by the splitting into rotations about the principal axes (:mod:`sim.integrators.axes_splitting`).

Each set sums to 1 and its odd power sums ``Σ γ³``, ``Σ γ⁵`` (and ``Σ γ⁷`` for order 8) vanish to rounding
(tests/sim/test_axes_splitting.py checks it; the nested-commutator conditions are checked by measuring the order).

The base methods used here, the implicit midpoint rule and the object-space trapezoidal rule in exponential
coordinates, are symmetric (replace ``h`` by ``−h`` and ``v`` by ``−v`` in their equations, starting from the
end state) and carry ``L`` exactly, so every stage does too. The torque is held constant over the whole step:
each stage advances ``L`` by ``γ_i h τ``, which is ``L(t)`` of ``L̇ = τ`` at the stage's (possibly earlier) time,
and the step ends with ``L' = L + h τ`` exactly and ``ω' = O' I⁻¹ O'ᵀ L'``.

With the gyroscopic term off, the base methods are not midpoint rules at all (``implicit.py`` steps that model by
one explicit Magnus term, which is not symmetric), so composing them gains nothing: a composed step is then one
step of the base method, which for a torque-free body is already exact (``q' = exp(h ω) q``).

With the numba backend, a base method that has a compiled kernel runs all the stages of a body in one kernel call
(:func:`sim.integrators.implicit.step_composed_in_kernel`: no Python and no intermediate state arrays between
stages); if any body fails there, the stages are re-run one by one, which names the failing stage and bodies.

Cost: Newton iterations summed over the stages; ``substeps`` is the most pieces any one stage was split into by
adaptive sub-stepping (1 when no stage was split), keeping :class:`StepCost`'s meaning.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import numpy as np

from spinlab.sim.errors import NumericalError
from spinlab.sim.integrators.implicit import ImplicitMethod, step_composed_in_kernel
from spinlab.sim.integrators.newton import NEWTON_DEFAULTS, NewtonOptions
from spinlab.sim.integrators.state import BodyParams, BodyState, StepBuffers, StepCost, omega_world_from_momentum

__all__ = ["TRIPLE_JUMP", "KAHAN_LI_9", "KAHAN_LI_17", "step_composed"]

Step = Callable[..., tuple[BodyState, StepCost]]

_CUBE_ROOT_2 = 2.0 ** (1.0 / 3.0)
_GAMMA_OUTER = 1.0 / (2.0 - _CUBE_ROOT_2)
TRIPLE_JUMP = (_GAMMA_OUTER, 1.0 - 2.0 * _GAMMA_OUTER, _GAMMA_OUTER)

_KAHAN_LI_HALF = (
    0.39216144400731413927925056,
    0.33259913678935943859974864,
    -0.70624617255763935980996482,
    0.08221359629355080023149045,
)
KAHAN_LI_9 = (*_KAHAN_LI_HALF, 0.79854399093482996339895035, *_KAHAN_LI_HALF[::-1])

_KAHAN_LI_17_HALF = (
    0.13020248308889008087881763,
    0.56116298177510838456196441,
    -0.38947496264484728640807860,
    0.15884190655515560089621075,
    -0.39590389413323757733623154,
    0.18453964097831570709183254,
    0.25837438768632204729397911,
    0.29501172360931029887096624,
)
KAHAN_LI_17 = (*_KAHAN_LI_17_HALF, -0.60550853383003451169892108, *_KAHAN_LI_17_HALF[::-1])


@cache
def _implicit_methods() -> dict[Step, ImplicitMethod]:
    """The base steps that have a compiled kernel, with their methods (imported here, once: they import this
    module's siblings)."""
    import spinlab.sim.integrators.implicit_midpoint as midpoint
    import spinlab.sim.integrators.object_trapezoidal as object_space

    return {midpoint.step: midpoint.METHOD, object_space.step: object_space.METHOD}


@cache
def _coefficient_array(coefficients: tuple[float, ...]) -> np.ndarray:
    """``coefficients`` as the read-only float64 array the compiled kernel takes, made once per scheme."""
    array = np.asarray(coefficients, dtype=np.float64)
    array.flags.writeable = False
    return array


def composed_step(
    name: str, base_step: Step, coefficients: tuple[float, ...], rule: str
) -> Callable[..., tuple[BodyState, StepCost]]:
    """The ``step`` of the composition ``name``: ``base_step`` by ``coefficients``, its options named for every
    stage (``rule`` names the base method in the docstring), not passed on as ``**options``."""

    def step(
        state: BodyState,
        params: BodyParams,
        h: float,
        *,
        backend: str = "numba",
        jacobian: str = "analytic",
        newton: NewtonOptions = NEWTON_DEFAULTS,
        out: StepBuffers | None = None,
    ) -> tuple[BodyState, StepCost]:
        return step_composed(
            name, base_step, coefficients, state, params, h, backend=backend, jacobian=jacobian, newton=newton, out=out
        )

    step.__doc__ = (
        f"Advance N bodies by ``h`` seconds. Keyword-only options are {rule}'s (``implicit.step_implicit``), "
        "passed to every stage."
    )
    return step


def step_composed(
    name: str,
    base_step: Step,
    coefficients: tuple[float, ...],
    state: BodyState,
    params: BodyParams,
    h: float,
    *,
    backend: str = "numba",
    jacobian: str = "analytic",
    newton: NewtonOptions = NEWTON_DEFAULTS,
    out: StepBuffers | None = None,
) -> tuple[BodyState, StepCost]:
    """Advance N bodies by ``h`` seconds with ``base_step`` composed by ``coefficients`` (see the module).

    ``backend``, ``jacobian`` and ``newton`` go to every stage (the base method's, ``implicit.step_implicit``).
    ``out``: where a one-call composition (or the one step without the gyroscopic term) writes the new state
    (:class:`~sim.integrators.state.StepBuffers`); stages run one by one never use it. A stage that fails raises
    :class:`sim.errors.NumericalError` naming ``name``, the stage and the bodies.
    """
    if not params.gyroscopic:
        return base_step(state, params, h, backend=backend, jacobian=jacobian, newton=newton, out=out)
    if backend == "numba" and base_step in _implicit_methods():
        gammas = _coefficient_array(tuple(coefficients))
        result = step_composed_in_kernel(
            _implicit_methods()[base_step], gammas, state, params, h, jacobian=jacobian, newton=newton, out=out
        )
        if result is not None:
            return result
    options = {"backend": backend, "jacobian": jacobian, "newton": newton}
    n_bodies = len(state)
    iterations = np.zeros(n_bodies, dtype=np.int64)
    substeps = np.ones(n_bodies, dtype=np.int64)
    stage_state = state
    for index, gamma in enumerate(coefficients):
        try:
            stage_state, cost = base_step(stage_state, params, gamma * h, **options)
        except NumericalError as error:
            where = f"stage {index + 1} of {len(coefficients)}, {gamma:.6g} h"
            raise NumericalError(f"{name} ({where}): {error}", bodies=error.bodies) from error
        iterations += cost.newton_iterations
        np.maximum(substeps, cost.substeps, out=substeps)
    L_new = state.L_world + h * params.torque_world
    omega_new = omega_world_from_momentum(stage_state.q, L_new, params.inertia_body_inv)
    return BodyState(stage_state.q, omega_new, L_new, stage_state.q_low), StepCost(iterations, substeps)
