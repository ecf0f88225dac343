"""``exact``: a step that samples the closed-form torque-free motion — round-off error for any ``h``.

For each body the closed form (:class:`sim.exact.TorqueFreeSolution`, Euler–Poinsot, Landau & Lifshitz §37) is
built from the step's start state and evaluated at ``h``: ``q' = q(h)``. ``q`` is body → world. The start body rate
is taken from the momentum, ``Ω = I⁻¹ Oᵀ L``, so the step is consistent with ``L' = L`` (exactly: a torque-free
``L`` is constant), and ``ω' = O' I⁻¹ O'ᵀ L``. The closed form is accurate to about 1e-12 over many periods and to
rounding over one step; each step's error is of the order of rounding whatever ``h`` is.

Torque breaks the closed form: a body with a non-zero torque is refused with :class:`sim.errors.NumericalError`
naming it. With the gyroscopic term off the model is ``ω̇ = 0`` (torque-free), whose exact solution is the spin
``ω' = ω``, ``q' = exp(h ω) ⊗ q`` (world-frame left multiplication), ``L' = O' I O'ᵀ ω``.

A step that starts exactly (bitwise) where an earlier ``exact`` step of the same body (same inertia) ended goes on
along that step's closed form, at its time plus ``h``, instead of solving the motion again: a run of steps samples
one solution at ``h, 2h, 3h, …`` (a multiple of ``h`` while ``h`` is unchanged), so its error does not accumulate
step by step, and a step costs one evaluation of the closed form (about 50 µs) rather than solving it again
(about 0.3 ms). The solutions are kept in :data:`_CONTINUATIONS`, keyed by the state a step returned, at most
``CACHE_SIZE`` of them (the oldest go first); any other start (a reset, an edited state, a gyroscopic step after
one without the term) solves the motion afresh. Either way the step is the exact motion from its start state.

The case analysis of the closed form (family, separatrix, symmetry) is per body, so the gyroscopic step loops over
the bodies in Python. It is the reference, not a method for a real-time scene of many bodies. Cost: 0 Newton
iterations, 1 sub-step.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from spinlab.sim.errors import NumericalError
from spinlab.sim.exact import TorqueFreeSolution
from spinlab.sim.integrators.checks import STATUS_OK, check_backend, non_finite_status, raise_on_failure
from spinlab.sim.integrators.claims import Claims
from spinlab.sim.integrators.state import (
    BodyParams,
    BodyState,
    StepBuffers,
    StepCost,
    matvec,
    momentum_from_omega_world,
    omega_world_from_momentum,
    to_body,
)
from spinlab.sim.quaternion import quat_exp, quat_mul, quat_normalize

__all__ = ["step", "CACHE_SIZE", "CLAIMS"]

# The closed form: rounding at any h, L constant; a torque breaks it, so it is refused.
CLAIMS = Claims(order=None, conserves_momentum=True, accepts_torque=False, method="closed-form torque-free motion")

NAME = "exact"
_SHOWN_BODIES = 20
CACHE_SIZE = 4096
"""Most continuations kept. A step's are the newest, so the next step finds them all when a batch has at most this
many bodies; older ones (states no step starts from again) are dropped as new ones come."""


@dataclass(frozen=True)
class _Continuation:
    """Where a body is on its closed form: at ``t = t_origin + steps · h`` (s) of ``solution``. Counting steps of
    an unchanged ``h`` keeps ``t`` a multiple of ``h`` rather than a sum of roundings."""

    solution: TorqueFreeSolution
    t_origin: float
    h: float
    steps: int

    @property
    def t(self) -> float:
        return self.t_origin + self.steps * self.h

    def advanced(self, h: float) -> _Continuation:
        """One step of ``h`` further along the same solution."""
        if h == self.h:
            return _Continuation(self.solution, self.t_origin, h, self.steps + 1)
        return _Continuation(self.solution, self.t, h, 1)


class _Continuations:
    """The latest :class:`_Continuation` of at most ``size`` bodies, keyed by the bytes of the state (q, ω, L) a
    step returned and the body's inertia; the oldest entries go first."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: OrderedDict[bytes, _Continuation] = OrderedDict()

    def get(self, key: bytes) -> _Continuation | None:
        return self._entries.get(key)

    def put(self, keys: list[bytes], continuations: list[_Continuation]) -> None:
        entries = self._entries
        for key, continuation in zip(keys, continuations, strict=True):
            entries[key] = continuation
            entries.move_to_end(key)
        while len(entries) > self.size:
            entries.popitem(last=False)

    def clear(self) -> None:
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


