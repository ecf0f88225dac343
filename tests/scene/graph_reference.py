"""The scene graph's composition as it was written before it was compiled: level by level, each level one
vectorised call of seed 000's composition (sim/dynamic_transform.py). The compiled walk (scene/running/graph_kernel.py)
must give these poses bit for bit."""

import numpy as np

from spinlab.scene.running.graph import GlobalPoses, SceneGraph
from spinlab.sim import dynamic_transform as dt
from spinlab.sim.quaternion import quat_conj, quat_mul, quat_rotate
from spinlab.sim.transform import Transform


def global_poses_by_level(graph: SceneGraph, t: float, dynamic_q_world, dynamic_omega_world) -> GlobalPoses:
    """:meth:`SceneGraph.global_poses`, composed one depth of the forest at a time."""
    n = len(graph)
    depth = np.zeros(n, dtype=np.intp)
    for node, parent in enumerate(graph.parent):
        depth[node] = 0 if parent < 0 else depth[parent] + 1
    levels = [np.flatnonzero(depth == d) for d in range(int(depth.max(initial=-1)) + 1)]
    kinematic = graph.kinematic
    if kinematic.any():
        q = np.where(kinematic[:, None], graph.local_kinematic_rotation(t), dynamic_q_world)
        omega = np.where(kinematic[:, None], graph.local_angular_velocity, dynamic_omega_world)
    else:
        q, omega = dynamic_q_world.copy(), dynamic_omega_world.copy()
    position, velocity, acceleration = graph.local_position.copy(), np.zeros((n, 3)), np.zeros((n, 3))
    alpha = np.zeros((n, 3))
    for level in levels[1:]:
        parents = graph.parent[level]
        transform = Transform(position[parents], q[parents], np.ones(parents.size))
        parent_global = dt.DynamicTransform(
            transform, velocity[parents], acceleration[parents], omega[parents], alpha[parents]
        )
        # Local transforms: kinematic as prescribed, dynamic derived from the two globals.
        parent_q_conj = quat_conj(q[parents])
        dynamic = ~kinematic[level]
        local_q, local_omega = q[level].copy(), omega[level].copy()
        if dynamic.any():
            local_q[dynamic] = quat_mul(parent_q_conj[dynamic], q[level[dynamic]])
            local_omega[dynamic] = quat_rotate(parent_q_conj[dynamic], omega[level[dynamic]] - omega[parents[dynamic]])
        zeros = np.zeros((level.size, 3))
        local_transform = Transform(graph.local_position[level], local_q, np.ones(level.size))
        composed = dt.compose(parent_global, dt.DynamicTransform(local_transform, zeros, zeros, local_omega, zeros))
        position[level] = composed.transform.translation
        velocity[level] = composed.velocity
        acceleration[level] = composed.acceleration
        moved = kinematic[level]
        q[level[moved]] = composed.transform.rotation[moved]
        omega[level[moved]] = composed.angular_velocity[moved]
        alpha[level] = composed.angular_acceleration
    return GlobalPoses(q, position, velocity, acceleration, omega, alpha)
