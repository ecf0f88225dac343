"""MuJoCo's step of a free body's rotation, and of a body on a ball joint, under its Euler, implicitfast and RK4
integrators (docs/engines.md §MuJoCo).

Source: MuJoCo's engine (google-deepmind/mujoco, commit a725507, 2026-08-22, after 3.12), checked against the
``mujoco`` 4.0.0 wheel (tests/sim/test_engines_against_peers.py):

- src/engine/engine_forward.c: ``mj_EulerSkip`` (no damping: ``qacc`` as is) and ``mj_advance``
  (``qvel += h qacc``, then positions from the NEW ``qvel``: symplectic Euler), ``mj_implicitSkip`` (implicitfast:
  for a standalone free body, ``qacc = (M − h ∂qfrc_smooth/∂qvel)⁻¹ qfrc`` with the gyroscopic (bias) derivative
  added by ``mjd_freeMhat``, since MuJoCo 3.11), ``mj_RungeKutta`` (the classic tableau; see below for 4.0);
- src/engine/engine_support.c, ``mj_integratePosInd``, and src/engine/engine_util_spatial.c,
  ``mju_quatIntegrate``: ``q ← normalise(q) ⊗ (cos(a/2), sin(a/2) Ω/|Ω|)``, ``a = h |Ω|``; the free joint's
  angular velocity is in the body frame, so the rotation multiplies on the right;
- src/engine/engine_derivative.c, ``mjd_freeMhat`` and ``freeBias_vel_blocks``: the bias ``Ω × I Ω`` and its
  derivative ``[Ω] I − [I Ω]``.

For a free body whose centre of mass is the joint's origin, the rotational block of the mass matrix is ``I`` and
the bias is ``Ω × I Ω``, so in the body frame (``Ω = Oᵀ ω``, ``τ_b = Oᵀ τ``):

    euler:         Ω' = Ω + h I⁻¹ (τ_b − Ω × I Ω)
    implicitfast:  Ω' = Ω + h (I + h ([Ω] I − [I Ω]))⁻¹ (τ_b − Ω × I Ω)      (one Newton step of implicit Euler)
    both:          q' = normalise(q) ⊗ exp(h Ω')
    rk4 (4.0.0):   Kᵢ = dexp⁻¹(θᵢ, Ωᵢ),  θᵢ = h Σⱼ aᵢⱼ Kⱼ,  qᵢ = q ⊗ exp(θᵢ),  Ωᵢ = Ω + h Σⱼ aᵢⱼ αⱼ,
                   αᵢ = I⁻¹ (Oᵢᵀ τ − Ωᵢ × I Ωᵢ),   Ω' = Ω + h Σ bᵢ αᵢ,   q' = q ⊗ exp(h Σ bᵢ Kᵢ)

Under a torque that depends on the orientation (gravity about a pivot: ``τ(q) = (O c) × m g``), the pivoted body is
MuJoCo's body on a ``ball`` joint at the pivot, ``I`` its inertia about the pivot and ``Oᵀ τ(q)`` gravity's part of
``qfrc_bias`` (benchmarks/heavy_top_mujoco.py; tests/sim/test_engine_torque.py):

- Euler and implicitfast evaluate it once, at the start of the step (``mj_forward`` before ``mj_Euler``): ``τ`` is
  ``τ(q₀)`` above;
- RK4 evaluates it at each stage's orientation, ``τ = τ(qᵢ)`` in ``αᵢ`` (``mj_RungeKutta`` runs ``mj_forward`` at
  each), so it stays fourth order under gravity;
- implicitfast's derivative comes from ``mjd_freeMhat``, which is for free joints only: on a ball joint the matrix
  is ``M = I`` and the step is Euler's, to the bit (the ``pivoted=`` option).

The RK4 of the source cited above (and of MuJoCo ≤ 3.12) turns ``q`` by the plain weighted sum ``h Σ bᵢ Ωᵢ``
(second order in ``q``). The ``mujoco`` 4.0.0 wheel does not: its orientation after one step differs from that sum
by ``(h²/12) Ω₁ × Ω'`` to leading order, and equals, to the last bit on the T-handle, the Runge–Kutta–Munthe-Kaas
step above with the exact ``dexp⁻¹`` (found by measurement, tests/sim/test_engines_against_peers.py; the 4.0
source was not available here). spinlab's ``mujoco_rk4`` is that step: fourth order.

MuJoCo's state is ``Ω``; spinlab's is ``ω = O Ω``. A body whose step leaves ``Ω`` bit for bit unchanged (no torque
and no gyroscopic term, or a spin about a principal axis) turned about ``ω`` itself, so ``ω' = ω`` exactly is kept
instead of the rounding of ``O' Ω``. ``mju_normalize3`` takes the axis (1, 0, 0) below ``mjMINVAL`` = 1e-15 rad/s.

No compiled kernel: ``backend`` "numba" and "numpy" both run this numpy code (sim/integrators/engines/common.py).
"""

