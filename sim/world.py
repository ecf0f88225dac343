"""The world: every dynamic body's state in the entity store, stepped in one vectorised call per integrator.

Bodies live in a :class:`~sim.contiguous_list.ContiguousList` (seed 000): hot state in flat arrays, one per field,
so a step runs straight over the arrays, grouped by integrator (one call per group, no per-body loop). Frames
and units: ``q`` (w, x, y, z) body → world; ``omega_world`` rad/s and ``L_world`` kg m²/s in the world frame;
``position`` (of the centre of mass) m and ``velocity`` m/s in the world frame.

Forces: a constant world ``gravity`` (m/s²). A free body's centre of mass falls under it (exactly, being
quadratic in time) and it exerts no torque. A body with a pivot (a point fixed in the body and in space, like a
heavy top's tip) feels the torque ``τ = (O c) × m g`` about the pivot, ``c`` being the centre of mass seen from
the pivot in the body frame; its inertia is then the one about the pivot. Most integrators hold the torque
constant over a step (math.md §The integrators); taken at the start of the step, that makes any integrator first
order in the torque (the heavy top's energy drifts by ~20 % in 10 s at h = 1/120). So the world takes it at the
step's midpoint instead: a predictor step with the starting torque gives the end orientation, the torque is
evaluated on the geodesic midpoint between the two, and the step is taken again from the start with it. That
costs a second step, only when some body has a pivot under gravity, and restores second order — but no more:
im4, im6, ot4 and rkmk4 are second order under torque too. The integrators of
:data:`sim.integrators.ORIENTATION_TORQUE` instead get the torque as the function of the orientation it is,
``τ(q) = (O c) × m g`` (:class:`sim.integrators.torque.LeverTorque`), and take no predictor step: the splittings
(``split2`` … ``split6``, ``axes2`` … ``axes8``) evaluate it at each of their stages and keep their order; the
engines' steps (sim/integrators/engines/) evaluate it where their engine does, once at the start of the step (a
one-stage engine: first order under it, as the engine is) or at each of MuJoCo RK4's four stages (fourth order).
MuJoCo's implicitfast (:data:`sim.integrators.PIVOT_AWARE`) is also told which bodies have a pivot: MuJoCo adds the
gyroscopic derivative to a free joint only, not to a ball joint.

A body whose position the scene graph prescribes (a child of a moving parent) is ``pinned``: the world
integrates its rotation only.

Only the state (q, ω, L, position, velocity) and the torque change from one step to the next. What else a step
needs (each integrator's slots, as a slice when they are contiguous, its bodies' inertia and inverse, which bodies
are free or pivoted) is kept in a layout built from the fields in :data:`LAYOUT_FIELDS` and rebuilt whenever their
bytes change, however they changed: :meth:`World.add_body`, :meth:`World.remove_body`,
:meth:`World.set_integrator`, the entity store's ``set``, or a write into ``values(name)``. The layout is a
function of those bytes alone, so a step with it is bit for bit the step that rebuilds everything. Comparing the
bytes every step would cost more than a one-body kernel, so the entity store watches those fields
(:meth:`ContiguousList.watched_edits`): the bytes are compared only after something may have written them (a
write through the store, a view of them lent by ``values``, or while such a view is alive).

Each group keeps the buffers its integrator writes the new state into (``out=``,
:class:`~sim.integrators.state.StepBuffers`), so a step allocates next to nothing; they are never the world's own
arrays, which change only once every group has stepped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from time import perf_counter

import numpy as np
import numpy.typing as npt

from spinlab.sim import compiled, timing
from spinlab.sim.alike_rows import once_if_alike
from spinlab.sim.contiguous_list import ContiguousList, Handle
from spinlab.sim.errors import NumericalError
from spinlab.sim.integrators import INTEGRATORS
from spinlab.sim.integrators.state import BodyParams, BodyState, StepCost, momentum_from_omega_world
from spinlab.sim.integrators.torque import LeverTorque
from spinlab.sim.quaternion import quat_midpoint, quat_rotate
from spinlab.sim.vector import cross
from spinlab.sim.world_layout import INTEGRATOR_NAMES, Group, Layout, build_layout

__all__ = ["World", "INTEGRATOR_NAMES", "BODY_FIELDS", "LAYOUT_FIELDS"]

BODY_FIELDS = {
    "q": (np.float64, (4,)),
    "omega_world": (np.float64, (3,)),
    "L_world": (np.float64, (3,)),
    "inertia_body": (np.float64, (3, 3)),
    "inertia_body_inv": (np.float64, (3, 3)),
    "mass": (np.float64, ()),
    "position": (np.float64, (3,)),
    "velocity": (np.float64, (3,)),
    "com_from_pivot_body": (np.float64, (3,)),
    "pivot_world": (np.float64, (3,)),
    "has_pivot": (np.bool_, ()),
    "pinned": (np.bool_, ()),
    "integrator": (np.int16, ()),
    "frozen": (np.bool_, ()),
    "q_low": (np.float64, (4,)),
    "gyroscopic_set": (np.int8, ()),
}

LAYOUT_FIELDS = ("integrator", "inertia_body", "inertia_body_inv", "has_pivot", "pinned", "frozen", "gyroscopic_set")
"""The per-body constants a step's layout is derived from; a change to any of their bytes rebuilds it."""

