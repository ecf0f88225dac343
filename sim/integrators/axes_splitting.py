"""The free rigid body split into rotations about its principal axes: explicit, symplectic, ``|L|`` kept.

In principal axes (moments ``I₁ ≤ I₂ ≤ I₃``, body momentum ``Π = O_pᵀ L``, attitude ``O_p = O P`` with ``P`` the
principal axes in body coordinates) the kinetic energy is a sum of three terms, each exactly solvable:

    H = Π₁²/(2 I₁) + Π₂²/(2 I₂) + Π₃²/(2 I₃)

The flow of ``Hₖ = Πₖ²/(2 Iₖ)`` over ``t`` keeps ``Πₖ``, so its angular velocity ``Ω = (Πₖ/Iₖ) eₖ`` is constant: it
turns the attitude about body axis ``k`` by ``θ = t Πₖ/Iₖ``, ``O_p' = O_p Rₖ(θ)``, and the body momentum the other
way, ``Π' = Rₖ(−θ) Π`` (``Π̇ = Π × Ω``), so the world momentum ``O_p Π`` does not move at all. Each flow is the
exact flow of a Hamiltonian, hence symplectic; Strang's composition

    F_h = R₁(h/2) ∘ R₃(h/2) ∘ R₂(h) ∘ R₃(h/2) ∘ R₁(h/2)

is symmetric (``F_h⁻¹ = F_{−h}``), second order, symplectic and time-reversible (McLachlan, "Explicit Lie–Poisson
integration and the Euler equations", Phys. Rev. Lett. 71 (1993) 3043–3046; Reich, "Momentum conserving
symplectic integrators", Physica D 76 (1994) 375–383; Dullweber, Leimkuhler & McLachlan, "Symplectic splitting
methods for rigid body molecular dynamics", J. Chem. Phys. 107 (1997) 5840–5851). The order of the axes is a choice:
over six bodies (T-handle, heavy tops, two symmetric ones) and compositions of order 2 to 8, the smallest moment
outside and the intermediate one in the middle gave the smallest error or close to it (errors of the six orders
spread over up to 30×). Rotating ``Π`` by ``cos θ = 1 − 2 sin²(θ/2)``, ``sin θ = 2 sin(θ/2) cos(θ/2)`` and the
attitude by the quaternion ``(cos(θ/2), sin(θ/2) eₖ)``: one sine and one cosine a rotation (from Taylor polynomials
at a step's small angles), ``|Π|`` kept to rounding, and the world ``L`` carried exactly (it is never recomputed
from the rotated ``Π``).

**The orientation is a double-double.** A step's rotations are gathered as its differences from 1 (the left turn
about ``L`` and the right one in the principal frame, ``cos − 1`` never formed as a difference), and the sum is added
to ``q + q_low`` (:class:`~sim.integrators.state.BodyState`) by compensated summation
(:func:`sim.integrators._kernels.compensated_step`); ``Π`` is found from ``q`` in float64 at each step's start. In
float64 the T-handle's error over 60 s bottomed out at 1–8e-12 rad and rose as ``h`` shrank (one rounding of ``q``
a rotation, amplified 20–80× by the flips); carried so, it stays below 2.5e-13 rad down to ``h`` = 1/2000.

**Torque-free, the fast spin is taken out exactly.** With ``I₂`` the intermediate moment,

    H = |Π|²/(2 I₂) + ½ (1/I_f − 1/I₂) Π_f² + ½ (1/I_n − 1/I₂) Π_n²

where ``n`` (near) is whichever of the smallest and the largest moment has its inverse nearer ``1/I₂`` and ``f``
(far) the other. The first term is a Casimir of the Lie–Poisson bracket: its flow ``C`` leaves ``Π`` as it is and
turns the attitude about world ``L`` by ``t |L|/I₂`` (``q_p' = (cos x, sin x L/|L|) ⊗ q_p``, ``x = ½ t |L|/I₂``),
and it commutes with every other flow (a left factor, where the others are right factors, and ``L`` is fixed).
So ``C`` is applied once a step, exactly, and only the slow motion of ``Π`` under the other two terms is split:
Strang's ``F(h/2) ∘ N(h) ∘ F(h/2)``, rotations about the far and the near axis at the reduced rates
``Πₖ (1/Iₖ − 1/I₂)``, the larger term outside. A body spinning near an axis (the T-handle about its intermediate
one) then has small reduced rates, and the splitting's error constants shrink with them; for a symmetric top the
near term vanishes and the step is exact. On the T-handle this is 20× to 1000× more accurate than the split into
three axes at the same step and order, for half the rotations (the idea of splitting off an integrable part that
carries the fast motion is that of splittings for near-integrable systems: McLachlan, "Composition methods in the
presence of small parameters", BIT 35 (1995) 258–268; Fassò, "Comparison of splitting algorithms for the rigid
body", J. Comput. Phys. 189 (2003), finds that second-order splittings of the rigid body differ in energy error
by orders of magnitude with how ``H`` is split, for the same moments). Near-integrable coefficients
(Blanes, Casas, Farrés, Laskar, Makazaga & Murua, "New families of symplectic splitting methods for numerical
integration in dynamical astronomy", Appl. Numer. Math. 68 (2013) 58–72: ABA(8,6,4), ABA(10,6,4), ABA(10,4))
were measured on the T-handle and lost to the Kahan–Li compositions at equal rotations: the near term is not
small enough (``(1/I_n − 1/I₂)/(1/I₂ − 1/I_f)`` = 0.17 for the T-handle) for their ``ε² h⁴``-type terms to vanish.
Under a torque ``C`` no longer commutes with the kicks, and the driven schedule keeps the three axes.

Composed by symmetric palindromic coefficients (:mod:`sim.integrators.composition`: Yoshida's triple jump, Kahan &
Li's 9 and 17 stages) it is of order 4, 6 or 8; the outer rotations of neighbouring stages merge
(``R₁(a) R₁(b) = R₁(a + b)``: ``Π₁`` is constant under both), so ``s`` stages take ``2 s + 2`` rotations
torque-free (``C`` included) and ``4 s + 1`` under a torque.

Under a torque that depends on the orientation only (gravity about a pivot; :mod:`sim.integrators.torque`) each
Strang stage is wrapped in the torque's exact kick, ``K_{γh/2} ∘ F_{γh} ∘ K_{γh/2}``, ``L' = L + t τ(q)`` at fixed
``q`` (``Π`` gets ``t O_pᵀ τ``), neighbouring kicks merged: a splitting of ``V + H₁ + H₂ + H₃``, symplectic and of
the composition's order under the torque (as :mod:`sim.integrators.splitting`, with these rotations in place of
the midpoint step). A body with no torque at all takes the torque-free schedule.

Without the gyroscopic term the model's free flow is the spin ``q' = exp(t ω) q`` and the step is
:mod:`sim.integrators.splitting`'s of the same coefficients (exact spins and kicks).

The schedules (which flow, for how long) are built here once per scheme; :func:`sim.integrators._kernels.axes_kernel`
runs them one body at a time, :func:`_run_numpy` for all bodies at once (the reference). ``q`` is body → world.
The principal frame of each body's inertia is found once per :class:`BodyParams` (numpy's ``eigh``, kept while the
params live: the world keeps its params from step to step). Explicit: no Newton iteration, one sub-step.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from functools import lru_cache

import numpy as np

from spinlab.sim.euler_poinsot import principal_frame
from spinlab.sim.integrators.checks import check_backend, non_finite_status, raise_on_failure
from spinlab.sim.integrators.explicit import explicit_cost
from spinlab.sim.integrators.splitting import step_split
from spinlab.sim.integrators.state import (
    BodyParams,
    BodyState,
    StepBuffers,
    StepCost,
    low_part,
    omega_world_from_momentum,
)
from spinlab.sim.integrators.threads import run as run_threaded
from spinlab.sim.integrators.torque import LeverTorque, OrientationTorque
from spinlab.sim.quaternion import compensated_step, quat_conj, quat_from_matrix, quat_mul, quat_rotate
from spinlab.sim.taylor import rodrigues_coefficients

__all__ = ["KICK", "FAR", "NEAR", "CASIMIR", "AXIS_ORDER", "schedules", "reduced_axes", "axes_step", "step_axes"]

KICK = 3
"""A schedule's code for the torque's kick; codes 0, 1, 2 rotate about principal axes of ascending moment."""
FAR, NEAR, CASIMIR = 4, 5, 6
"""The torque-free schedule's codes: the reduced rotations about the far and the near axis, the rotation about L."""