from __future__ import annotations

import numpy as np

from spinlab.sim.integrators.claims import Claims
from spinlab.sim.integrators.engines.common import (
    TORQUE_AT_START,
    EngineStep,
    axis_angle_quat,
    engine_variants,
    matmul3,
    skew,
    solve3_cramer,
)
from spinlab.sim.integrators.state import BodyParams, BodyState, matvec, to_body, to_world
from spinlab.sim.integrators.torque import OrientationTorque
from spinlab.sim.quaternion import quat_mul, quat_normalize
from spinlab.sim.vector import cross, dot

__all__ = ["STEPS", "VARIANTS", "quat_integrate", "MJ_MINVAL"]

MJ_MINVAL = 1e-15
"""MuJoCo's ``mjMINVAL``: below this norm a vector has no direction (``mju_normalize3``)."""
_RK4_A = ((0.5,), (0.0, 0.5), (0.0, 0.0, 1.0))
_RK4_B = (1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0)
_DEXP_TAYLOR_BELOW = 0.05  # rad: c(a)'s closed form loses digits to cancellation below


def quat_integrate(q: np.ndarray, omega_body: np.ndarray, h: float) -> np.ndarray:
    """``mju_quatIntegrate(q, Ω, h)``: ``normalise(q) ⊗ (cos(a/2), sin(a/2) n)``, ``a = h |Ω|``, ``n = Ω/|Ω|``."""
    norm = np.sqrt(dot(omega_body, omega_body))
    directed = norm >= MJ_MINVAL
    unit = np.where(directed[..., None], omega_body / np.where(directed, norm, 1.0)[..., None], [1.0, 0.0, 0.0])
    angle = h * norm
    rotation = np.where((angle == 0.0)[..., None], [1.0, 0.0, 0.0, 0.0], axis_angle_quat(unit, angle))
    return quat_mul(quat_normalize(q), rotation)


def _acceleration(q: np.ndarray, omega_body: np.ndarray, params: BodyParams, torque_world: np.ndarray) -> np.ndarray:
    """``qacc``'s rotational part, ``I⁻¹ (Oᵀ τ − g Ω × I Ω)`` (rad/s², body frame), ``τ`` = ``torque_world``."""
    force = to_body(q, torque_world)
    if params.gyroscopic:
        force = force - cross(omega_body, matvec(params.inertia_body, omega_body))
    return matvec(params.inertia_body_inv, force)


def _world_rate(state: BodyState, q_new: np.ndarray, omega_body: np.ndarray, omega_body_new: np.ndarray):
    """``ω' = O' Ω'``, or ``ω`` itself where the step left ``Ω`` unchanged (the module)."""
    unchanged = np.all(omega_body_new == omega_body, axis=-1)
    return np.where(unchanged[..., None], state.omega_world, to_world(q_new, omega_body_new))


def _euler(state: BodyState, params: BodyParams, h: float) -> tuple[np.ndarray, np.ndarray]:
    omega_body = to_body(state.q, state.omega_world)
    omega_body_new = omega_body + h * _acceleration(state.q, omega_body, params, params.torque_world)
    q_new = quat_integrate(state.q, omega_body_new, h)
    return q_new, _world_rate(state, q_new, omega_body, omega_body_new)


