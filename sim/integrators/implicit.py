"""The machinery the implicit integrators share: Newton per step, adaptive sub-stepping, the two backends.

An implicit method (:class:`ImplicitMethod`) is its equation for the step's rotation vector, with a start value,
a hand-written Jacobian and the update of the state from the solution. :func:`step_implicit` runs it:

- with the gyroscopic term on, Newton's method (:mod:`sim.integrators.newton`) solves the equation for every body;
  a body whose Newton fails has its step cut in halves, recursively, up to ``max_substep_depth`` times
  (:class:`~sim.integrators.newton.NewtonOptions`, the ``newton=`` keyword), only for that body, with the torque
  held constant (math.md §Implicit midpoint; seed 003 §10). The pieces are visited as
  recursive halving would visit them (see :mod:`sim.integrators._kernels`). If a body still fails, or a
  new state is not finite, :class:`sim.errors.NumericalError` names the bodies.
- with the gyroscopic term off, the body is integrated as if ω changed only by the torque: ``ω' = ω + h I_w⁻¹ τ``
  with ``I_w`` at the start of the step, and the orientation turns by the exact rotation of the mean velocity,
  ``O' = R(h (ω + ω')/2) O`` (the first Magnus term with the exact exponential: :mod:`magnus` with ``terms=1``);
  then ``L' = O' I O'ᵀ ω'``. A torque-free body keeps its ω exactly and spins forever about its start axis.
  No Newton iteration is needed (cost: 0 iterations, 1 sub-step).

``backend="numba"`` runs the compiled kernel (:mod:`sim.integrators._kernels`, hand-written Jacobian);
``backend="numpy"`` runs the reference below, with ``jacobian="analytic"`` or ``"dual"``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from spinlab.sim.integrators.checks import (
    STATUS_NOT_CONVERGED,
    STATUS_OK,
    STATUS_TOO_MANY_PIECES,
    check_jacobian,
    non_finite_status,
    raise_on_failure,
)
from spinlab.sim.integrators.kernel_twins import implicit_step as twin_implicit_step
from spinlab.sim.integrators.magnus import step as magnus_step
from spinlab.sim.integrators.newton import NEWTON_DEFAULTS, NewtonOptions, newton_curvature, newton_solve
from spinlab.sim.integrators.state import (
    BodyParams,
    BodyState,
    StepBuffers,
    StepCost,
    low_part,
    omega_world_from_momentum,
)
from spinlab.sim.integrators.threads import run as run_threaded
from spinlab.sim.quaternion import compensated_step, quat_exp_minus_one

__all__ = [
    "ImplicitMethod",
    "step_implicit",
    "step_composed_in_kernel",
    "advance_body_frame",
    "kernel_newton_arguments",
]

Setup = Callable[[BodyState, BodyParams, np.ndarray], tuple[np.ndarray, tuple[np.ndarray, ...]]]
Finish = Callable[[BodyState, BodyParams, np.ndarray, np.ndarray], BodyState]


@dataclass(frozen=True)
class ImplicitMethod:
    """An implicit integrator, for :func:`step_implicit`.

    ``setup(state, params, h)`` → ``(v0, args)``: the start value (n, 3) and the per-body arrays the residual
    needs, for per-body step lengths ``h`` (n,). ``residual(v, *args)`` (runs on dual numbers too) and
    ``jacobian(v, *args)`` → (n, 3, 3). ``finish(state, params, h, v)`` → the state after the step.
    """

    name: str
    setup: Setup
    residual: Callable[..., np.ndarray]
    jacobian: Callable[..., np.ndarray]
    finish: Finish


def advance_body_frame(state: BodyState, params: BodyParams, h: np.ndarray, v: np.ndarray) -> BodyState:
    """``O' = O R(v)`` (``q' = q ⊗ exp(v/2)``), ``L' = L + h τ``, ``ω' = O' I⁻¹ O'ᵀ L'``; ``h`` (n,), ``v`` (n, 3).
    The orientation is the double-double ``q + q_low`` (:func:`sim.quaternion.compensated_step`)."""
    q_new, q_low_new = compensated_step(state.q, low_part(state), None, quat_exp_minus_one(v))
    L_new = state.L_world + h[:, None] * params.torque_world
    return BodyState(q_new, omega_world_from_momentum(q_new, L_new, params.inertia_body_inv), L_new, q_low_new)


def _attempt(method, jacobian, newton, state, params, h):
    """One Newton solve per body over pieces of length ``h`` (n,): ``(new state, converged, iterations)``."""
    v0, args = method.setup(state, params, h)
    hand_written = method.jacobian if jacobian == "analytic" else None
    curvature = newton_curvature(params.inertia_body_inv, state.L_world, params.torque_world, h)
    v, converged, iterations = newton_solve(
        method.residual, hand_written, v0, args, options=newton, curvature=curvature
    )
    return method.finish(state[converged], params[converged], h[converged], v[converged]), converged, iterations


def _advance_in_pieces(method, state, params, h, jacobian, newton):
    """The numpy sub-stepping driver: every round tries one piece for every unfinished body."""
    n_bodies = len(state)
    pieces = 1 << newton.max_substep_depth
    q, omega_world, L_world = state.q.copy(), state.omega_world.copy(), state.L_world.copy()
    q_low = low_part(state).copy()
    position = np.zeros(n_bodies, dtype=np.int64)
    size = np.full(n_bodies, pieces, dtype=np.int64)
    iterations = np.zeros(n_bodies, dtype=np.int64)
    substeps = np.zeros(n_bodies, dtype=np.int64)
    tried = np.zeros(n_bodies, dtype=np.int64)
    status = non_finite_status(q, omega_world, L_world)  # a non-finite body is reported as such, not stepped
    while True:
        unfinished = (position < pieces) & (status == STATUS_OK)
        status[unfinished & (tried == newton.max_pieces)] = STATUS_TOO_MANY_PIECES
        active = np.flatnonzero(unfinished & (tried < newton.max_pieces))
        if active.size == 0:
            break
        tried[active] += 1
        piece_state = BodyState(q[active], omega_world[active], L_world[active], q_low[active])
        h_piece = h * (size[active] / pieces)
        piece_params = params[active]
        new_state, converged, piece_iterations = _attempt(method, jacobian, newton, piece_state, piece_params, h_piece)
        iterations[active] += piece_iterations
        done, failed = active[converged], active[~converged]
        q[done], omega_world[done], L_world[done] = new_state.q, new_state.omega_world, new_state.L_world
        q_low[done] = new_state.q_low
        position[done] += size[done]
        substeps[done] += 1
        size[done] = position[done] & -position[done]
        size[failed] >>= 1
        status[failed[size[failed] == 0]] = STATUS_NOT_CONVERGED
    status = np.maximum(status, non_finite_status(q, omega_world, L_world))
    return BodyState(q, omega_world, L_world, q_low), StepCost(iterations, substeps), status


def _twin_step(method, state, params, h, newton):
    """The compiled kernel's step run plain (sim/integrators/kernel_twins.py): the kernel's bits, no numba."""
    q, omega_world, L_world, iterations, substeps, status, q_low = twin_implicit_step(
        method.name, state.q, low_part(state), state.omega_world, state.L_world, params.inertia_body_inv,
        params.torque_world, float(h), *newton._kernel_arguments,
    )  # fmt: skip
    # The twin's outputs are fresh C-ordered float64 arrays: no copies to make.
    new_state = BodyState.of_float_arrays(q, omega_world, L_world, q_low)
    return new_state, StepCost.of_arrays(iterations, substeps), status


def kernel_newton_arguments(newton: NewtonOptions) -> tuple[float, int, int, float, int]:
    """The kernels' Newton arguments: tolerance, max iterations, max sub-step depth, squared max step angle, max
    pieces (made once, with the options)."""
    return newton._kernel_arguments


def step_implicit(
    method: ImplicitMethod,
    state: BodyState,
    params: BodyParams,
    h: float,
    *,
    backend: str = "numba",
    jacobian: str = "analytic",
    newton: NewtonOptions = NEWTON_DEFAULTS,
    out: StepBuffers | None = None,
) -> tuple[BodyState, StepCost]:
    """Advance N bodies by ``h`` seconds with ``method``; the implicit integrators' ``step`` with its options.

    ``backend``: ``"numba"`` (compiled kernel), ``"numpy"`` (the reference) or ``"twin"`` (the kernel's own
    source run plain, sim/integrators/kernel_twins.py: the compiled bits without numba). ``jacobian``:
    ``"analytic"`` (hand-written) or ``"dual"`` (dual numbers; numpy backend only). ``newton``: Newton's
    tolerance, iteration and step-angle limits and the sub-stepping depth
    (:class:`~sim.integrators.newton.NewtonOptions`). A body Newton fails on has its step halved up to
    ``newton.max_substep_depth`` times, with the torque held constant; then :class:`sim.errors.NumericalError`
    names it. ``out``: where the compiled kernel writes the new state (:class:`~sim.integrators.state.StepBuffers`;
    ``None``: new arrays).
    """
    if backend == "twin":
        check_jacobian("numba", jacobian)  # the twin is the kernel: the hand-written Jacobian only
    elif backend != "numba" or jacobian != "analytic":
        check_jacobian(backend, jacobian)
    if not params.gyroscopic:
        return magnus_step(state, params, h, terms=1, exponential="exact", backend=backend, out=out)
    if backend == "twin":
        new_state, cost, status = _twin_step(method, state, params, h, newton)
    elif backend == "numba":
        n_bodies = state.q.shape[0]
        new_state, status = StepBuffers.empty(n_bodies) if out is None else out
        cost = StepCost.of_arrays(np.empty(n_bodies, np.int64), np.empty(n_bodies, np.int64))
        q_low = np.empty((n_bodies, 4))
        import spinlab.sim.integrators._kernels as kernels  # numba is imported at a kernel's first call

        run_threaded(
            kernels.implicit_kernel, n_bodies, kernels.KERNEL_METHODS[method.name], state.q, low_part(state),
            state.omega_world, state.L_world, params.inertia_body_inv, params.torque_world, float(h),
            *newton._kernel_arguments, new_state.q, new_state.omega_world, new_state.L_world, cost.newton_iterations,
            cost.substeps, status, q_low,
        )  # fmt: skip
        new_state = BodyState.of_float_arrays(new_state.q, new_state.omega_world, new_state.L_world, q_low)
    else:
        with np.errstate(all="ignore"):  # failures are detected per body and raised below
            new_state, cost, status = _advance_in_pieces(method, state, params, np.float64(h), jacobian, newton)
    raise_on_failure(method.name, status, h, newton.max_substep_depth, newton.max_step_angle, newton.max_pieces)
    return new_state, cost


def implicit_step(method: ImplicitMethod, rule: str) -> Callable[..., tuple[BodyState, StepCost]]:
    """The ``step`` of the implicit integrator ``method`` (``rule`` names it in the docstring): its options named,
    not passed on as ``**options``, which cost a third of a one-body step's call."""

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
        return step_implicit(method, state, params, h, backend=backend, jacobian=jacobian, newton=newton, out=out)

    step.__doc__ = (
        f"Advance N bodies by ``h`` seconds with {rule}. Options (backend, Jacobian, Newton and sub-stepping, the "
        "buffers) and errors: see ``implicit.step_implicit``."
    )
    return step