AXIS_ORDER = (0, 2, 1)
"""Strang's sandwich from the outside in: the smallest moment's axis, the largest's, the intermediate one's."""


def _merged(flows: list[tuple[int, float]]) -> list[tuple[int, float]]:
    """Neighbouring flows of the same kind as one, their lengths summed (each flow is a one-parameter group)."""
    merged: list[tuple[int, float]] = []
    for code, length in flows:
        if merged and merged[-1][0] == code:
            merged[-1] = (code, merged[-1][1] + length)
        else:
            merged.append((code, length))
    return merged


@lru_cache(maxsize=16)
def schedules(coefficients: tuple[float, ...]) -> tuple[np.ndarray, np.ndarray]:
    """``(codes, lengths)``, each (2, K): row 0 the torque-free schedule (the reduced splitting: :data:`FAR`,
    :data:`NEAR`, then one :data:`CASIMIR` for the whole step), row 1 the driven one (the three axes, kicks around
    every Strang stage), as flow codes (0–2 an axis, :data:`KICK`, 4–6 as named, −1 past the end) and lengths in
    units of ``h``. Two rows, so that :func:`sim.integrators.threads.run` never takes them for per-body arrays.
    Read-only."""
    outer, between, inner = AXIS_ORDER
    free: list[tuple[int, float]] = []
    driven: list[tuple[int, float]] = []
    for gamma in coefficients:
        half = 0.5 * gamma
        stage = [(outer, half), (between, half), (inner, gamma), (between, half), (outer, half)]
        free += [(FAR, half), (NEAR, gamma), (FAR, half)]
        driven += [(KICK, half), *stage, (KICK, half)]
    rows = [_merged(free) + [(CASIMIR, 1.0)], _merged(driven)]
    size = max(len(row) for row in rows)
    codes, lengths = np.full((2, size), -1, dtype=np.int64), np.zeros((2, size))
    for index, row in enumerate(rows):
        codes[index, : len(row)] = [code for code, _ in row]
        lengths[index, : len(row)] = [length for _, length in row]
    codes.flags.writeable = lengths.flags.writeable = False
    return codes, lengths


