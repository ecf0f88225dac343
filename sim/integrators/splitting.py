"""Splitting under an orientation-dependent torque: kicks of the torque and free rigid-body flows, composed.

A torque that depends on the orientation only, ``τ(q)`` (gravity about a pivot: ``τ = (O c) × m g``;
:mod:`sim.integrators.torque`), splits the motion into two flows that are each easy:

- the **kick** ``K_t``: ``L̇ = τ(q)`` at fixed ``q``. Then ``τ`` is constant, so ``L' = L + t τ(q)`` is its exact
  flow (without the gyroscopic term, ``ω' = ω + t I_w⁻¹ τ(q)``, ``I_w`` fixed with ``q``);
- the **free flow** ``F_t``: the torque-free rigid body, ``L`` constant, taken by one implicit midpoint step
  (:mod:`sim.integrators.implicit_midpoint`: symmetric, second order, ``L`` exact; Newton and sub-stepping as
  there). Without the gyroscopic term the free flow is the spin ``q' = exp(t ω) q``, exact.

Both are symplectic maps of the rigid body's phase space (the kick is the exact flow of the potential energy
``V(q)``, the midpoint rule in exponential coordinates is symplectic for the free body), so every composition is.
Strang's splitting ``S_h = K_{h/2} ∘ F_h ∘ K_{h/2}`` is symmetric (``S_h⁻¹ = S_{−h}``, as ``K`` and ``F`` are)
and second order; a palindromic composition ``S_{γ_s h} ∘ … ∘ S_{γ_1 h}`` of it is symmetric too, and of order 4
or 6 with the coefficients of :mod:`sim.integrators.composition` (Yoshida's triple jump, Kahan & Li's 9 stages;
Hairer, Lubich & Wanner, *Geometric Numerical Integration*, §II.5 and §V.3). Neighbouring half kicks act at the
same ``q`` and merge, so ``s`` stages take ``s + 1`` kicks, of lengths ``(γ_{i−1} + γ_i) h / 2``. Unlike holding
the torque constant over a step (the other integrators), the torque is evaluated where each kick happens, so the
order holds under torque; and, symplectic, the total energy ``E + V`` stays bounded (no drift).

A constant torque ``params.torque_world`` is added to ``τ(q)`` in every kick (it depends on nothing, so its kicks
are exact as well). Torque-free, every kick adds zero: ``L`` is carried exactly, and the step is the composition
of midpoint steps — for the Strang splitting the midpoint rule itself, bit for bit.

Backends: ``"numba"`` runs every stage of a body in one compiled kernel (:func:`sim.integrators._kernels.split_kernel`)
when ``τ(q)`` is ``None`` or a :class:`~sim.integrators.torque.LeverTorque`; ``"numpy"`` (or any other callable
``τ``) runs the stages one by one: a kick in numpy, then a midpoint step with the backend asked for. A failing
body is named (with the stage, on the stage-by-stage path). Cost: Newton iterations summed over the stages;
``substeps`` the most pieces any free flow was split into.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import numpy as np

from spinlab.sim.errors import NumericalError
from spinlab.sim.integrators.checks import check_jacobian, non_finite_status, raise_on_failure
from spinlab.sim.integrators.implicit_midpoint import step as midpoint_step
from spinlab.sim.integrators.kernel_twins import split_step as twin_split_step
from spinlab.sim.integrators.newton import NEWTON_DEFAULTS, NewtonOptions
from spinlab.sim.integrators.state import (
    BodyParams,
    BodyState,
    StepBuffers,
    StepCost,
    low_part,
    momentum_from_omega_world,
    omega_world_from_momentum,
)
from spinlab.sim.integrators.threads import run as run_threaded
from spinlab.sim.integrators.torque import LeverTorque, OrientationTorque
from spinlab.sim.quaternion import compensated_step, quat_exp_minus_one

__all__ = ["STRANG", "kick_lengths", "step_split"]

STRANG = (1.0,)
"""One stage: the Strang splitting itself."""


def kick_lengths(coefficients: tuple[float, ...]) -> np.ndarray:
    """The ``s + 1`` kick lengths, in units of ``h``, of ``s`` Strang stages of ``γ_i h``: ``(γ_{i−1} + γ_i)/2``
    with ``γ_0 = γ_{s+1} = 0``."""
    gammas = np.asarray(coefficients, dtype=np.float64)
    return 0.5 * (np.concatenate([[0.0], gammas]) + np.concatenate([gammas, [0.0]]))


@lru_cache(maxsize=16)
def _schedule(coefficients: tuple[float, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The stage lengths and kick lengths (units of ``h``) as read-only arrays, built once per scheme."""
    gammas, kicks = np.asarray(coefficients, dtype=np.float64), kick_lengths(coefficients)
    gammas.flags.writeable = kicks.flags.writeable = False
    return gammas, kicks


