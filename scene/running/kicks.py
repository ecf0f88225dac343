"""Kicks applied: instantaneous impulses on dynamic bodies, scripted in a scene file (``[[kick]]``, read by
scene/files/kick_table.py) or struck in the window.

A kick lands on the first step boundary ``t_k = k h >= time`` (``k`` the step index, :func:`kick_step`): the
simulation takes the step that reaches ``t_k``, then applies every kick due there, so the snapshot (and the trace
row) at ``t_k`` shows the state after the kick. Frames and units:

* ``angular_impulse`` (3,) N·m·s, world frame: the body's angular momentum (about its centre of mass, or about its
  pivot for a heavy top) jumps by exactly this; ω is recomputed from the new L, ``ω = O I⁻¹ Oᵀ L``.
* ``impulse`` (3,) N·s, world frame, struck at ``point`` (3,) m, body frame, relative to the centre of mass (the
  ``pivot``'s convention; default the centre of mass). Its moment ``(p − c) × J`` (``p − c = O point``) adds to the
  angular impulse. A free body's centre-of-mass velocity jumps by ``J / m``. A pivoted body (a heavy top) turns
  about its fixed pivot, which takes the reaction impulse: the moment is taken about the pivot,
  ``O (point − pivot) × J``, and the centre of mass moves with the new ω. A child body is held at its centre of mass
  by its joint (scene/running/graph.py), which takes the linear part: only the moment about the centre of mass acts.
* ``counteract_children`` (bool): the kicked body's kinematic children get the opposite of the change they inherit
  (seed 000, "Counteracting the Inherited Effect"), so their global angular velocity is the same just after the
  kick as just before; their children inherit the correction. Dynamic children need none: their joint exerts no
  torque, so their spin never follows the parent's. Positions are fixed in the parent in this scene graph, so the
  inherited linear velocity ``Δω × r`` of any child cannot be taken back: the joint carries it along.

Applying the kicks of one step is one vectorised update of the world's arrays, however many there are.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from spinlab.scene.files.kick_table import KickSpec, kick_step
from spinlab.sim.integrators.state import omega_world_from_momentum
from spinlab.sim.quaternion import quat_exp, quat_mul, quat_rotate
from spinlab.sim.vector import cross

__all__ = ["KickSchedule"]

_ZERO = (0.0, 0.0, 0.0)


class KickSchedule:
    """The kicks of a simulation by step index, applied to its world's arrays.

    ``graph_names``: the scene graph's node names (graph order); ``dynamic``: the graph nodes in the world, slot k
    being ``dynamic[k]``; ``parent``: each node's parent (-1 for a root); ``h`` s.
    """

    def __init__(self, kicks: Sequence[KickSpec], h: float, graph_names, dynamic, parent) -> None:
        self.h = float(h)
        self._graph_names = graph_names
        self._nodes: dict[str, int] | None = None  # name → graph node, made at the first kick (10 MB at 10^5 bodies)
        self._slot = np.full(len(graph_names), -1, dtype=np.intp)
        self._slot[np.asarray(dynamic, dtype=np.intp)] = np.arange(len(dynamic))
        self._parent = np.asarray(parent, dtype=np.intp)
        self.kicks: list[KickSpec] = []
        self._by_step: dict[int, list[KickSpec]] = {}
        for kick in kicks:
            self.add(kick)

    @property
    def _node(self) -> dict[str, int]:
        """Each graph node's index by its name."""
        if self._nodes is None:
            self._nodes = {name: i for i, name in enumerate(self._graph_names)}
        return self._nodes

    def add(self, kick: KickSpec) -> int:
        """Schedule ``kick`` (its body must be a dynamic node); returns the step index it lands on."""
        if kick.body not in self._node or self._slot[self._node[kick.body]] < 0:
            raise KeyError(f"no dynamic body '{kick.body}' to kick")
        step = kick_step(kick.time, self.h)
        self.kicks.append(kick)
        self._by_step.setdefault(step, []).append(kick)
        return step

    def times(self) -> list[float]:
        """The step boundaries (s) the kicks land on, ascending, each once."""
        return [step * self.h for step in sorted(self._by_step)]

    def due(self, step: int) -> bool:
        """Whether any kick lands on step ``step``."""
        return step in self._by_step

    def apply(self, step: int, world, graph, poses) -> None:
        """Apply the kicks of step ``step`` to ``world`` (L, ω, and free bodies' velocity) and, for those that
        counteract, to ``graph``'s kinematic children; ``poses()`` gives every node's global pose just before."""
        kicks = self._by_step.get(step, [])
        # A frozen body (its view diverged, scene/model/run_model.py) keeps the state it failed with.
        kicks = [kick for kick in kicks if not world.peek("frozen")[self._slot[self._node[kick.body]]]]
        if not kicks:
            return
        nodes = np.array([self._node[kick.body] for kick in kicks], dtype=np.intp)
        slots = self._slot[nodes]
        angular = np.array([kick.angular_impulse for kick in kicks], dtype=float)
        impulse = np.array([_ZERO if kick.impulse is None else kick.impulse for kick in kicks], dtype=float)
        point = np.array([_ZERO if kick.point is None else kick.point for kick in kicks], dtype=float)
        counteract = np.array([kick.counteract_children for kick in kicks])
        before_poses = poses() if counteract.any() else None  # composed before the world changes
        values = world.values
        q = values("q")[slots]
        # From the point about which L is taken (the pivot, else the centre of mass) to the point struck.
        arm = quat_rotate(q, point + values("com_from_pivot_body")[slots])
        L = values("L_world")
        np.add.at(L, slots, angular + cross(arm, impulse))
        free = ~(world.peek("has_pivot")[slots] | world.peek("pinned")[slots])
        np.add.at(values("velocity"), slots[free], impulse[free] / values("mass")[slots[free], None])
        touched = np.unique(slots)
        omega = values("omega_world")
        before = omega[touched].copy()
        omega[touched] = omega_world_from_momentum(
            values("q")[touched], L[touched], world.peek("inertia_body_inv")[touched]
        )
        if before_poses is not None:
            change = omega[touched] - before
            row = {int(slot): i for i, slot in enumerate(touched)}
            delta = {int(n): change[row[int(self._slot[n])]] for n in np.unique(nodes[counteract])}
            self._counteract(step * self.h, graph, before_poses, delta)

    def _counteract(self, t: float, graph, poses, change: dict[int, np.ndarray]) -> None:
        """Give each kinematic child of the nodes in ``change`` (node → the world Δω it got) the local change that
        takes back what it inherits (seed 000): ``Δω₁ = R₂ᵀ (−Δω₃)`` with ``Δω₃ = Δω₂``, re-basing its prescribed
        rotation ``exp(t ω₁) q₀`` so it is continuous at ``t``."""
        from spinlab.sim import dynamic_transform as dt  # a kick that counteracts only (~1 ms of any run's start)
        from spinlab.sim.transform import Transform

        parents = np.array(list(change), dtype=np.intp)
        children = np.flatnonzero(np.isin(self._parent, parents) & graph.kinematic)
        if children.size == 0:
            return
        own = self._parent[children]
        delta = np.array([change[int(p)] for p in own])
        zero = np.zeros_like(delta)
        parent_global = dt.DynamicTransform(
            Transform(poses.position[own], poses.q[own], np.ones(own.size)),
            poses.velocity[own], poses.acceleration[own], poses.omega_world[own], poses.alpha_world[own],
        )  # fmt: skip
        now = quat_mul(quat_exp(t * graph.local_angular_velocity[children]), graph.local_q0[children])  # local at t
        child_local = dt.DynamicTransform(
            Transform(graph.local_position[children], now, np.ones(children.size)),
            zero, zero, graph.local_angular_velocity[children], zero,
        )  # fmt: skip
        inherited = dt.child_delta_from_parent(parent_global, child_local, dt.MotionDelta(zero, zero, delta, zero))
        undo = dt.MotionDelta(*(-component for component in inherited))
        local = dt.child_delta_to_local(parent_global, undo)
        rate = graph.local_angular_velocity[children] + local.angular_velocity
        graph.local_angular_velocity[children] = rate
        graph.local_q0[children] = quat_mul(quat_exp(-t * rate), now)