# Each params' principal frame: (moments (N, 3) ascending, axes as quaternions (N, 4) body ← principal).
_FRAMES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _frame(params: BodyParams) -> tuple[np.ndarray, np.ndarray]:
    """The principal moments and the principal frame's quaternion ``p`` (``O_p = O P``, ``q_p = q ⊗ p``) of
    ``params``' bodies, found once for a params object (BodyParams is frozen; its arrays are not to be edited)."""
    frame = _FRAMES.get(params)
    if frame is None:
        moments, axes_body = principal_frame(params.inertia_body)
        frame = (np.ascontiguousarray(moments), np.ascontiguousarray(quat_from_matrix(axes_body)))
        _FRAMES[params] = frame
    return frame


def reduced_axes(moments: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(far, near, reduced)`` of bodies of principal ``moments`` (N, 3) ascending: the axis (0 or 2) whose
    inverse moment lies farther from the intermediate one's, the other, and ``1/Iₖ − 1/I₂`` (N, 3) (the kernel's
    arithmetic). A tie goes to ``near = 0``."""
    inverse = 1.0 / moments
    reduced = inverse - inverse[:, 1:2]
    near = np.where(reduced[:, 0] <= -reduced[:, 2], 0, 2)
    return 2 - near, near, reduced


def _driven(params: BodyParams, lever: np.ndarray | None, force: np.ndarray | None) -> np.ndarray:
    """(N,) bool: the bodies some torque acts on (a constant one, or a lever and a force both non-zero); the
    rule :func:`sim.integrators._kernels.axes_kernel` applies body by body."""
    driven = np.any(params.torque_world != 0.0, axis=-1)
    if lever is not None:
        driven |= np.any(lever != 0.0, axis=-1) & np.any(force != 0.0, axis=-1)
    return driven


def axes_step(name: str, coefficients: tuple[float, ...]) -> Callable[..., tuple[BodyState, StepCost]]:
    """The ``step`` of the splitting ``name``: Strang stages of ``coefficients`` (see the module)."""

    def step(
        state: BodyState,
        params: BodyParams,
        h: float,
        *,
        orientation_torque: OrientationTorque | None = None,
        backend: str = "numba",
        out: StepBuffers | None = None,
    ) -> tuple[BodyState, StepCost]:
        return step_axes(name, coefficients, state, params, h, orientation_torque=orientation_torque,
                         backend=backend, out=out)  # fmt: skip

    step.__doc__ = (
        "Advance N bodies by ``h`` seconds. Keyword-only options: ``orientation_torque`` τ(q), ``backend`` "
        "(``numba`` or ``numpy``) and ``out`` (:func:`sim.integrators.axes_splitting.step_axes`)."
    )
    return step


def step_axes(
    name: str,
    coefficients: tuple[float, ...],
    state: BodyState,
    params: BodyParams,
    h: float,
    *,
    orientation_torque: OrientationTorque | None = None,
    backend: str = "numba",
    out: StepBuffers | None = None,
) -> tuple[BodyState, StepCost]:
    """Advance N bodies by ``h`` seconds by Strang stages of ``γ_i h`` (``coefficients``) of the rotations about
    the principal axes, kicked by the torque (see the module).

    ``orientation_torque``: ``τ(q)`` (N, 4) → (N, 3) N m world, added to ``params.torque_world`` at every kick
    (``None``: none); the compiled kernel takes a :class:`~sim.integrators.torque.LeverTorque`, any other callable
    runs the numpy path. ``out``: where the kernel writes the new state. Raises :class:`sim.errors.NumericalError`
    naming ``name`` and the bodies whose state is not finite.
    """
    check_backend(backend)
    if not params.gyroscopic:
        return step_split(name, coefficients, state, params, h, orientation_torque=orientation_torque,
                                    backend=backend, out=out)  # fmt: skip
    codes, lengths = schedules(tuple(coefficients))
    moments, frame_q = _frame(params)
    n_bodies = state.q.shape[0]
    if backend == "numba" and (orientation_torque is None or isinstance(orientation_torque, LeverTorque)):
        if orientation_torque is None:
            lever = force = np.zeros((n_bodies, 3))
        else:
            lever, force = orientation_torque.lever_body, orientation_torque.force_world
        new, status = StepBuffers.empty(n_bodies) if out is None else out
        q_low = low_part(state)
        q_low_out = np.empty((n_bodies, 4)) if new.q_low is None else new.q_low
        import spinlab.sim.integrators._kernels as kernels  # numba is imported at a kernel's first call

        run_threaded(
            kernels.axes_kernel, n_bodies, codes, lengths, state.q, q_low, state.L_world, params.inertia_body_inv,
            moments, frame_q, params.torque_world, lever, force, float(h), new.q, q_low_out, new.omega_world,
            new.L_world, status,
        )  # fmt: skip
        raise_on_failure(name, status, h)
        new = BodyState.of_float_arrays(new.q, new.omega_world, new.L_world, q_low_out)
        return new, explicit_cost(n_bodies)
    with np.errstate(all="ignore"):  # non-finite states are reported by body
        new_state = _run_numpy(codes, lengths, state, params, h, orientation_torque, moments, frame_q)
    raise_on_failure(name, non_finite_status(new_state.q, new_state.omega_world, new_state.L_world), h)
    return new_state, StepCost(np.zeros(n_bodies, dtype=np.int64), np.ones(n_bodies, dtype=np.int64))


def _turn(rho, momentum, rate, axis, t):
    """The flow of ``½ rate Π_axis²`` over ``t`` s (module docstring; ``rate`` (N,) is ``1/I_axis``, or the
    reduced ``1/I_axis − 1/I₂``) for every body, on the step's right factor so far ``R = 1 + ρ`` (N, 4), principal
    frame: the new ``ρ`` and ``Π`` (N, 3). With ``(k, i, j)`` cyclic and ``(cos(θ/2), sin(θ/2) e_k) = (1 + m, s e_k)``,
    ``(1 + ρ) ⊗ (1 + m, s e_k) − 1`` is ``ρ_w + (m (1 + ρ_w) − s ρ_k)``, ``ρ_k + (m ρ_k + s (1 + ρ_w))``,
    ``ρ_i + (m ρ_i + s ρ_j)``, ``ρ_j + (m ρ_j − s ρ_i)``; and ``Π_i' = cos θ Π_i + sin θ Π_j``,
    ``Π_j' = −sin θ Π_i + cos θ Π_j`` (the kernel's arithmetic)."""
    i, j = (axis + 1) % 3, (axis + 2) % 3
    half_angle = (0.5 * t) * momentum[:, axis] * rate  # the kernel's product
    cm1, s = _cos_m1_sin(half_angle)
    c = 1.0 + cm1
    cos_angle, sin_angle = 1.0 - 2.0 * s * s, 2.0 * s * c
    w, r_k, r_i, r_j = rho[:, 0], rho[:, 1 + axis], rho[:, 1 + i], rho[:, 1 + j]
    w1 = 1.0 + w
    rho_new = np.empty_like(rho)
    rho_new[:, 0] = w + (cm1 * w1 - s * r_k)
    rho_new[:, 1 + axis] = r_k + (cm1 * r_k + s * w1)
    rho_new[:, 1 + i] = r_i + (cm1 * r_i + s * r_j)
    rho_new[:, 1 + j] = r_j + (cm1 * r_j - s * r_i)
    momentum_new = momentum.copy()
    momentum_new[:, i] = cos_angle * momentum[:, i] + sin_angle * momentum[:, j]
    momentum_new[:, j] = cos_angle * momentum[:, j] - sin_angle * momentum[:, i]
    return rho_new, momentum_new


def _cos_m1_sin(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(cos x − 1, sin x)`` (N,), each to an ulp of itself: the kernel's polynomials at a step's small angles
    (sim/taylor.py's closed form above them, where the kernel takes ``−2 sin²(x/2)``)."""
    x_sq = x * x
    s1, s2, _ = rodrigues_coefficients(x_sq)
    return -(x_sq * s2), x * s1


