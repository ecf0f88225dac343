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
step by step, and a step costs one evaluation of the closed form rather than solving it again.
Where each body is on its solution is kept in :data:`_CONTINUATIONS`, keyed by the state a step returned, at most
``CACHE_SIZE`` of them (the oldest go first); any other start (a reset, an edited state, a gyroscopic step after
one without the term) solves the motion afresh. Either way the step is the exact motion from its start state.

The evaluation is one batch over every body of the step (sim/torque_free_rows.py), and so is solving afresh but
for the case analysis (family, separatrix, symmetry: per body, sim/torque_free_solve.py); both give the bits of
one :class:`TorqueFreeSolution` per body. A continued step costs ~1 ms for up to ~10 bodies and ~10 µs a body from
a few hundred, a fresh one ~0.4 ms a body from a hundred (benchmarks/exact_step.py), against ~0.3–0.5 ms and
~1.7 ms a body one by one. Cost: 0 Newton iterations, 1 sub-step.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from itertools import repeat

import numpy as np

from spinlab.sim.errors import NumericalError
from spinlab.sim.integrators.checks import STATUS_OK, check_backend, non_finite_status, raise_on_failure
from spinlab.sim.integrators.claims import Claims
from spinlab.sim.integrators.record import Integrator
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
from spinlab.sim.torque_free_rows import TorqueFreeRows
from spinlab.sim.torque_free_solve import solve_rows

__all__ = ["step", "CACHE_SIZE", "INTEGRATOR"]


NAME = "exact"
_SHOWN_BODIES = 20
CACHE_SIZE = 4096
"""Most continuations kept. A step's are the newest, so the next step finds them all when a batch has at most this
many bodies; older ones (states no step starts from again) are dropped as new ones come."""


@dataclass(frozen=True, eq=False)
class _Along:
    """Where the M bodies a step solved are on their closed forms: body k at ``t = t_origin[k] + steps[k] · h``
    (s) of row k of ``forms``. Counting steps of an unchanged ``h`` keeps ``t`` a multiple of ``h`` rather than a
    sum of roundings. The store holds ``(along, k)`` per body."""

    forms: TorqueFreeRows
    t_origin: np.ndarray
    h: float
    steps: np.ndarray

    @property
    def t(self) -> np.ndarray:
        return self.t_origin + self.steps * self.h


class _Continuations:
    """The latest continuation ``(along, k)`` (:class:`_Along`) of at most ``size`` bodies, keyed by the bytes of
    the state (q, ω, L) a step returned and the body's inertia; the oldest entries go first."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: OrderedDict[bytes, tuple[_Along, int]] = OrderedDict()

    def get(self, key: bytes) -> tuple[_Along, int] | None:
        return self._entries.get(key)

    def put(self, keys: list[bytes], continuations: list[tuple[_Along, int]]) -> None:
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


def _continued(found: list[tuple[_Along, int]]) -> tuple[TorqueFreeRows, np.ndarray, np.ndarray, np.ndarray]:
    """The closed forms of bodies found in the store, in ``found``'s order, and where each was: its rows,
    ``t_origin``, ``h`` and ``steps`` (C,). Usually every body comes from the last step, in its order."""
    alongs = [along for along, _ in found]
    index = np.fromiter((k for _, k in found), np.int64, len(found))
    first = alongs[0]
    if all(along is first for along in alongs):
        whole = len(index) == len(first.forms) and bool(np.all(index == np.arange(len(index))))
        forms = first.forms if whole else first.forms.take(index)
        return forms, first.t_origin[index], np.full(len(index), first.h), first.steps[index]
    # Bodies from several steps (some reset or edited in between): each step's rows taken, then put in order.
    distinct = list({id(along): along for along in alongs}.values())
    code_of = {id(along): code for code, along in enumerate(distinct)}
    codes = np.fromiter((code_of[id(along)] for along in alongs), np.int64, len(alongs))
    groups = [np.flatnonzero(codes == code) for code in range(len(distinct))]
    order = np.empty(len(found), dtype=np.int64)
    order[np.concatenate(groups)] = np.arange(len(found))
    parts = [(along, index[group]) for along, group in zip(distinct, groups, strict=True)]
    forms = TorqueFreeRows.concatenate([along.forms.take(rows) for along, rows in parts]).take(order)
    t_origin = np.concatenate([along.t_origin[rows] for along, rows in parts])[order]
    h = np.concatenate([np.full(len(rows), along.h) for along, rows in parts])[order]
    steps = np.concatenate([along.steps[rows] for along, rows in parts])[order]
    return forms, t_origin, h, steps


def _solved(state: BodyState, params: BodyParams, rows: list[int]) -> tuple[list[int], TorqueFreeRows | None]:
    """The closed forms of bodies ``rows``, solved from their start states (``Ω = I⁻¹ Oᵀ L``): the bodies whose
    state the closed form takes, and their rows (sim/torque_free_solve.py: the case analysis per body, the rest at
    once). Only a step from a state no step returned comes here: a run's first step, a reset, an edit."""
    omega_body = matvec(params.inertia_body_inv[rows], to_body(state.q[rows], state.L_world[rows]))
    solved, forms = solve_rows(params.inertia_body[rows], state.q[rows], omega_body)
    return np.asarray(rows, dtype=np.int64)[solved].tolist(), forms


