"""Per-instance data for the instanced draws: model matrices from a snapshot, and their upload layout.

The quaternion boundary (house rule 6): sim/ and scene/ keep ``q`` as ``(w, x, y, z)``, unit, body → world;
:func:`rotation_from_quat_wxyz` is the one place in render/ that turns it into anything else (a rotation matrix).
Matrices act on column vectors (``p' = M @ [p, 1]``); :func:`instance_rows` writes them column-major, as GLSL
reads a ``mat4`` attribute.
"""

from __future__ import annotations

import numpy as np

from spinlab.sim.quaternion import quat_to_matrix

__all__ = ["rotation_from_quat_wxyz", "body_model_matrices", "frames_along", "instance_rows", "rigid_matrices"]


def rotation_from_quat_wxyz(q: np.ndarray) -> np.ndarray:
    """(N, 3, 3) rotation matrices, body → world, of (N, 4) unit quaternions in our (w, x, y, z) layout."""
    return quat_to_matrix(np.asarray(q, dtype=float))


def rigid_matrices(rotation: np.ndarray, translation: np.ndarray) -> np.ndarray:
    """(N, 4, 4) matrices ``[R t; 0 1]`` from ``rotation`` (N, 3, 3) and ``translation`` (N, 3)."""
    matrices = np.zeros((len(rotation), 4, 4))
    matrices[:, :3, :3] = rotation
    matrices[:, :3, 3] = translation
    matrices[:, 3, 3] = 1.0
    return matrices


def body_model_matrices(q: np.ndarray, position: np.ndarray, com_offset: np.ndarray) -> np.ndarray:
    """(N, 4, 4) modelling frame → world: ``translate(position) · rotate(q) · translate(−com_offset)``.

    ``q`` (N, 4) body → world, ``position`` (N, 3) m the centre of mass in the world, ``com_offset`` (N, 3) m the
    centre of mass in the modelling frame; a body is drawn around its centre of mass.
    """
    rotation = rotation_from_quat_wxyz(q)
    return rigid_matrices(rotation, position - np.einsum("nij,nj->ni", rotation, com_offset))


def frames_along(directions: np.ndarray) -> np.ndarray:
    """(N, 3, 3) rotations whose third column is the unit vector of ``directions`` (N, 3) (zero gives +z).

    Duff et al., "Building an orthonormal basis, revisited" (JCGT 2017): branch-free and continuous except
    where z changes sign. Written column by column into one array (no stacking: it runs a few times a frame).
    """
    norms = np.linalg.norm(directions, axis=1, keepdims=True)
    n = np.where(norms > 0.0, directions / np.where(norms > 0.0, norms, 1.0), [0.0, 0.0, 1.0])
    sign = np.where(n[:, 2] >= 0.0, 1.0, -1.0)
    a = -1.0 / (sign + n[:, 2])
    b = n[:, 0] * n[:, 1] * a
    frames = np.empty((len(n), 3, 3))
    frames[:, 0, 0], frames[:, 1, 0], frames[:, 2, 0] = 1.0 + sign * n[:, 0] ** 2 * a, sign * b, -sign * n[:, 0]
    frames[:, 0, 1], frames[:, 1, 1], frames[:, 2, 1] = b, sign + n[:, 1] ** 2 * a, -n[:, 1]
    frames[:, :, 2] = n
    return frames


def instance_rows(
    matrices: np.ndarray, colors: np.ndarray, view: int = 0, *, out: np.ndarray | None = None
) -> np.ndarray:
    """(N, 21) float32 rows: the (N, 4, 4) ``matrices`` column-major, (N, 4) RGBA ``colors``, then the index of the
    ``view`` they are drawn in; the instance buffer layout ``"16f 4f 1f/i"`` (render/gpu.py). Written into ``out``
    (N, 21) float32 when given."""
    rows = np.empty((len(matrices), 21), dtype=np.float32) if out is None else out
    rows[:, :16] = matrices.transpose(0, 2, 1).reshape(len(matrices), 16)
    rows[:, 16:20] = colors
    rows[:, 20] = view
    return rows