_NO_OPTIONS: dict = {}

_STATE_FIELDS = ("q", "omega_world", "L_world", "position", "velocity", "q_low")
"""The fields a step writes. ``q_low`` is the orientation's low part (:class:`BodyState`: zero, unless the body's
method carries the orientation as ``q + q_low``); what sets ``q`` from outside may leave it, at most half an ulp."""


@dataclass
class World:
    """Dynamic rigid bodies under constant gravity. ``gyroscopic`` switches the gyroscopic term for every body
    whose own switch is not set (the ``gyroscopic_set`` field: 0 as the world, +1 on, −1 off; see
    :meth:`set_gyroscopic`); ``integrator_options`` maps an integrator name to the keyword options of its ``step``."""

    gravity: np.ndarray = field(default_factory=lambda: np.zeros(3))
    gyroscopic: bool = True
    integrator_options: dict[str, dict] = field(default_factory=dict)
    bodies: ContiguousList = field(default_factory=lambda: ContiguousList(BODY_FIELDS, watched=LAYOUT_FIELDS))

    def __post_init__(self) -> None:
        if not self.bodies.watched >= set(LAYOUT_FIELDS):
            raise ValueError("the world's entity store must watch LAYOUT_FIELDS (ContiguousList(watched=...))")
        self.gravity = np.asarray(self.gravity, dtype=float)
        self._layout: Layout | None = None
        self._checked: tuple[ContiguousList, int | None] | None = None  # (store, its watched_edits()) last looked at
        self._state: tuple[np.ndarray, ...] = ()
        self._every_state: BodyState | None = None
        self.group_seconds: dict[str, float] = {}
        """Wall seconds each integrator's kernel took in the last :meth:`step` (predictor and corrector passes
        summed), by integrator name: a measurement beside the step's :class:`StepCost`, never an input to it."""
        self._first_group = 0  # the group that steps first in the next step (the groups take turns: see step)

    def __len__(self) -> int:
        return len(self.bodies)

    def __getstate__(self) -> dict:
        """What a copy (or a pickle) keeps: the bodies and the settings. The layout and the views of the state are
        derived from the bodies and made again at the copy's first step: copied, the views would be arrays of
        their own, no longer views of the copy's store."""
        state = self.__dict__.copy()
        state.update(_layout=None, _checked=None, _state=(), _every_state=None)
        return state

    def add_body(
        self,
        *,
        q: np.ndarray,
        omega_world: np.ndarray,
        inertia_body: np.ndarray,
        integrator: str,
        mass: float = 1.0,
        position: npt.ArrayLike = (0.0, 0.0, 0.0),
        velocity: npt.ArrayLike = (0.0, 0.0, 0.0),
        pivot_body: np.ndarray | None = None,
        pinned: bool = False,
    ) -> Handle:
        """Add a body; ``inertia_body`` is about the pivot when ``pivot_body`` (body frame, from the centre of
        mass) is given, else about the centre of mass. Returns its stable handle."""
        if integrator not in INTEGRATORS:
            raise KeyError(f"unknown integrator {integrator!r}; known: {', '.join(INTEGRATOR_NAMES)}")
        q = np.asarray(q, dtype=float)
        inertia_body = np.asarray(inertia_body, dtype=float)
        position = np.asarray(position, dtype=float)
        com_from_pivot = np.zeros(3) if pivot_body is None else -np.asarray(pivot_body, dtype=float)
        return self.bodies.append(
            {
                "q": q,
                "omega_world": omega_world,
                "L_world": momentum_from_omega_world(q, np.asarray(omega_world, dtype=float), inertia_body),
                "inertia_body": inertia_body,
                "inertia_body_inv": np.linalg.inv(inertia_body),
                "mass": mass,
                "position": position,
                "velocity": velocity,
                "com_from_pivot_body": com_from_pivot,
                "pivot_world": position - quat_rotate(q, com_from_pivot),
                "has_pivot": pivot_body is not None,
                "pinned": pinned,
                "integrator": INTEGRATOR_NAMES.index(integrator),
            }
        )

    def add_bodies(
        self,
        *,
        q: np.ndarray,
        omega_world: np.ndarray,
        inertia_body: np.ndarray,
        integrator: np.ndarray | list[str],
        mass: np.ndarray,
        position: np.ndarray,
        pivot_body: np.ndarray,
        has_pivot: np.ndarray,
        pinned: np.ndarray,
        handles: bool = True,
    ) -> list[Handle]:
        """Add K bodies in one vectorised insertion: :meth:`add_body`'s arguments as arrays, (K, 4), (K, 3),
        (K, 3, 3), K names, (K,), (K, 3), (K, 3) (rows where ``has_pivot`` is false are ignored), (K,), (K,); the
        same values, bit for bit, as K calls of :meth:`add_body`. Velocities start at zero. Their handles, or none
        made when not ``handles``."""
        used = list(dict.fromkeys(integrator))
        unknown = sorted(set(used) - set(INTEGRATORS))
        if unknown:
            raise KeyError(f"unknown integrator {unknown[0]!r}; known: {', '.join(INTEGRATOR_NAMES)}")
        q = np.asarray(q, dtype=float).reshape(-1, 4)
        omega_world = np.asarray(omega_world, dtype=float).reshape(-1, 3)
        inertia_body = np.asarray(inertia_body, dtype=float).reshape(-1, 3, 3)
        position = np.asarray(position, dtype=float).reshape(-1, 3)
        has_pivot = np.asarray(has_pivot, dtype=bool)
        com_from_pivot = np.where(has_pivot[:, None], -np.asarray(pivot_body, dtype=float).reshape(-1, 3), 0.0)
        codes = {name: code for code, name in enumerate(INTEGRATOR_NAMES)}
        return self.bodies.extend(
            len(q),
            {
                "q": q,
                "omega_world": omega_world,
                "L_world": momentum_from_omega_world(q, omega_world, inertia_body),
                "inertia_body": inertia_body,
                "inertia_body_inv": once_if_alike(np.linalg.inv, inertia_body),  # mostly one inertia
                "mass": mass,
                "position": position,
                "velocity": np.zeros_like(position),
                "com_from_pivot_body": com_from_pivot,
                "pivot_world": position - quat_rotate(q, com_from_pivot),
                "has_pivot": has_pivot,
                "pinned": pinned,
                "integrator": _codes(codes, integrator, used, len(q)),
            },
            handles=handles,
        )

    def remove_body(self, handle: Handle) -> None:
        self.bodies.erase(handle)

    def freeze(self, slots) -> None:
        """Stop stepping the bodies at world ``slots`` (indices): their state stays as it is now, they leave their
        integrator's group and the centre-of-mass update, and the other bodies step bit for bit as before."""
        frozen = self.bodies.values("frozen")
        frozen[np.asarray(slots, dtype=np.intp)] = True

    def set_gyroscopic(self, on: bool, slots=None) -> None:
        """Switch the gyroscopic term: for every body (``slots`` ``None``: the world's term, and every body's own
        switch cleared), or for the bodies at world ``slots`` alone (their own switch, whatever the world's)."""
        own = self.bodies.peek("gyroscopic_set")
        if slots is None:
            self.gyroscopic = bool(on)
            if own.any():  # leave the layout alone when no body has a switch of its own
                self.bodies.values("gyroscopic_set")[:] = 0
            return
        self.bodies.values("gyroscopic_set")[np.asarray(slots, dtype=np.intp)] = 1 if on else -1

    def set_integrator(self, handle: Handle, integrator: str) -> None:
        self.bodies.set(handle, "integrator", INTEGRATOR_NAMES.index(integrator))

    def values(self, name: str) -> np.ndarray:
        """The live array of field ``name`` in slot order (see :data:`BODY_FIELDS`). Writes through it, or through
        a view of it kept, are seen by the next step."""
        return self.bodies.values(name)

    def peek(self, name: str) -> np.ndarray:
        """:meth:`values`, read-only: a look at a field of :data:`LAYOUT_FIELDS` that does not make the next step
        compare the layout's bytes (which a writable view lent, or alive, does)."""
        return self.bodies.peek(name)

    def torque_world(self, q: np.ndarray | None = None) -> np.ndarray:
        """(N, 3) N m, world: gravity's torque about each pivot, ``(O c) × m g``, at orientations ``q`` (default:
        the current ones); zero for bodies without a pivot."""
        values = self.bodies.values
        if not self.bodies.peek("has_pivot").any():
            return np.zeros((len(self.bodies), 3))
        arm_world = quat_rotate(values("q") if q is None else q, values("com_from_pivot_body"))
        return cross(arm_world, values("mass")[:, None] * self.gravity)

    def step(self, h: float) -> StepCost:
        """Advance every body by ``h`` seconds; returns the cost per body, in slot order.

        Raises :class:`NumericalError` (with ``bodies`` = slots) when an integrator cannot take the step; the
        state is then left as it was before the step. Frozen bodies (:meth:`freeze`) keep their state and cost
        zero Newton iterations and zero sub-steps.
        """
        layout = self._current_layout()
        self.group_seconds = {}
        q, omega_world, L_world, position, velocity, q_low = self._state
        state = q, omega_world, L_world, q_low
        torque = None if layout.pivoted is None else self.torque_world(q)
        under_gravity = layout.pivoted is not None and np.any(self.gravity != 0.0)
        takes_lever = under_gravity and len(layout.held_torque) < len(layout.groups)
        lever_torque = self._lever_torque() if takes_lever else None
        new_q, new_omega, new_L, new_low, cost = self._step_with_torque(h, layout, state, torque, lever_torque)
        if under_gravity and layout.held_torque:
            midpoint_torque = self.torque_world(quat_midpoint(q, new_q))
            if len(layout.held_torque) == len(layout.groups):
                predicted = cost
                new_q, new_omega, new_L, new_low, cost = self._step_with_torque(h, layout, state, midpoint_torque, None)
                cost = StepCost(cost.newton_iterations + predicted.newton_iterations, cost.substeps)
            else:
                # Several groups (so the new arrays are the world's own, not a group's buffers): the held ones step
                # again over the first pass, whose steps of the other groups are final.
                for group in layout.held_torque:
                    new, corrected = self._step_group(h, group, *state, midpoint_torque, None)
                    slots = group.slots
                    new_q[slots], new_omega[slots], new_L[slots] = new.q, new.omega_world, new.L_world
                    new_low[slots] = 0.0 if new.q_low is None else new.q_low
                    cost.newton_iterations[slots] += corrected.newton_iterations
                    cost.substeps[slots] = corrected.substeps
        # Commit only once every group has stepped, so a failure leaves the world unchanged.
        q[...], omega_world[...], L_world[...] = new_q, new_omega, new_L
        q_low[...] = 0.0 if new_low is None else new_low
        self._move_centres_of_mass(h, layout, position, velocity)
        return cost

    def _lever_torque(self) -> LeverTorque:
        """Gravity's torque about each pivot as the function of the orientation :meth:`torque_world` evaluates:
        the lever ``c`` (body) and the weight ``m g`` (world), (N, 3) each."""
        values = self.bodies.values
        return LeverTorque(values("com_from_pivot_body"), values("mass")[:, None] * self.gravity)

    def time_groups(self, h: float, repeats: int = 3) -> dict[str, float]:
        """Wall seconds per body-step of each integrator's group stepping the current state by ``h`` on its own: one
        call first (the first after a frame's drawing runs on cold caches), then the best of ``repeats`` calls,
        timed by sim/timing.py's ``best_seconds_per_call`` as ``bench --only latency`` times its ``step`` column: the
        step's cost on warm caches, apart from whatever ran before it (a frame's drawing, the other groups). A
        measurement only: nothing is written to the world (the groups' scratch buffers aside), and a group that
        cannot take the step is left out, as is one whose kernel is still compiling (sim/compiled.py: timing its
        numpy path took the window's frame 0.14 s on compare side by side; its cost is the frame's own, said as
        such, :func:`sim.compiled.step_path`). Under gravity each group steps with the torque at the current state."""
        layout = self._current_layout()
        q, omega_world, L_world, _, _, q_low = self._state
        torque = None if layout.pivoted is None else self.torque_world(q)
        lever_torque = self._lever_torque() if layout.pivoted is not None and np.any(self.gravity != 0.0) else None
        # _step_group adds its time to group_seconds: kept apart from the last step's.
        last_step, self.group_seconds = self.group_seconds, {}
        timed: dict[str, tuple[float, int]] = {}  # by integrator: seconds a call, bodies
        try:
            for group in (group for group in layout.groups if compiled.is_ready(group.name)):
                call = partial(self._step_group, h, group, q, omega_world, L_world, q_low, torque, lever_torque)
                call()
                # An integrator may step two groups (bodies with a gyroscopic switch of their own): summed.
                spent, bodies = timed.get(group.name, (0.0, 0))
                timed[group.name] = (spent + timing.best_seconds_per_call(call, repeats, 1), bodies + len(group.bodies))
        except NumericalError:
            pass  # what was timed before the failure stands
        finally:
            self.group_seconds = last_step
        return {name: spent / max(bodies, 1) for name, (spent, bodies) in timed.items()}

    def _step_with_torque(
        self,
        h: float,
        layout: Layout,
        state: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
        torque: np.ndarray | None,
        lever_torque: LeverTorque | None,
    ):
        """One step of each of the layout's groups from the world's ``state`` (q, ω, L, q_low) with the given world
        torques (``None``: zero), or ``lever_torque`` for the groups that take the torque as a function of the
        orientation; nothing is written to the world. Rows of frozen bodies keep their state. The new ``q_low`` is
        ``None`` where it is zero for every body."""
        if layout.single is not None:
            # One integrator has every body: its new arrays (its group's buffers) are the world's.
            new, cost = self._step_group(h, layout.single, *state, torque, lever_torque)
            return new.q, new.omega_world, new.L_world, new.q_low, cost
        size = len(self.bodies)
        new_q, new_omega, new_L = np.empty((size, 4)), np.empty((size, 3)), np.empty((size, 3))
        new_low = np.zeros((size, 4))
        iterations, substeps = np.empty(size, dtype=np.int64), np.empty(size, dtype=np.int64)
        # The groups take turns at stepping first. Each reads the state at the start of the step and writes its own
        # rows, so the order changes no number; but the first kernel call after a frame was drawn runs on cold
        # caches, and in a fixed order one integrator would always pay for it in group_seconds (the window's cost
        # column once ranked explicit Euler 3× dearer than the trapezoidal rule for that alone).
        groups = layout.groups
        first = self._first_group % max(len(groups), 1)  # no group at all when every body is frozen
        self._first_group = first + 1
        for group in groups[first:] + groups[:first]:
            new, cost = self._step_group(h, group, *state, torque, lever_torque)
            slots = group.slots
            new_q[slots], new_omega[slots], new_L[slots] = new.q, new.omega_world, new.L_world
            if new.q_low is not None:
                new_low[slots] = new.q_low
            iterations[slots], substeps[slots] = cost.newton_iterations, cost.substeps
        frozen = layout.frozen
        if frozen is not None:
            new_q[frozen], new_omega[frozen], new_L[frozen] = state[0][frozen], state[1][frozen], state[2][frozen]
            new_low[frozen] = state[3][frozen]
            iterations[frozen], substeps[frozen] = 0, 0
        return new_q, new_omega, new_L, new_low, StepCost(iterations, substeps)

    def _step_group(
        self,
        h: float,
        group: Group,
        q: np.ndarray,
        omega_world: np.ndarray,
        L_world: np.ndarray,
        q_low: np.ndarray,
        torque: np.ndarray | None,
        lever_torque: LeverTorque | None,
    ) -> tuple[BodyState, StepCost]:
        """One step of ``group``'s bodies from the world's arrays (every body) under ``torque`` (``None``: zero),
        or under ``lever_torque`` (``None``: none) if the group takes the torque as a function of the orientation;
        a failure names the world slots."""
        slots = group.slots
        params = group.torque_free_params[bool(self.gyroscopic if group.gyroscopic is None else group.gyroscopic)]
        options = self.integrator_options.get(group.name, _NO_OPTIONS)
        if not compiled.is_ready(group.name):  # its kernel is not loaded: a numpy path (sim/compiled.py)
            options = {**options, "backend": compiled.stand_in(group.name, len(group.bodies))}
        if group.pivoted is not None:
            options = {**options, "pivoted": group.pivoted}
        if group.orientation_torque:
            if lever_torque is not None:
                options = {**options, "orientation_torque": lever_torque[slots]}
        elif torque is not None:
            params = BodyParams(params.inertia_body, params.inertia_body_inv, torque[slots], params.gyroscopic)
        start = perf_counter()
        try:
            # The world's arrays are C-contiguous float64, and so are their rows.
            if group.every_body:
                state = self._every_state
            else:
                state = BodyState.of_float_arrays(q[slots], omega_world[slots], L_world[slots], q_low[slots])
            if options:
                return INTEGRATORS[group.name](state, params, h, out=group.out, **options)
            return INTEGRATORS[group.name](state, params, h, out=group.out)  # a third of the call with **{}
        except NumericalError as error:
            failed = group.bodies if error.bodies is None else group.bodies[np.asarray(error.bodies)]
            raise NumericalError(str(error), bodies=failed) from error
        finally:
            seconds = self.group_seconds
            seconds[group.name] = seconds.get(group.name, 0.0) + (perf_counter() - start)

    def _move_centres_of_mass(self, h: float, layout: Layout, position: np.ndarray, velocity: np.ndarray) -> None:
        free, pivoted = layout.free, layout.pivoted
        if free is not None:
            # Constant gravity: the free fall is quadratic in time, so this update is exact (compiled: one call,
            # the arithmetic of x += h v + ½ h² g; v += h g, which numpy does meanwhile, bit for bit).
            if compiled.is_ready(compiled.FREE_FALL):
                from spinlab.sim.integrators._kernels import free_fall_kernel  # numba at the first call

                free_fall_kernel(position, velocity, free, float(h), 0.5 * h * h, self.gravity)
            else:
                h = float(h)
                position[free] = position[free] + (h * velocity[free] + (0.5 * h * h) * self.gravity)
                velocity[free] = velocity[free] + h * self.gravity
        if pivoted is not None:
            values = self.bodies.values
            position[pivoted] = values("pivot_world")[pivoted] + quat_rotate(
                values("q")[pivoted], values("com_from_pivot_body")[pivoted]
            )

    def _current_layout(self) -> Layout:
        """The layout of the bodies as they are now: the kept one while :data:`LAYOUT_FIELDS` are unchanged (their
        bytes are compared only when the store's count says they may have changed since the last look). Also keeps
        ``_state``, the views of :data:`_STATE_FIELDS`, which stay valid while that count does not move (it moves
        whenever the store's size or arrays change)."""
        bodies = self.bodies
        edits = bodies.watched_edits()
        if edits is None or (bodies, edits) != self._checked:
            read = bodies.peek  # reading lends no view: the count stays as it is
            key = tuple([read(name).tobytes() for name in LAYOUT_FIELDS])
            if self._layout is None or self._layout.key != key:
                self._layout = build_layout(key, read)
            self._state = tuple(map(bodies.values, _STATE_FIELDS))
            q, omega_world, L_world, _, _, q_low = self._state
            self._every_state = BodyState.of_float_arrays(q, omega_world, L_world, q_low)  # a group of every body
            self._checked = (bodies, edits)
        assert self._layout is not None, "built at the first look (_checked starts as None)"
        return self._layout


def _codes(codes: dict[str, int], integrator, used: list[str], count: int) -> np.ndarray:
    """(count,) int16: each body's integrator code (``codes`` by name), ``used`` the distinct names of
    ``integrator``: at once when they are one (a run of every body with one integrator)."""
    if len(used) == 1:
        return np.full(count, codes[used[0]], dtype=np.int16)
    return np.array([codes[name] for name in integrator], dtype=np.int16)
