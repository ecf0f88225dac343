"""What the explicit integrators share: packaging a new state with its cost, and running a compiled kernel.

An explicit step advances ``ω`` and ``q`` from the state at the start of the step and derives the momentum of the
new state, ``L' = O' I O'ᵀ ω'``. It costs no Newton iteration and is never split.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import numpy as np

from spinlab.sim.integrators.checks import non_finite_status, raise_on_failure
from spinlab.sim.integrators.state import BodyParams, BodyState, StepBuffers, StepCost, momentum_from_omega_world
from spinlab.sim.integrators.threads import run as run_threaded

__all__ = ["finish_explicit", "run_explicit_kernel", "explicit_cost"]


@lru_cache(maxsize=64)
def explicit_cost(n_bodies: int) -> StepCost:
    """An explicit step's cost: no Newton iteration, one sub-step, for each of ``n_bodies`` bodies. A constant, made
    once per batch size and shared, so its arrays are read-only."""
    iterations, substeps = np.zeros(n_bodies, dtype=np.int64), np.ones(n_bodies, dtype=np.int64)
    iterations.flags.writeable = substeps.flags.writeable = False
    return StepCost(iterations, substeps)


def _result(name: str, h: float, state: BodyState, status: np.ndarray) -> tuple[BodyState, StepCost]:
    raise_on_failure(name, status, h)
    return state, explicit_cost(state.q.shape[0])


def finish_explicit(
    name: str, h: float, q: np.ndarray, omega_world: np.ndarray, params: BodyParams
) -> tuple[BodyState, StepCost]:
    """The numpy path's new state from ``q'`` and ``ω'``, checked for finiteness."""
    with np.errstate(all="ignore"):  # a non-finite state is reported below, by body
        L_world = momentum_from_omega_world(q, omega_world, params.inertia_body)
    state = BodyState(q, omega_world, L_world)
    return _result(name, h, state, non_finite_status(state.q, state.omega_world, state.L_world))


def run_explicit_kernel(
    name: str,
    kernel: Callable[..., None],
    state: BodyState,
    params: BodyParams,
    h: float,
    *options: object,
    out: StepBuffers | None = None,
) -> tuple[BodyState, StepCost]:
    """Call ``kernel(q, ω, L, I, I⁻¹, τ, h, gyroscopic, *options, q_out, ω_out, L_out, status_out)``, writing
    into ``out`` (:class:`StepBuffers`; ``None``: new arrays)."""
    n_bodies = state.q.shape[0]
    new, status = StepBuffers.empty(n_bodies) if out is None else out
    run_threaded(
        kernel, n_bodies, state.q, state.omega_world, state.L_world, params.inertia_body, params.inertia_body_inv,
        params.torque_world, float(h), params.gyroscopic, *options, new.q, new.omega_world, new.L_world, status,
    )  # fmt: skip
    raise_on_failure(name, status, h)
    return new, explicit_cost(n_bodies)
