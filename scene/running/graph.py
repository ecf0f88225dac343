"""The scene graph: nodes are DynamicTransforms with optional parents, composed parent-before-child.

Every node has a local DynamicTransform relative to its parent (seed 000, "The Dynamics of a Transform
Hierarchy"). Two kinds of node:

* kinematic: its local motion is prescribed, a constant local angular velocity ``ω_l`` (parent frame) about a
  fixed local position, so its local rotation at time ``t`` is exactly ``R(t) = exp(t [ω_l]) R₀``;
* dynamic: a rigid body integrated by the world in world coordinates. A dynamic child of a moving parent is held
  at its local position by a frictionless ball joint at its centre of mass, a force through the centre of mass
  that exerts no torque: its rotation stays torque-free in the world, and its position is carried by the parent.
  Its local transform is derived from the two global ones (``A₁ = A₂⁻¹ ∘ A₃``).

Global transforms are composed parents first in one compiled loop over the nodes (scene/running/graph_kernel.py), with
seed 000's composition (sim/dynamic_transform.py) to the bit: a level of a hierarchy composed as one vectorised
call cost ~0.3 ms however few its nodes, and a chain 330 deep 90 ms.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from spinlab.sim import compiled
from spinlab.sim.jit import plain
from spinlab.sim.quaternion import quat_exp, quat_mul

__all__ = ["SceneGraph", "GlobalPoses"]


@dataclass(frozen=True)
class GlobalPoses:
    """World (global) pose and motion of every node, in graph order: ``q`` (N, 4) body → world, ``position``,
    ``velocity``, ``acceleration`` (N, 3) of the node origin (the centre of mass), ``omega_world`` and
    ``alpha_world`` (N, 3)."""

    q: np.ndarray
    position: np.ndarray
    velocity: np.ndarray
    acceleration: np.ndarray
    omega_world: np.ndarray
    alpha_world: np.ndarray


class SceneGraph:
    """A forest of N nodes given parent-first: ``parent[i] < i`` or ``-1`` for a root.

    ``kinematic``: (N,) bool. ``local_position`` (N, 3) m and ``local_q0`` (N, 4) are each node's pose relative to
    its parent at ``t = 0``; ``local_angular_velocity`` (N, 3) rad/s, parent frame, is a kinematic node's
    constant local rate (ignored for dynamic nodes).
    """

    def __init__(
        self,
        parent: npt.ArrayLike,
        kinematic: npt.ArrayLike,
        local_position: npt.ArrayLike,
        local_q0: npt.ArrayLike,
        local_angular_velocity: npt.ArrayLike,
    ) -> None:
        self.parent = np.asarray(parent, dtype=np.intp)
        if np.any(self.parent >= np.arange(self.parent.size)):
            raise ValueError("nodes must be given parents first (parent[i] < i)")
        self.kinematic = np.asarray(kinematic, dtype=bool)
        self.local_position = np.asarray(local_position, dtype=float)
        self.local_q0 = np.asarray(local_q0, dtype=float)
        self.local_angular_velocity = np.asarray(local_angular_velocity, dtype=float)
        self.has_children = bool(np.any(self.parent >= 0))

    def __len__(self) -> int:
        return self.parent.size

    def local_kinematic_rotation(self, t: float) -> np.ndarray:
        """(N, 4) local rotations of the kinematic nodes at time ``t``: ``exp(t ω_l) ⊗ q₀`` (exact)."""
        return quat_mul(quat_exp(t * self.local_angular_velocity), self.local_q0)

    def global_poses(self, t: float, dynamic_q_world: np.ndarray, dynamic_omega_world: np.ndarray) -> GlobalPoses:
        """Compose every node's global pose at time ``t``, roots first.

        ``dynamic_q_world``, ``dynamic_omega_world``: (N, 4), (N, 3), the world's state for the dynamic nodes (rows
        of kinematic nodes are ignored). A dynamic node's global rotation and angular velocity are the world's;
        its position and linear motion come from its parent.
        """
        n = len(self)
        if self.kinematic.any():
            q = np.where(self.kinematic[:, None], self.local_kinematic_rotation(t), dynamic_q_world)
            omega = np.where(self.kinematic[:, None], self.local_angular_velocity, dynamic_omega_world)
        else:
            q, omega = dynamic_q_world.copy(), dynamic_omega_world.copy()
        position, velocity, acceleration = self.local_position.copy(), np.zeros((n, 3)), np.zeros((n, 3))
        # Roots are their own globals; the angular acceleration of a constant-rate kinematic node is zero, and a
        # dynamic node's is not needed by anything downstream, so it is left at zero.
        alpha = np.zeros((n, 3))
        if self.has_children:
            compose_nodes(self.parent, self.kinematic, self.local_position, q, omega, position, velocity,
                          acceleration, alpha)  # fmt: skip
        return GlobalPoses(q, position, velocity, acceleration, omega, alpha)


def compose_nodes(*arguments) -> None:
    """scene/running/graph_kernel.py's ``compose_nodes``: compiled (loaded only for a scene with a hierarchy), or,
    while the window's kernels are not ready (sim/compiled.py), its own code run by Python on numpy's scalars, the
    same bits without numba (~30 µs a node: the hierarchy preset in well under a millisecond; compiling on the
    window's thread froze it 1.5 s)."""
    if compiled.is_ready(compiled.SCENE_GRAPH):
        from spinlab.scene.running.graph_kernel import compose_nodes as compiled_compose

        compiled_compose(*arguments)
        return
    with np.errstate(all="ignore"):  # the kernel's error model
        plain(Path(__file__).with_name("graph_kernel.py")).compose_nodes(*arguments)
