"""What the engines' rotation steps (``bullet``, ``mujoco``, ``physx``, ``jolt``, ``godot``, ``catto2015``) share.

Each engine module writes its step from the engine's own source (cited in its docstring; the formulas in
docs/engines.md) in numpy, batched over bodies with elementwise arithmetic only, so a body's result does not
depend on the batch it is in. None has a compiled kernel: ``backend="numba"`` and ``backend="numpy"`` both run
the same numpy code (the world may pick either while kernels compile), and ``out=`` is not used.

An engine step is explicit in the sense of :mod:`sim.integrators.explicit`: it advances ``ω`` and derives
``L' = O' I O'ᵀ ω'``. Those that take one Newton step for the gyroscopic term report one iteration a body.

A torque that depends on the orientation (gravity about a pivot, ``orientation_torque=τ(q)``,
:mod:`sim.integrators.torque`) is taken as the engine takes it: the one-stage engines (Bullet, PhysX, Jolt, Godot,
Catto, MuJoCo's Euler and implicitfast) evaluate their forces once, from the state at the start of the step, so
``τ(q₀)`` is added to ``params.torque_world`` before their kernel runs; a kernel with stages of its own (MuJoCo's
RK4, :attr:`EngineStep.torque_at_stages`) is handed ``τ`` and evaluates it at each stage, as MuJoCo's
``mj_RungeKutta`` calls ``mj_forward`` at each.

Frames: ``q`` (w, x, y, z) body → world, ``omega_world`` rad/s, ``inertia_body`` kg m² (N, 3, 3), as in
:mod:`sim.integrators.state`. The engines store a diagonal (principal) body inertia; the formulas below are
written for the full symmetric tensor, which is the same method in the principal frame.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

from spinlab.sim.integrators.checks import check_backend
from spinlab.sim.integrators.claims import Claims
from spinlab.sim.integrators.explicit import explicit_cost, finish_explicit
from spinlab.sim.integrators.record import Integrator
from spinlab.sim.integrators.state import BodyParams, BodyState, StepBuffers, StepCost, matvec
from spinlab.sim.integrators.torque import OrientationTorque
from spinlab.sim.quaternion import quat_normalize
from spinlab.sim.vector import cross, dot

__all__ = [
    "EngineStep",
    "engine_variants",
    "TORQUE_AT_START",
    "FLOAT32_SUFFIX",
    "one_newton_cost",
    "matmul3",
    "world_inertia",
    "solve3_cramer",
    "skew",
    "gyroscopic_newton_step",
    "rescaled_momentum_step",
    "clamp_speed",
    "axis_angle_quat",
]

Kernel = Callable[..., tuple[np.ndarray, np.ndarray]]
"""``kernel(state, params, h, **options) -> (q', ω')``: one engine's step in numpy; ``options`` are the step's
keyword options it takes (``orientation_torque`` for a kernel with stages, ``pivoted`` for MuJoCo's implicitfast)."""

TORQUE_AT_START = "τ(q) at the step's start: first order under gravity"
"""The torque timing of a one-stage engine step (:attr:`Claims.torque_at`)."""


@dataclass(frozen=True)
class EngineStep:
    """One engine mode as its module writes it: its name, the numpy ``kernel`` it runs, its claims and its colour
    side by side (``"#rrggbb"``). ``torque_at_stages``: the kernel takes ``orientation_torque=τ(q)`` and evaluates
    it at its own stages; otherwise ``τ`` is evaluated once, at the state the step starts from (the module)."""

    name: str
    kernel: Kernel
    claims: Claims
    colour: str
    torque_at_stages: bool = False


FLOAT32_SUFFIX = "_f32"


def engine_variants(*steps: EngineStep, place: int, float32: bool) -> tuple[Integrator, ...]:
    """The records of an engine's ``steps``: family ``engines``, at ``place``, ``place + 1``, … in the lists.
    ``float32``: each again as ``NAME_f32`` (family ``engines_f32``, the same place and colour), the same kernel on
    the state and parameters rounded to float32 and in float32 arithmetic (numpy keeps float32 through every
    operation of the kernels: Python scalars do not widen it), its new ``q`` and ``ω`` widened back for the world
    (``q`` normalised again in float64). What a game engine built with single precision (Bullet's, PhysX's, Jolt's
    and Godot's defaults, Box2D's) does: the rounding of ~6e-8 relative in every step. A twin's claims are its
    base's, with ``precision="float32"`` (the contract tests take "to rounding" as float32's) and the method saying
    so. No engine step has a compiled kernel: each runs its numpy code whatever the backend."""
    records = [
        Integrator(step.name, _numpy_step(step.name, step.kernel, step.claims, step.torque_at_stages), step.claims,
                   family="engines",
                   place=place + number, colour=step.colour)
        for number, step in enumerate(steps)
    ]  # fmt: skip
    for number, step in enumerate(steps if float32 else ()):
        name = step.name + FLOAT32_SUFFIX
        claims = replace(
            step.claims, precision="float32", method=f"{step.claims.method}; in float32, as the engine stores it"
        )
        records.append(Integrator(name, _numpy_step(name, _in_float32(step.kernel), claims, step.torque_at_stages),
                                  claims,
                                  family="engines_f32", place=place + number, colour=step.colour))  # fmt: skip
    return tuple(records)


def _in_float32(kernel: Kernel) -> Kernel:
    """``kernel`` run on float32 copies of the state and parameters, its results widened back to float64."""

    def single(state: BodyState, params: BodyParams, h: float, **options) -> tuple[np.ndarray, np.ndarray]:
        state32 = BodyState.of_float_arrays(
            *(a.astype(np.float32) for a in (state.q, state.omega_world, state.L_world))
        )
        q, omega = kernel(state32, params.astype(np.float32), h, **options)
        # Widened, q is unit to float32's rounding (~6e-8): normalised again in float64, as the world keeps it.
        return quat_normalize(q.astype(np.float64)), omega.astype(np.float64)

    return single


def _numpy_step(
    name: str, kernel: Kernel, claims: Claims, torque_at_stages: bool
) -> Callable[..., tuple[BodyState, StepCost]]:
    """``step(state, params, h, *, backend, out, orientation_torque, **options)`` that checks the backend, runs the
    numpy ``kernel`` for both (there is no compiled one) with the torque ``τ(q)`` evaluated where the engine
    evaluates it (the module: at the start of the step, or handed to a kernel with ``torque_at_stages``) and the
    other ``options`` passed on (a kernel refuses one it does not take, ``TypeError``), checks the new state for
    finiteness (raising :class:`sim.errors.NumericalError` naming the bodies) and reports one Newton iteration a
    body when ``claims`` say the step is implicit and the gyroscopic term (the one it solves for) is on, none for
    the bodies a ``pivoted=`` option marks (where a pivot-aware step solves nothing)."""

    def step(
        state: BodyState,
        params: BodyParams,
        h: float,
        *,
        backend: str = "numba",
        out: StepBuffers | None = None,
        orientation_torque: OrientationTorque | None = None,
        **options,
    ) -> tuple[BodyState, StepCost]:
        check_backend(backend)
        if orientation_torque is not None:
            if torque_at_stages:
                options["orientation_torque"] = orientation_torque
            else:
                params = replace(params, torque_world=params.torque_world + orientation_torque(state.q))
        with np.errstate(all="ignore"):  # a non-finite state is reported by body in finish_explicit
            q_new, omega_new = kernel(state, params, float(h), **options)
        new, cost = finish_explicit(name, h, q_new, omega_new, params)
        if not (claims.implicit and params.gyroscopic):
            return new, cost
        pivoted = options.get("pivoted")
        if pivoted is None or not np.any(pivoted):
            return new, one_newton_cost(len(new))
        # A pivoted body of a pivot-aware step solves nothing (MuJoCo's implicitfast on a ball joint is Euler's).
        return new, StepCost(np.where(pivoted, 0, 1).astype(np.int64), cost.substeps)

    step.__name__ = f"{name}_step"
    step.__doc__ = f"Advance N bodies by ``h`` seconds with the ``{name}`` engine step ({claims.method})."
    return step


@lru_cache(maxsize=64)
def one_newton_cost(n_bodies: int) -> StepCost:
    """One Newton iteration and one sub-step for each of ``n_bodies`` bodies (read-only, shared)."""
    iterations = np.ones(n_bodies, dtype=np.int64)
    iterations.flags.writeable = False
    return StepCost(iterations, explicit_cost(n_bodies).substeps)


def matmul3(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """``A B`` for ``(..., 3, 3)`` matrices, column by column with :func:`matvec` (elementwise only)."""
    return np.stack([matvec(A, B[..., :, j]) for j in range(3)], axis=-1)


def world_inertia(rotation: np.ndarray, inertia_body: np.ndarray) -> np.ndarray:
    """``I_w = O I Oᵀ``: (N, 3, 3) kg m², from the rotation matrices ``O`` (N, 3, 3) body → world."""
    return matmul3(matmul3(rotation, inertia_body), np.swapaxes(rotation, -1, -2))


def skew(v: np.ndarray) -> np.ndarray:
    """``[v]``, the cross-product matrix of ``(..., 3)`` vectors: ``[v] x = v × x``."""
    zero = np.zeros_like(v[..., 0])
    x, y, z = v[..., 0], v[..., 1], v[..., 2]
    rows = [np.stack([zero, -z, y], -1), np.stack([z, zero, -x], -1), np.stack([-y, x, zero], -1)]
    return np.stack(rows, axis=-2)


def solve3_cramer(A: np.ndarray, b: np.ndarray, *, det_epsilon: float = 0.0) -> np.ndarray:
    """``A⁻¹ b`` by Cramer's rule with the columns' triple products (Bullet's ``btMatrix3x3::solve33``).

    Bullet inverts the determinant only when ``|det| > det_epsilon`` (``SIMD_EPSILON``) and otherwise multiplies
    by it as it is; ``det_epsilon=0`` (the default) is the plain rule."""
    c0, c1, c2 = A[..., :, 0], A[..., :, 1], A[..., :, 2]
    c1_x_c2 = cross(c1, c2)
    det = dot(c0, c1_x_c2)
    scale = np.where(np.abs(det) > det_epsilon, 1.0 / np.where(det == 0.0, 1.0, det), det)
    x = np.stack([dot(b, c1_x_c2), dot(c0, cross(b, c2)), dot(c0, cross(c1, b))], axis=-1)
    return scale[..., None] * x


def gyroscopic_newton_step(omega: np.ndarray, inertia: np.ndarray, h: float, *, det_epsilon: float = 0.0):
    """One Newton step of implicit Euler on the gyroscopic term from ``ω`` (any one frame, ``I`` in it):

        f(ω') = I (ω' − ω) + h ω' × I ω' = 0,   J = ∂f/∂ω' = I + h ([ω'] I − [I ω'])
        ω' = ω − J(ω)⁻¹ f(ω) = ω − J(ω)⁻¹ (h ω × I ω)

    (Catto, GDC 2015; Bullet's ``computeGyroscopicImpulseImplicit_Body``/``_World``; MuJoCo's implicitfast on a
    free body). Returns ``ω'`` (rad/s)."""
    momentum = matvec(inertia, omega)
    residual = h * cross(omega, momentum)
    jacobian = inertia + h * (matmul3(skew(omega), inertia) - skew(momentum))
    return omega - solve3_cramer(jacobian, residual, det_epsilon=det_epsilon)


def rescaled_momentum_step(
    omega_body: np.ndarray, inertia_body: np.ndarray, inertia_body_inv: np.ndarray, h: float
) -> np.ndarray:
    """PhysX's and Jolt's gyroscopic step in the body frame: explicit Euler on the body momentum, then its length
    put back (so the step adds no energy through |ℓ|):

        ℓ = I Ω,   ℓ* = ℓ − h Ω × ℓ,   ℓ' = ℓ* |ℓ| / |ℓ*| (0 when ℓ* = 0),   Ω' = I⁻¹ ℓ'

    Returns ``Ω'`` (rad/s, body frame)."""
    momentum = matvec(inertia_body, omega_body)
    stepped = momentum - h * cross(omega_body, momentum)
    stepped_sq = dot(stepped, stepped)
    # The engines write ``len² > 0 ? ℓ* · ratio : 0``, which turns a NaN momentum into zero; here only ℓ* = 0 gives
    # zero, so a non-finite state stays non-finite and is reported (Jolt's debug build asserts on it).
    ratio = np.sqrt(dot(momentum, momentum) / np.where(stepped_sq == 0.0, 1.0, stepped_sq))
    stepped = np.where((stepped_sq == 0.0)[..., None], 0.0, stepped * ratio[..., None])
    return matvec(inertia_body_inv, stepped)


def clamp_speed(omega: np.ndarray, max_speed: float) -> np.ndarray:
    """``ω`` scaled down to ``max_speed`` rad/s where it is faster (``|ω|² > max²``: ``ω · max/|ω|``)."""
    speed_sq = dot(omega, omega)
    too_fast = speed_sq > max_speed * max_speed
    scale = np.where(too_fast, max_speed / np.sqrt(np.where(too_fast, speed_sq, 1.0)), 1.0)
    return np.where(too_fast[..., None], omega * scale[..., None], omega)


def axis_angle_quat(unit_axis: np.ndarray, angle: np.ndarray) -> np.ndarray:
    """``(cos(θ/2), sin(θ/2) n)``: (N, 4), the rotation by ``angle`` rad about the unit ``unit_axis``."""
    half = 0.5 * angle
    return np.concatenate([np.cos(half)[..., None], np.sin(half)[..., None] * unit_axis], axis=-1)