def split_step(name: str, coefficients: tuple[float, ...]) -> Callable[..., tuple[BodyState, StepCost]]:
    """The ``step`` of the splitting ``name``, Strang stages of ``coefficients``: its options named, not passed
    on as ``**options``."""

    def step(
        state: BodyState,
        params: BodyParams,
        h: float,
        *,
        orientation_torque: OrientationTorque | None = None,
        backend: str = "numba",
        jacobian: str = "analytic",
        newton: NewtonOptions = NEWTON_DEFAULTS,
        out: StepBuffers | None = None,
    ) -> tuple[BodyState, StepCost]:
        return step_split(
            name, coefficients, state, params, h, orientation_torque=orientation_torque, backend=backend,
            jacobian=jacobian, newton=newton, out=out,
        )  # fmt: skip

    step.__doc__ = (
        "Advance N bodies by ``h`` seconds. Keyword-only options: ``orientation_torque`` and the implicit midpoint "
        "rule's (:func:`sim.integrators.splitting.step_split`)."
    )
    return step


def step_split(
    name: str,
    coefficients: tuple[float, ...],
    state: BodyState,
    params: BodyParams,
    h: float,
    *,
    orientation_torque: OrientationTorque | None = None,
    backend: str = "numba",
    jacobian: str = "analytic",
    newton: NewtonOptions = NEWTON_DEFAULTS,
    out: StepBuffers | None = None,
) -> tuple[BodyState, StepCost]:
    """Advance N bodies by ``h`` seconds by Strang stages of ``γ_i h`` (``coefficients``), see the module.

    ``orientation_torque``: ``τ(q)`` (N, 4) → (N, 3) N m world, added to ``params.torque_world`` at every kick
    (``None``: none). ``out``: where the compiled kernel writes the new state
    (:class:`~sim.integrators.state.StepBuffers`; the stage-by-stage path never uses it). The other options are the
    implicit midpoint rule's (``implicit.step_implicit``), for every free flow. Raises
    :class:`sim.errors.NumericalError` naming ``name`` and the failing bodies.
    """
    kernel_torque = orientation_torque is None or isinstance(orientation_torque, LeverTorque)
    if backend == "twin":
        # The kernel run plain (sim/integrators/kernel_twins.py), with the gyroscopic term; else the
        # stages on numpy, never numba's compiler (the window's thread calls this).
        check_jacobian("numba", jacobian)
        if params.gyroscopic and kernel_torque:
            return _run_twin(name, *_schedule(tuple(coefficients)), state, params, h, orientation_torque, newton)
        backend = "numpy"
    elif backend != "numba" or jacobian != "analytic":
        check_jacobian(backend, jacobian)
    gammas, kicks = _schedule(tuple(coefficients))
    if backend == "numba" and kernel_torque:
        return _run_kernel(name, gammas, kicks, state, params, h, orientation_torque, newton, out)
    with np.errstate(all="ignore"):  # non-finite states are reported by body
        return _run_stages(name, coefficients, kicks, state, params, h, orientation_torque, backend=backend,
                           jacobian=jacobian, newton=newton)  # fmt: skip