_CONTINUATIONS = _Continuations(CACHE_SIZE)


def _state_keys(q: np.ndarray, omega_world: np.ndarray, L_world: np.ndarray, inertia_body: np.ndarray) -> list:
    """One ``bytes`` per body: its q (4), ω (3), L (3) and inertia (9), bit for bit."""
    rows = np.ascontiguousarray(np.concatenate([q, omega_world, L_world, inertia_body.reshape(-1, 9)], axis=1))
    return rows.view(np.dtype((np.void, rows.shape[1] * rows.itemsize))).ravel().tolist()


def _refuse_torque(params: BodyParams, h: float) -> None:
    driven = np.flatnonzero(np.any(params.torque_world != 0.0, axis=-1))
    if driven.size == 0:
        return
    shown = ", ".join(str(i) for i in driven[:_SHOWN_BODIES])
    more = f" and {driven.size - _SHOWN_BODIES} more" if driven.size > _SHOWN_BODIES else ""
    bodies = f"bod{'y' if driven.size == 1 else 'ies'} {shown}{more}"
    raise NumericalError(
        f"{NAME} step of h = {h!r} s refused for {bodies}: a non-zero torque; the closed form holds only for "
        f"torque-free bodies (choose another integrator for them)",
        bodies=driven,
    )


def _closed_form_orientation(
    state: BodyState, params: BodyParams, h: float, stepped: np.ndarray
) -> tuple[np.ndarray, list[int], list[_Continuation]]:
    """``q(h)`` of the torque-free motion from each stepped body's start state: (N, 4), others keep ``q``; and the
    stepped bodies with where each now is on its solution."""
    q_new = state.q.copy()
    rows = np.flatnonzero(stepped).tolist()
    keys = _state_keys(state.q, state.omega_world, state.L_world, params.inertia_body) if rows else []
    omega_body = None
    continuations = []
    solved = []
    for n in rows:
        continuation = _CONTINUATIONS.get(keys[n])
        try:
            with np.errstate(all="ignore"):  # a state too extreme for the closed form gives nan, reported below
                if continuation is None:
                    if omega_body is None:
                        omega_body = matvec(params.inertia_body_inv, to_body(state.q, state.L_world))
                    solution = TorqueFreeSolution.from_body_state(params.inertia_body[n], state.q[n], omega_body[n])
                    continuation = _Continuation(solution, 0.0, h, 1)
                else:
                    continuation = continuation.advanced(h)
                q_new[n] = continuation.solution.orientation(np.array(continuation.t))
        except (ArithmeticError, ValueError):  # overflow in the case analysis: no closed form for this state
            q_new[n] = np.nan
            continue
        solved.append(n)
        continuations.append(continuation)
    with np.errstate(all="ignore"):
        return quat_normalize(q_new), solved, continuations


def step(
    state: BodyState, params: BodyParams, h: float, *, backend: str = "numba", out: StepBuffers | None = None
) -> tuple[BodyState, StepCost]:
    """Advance N torque-free bodies by ``h`` seconds along their exact motion.

    ``backend`` and ``out`` are accepted for the common signature (``backend`` is checked, ``out`` unused); there
    is one implementation (numpy and scipy), which returns new arrays.
    Raises :class:`sim.errors.NumericalError` naming the bodies with a torque, or with a non-finite state.
    """
    check_backend(backend)
    _refuse_torque(params, h)
    status = non_finite_status(state.q, state.omega_world, state.L_world)
    n_bodies = len(state)
    rows: list[int] = []
    continuations: list[_Continuation] = []
    if params.gyroscopic:
        q_new, rows, continuations = _closed_form_orientation(state, params, float(h), status == STATUS_OK)
        L_new = state.L_world.copy()
        with np.errstate(all="ignore"):
            omega_new = omega_world_from_momentum(q_new, L_new, params.inertia_body_inv)
    else:
        with np.errstate(all="ignore"):
            q_new = quat_normalize(quat_mul(quat_exp(h * state.omega_world), state.q))
            omega_new = state.omega_world.copy()
            L_new = momentum_from_omega_world(q_new, omega_new, params.inertia_body)
    status = np.maximum(status, non_finite_status(q_new, omega_new, L_new))
    raise_on_failure(NAME, status, h)
    if rows:
        keys = _state_keys(q_new[rows], omega_new[rows], L_new[rows], params.inertia_body[rows])
        _CONTINUATIONS.put(keys, continuations)
    return BodyState(q_new, omega_new, L_new), StepCost(np.zeros(n_bodies, dtype=np.int64),
                                                        np.ones(n_bodies, dtype=np.int64))  # fmt: skip