def step_composed_in_kernel(
    method: ImplicitMethod,
    coefficients: np.ndarray,
    state: BodyState,
    params: BodyParams,
    h: float,
    *,
    backend: str = "numba",
    jacobian: str = "analytic",
    newton: NewtonOptions = NEWTON_DEFAULTS,
    out: StepBuffers | None = None,
) -> tuple[BodyState, StepCost] | None:
    """The composition of ``method`` by ``coefficients`` (:mod:`sim.integrators.composition`; an array, float64)
    in one kernel call: the same state and cost as one :func:`step_implicit` per stage, with the gyroscopic term on
    and the numba backend. Options as :func:`step_implicit`'s. Returns ``None`` if any body fails, for the caller
    to re-run the stages one by one and report which stage failed for which bodies."""
    if backend != "numba" or jacobian != "analytic":
        check_jacobian(backend, jacobian)
    n_bodies = state.q.shape[0]
    new, status = StepBuffers.empty(n_bodies) if out is None else out
    iterations, substeps = np.empty(n_bodies, np.int64), np.empty(n_bodies, np.int64)
    q_low = np.empty((n_bodies, 4))
    import spinlab.sim.integrators._kernels as kernels  # numba is imported at a kernel's first call

    run_threaded(
        kernels.composed_kernel, n_bodies, kernels.KERNEL_METHODS[method.name], coefficients, state.q,
        low_part(state), state.omega_world, state.L_world, params.inertia_body_inv, params.torque_world, float(h),
        *newton._kernel_arguments, new.q, new.omega_world, new.L_world, iterations, substeps, status, q_low,
    )  # fmt: skip
    if np.count_nonzero(status):
        return None
    new_state = BodyState.of_float_arrays(new.q, new.omega_world, new.L_world, q_low)
    return new_state, StepCost.of_arrays(iterations, substeps)
