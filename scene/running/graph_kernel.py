"""The scene graph's composition, compiled: every node's global pose from its parent's, parents first.

:meth:`scene.running.graph.SceneGraph.global_poses` composed level by level, ~50 numpy calls a level whatever its size:
~0.3 ms a level, 90 ms for a chain 330 deep, and a deep chain made ``run --trace`` take minutes (a fuzz case).
:func:`compose_nodes` walks the nodes once in a compiled loop, with the same floating-point operations in the
same order as seed 000's composition (sim/dynamic_transform.py's :func:`~sim.dynamic_transform.compose`, its
:func:`~sim.quaternion.quat_mul`, :func:`~sim.quaternion.quat_rotate` and :func:`~sim.vector.cross`), so the
poses are bit for bit the ones those give (tests/scene/test_graph_kernel.py holds it against them).
"""

from __future__ import annotations

from spinlab.sim.jit import njit

__all__ = ["compose_nodes"]


@njit(cache=True, error_model="numpy")
def _cross(a0, a1, a2, b0, b1, b2):
    """``a × b``, as sim/vector.py's ``cross``."""
    return a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0


@njit(cache=True, error_model="numpy")
def _rotate(w, x, y, z, v0, v1, v2):
    """``q v q*`` as sim/quaternion.py's ``quat_rotate``: ``v + w t + u × t`` with ``t = 2 u × v``."""
    c0, c1, c2 = _cross(x, y, z, v0, v1, v2)
    t0, t1, t2 = 2.0 * c0, 2.0 * c1, 2.0 * c2
    d0, d1, d2 = _cross(x, y, z, t0, t1, t2)
    return v0 + w * t0 + d0, v1 + w * t1 + d1, v2 + w * t2 + d2


@njit(cache=True, error_model="numpy")
def _mul(pw, px, py, pz, qw, qx, qy, qz):
    """``p ⊗ q`` as sim/quaternion.py's ``quat_mul`` (its sum over three products taken left to right)."""
    c0, c1, c2 = _cross(px, py, pz, qx, qy, qz)
    w = pw * qw - (px * qx + py * qy + pz * qz)
    return w, pw * qx + qw * px + c0, pw * qy + qw * py + c1, pw * qz + qw * pz + c2


@njit(cache=True, error_model="numpy")
def compose_nodes(parent, kinematic, local_position, q, omega, position, velocity, acceleration, alpha):
    """Compose every non-root node ``i`` (``parent[i] < i``, in index order) onto its parent, in place.

    On entry ``q``, ``omega`` (N, 4), (N, 3) hold a dynamic node's global rotation and rate (the world's) and a
    kinematic node's local ones; ``position`` holds the roots' positions, ``velocity``, ``acceleration``,
    ``alpha`` zeros. On return they hold every node's global pose and motion, as ``SceneGraph.global_poses``
    describes: a kinematic node's local motion composed onto its parent's, a dynamic node's rotation and rate
    kept, its local rotation and rate derived from the two globals (``A₁ = A₂⁻¹ ∘ A₃``), its local position
    ``local_position[i]`` held, its local velocity and accelerations zero."""
    for i in range(parent.shape[0]):
        p = parent[i]
        if p < 0:
            continue
        pw, px, py, pz = q[p, 0], q[p, 1], q[p, 2], q[p, 3]
        if kinematic[i]:
            lw, lx, ly, lz = q[i, 0], q[i, 1], q[i, 2], q[i, 3]
            o0, o1, o2 = omega[i, 0], omega[i, 1], omega[i, 2]
        else:
            # conj(q_p) = q_p · (1, −1, −1, −1), then q_p* ⊗ q and R_pᵀ (ω − ω_p).
            cw, cx, cy, cz = pw * 1.0, px * -1.0, py * -1.0, pz * -1.0
            lw, lx, ly, lz = _mul(cw, cx, cy, cz, q[i, 0], q[i, 1], q[i, 2], q[i, 3])
            o0, o1, o2 = _rotate(
                cw, cx, cy, cz, omega[i, 0] - omega[p, 0], omega[i, 1] - omega[p, 1], omega[i, 2] - omega[p, 2]
            )
        # compose(parent, child) with the child's velocity, acceleration and angular acceleration zero, scale 1.
        f0, f1, f2 = _rotate(
            pw, px, py, pz, 1.0 * local_position[i, 0], 1.0 * local_position[i, 1], 1.0 * local_position[i, 2]
        )  # offset J₂ T₁
        zero = 1.0 * 0.0
        s0, s1, s2 = _rotate(pw, px, py, pz, zero, zero, zero)  # J₂ v₁ (and J₂ a₁, R₂ α₁: the same zeros)
        w0, w1, w2 = _rotate(pw, px, py, pz, o0, o1, o2)  # R₂ ω₁
        op0, op1, op2 = omega[p, 0], omega[p, 1], omega[p, 2]
        ap0, ap1, ap2 = alpha[p, 0], alpha[p, 1], alpha[p, 2]
        x0, x1, x2 = _cross(op0, op1, op2, f0, f1, f2)  # ω₂ × J₂T₁
        a0, a1, a2 = _cross(ap0, ap1, ap2, f0, f1, f2)
        b0, b1, b2 = _cross(op0, op1, op2, x0, x1, x2)
        c0, c1, c2 = _cross(op0, op1, op2, s0, s1, s2)
        g0, g1, g2 = _cross(op0, op1, op2, w0, w1, w2)
        velocity[i, 0] = velocity[p, 0] + s0 + x0
        velocity[i, 1] = velocity[p, 1] + s1 + x1
        velocity[i, 2] = velocity[p, 2] + s2 + x2
        acceleration[i, 0] = acceleration[p, 0] + s0 + a0 + b0 + 2.0 * c0
        acceleration[i, 1] = acceleration[p, 1] + s1 + a1 + b1 + 2.0 * c1
        acceleration[i, 2] = acceleration[p, 2] + s2 + a2 + b2 + 2.0 * c2
        alpha[i, 0] = ap0 + s0 + g0
        alpha[i, 1] = ap1 + s1 + g1
        alpha[i, 2] = ap2 + s2 + g2
        position[i, 0] = f0 + position[p, 0]
        position[i, 1] = f1 + position[p, 1]
        position[i, 2] = f2 + position[p, 2]
        if kinematic[i]:
            q[i, 0], q[i, 1], q[i, 2], q[i, 3] = _mul(pw, px, py, pz, lw, lx, ly, lz)
            omega[i, 0], omega[i, 1], omega[i, 2] = op0 + w0, op1 + w1, op2 + w2