def _implicitfast(
    state: BodyState, params: BodyParams, h: float, *, pivoted: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """``pivoted`` (N,) bool: the bodies on a ball joint, which ``mjd_freeMhat`` leaves alone (it adds the bias'
    derivative to a free joint only): their step is ``mujoco_euler``'s, bit for bit. ``None``: every body free."""
    omega_body = to_body(state.q, state.omega_world)
    euler = omega_body + h * _acceleration(state.q, omega_body, params, params.torque_world)
    if not params.gyroscopic or (pivoted is not None and np.all(pivoted)):
        omega_body_new = euler  # no bias derivative: A = M = I, mujoco_euler's step
    else:
        # mjd_freeMhat: A = M − h ∂qfrc_smooth/∂qvel = I + h ([Ω] I − [I Ω]), the bias' derivative; qacc = A⁻¹ qfrc.
        momentum = matvec(params.inertia_body, omega_body)
        matrix = params.inertia_body + h * (matmul3(skew(omega_body), params.inertia_body) - skew(momentum))
        force = to_body(state.q, params.torque_world) - cross(omega_body, momentum)
        omega_body_new = omega_body + h * solve3_cramer(matrix, force)
        if pivoted is not None:
            omega_body_new = np.where(np.asarray(pivoted, dtype=bool)[..., None], euler, omega_body_new)
    q_new = quat_integrate(state.q, omega_body_new, h)
    return q_new, _world_rate(state, q_new, omega_body, omega_body_new)


def _dexp_inv(theta: np.ndarray, omega_body: np.ndarray) -> np.ndarray:
    """``dexp⁻¹_θ Ω = Ω + ½ θ × Ω + c(|θ|) θ × (θ × Ω)``, ``c(a) = (1 − (a/2) cot(a/2)) / a²``: the rate of the
    rotation vector ``θ`` of ``q₀⁻¹ q`` when the body turns at ``Ω`` (body frame). ``c`` by its Taylor polynomial
    ``1/12 + a²/720 + a⁴/30240 + a⁶/1209600`` below a = 0.05 (next term < 1e-18)."""
    angle_sq = dot(theta, theta)
    half = 0.5 * np.sqrt(angle_sq)
    small = angle_sq < _DEXP_TAYLOR_BELOW**2
    safe_half = np.where(small, 1.0, half)
    closed = (1.0 - safe_half / np.tan(safe_half)) / (4.0 * safe_half * safe_half)
    series = 1.0 / 12.0 + angle_sq * (1.0 / 720.0 + angle_sq * (1.0 / 30240.0 + angle_sq / 1209600.0))
    coefficient = np.where(small, series, closed)
    theta_x_omega = cross(theta, omega_body)
    return omega_body + 0.5 * theta_x_omega + coefficient[..., None] * cross(theta, theta_x_omega)


def _rk4(
    state: BodyState, params: BodyParams, h: float, *, orientation_torque: OrientationTorque | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """``orientation_torque``: ``τ(q)`` evaluated at each stage's orientation ``qᵢ`` (added to the constant
    ``params.torque_world``), as ``mj_RungeKutta`` runs ``mj_forward`` at each stage: fourth order under it."""
    q0 = state.q
    omega_body = to_body(q0, state.omega_world)

    def acceleration(q: np.ndarray, rate: np.ndarray) -> np.ndarray:
        torque = params.torque_world if orientation_torque is None else params.torque_world + orientation_torque(q)
        return _acceleration(q, rate, params, torque)

    slopes = [omega_body]  # Kᵢ = dexp⁻¹(θᵢ, Ωᵢ); θ₁ = 0
    accelerations = [acceleration(q0, omega_body)]
    for row in _RK4_A:
        theta = np.zeros_like(omega_body)
        d_acceleration = np.zeros_like(omega_body)
        for weight, slope, stage_acceleration in zip(row, slopes, accelerations, strict=False):
            theta = theta + weight * slope
            d_acceleration = d_acceleration + weight * stage_acceleration
        theta = h * theta
        q_stage = quat_integrate(q0, theta, 1.0)
        rate_stage = omega_body + h * d_acceleration
        slopes.append(_dexp_inv(theta, rate_stage))
        accelerations.append(acceleration(q_stage, rate_stage))
    theta = np.zeros_like(omega_body)
    d_acceleration = np.zeros_like(omega_body)
    for weight, slope, stage_acceleration in zip(_RK4_B, slopes, accelerations, strict=True):
        theta = theta + weight * slope
        d_acceleration = d_acceleration + weight * stage_acceleration
    omega_body_new = omega_body + h * d_acceleration
    q_new = quat_integrate(q0, h * theta, 1.0)
    return q_new, _world_rate(state, q_new, omega_body, omega_body_new)


STEPS = (
    EngineStep(
        "mujoco_euler",
        _euler,
        Claims(
            order=1,
            conserves_momentum=False,
            orientation_torque=True,
            torque_at=TORQUE_AT_START,
            method="MuJoCo Euler (default): explicit ω × Iω, body frame, symplectic: q turned by the new Ω",
        ),
        "#17becf",
    ),
    EngineStep(
        "mujoco_implicitfast",
        _implicitfast,
        Claims(
            order=1,
            conserves_momentum=False,
            orientation_torque=True,
            torque_at=TORQUE_AT_START,
            pivot_aware=True,
            implicit=True,
            method="MuJoCo implicitfast: one Newton step of implicit Euler on ω × Iω (free bodies, 3.11+; Euler's "
            "step about a pivot), body frame",
        ),
        "#aec7e8",
    ),
    EngineStep(
        "mujoco_rk4",
        _rk4,
        Claims(
            order=4,
            conserves_momentum=False,
            orientation_torque=True,
            torque_at="τ(q) at each of the four stages: order 4 under gravity",
            method="MuJoCo RK4 (4.0): classic Runge–Kutta on Ω, Munthe-Kaas (RKMK4) on q, body frame",
        ),
        "#9467bd",
        torque_at_stages=True,
    ),
)
VARIANTS = engine_variants(*STEPS, place=20, float32=False)
"""MuJoCo's three integrators on a free body: their records (:class:`~sim.integrators.record.Integrator`); MuJoCo
is built in double precision, so no float32 twins."""
