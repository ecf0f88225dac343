"""A scene in motion: the world that integrates the dynamic bodies, and the scene graph that places every node.

This is what ``run``, ``record`` and the window drive: ``Simulation(scene_spec, integrator=..., h=...)``, then
``step()`` in fixed steps (simulation time is the step index times ``h``; wall-clock time never enters), and
``snapshot()`` for the state of every body in the scene file's order, in world coordinates.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np

from spinlab.scene.files.body_table import BodySpec, body_column
from spinlab.scene.files.scene_file import SceneSpec, order_parent_first
from spinlab.scene.process.interrupts import raise_if_interrupted
from spinlab.scene.running.changes import ChangeSchedule
from spinlab.scene.running.graph import SceneGraph
from spinlab.scene.running.kicks import KickSchedule
from spinlab.sim.errors import NumericalError, first_few
from spinlab.sim.integrators.state import StepCost, momentum_from_omega_world, rotational_energy
from spinlab.sim.world import World

__all__ = ["Simulation", "Snapshot", "DEFAULT_INTEGRATOR", "initial_world_state"]

DEFAULT_INTEGRATOR = "implicit_midpoint"
NAMED_FAILURES = 5  # bodies a step's failure names; "and N more" counts the rest
"""The integrator of a body whose scene gives none and whose command line names none."""


@dataclass(frozen=True)
class Snapshot:
    """Every body at one instant, in the scene file's order, world frame, SI units.

    ``q`` (N, 4) body → world; ``position`` (N, 3) centre of mass; ``omega_world`` (N, 3); ``L_world`` (N, 3) about
    the centre of mass, or about the pivot for a pivoted body; ``energy`` (N,) rotational kinetic energy ½ ω·L.
    """

    t: float
    q: np.ndarray
    position: np.ndarray
    omega_world: np.ndarray
    L_world: np.ndarray
    energy: np.ndarray


class Simulation:
    """Steps a :class:`SceneSpec`. ``integrator`` overrides every body's; ``h`` the scene's time step;
    ``gyroscopic`` switches the gyroscopic term; ``integrator_options`` maps names to step options."""

    def __init__(
        self,
        scene: SceneSpec,
        *,
        integrator: str | None = None,
        h: float | None = None,
        gyroscopic: bool = True,
        integrator_options: dict[str, dict] | None = None,
    ) -> None:
        self.scene = scene
        self.h = float(scene.h if h is None else h)
        self.step_index = 0
        # Each field of every body a column at once (scene/files/body_table.py: 10^5 bodies read as columns make
        # no spec a body).
        self.names = list(body_column(scene.bodies, "name"))
        ordered = order_parent_first(scene.bodies)
        self._graph_names = list(body_column(ordered, "name"))
        # file order -> graph order, so snapshots come out in the order a person wrote the bodies: the same order
        # when every body is a root (no names looked up: 10^5 bodies, ~0.1 s).
        parents = body_column(ordered, "parent")
        roots = parents.count(None) == len(parents)
        graph_index = {} if roots else {name: i for i, name in enumerate(self._graph_names)}
        if roots:
            self._to_file_order = np.arange(len(ordered), dtype=np.intp)
        else:
            self._to_file_order = np.array([graph_index[name] for name in self.names], dtype=np.intp)
        self.kinematic = body_column(ordered, "kinematic")
        if integrator and not self.kinematic.any():  # every body's, at once
            self.integrators: list[str | None] = [integrator] * len(ordered)
        else:
            named = zip(self.kinematic.tolist(), body_column(ordered, "integrator"), strict=True)
            self.integrators = [None if still else (integrator or name or DEFAULT_INTEGRATOR) for still, name in named]
        # The same, in file order: what a person reads.
        in_file_order = self._to_file_order.tolist()
        self.body_integrators = list(self.integrators) if roots else [self.integrators[i] for i in in_file_order]
        self._inertia = body_column(ordered, "inertia_body")
        self.graph = _graph_of(ordered, graph_index, self.kinematic)
        self.world = World(gravity=scene.gravity, gyroscopic=gyroscopic, integrator_options=integrator_options or {})
        self._dynamic = np.flatnonzero(~self.kinematic)
        # Every node dynamic and in file order: a step's cost per world slot is already the cost in file order.
        self._cost_in_file_order = self._dynamic.size == len(ordered) and np.array_equal(
            self._to_file_order, self._dynamic
        )
        self._add_dynamic_bodies(ordered)
        self._composed = None
        self.kicks = KickSchedule(scene.kicks, self.h, self._graph_names, self._dynamic, self.graph.parent)
        self.changes = ChangeSchedule(scene.changes, self.h)
        self._at_boundary()

    def _add_dynamic_bodies(self, ordered: Sequence[BodySpec]) -> None:
        """Put the dynamic bodies in the world with their initial global state (graph order)."""
        # The scene gives a dynamic child's rotation and rate relative to its parent, as for a kinematic node:
        # composing the graph as if every node were kinematic gives everybody's global state at t = 0.
        as_if_kinematic = _as_if_kinematic(self.graph)
        dynamic = self._dynamic
        rows = None if dynamic.size == len(ordered) else dynamic.tolist()  # None: every body
        pivots = body_column(ordered, "pivot", rows)
        has_pivot = np.fromiter((pivot is not None for pivot in pivots), bool, len(pivots))
        pivot_body = np.zeros((len(pivots), 3))
        if has_pivot.any():
            pivot_body[has_pivot] = [pivot for pivot in pivots if pivot is not None]
        parents = body_column(ordered, "parent", rows)
        self.world.add_bodies(
            q=as_if_kinematic.q[dynamic],
            omega_world=as_if_kinematic.omega_world[dynamic],
            inertia_body=self._inertia[dynamic],
            # A dynamic body's integrator is a name (None: a kinematic body's).
            integrator=cast(list[str], self.integrators if rows is None else [self.integrators[k] for k in rows]),
            mass=np.array(body_column(ordered, "mass", rows), dtype=float),
            position=as_if_kinematic.position[dynamic],
            pivot_body=pivot_body,
            has_pivot=has_pivot,
            pinned=np.fromiter((parent is not None for parent in parents), bool, len(parents)),
            handles=False,  # the simulation names its bodies by their order
        )

    def freeze(self, bodies) -> None:
        """Stop stepping the bodies at file-order indices ``bodies`` (kinematic ones are ignored: the scene graph
        moves them as a function of time): they keep their present state, the others step as if they were not
        there (:meth:`sim.world.World.freeze`)."""
        nodes = self._to_file_order[np.asarray(bodies, dtype=np.intp)]
        # Dynamic nodes entered the world in graph order, so a node's slot is its rank among the dynamic ones.
        slots = np.searchsorted(self._dynamic, nodes[~self.kinematic[nodes]])
        self.world.freeze(slots)

    def file_order(self, nodes) -> np.ndarray:
        """The file-order indices of graph-order ``nodes`` (a :class:`NumericalError`'s ``bodies``)."""
        return np.argsort(self._to_file_order)[np.asarray(nodes, dtype=np.intp)]

    @property
    def t(self) -> float:
        """Simulation time, s: the step index times ``h``."""
        return self.step_index * self.h

    def step(self) -> StepCost:
        """Advance by one step ``h``. Raises :class:`NumericalError` naming the body when one cannot be stepped,
        leaving the simulation as it was. Returns the cost per body in file order (a kinematic body's is zero
        Newton iterations and one sub-step)."""
        raise_if_interrupted()
        try:
            # A state that overflows (or a Jacobian singular on it: numpy paths divide by its zero determinant) is
            # caught by the world's finiteness check and reported, not warned about.
            with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                cost = self.world.step(self.h)
        except NumericalError as error:
            failed = self._dynamic if error.bodies is None else self._dynamic[np.asarray(error.bodies)]
            named = [f"'{self._graph_names[node]}' ({self.integrators[node]})" for node in failed[:NAMED_FAILURES]]
            who = first_few(named, len(failed))
            raise NumericalError(f"at t = {self.t:.6g} s, body {who}: {error}", bodies=failed) from error
        self.step_index += 1
        self._composed = None
        self._at_boundary()
        if self._cost_in_file_order:
            return cost
        iterations = np.zeros(len(self.graph), dtype=np.int64)
        substeps = np.ones(len(self.graph), dtype=np.int64)
        # Dynamic nodes entered the world in graph order and nothing is erased, so world slot k is _dynamic[k].
        iterations[self._dynamic] = cost.newton_iterations
        substeps[self._dynamic] = cost.substeps
        return StepCost(iterations[self._to_file_order], substeps[self._to_file_order])

    def _at_boundary(self) -> None:
        """Apply the kicks that land on this step boundary (scene/running/kicks.py), then its change of the
        gyroscopic term (scene/running/changes.py): the snapshot at t_k is after them, the next step takes the term
        as changed."""
        if self.kicks.due(self.step_index):
            self.kicks.apply(self.step_index, self.world, self.graph, lambda: self._poses[0])
            self._composed = None
        gyroscopic = self.changes.gyroscopic_at(self.step_index)
        if gyroscopic is not None:
            self.world.set_gyroscopic(gyroscopic)
        for name, on in self.changes.own_at(self.step_index).items():
            node = self._graph_names.index(name)  # a body's own switch: a few per run, not per step
            self.world.set_gyroscopic(on, np.searchsorted(self._dynamic, [node]))

    @property
    def _poses(self):
        """Every node's global pose now and the centres of mass (graph order), composed when first asked for after
        a step: a run of steps between snapshots composes the scene graph once."""
        if self._composed is None:
            self._composed = self._compose()
        return self._composed

    def _compose(self):
        with np.errstate(over="ignore", invalid="ignore"):  # a non-finite pose is reported by the caller's check
            return self._compose_poses()

    def _compose_poses(self):
        n = len(self.graph)
        q, omega = np.zeros((n, 4)), np.zeros((n, 3))
        q[self._dynamic] = self.world.values("q")
        omega[self._dynamic] = self.world.values("omega_world")
        poses = self.graph.global_poses(self.t, q, omega)
        # The world keeps its own centres of mass for free and pivoted bodies; pinned ones follow their parent.
        pinned = self.world.peek("pinned")  # read only: the next step need not check its layout again
        self.world.values("position")[pinned] = poses.position[self._dynamic[pinned]]
        position = poses.position.copy()
        position[self._dynamic] = self.world.values("position")
        return poses, position

    def snapshot(self) -> Snapshot:
        """The state of every body now, in the scene file's order."""
        poses, position = self._poses
        L_world = np.empty_like(poses.omega_world)
        L_world[self._dynamic] = self.world.values("L_world")
        kinematic = self.kinematic
        if kinematic.any():
            L_world[kinematic] = momentum_from_omega_world(
                poses.q[kinematic], poses.omega_world[kinematic], self._inertia[kinematic]
            )
        order = self._to_file_order
        with np.errstate(over="ignore", invalid="ignore"):  # an overflowed state: the caller's finite check says so
            energy = rotational_energy(poses.omega_world, L_world)
        return Snapshot(
            self.t, poses.q[order], position[order], poses.omega_world[order], L_world[order], energy[order]
        )

    def potential_energy(self) -> np.ndarray:
        """(N,) J, file order: ``−m g·x`` of each centre of mass (the reference height is the world origin)."""
        _, position = self._poses
        masses = np.array([body.mass for body in self.scene.bodies])
        return -masses * (position[self._to_file_order] @ self.scene.gravity)


def _graph_of(ordered, index: dict[str, int], kinematic: np.ndarray) -> SceneGraph:
    """The scene graph of the bodies ``ordered`` parents first (``index``: a name's place among them)."""
    parents = body_column(ordered, "parent")
    return SceneGraph(
        parent=np.array([-1 if parent is None else index[parent] for parent in parents], dtype=np.intp),
        kinematic=kinematic,
        # Copies: a kick on a child changes its local rate and rotation (scene/running/kicks.py).
        local_position=body_column(ordered, "position").copy(),
        local_q0=body_column(ordered, "orientation").copy(),
        local_angular_velocity=body_column(ordered, "omega_parent").copy(),
    )


def _as_if_kinematic(graph: SceneGraph):
    """``graph``'s global poses at t = 0 composed as if every node were kinematic: the scene gives a dynamic
    child's rotation and rate relative to its parent, as it does a kinematic node's."""
    n = len(graph)
    every = np.ones(n, dtype=bool)
    as_kinematic = SceneGraph(graph.parent, every, graph.local_position, graph.local_q0, graph.local_angular_velocity)
    return as_kinematic.global_poses(0.0, np.zeros((n, 4)), np.zeros((n, 3)))


def initial_world_state(scene: SceneSpec) -> tuple[np.ndarray, np.ndarray]:
    """Every body's rotation (N, 4), body → world, and angular velocity (N, 3) rad/s, world, at t = 0, in file
    order (the file gives a child's relative to its parent)."""
    bodies = scene.bodies
    q, omega = body_column(bodies, "orientation").copy(), body_column(bodies, "omega_parent").copy()
    if all(parent is None for parent in body_column(bodies, "parent")):
        return q, omega
    ordered = order_parent_first(bodies)
    index = {body.name: i for i, body in enumerate(ordered)}
    poses = _as_if_kinematic(_graph_of(ordered, index, np.ones(len(ordered), dtype=bool)))
    rows = np.array([index[body.name] for body in bodies], dtype=np.intp)
    return poses.q[rows], poses.omega_world[rows]