def _run_kernel(name, coefficients, kicks, state, params, h, orientation_torque, newton, out):
    n_bodies = state.q.shape[0]
    if orientation_torque is None:
        lever = force = np.zeros((n_bodies, 3))
    else:
        lever, force = orientation_torque.lever_body, orientation_torque.force_world
    new, status = StepBuffers.empty(n_bodies) if out is None else out
    iterations, substeps = np.empty(n_bodies, np.int64), np.empty(n_bodies, np.int64)
    q_low = np.empty((n_bodies, 4))
    import spinlab.sim.integrators._kernels as kernels  # numba is imported at a kernel's first call

    run_threaded(
        kernels.split_kernel, n_bodies, coefficients, kicks, state.q, low_part(state), state.omega_world,
        state.L_world, params.inertia_body, params.inertia_body_inv, params.torque_world, lever, force, float(h),
        params.gyroscopic, *newton._kernel_arguments, new.q, new.omega_world, new.L_world, iterations, substeps,
        status, q_low,
    )  # fmt: skip
    raise_on_failure(name, status, h, newton.max_substep_depth, newton.max_step_angle, newton.max_pieces)
    new = BodyState.of_float_arrays(new.q, new.omega_world, new.L_world, q_low)
    return new, StepCost.of_arrays(iterations, substeps)


def _run_twin(name, coefficients, kicks, state, params, h, orientation_torque, newton):
    n_bodies = state.q.shape[0]
    if orientation_torque is None:
        lever = force = np.zeros((n_bodies, 3))
    else:
        lever, force = orientation_torque.lever_body, orientation_torque.force_world
    q, omega_world, L_world, iterations, substeps, status, q_low = twin_split_step(
        coefficients, kicks, state.q, low_part(state), state.omega_world, state.L_world, params.inertia_body_inv,
        params.torque_world, lever, force, float(h), *newton._kernel_arguments,
    )  # fmt: skip
    raise_on_failure(name, status, h, newton.max_substep_depth, newton.max_step_angle, newton.max_pieces)
    # The twin's outputs are fresh C-ordered float64 arrays: no copies to make.
    return BodyState.of_float_arrays(q, omega_world, L_world, q_low), StepCost.of_arrays(iterations, substeps)


def _run_stages(name, coefficients, kicks, state, params, h, orientation_torque, **options):
    """The stages one by one (the reference the kernel is tested against, and the path of any callable ``τ``)."""
    n_bodies = len(state)
    q, omega_world, L_world, q_low = state.q, state.omega_world, state.L_world, low_part(state)
    iterations = np.zeros(n_bodies, dtype=np.int64)
    substeps = np.ones(n_bodies, dtype=np.int64)
    torque_free = BodyParams(params.inertia_body, params.inertia_body_inv, np.zeros((n_bodies, 3)), True)

    def torque(q: np.ndarray) -> np.ndarray:
        return params.torque_world if orientation_torque is None else params.torque_world + orientation_torque(q)

    for stage, kick in enumerate(kicks):
        kick_h = kick * h
        if params.gyroscopic:
            L_world = L_world + kick_h * torque(q)
        else:
            omega_world = omega_world + kick_h * omega_world_from_momentum(q, torque(q), params.inertia_body_inv)
        if stage == len(coefficients):
            break
        stage_h = coefficients[stage] * h
        if not params.gyroscopic:
            q, q_low = compensated_step(q, q_low, quat_exp_minus_one(stage_h * omega_world), None)
            continue
        try:
            # The free flow reads q and L (ω only for the finiteness check); it returns ω consistent with L.
            free, cost = midpoint_step(BodyState(q, omega_world, L_world, q_low), torque_free, stage_h, **options)
        except NumericalError as error:
            where = f"stage {stage + 1} of {len(coefficients)}, {coefficients[stage]:.6g} h"
            raise NumericalError(f"{name} ({where}): {error}", bodies=error.bodies) from error
        q, omega_world, L_world, q_low = free.q, free.omega_world, free.L_world, low_part(free)
        iterations += cost.newton_iterations
        np.maximum(substeps, cost.substeps, out=substeps)
    if params.gyroscopic:
        omega_world = omega_world_from_momentum(q, L_world, params.inertia_body_inv)
    else:
        L_world = momentum_from_omega_world(q, omega_world, params.inertia_body)
    raise_on_failure(name, non_finite_status(q, omega_world, L_world), h)
    return BodyState(q, omega_world, L_world, q_low), StepCost(iterations, substeps)