def _about_momentum(gamma, L_world, inverse_intermediate, t):
    """The flow of the Casimir ``|L|²/(2 I₂)`` over ``t`` s on the step's left factor so far ``C = 1 + γ``
    (N, 4), world frame: ``(cos x, sin x L/|L|) ⊗ C − 1`` with ``x = ½ t |L|/I₂`` (``inverse_intermediate`` (N,)
    is ``1/I₂``), as the kernel computes it."""
    half_angle = (0.5 * t) * np.sqrt(L_world[:, 0] * L_world[:, 0] + L_world[:, 1] * L_world[:, 1]
                                     + L_world[:, 2] * L_world[:, 2]) * inverse_intermediate  # fmt: skip
    half_angle_sq = half_angle * half_angle
    s1, s2, _ = rodrigues_coefficients(half_angle_sq)
    factor = s1 * (0.5 * t) * inverse_intermediate
    turn = np.concatenate([(-(half_angle_sq * s2))[:, None], factor[:, None] * L_world], axis=-1)
    return gamma + turn + quat_mul(turn, gamma)


def _run_numpy(codes, lengths, state, params, h, orientation_torque, moments, frame_q) -> BodyState:
    """Every body through its schedule, flow by flow (the reference the kernel is tested against)."""
    n_bodies = len(state)
    if orientation_torque is None:
        driven = _driven(params, None, None)
    elif isinstance(orientation_torque, LeverTorque):
        driven = _driven(params, orientation_torque.lever_body, orientation_torque.force_world)
    else:
        driven = np.ones(n_bodies, dtype=bool)  # any other τ(q) may act on any body
    q_low_in = low_part(state)
    q_out, q_low_out, L_out = np.empty((n_bodies, 4)), np.empty((n_bodies, 4)), np.empty((n_bodies, 3))
    far, near, reduced = reduced_axes(moments)
    for row, bodies in enumerate((np.flatnonzero(~driven), np.flatnonzero(driven))):
        if bodies.size == 0:
            continue
        frame = frame_q[bodies]
        q_start = quat_mul(state.q[bodies], frame)
        L_world = state.L_world[bodies]
        momentum = quat_rotate(quat_conj(q_start), L_world)
        rho, gamma = np.zeros((bodies.size, 4)), np.zeros((bodies.size, 4))
        torque_world = params.torque_world[bodies]
        for code, length in zip(codes[row], lengths[row], strict=True):
            if code < 0:
                break
            t = length * h
            if code == KICK:
                torque = torque_world
                q_principal = q_start + quat_mul(q_start, rho)
                q_principal = q_principal + quat_mul(gamma, q_principal)
                if orientation_torque is not None:
                    # A general τ(q) drives every body (row 1 is then all of them, in order); a lever is sliced.
                    at = (
                        orientation_torque[bodies]
                        if isinstance(orientation_torque, LeverTorque)
                        else orientation_torque
                    )
                    torque = torque + at(quat_mul(q_principal, quat_conj(frame)))
                L_world = L_world + t * torque
                momentum = momentum + t * quat_rotate(quat_conj(q_principal), torque)
                continue
            if code == CASIMIR:
                gamma = _about_momentum(gamma, L_world, 1.0 / moments[bodies, 1], t)
            elif code in (FAR, NEAR):
                for axis in (0, 2):  # each body's far and near axis: at most two groups
                    at = np.flatnonzero((far if code == FAR else near)[bodies] == axis)
                    if at.size:
                        rho[at], momentum[at] = _turn(rho[at], momentum[at], reduced[bodies[at], axis], axis, t)
            else:
                rho, momentum = _turn(rho, momentum, 1.0 / moments[bodies, code], int(code), t)
        right = np.concatenate([rho[:, :1], quat_rotate(frame, rho[:, 1:])], axis=-1)  # B − 1 = p ⊗ ρ ⊗ p*
        q_out[bodies], q_low_out[bodies] = compensated_step(state.q[bodies], q_low_in[bodies], gamma, right)
        L_out[bodies] = L_world
    omega_world = omega_world_from_momentum(q_out, L_out, params.inertia_body_inv)
    return BodyState(q_out, omega_world, L_out, q_low_out)