def _closed_form_orientation(
    state: BodyState, params: BodyParams, h: float, stepped: np.ndarray
) -> tuple[np.ndarray, np.ndarray, _Along | None]:
    """``q(h)`` of the torque-free motion from each stepped body's start state: (N, 4), others keep ``q``, a body
    with no closed form NaN; and the bodies stepped along a closed form with where each now is on it."""
    q_new = state.q.copy()
    rows = np.flatnonzero(stepped)
    if not rows.size:
        with np.errstate(all="ignore"):
            return quat_normalize(q_new), rows, None
    keys = _state_keys(state.q[rows], state.omega_world[rows], state.L_world[rows], params.inertia_body[rows])
    stored = [_CONTINUATIONS.get(key) for key in keys]
    known = np.fromiter((entry is not None for entry in stored), bool, len(stored))
    found = [entry for entry in stored if entry is not None]
    with np.errstate(all="ignore"):  # a state too extreme for the closed form gives nan, reported by the caller
        fresh, fresh_forms = _solved(state, params, rows[~known].tolist()) if not known.all() else ([], None)
        solved = np.sort(np.concatenate([rows[known], np.array(fresh, dtype=np.int64)]))
        q_new[rows[~known]] = np.nan
        if not solved.size:
            return quat_normalize(q_new), solved, None
        parts, t_origin, steps = [], [], []
        if found:
            # One more step of h along each stored solution: a multiple of h while h is unchanged.
            forms, origin, h_before, steps_before = _continued(found)
            same = h_before == h
            parts.append(forms)
            t_origin.append(np.where(same, origin, origin + steps_before * h_before))
            steps.append(np.where(same, steps_before + 1, 1))
        if fresh_forms is not None:
            parts.append(fresh_forms)
            t_origin.append(np.zeros(len(fresh)))
            steps.append(np.ones(len(fresh), dtype=np.int64))
        # Back to body order: the stored bodies come first in ``parts``, then the fresh ones.
        order = np.argsort(np.concatenate([rows[known], np.array(fresh, dtype=np.int64)]), kind="stable")
        forms = parts[0] if len(parts) == 1 else TorqueFreeRows.concatenate(parts)
        if len(parts) > 1 or not np.all(order == np.arange(len(order))):
            forms = forms.take(order)
        along = _Along(forms, np.concatenate(t_origin)[order], h, np.concatenate(steps)[order])
        q_new[solved] = forms.orientation(along.t)
        return quat_normalize(q_new), solved, along


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
    rows: np.ndarray = np.empty(0, dtype=np.int64)
    along = None
    if params.gyroscopic:
        q_new, rows, along = _closed_form_orientation(state, params, float(h), status == STATUS_OK)
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
    if along is not None:
        keys = _state_keys(q_new[rows], omega_new[rows], L_new[rows], params.inertia_body[rows])
        _CONTINUATIONS.put(keys, list(zip(repeat(along), range(len(rows)))))
    return BodyState(q_new, omega_new, L_new), StepCost(np.zeros(n_bodies, dtype=np.int64),
                                                        np.ones(n_bodies, dtype=np.int64))  # fmt: skip


# The closed form: rounding at any h, L constant; a torque breaks it, so it is refused.
INTEGRATOR = Integrator(
    NAME,
    step,
    Claims(order=None, conserves_momentum=True, accepts_torque=False, method="closed-form torque-free motion"),
    place=11,
    colour="#e5c494",
    compile_rank=14,
)
