"""What an integrator steps: the state of a batch of rigid bodies, their parameters, and what a step cost.

The leading axis of every array is the body (N bodies). ``q`` is a unit quaternion ``(w, x, y, z)``, body → world.
The rotational state keeps both the world angular velocity ``ω`` and the world angular momentum ``L = I_w ω``
(``I_w = O I Oᵀ``, math.md §Notation): the implicit methods advance ``L`` exactly (``L' = L + h τ``) and derive
``ω' = O' I⁻¹ O'ᵀ L'`` from it, the explicit ones advance ``ω`` and derive ``L'``; keeping both means neither
method loses its conserved quantity to a round trip through the other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from spinlab.sim.quaternion import quat_conj, quat_rotate
from spinlab.sim.vector import Mat3, Quat, Vec3, cross

__all__ = [
    "BodyState",
    "BodyParams",
    "StepCost",
    "StepBuffers",
    "low_part",
    "from_omega_world",
    "from_omega_body",
    "energy",
    "omega_body",
    "matvec",
    "to_world",
    "to_body",
    "omega_world_from_momentum",
    "momentum_from_omega_world",
    "angular_acceleration",
]


def _float_array(x: Any) -> np.ndarray:
    return np.ascontiguousarray(x, dtype=np.float64)


def matvec(M: Mat3, x: Vec3) -> Vec3:
    """``M x`` for ``(..., 3, 3)`` matrices and ``(..., 3)`` vectors, column by column.

    Written with elementwise operations only, so every body's result is the same whatever batch it is in, and
    it runs on :class:`sim.dual.Dual` arrays.
    """
    return M[..., :, 0] * x[..., 0, None] + M[..., :, 1] * x[..., 1, None] + M[..., :, 2] * x[..., 2, None]


def to_world(q: Quat, x_body: Vec3) -> Vec3:
    """``O x``: body-frame vectors to the world frame."""
    return quat_rotate(q, x_body)


def to_body(q: Quat, x_world: Vec3) -> Vec3:
    """``Oᵀ x``: world-frame vectors to the body frame."""
    return quat_rotate(quat_conj(q), x_world)


def omega_world_from_momentum(q: Quat, L_world: Vec3, inertia_body_inv: Mat3) -> Vec3:
    """``ω = O I⁻¹ Oᵀ L`` (rad/s, world) from the world angular momentum (kg m²/s)."""
    return to_world(q, matvec(inertia_body_inv, to_body(q, L_world)))


def momentum_from_omega_world(q: Quat, omega_world: Vec3, inertia_body: Mat3) -> Vec3:
    """``L = O I Oᵀ ω`` (kg m²/s, world) from the world angular velocity (rad/s)."""
    return to_world(q, matvec(inertia_body, to_body(q, omega_world)))


@dataclass(frozen=True, eq=False)
class BodyState:
    """Rotational state of N bodies at one instant.

    ``q``: (N, 4) unit quaternion (w, x, y, z), body → world. ``omega_world``: (N, 3) rad/s, world frame.
    ``L_world``: (N, 3) kg m²/s, world frame. Consistent states satisfy ``ω = O I⁻¹ Oᵀ L``; build them with
    :meth:`from_omega_world` or :meth:`from_omega_body`.

    ``q_low``: (N, 4) or ``None`` (zeros): the orientation's low part, what ``q`` rounded off. The orientation is
    ``q + q_low``, a double-double, in the methods that carry it (the rotations about the principal axes, and the
    implicit methods, their compositions and splittings, whose every Newton piece adds its turn): each step adds
    its increment to it by compensated summation (:func:`sim.quaternion.compensated_step`), so rounding does not
    pile up with the number of steps. ``|q_low|`` is at most half an ulp of ``q``'s
    components: a method that does not carry it reads ``q`` alone and returns ``None``, losing nothing it kept.
    """

    q: Quat
    omega_world: Vec3
    L_world: Vec3
    q_low: Quat | None = None

    def __post_init__(self) -> None:
        # Construction, not mutation: store contiguous float64, which the compiled kernels read directly.
        for name in ("q", "omega_world", "L_world"):
            object.__setattr__(self, name, _float_array(getattr(self, name)))
        if self.q_low is not None:
            object.__setattr__(self, "q_low", _float_array(self.q_low))

    def __len__(self) -> int:
        return self.q.shape[0]

    @classmethod
    def of_float_arrays(cls, q: Quat, omega_world: Vec3, L_world: Vec3, q_low: Quat | None = None) -> BodyState:
        """The state of arrays that are C-contiguous float64 already (not checked: a kernel's outputs, rows of the
        world's arrays), without the copies or checks of construction: the one-body step's hot path."""
        state = object.__new__(cls)
        fields = state.__dict__  # a third of what four object.__setattr__ cost
        fields["q"], fields["omega_world"], fields["L_world"], fields["q_low"] = q, omega_world, L_world, q_low
        return state

    def __getitem__(self, index: Any) -> BodyState:
        """The bodies at ``index`` (a slice, index array or mask), as a new state."""
        q_low = None if self.q_low is None else self.q_low[index]
        return BodyState(self.q[index], self.omega_world[index], self.L_world[index], q_low)

    @classmethod
    def from_omega_world(cls, q: Quat, omega_world: Vec3, inertia_body: Mat3) -> BodyState:
        """State from orientations and world angular velocities; ``L = O I Oᵀ ω``."""
        q, omega_world = _float_array(q), _float_array(omega_world)
        return cls(q, omega_world, momentum_from_omega_world(q, omega_world, _float_array(inertia_body)))

    @classmethod
    def from_omega_body(cls, q: Quat, omega_body: Vec3, inertia_body: Mat3) -> BodyState:
        """State from orientations and body angular velocities ``Ω``: ``ω = O Ω``, ``L = O I Ω``."""
        q, omega_body = _float_array(q), _float_array(omega_body)
        L_world = to_world(q, matvec(_float_array(inertia_body), omega_body))
        return cls(q, to_world(q, omega_body), L_world)


from_omega_world = BodyState.from_omega_world
from_omega_body = BodyState.from_omega_body


@dataclass(frozen=True, eq=False)
class BodyParams:
    """What a step needs besides the state, for N bodies.

    ``inertia_body``: (N, 3, 3) kg m², body frame, symmetric positive definite. ``inertia_body_inv``: its inverse.
    ``torque_world``: (N, 3) N m, world frame, held constant over a step. ``gyroscopic``: whether the gyroscopic
    term ``ω × L`` is part of the dynamics (math.md §Torque); off, ω changes only by the torque.
    """

    inertia_body: Mat3
    inertia_body_inv: Mat3
    torque_world: Vec3
    gyroscopic: bool = True

    def __post_init__(self) -> None:
        for name in ("inertia_body", "inertia_body_inv", "torque_world"):
            object.__setattr__(self, name, _float_array(getattr(self, name)))
        object.__setattr__(self, "gyroscopic", bool(self.gyroscopic))

    def __len__(self) -> int:
        return self.inertia_body.shape[0]

    def astype(self, dtype) -> BodyParams:
        """These parameters with their arrays in ``dtype`` (float32: an engine's single precision,
        sim/integrators/engines/common.py), without construction's conversion to float64."""
        params = object.__new__(BodyParams)
        params.__dict__.update(
            inertia_body=self.inertia_body.astype(dtype),
            inertia_body_inv=self.inertia_body_inv.astype(dtype),
            torque_world=self.torque_world.astype(dtype),
            gyroscopic=self.gyroscopic,
        )
        return params

    def __getitem__(self, index: Any) -> BodyParams:
        """The parameters of the bodies at ``index``."""
        return BodyParams(
            self.inertia_body[index], self.inertia_body_inv[index], self.torque_world[index], self.gyroscopic
        )

    @classmethod
    def from_inertia(
        cls, inertia_body: Mat3, torque_world: Vec3 | None = None, *, gyroscopic: bool = True
    ) -> BodyParams:
        """Parameters from body inertia tensors (N, 3, 3); the torque defaults to zero."""
        inertia_body = _float_array(inertia_body)
        n_bodies = inertia_body.shape[0]
        torque = np.zeros((n_bodies, 3)) if torque_world is None else np.broadcast_to(torque_world, (n_bodies, 3))
        return cls(inertia_body, np.linalg.inv(inertia_body), torque, gyroscopic)


@dataclass(frozen=True, eq=False)
class StepCost:
    """What one step cost, per body. ``newton_iterations``: (N,) int64, Newton updates summed over every attempt
    and sub-step (0 for explicit methods). ``substeps``: (N,) int64, the pieces the step was split into (1 when
    it was not split)."""

    newton_iterations: np.ndarray
    substeps: np.ndarray

    @classmethod
    def of_arrays(cls, newton_iterations: np.ndarray, substeps: np.ndarray) -> StepCost:
        """``StepCost(newton_iterations, substeps)`` at half the cost of a frozen dataclass's construction (the
        one-body step's hot path)."""
        cost = object.__new__(cls)
        fields = cost.__dict__
        fields["newton_iterations"], fields["substeps"] = newton_iterations, substeps
        return cost


class StepBuffers(NamedTuple):
    """Where a compiled step of N bodies writes, reused from step to step: the ``out=`` of every integrator's
    ``step`` (which the numpy backends and the closed form ignore). ``state``: the new state's arrays, q (N, 4),
    ω (N, 3), L (N, 3) float64; ``status`` (N,) int8, each body's. The step then returns ``state`` itself: its
    caller copies it out before the next step with the same buffers, and never hands its own state arrays as the
    buffers (a step that fails must leave the state it started from as it was)."""

    state: BodyState
    status: np.ndarray

    @classmethod
    def empty(cls, n_bodies: int) -> StepBuffers:
        """New buffers for ``n_bodies`` bodies (also the arrays of a step given no ``out``)."""
        arrays = np.empty((n_bodies, 4)), np.empty((n_bodies, 3)), np.empty((n_bodies, 3))
        return cls(BodyState.of_float_arrays(*arrays), np.empty(n_bodies, np.int8))


def low_part(state: BodyState) -> Quat:
    """``state.q_low``, or (N, 4) zeros where the state carries none: what a kernel that carries it reads."""
    return np.zeros((len(state), 4)) if state.q_low is None else state.q_low


def omega_body(state: BodyState) -> Vec3:
    """``Ω = Oᵀ ω``: (N, 3) rad/s, body frame."""
    return to_body(state.q, state.omega_world)


def rotational_energy(omega_world: np.ndarray, L_world: np.ndarray) -> np.ndarray:
    """``E = ½ ω·L`` (..., ) joules of ω (..., 3) rad/s and L (..., 3) kg m²/s, both in one frame (the world's):
    the one place the rotational kinetic energy is written."""
    return 0.5 * np.sum(omega_world * L_world, axis=-1)


def energy(state: BodyState, params: BodyParams | None = None) -> np.ndarray:
    """Rotational kinetic energy ``E = ½ ω·L``: (N,) joules.

    It needs only the state (which carries both ω and L); ``params`` is accepted so that every state function
    can be called as ``f(state, params)``, and is not used.
    """
    return rotational_energy(state.omega_world, state.L_world)


def angular_acceleration(state: BodyState, params: BodyParams) -> Vec3:
    """``α = I_w⁻¹ (τ − g ω × L)``: (N, 3) rad/s², world frame (math.md §Torque, seed 000); ``g`` is
    ``params.gyroscopic``. ``I_w⁻¹ = O I⁻¹ Oᵀ`` is applied as two rotations and a body-frame product."""
    net = params.torque_world - cross(state.omega_world, state.L_world) if params.gyroscopic else params.torque_world
    return omega_world_from_momentum(state.q, net, params.inertia_body_inv)
