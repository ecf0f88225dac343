"""render/meshes.py and render/instances.py: geometry identities, no GL."""

import numpy as np
import pytest

from spinlab.render import meshes
from spinlab.render.instances import body_model_matrices, frames_along, rotation_from_quat_wxyz
from spinlab.sim.inertia import SIZE_DEFAULTS, t_handle
from spinlab.sim.quaternion import quat_normalize, quat_rotate

ATOL_M = 1e-6
CLOSED = {"cylinder": meshes.cylinder, "cone": meshes.cone, "box": meshes.box, "sphere": meshes.uv_sphere}


def _face_normals(mesh: meshes.Mesh) -> np.ndarray:
    corners = mesh.positions[mesh.indices].astype(float)
    return np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])


@pytest.mark.parametrize("kind", [*CLOSED, "disc"])
def test_triangles_wind_counter_clockwise_seen_along_the_vertex_normals(kind):
    mesh = CLOSED.get(kind, meshes.disc)()
    face = _face_normals(mesh)
    assert np.all(np.linalg.norm(face, axis=1) > 0.0), "degenerate triangle"
    vertex = mesh.normals[mesh.indices].sum(axis=1)
    assert np.all(np.einsum("ij,ij->i", face, vertex) > 0.0)
    assert np.allclose(np.linalg.norm(mesh.normals, axis=1), 1.0, atol=1e-6)


@pytest.mark.parametrize("kind", CLOSED)
def test_closed_meshes_are_watertight_and_enclose_the_unit_volume(kind):
    mesh = CLOSED[kind]()
    # Weld positions (caps and seams duplicate vertices for their normals), then every edge has two triangles.
    _, weld = np.unique(np.round(mesh.positions, 6), axis=0, return_inverse=True)
    triangles = weld.reshape(-1)[mesh.indices]
    edges = np.sort(np.concatenate([triangles[:, [0, 1]], triangles[:, [1, 2]], triangles[:, [2, 0]]]), axis=1)
    _, counts = np.unique(edges, axis=0, return_counts=True)
    assert np.all(counts == 2)
    corners = mesh.positions[mesh.indices].astype(float)
    volume = np.einsum("ij,ij->i", corners[:, 0], np.cross(corners[:, 1], corners[:, 2])).sum() / 6.0
    exact = {"cylinder": np.pi, "cone": np.pi / 3.0, "box": 1.0, "sphere": 4.0 * np.pi / 3.0}[kind]
    assert 0.95 * exact < volume <= exact  # inscribed polygons lose a little volume, never gain


def test_t_handle_parts_fill_the_shape_of_sim_inertia():
    sizes = SIZE_DEFAULTS["t_handle"]
    mesh = meshes.body_mesh("t_handle", sizes)
    radius, length, bar = sizes["radius"], sizes["length"], sizes["bar_length"]
    assert np.allclose(mesh.positions.min(axis=0), [0.0, -bar / 2, -radius], atol=ATOL_M)
    assert np.allclose(mesh.positions.max(axis=0), [length + 2 * radius, bar / 2, radius], atol=ATOL_M)
    # The COM of the two solid cylinders (volume-weighted) is sim.inertia's com_offset.
    com = (length * np.array([length / 2, 0, 0]) + bar * np.array([length + radius, 0, 0])) / (length + bar)
    assert np.allclose(com, t_handle(**sizes).com_offset, atol=1e-12)


def test_transform_mesh_keeps_normals_perpendicular_under_non_uniform_scale():
    mesh = meshes.transform_mesh(meshes.cylinder(), meshes.scaling((0.1, 0.1, 3.0)))
    face = _face_normals(mesh)
    face /= np.linalg.norm(face, axis=1, keepdims=True)
    side = np.abs(mesh.normals[:, 2]) < 0.5
    # On the sides a smooth normal is perpendicular to the axis and to the triangle's edges along z.
    assert np.allclose(mesh.normals[side, 2], 0.0, atol=1e-6)
    assert np.all(np.einsum("ij,ij->i", face, mesh.normals[mesh.indices].sum(axis=1)) > 0.0)


def test_arrow_parts_span_the_arrow():
    lengths = np.array([1.0, 0.1, 2.0])
    shaft, head = meshes.arrow_part_matrices(lengths, 0.02, 0.2, 0.05)
    base = shaft @ np.array([0.0, 0.0, -0.5, 1.0])
    tip = head @ np.array([0.0, 0.0, 1.0, 1.0])
    assert np.allclose(base[:, 2], 0.0) and np.allclose(tip[:, 2], lengths)
    assert np.allclose(shaft @ [0, 0, 0.5, 1], head @ [0, 0, 0, 1])  # the head starts where the shaft ends


def test_frames_along_are_rotations_with_the_direction_as_third_axis():
    directions = np.random.default_rng(1).normal(size=(200, 3))
    directions[:3] = [[0, 0, 1], [0, 0, -1], [1e-12, 0, -1]]
    frames = frames_along(directions)
    assert np.allclose(frames.transpose(0, 2, 1) @ frames, np.eye(3), atol=1e-12)
    assert np.allclose(np.linalg.det(frames), 1.0)
    assert np.allclose(frames[:, :, 2], directions / np.linalg.norm(directions, axis=1, keepdims=True))


def test_body_model_matrices_draw_the_body_around_its_centre_of_mass():
    rng = np.random.default_rng(2)
    q = quat_normalize(rng.normal(size=(5, 4)))
    position, com_offset, point = rng.normal(size=(5, 3)), rng.normal(size=(5, 3)), rng.normal(size=(5, 3))
    model = body_model_matrices(q, position, com_offset)
    moved = np.einsum("nij,nj->ni", model, np.column_stack([point, np.ones(5)]))[:, :3]
    assert np.allclose(moved, position + quat_rotate(q, point - com_offset), atol=1e-12)
    assert np.allclose(rotation_from_quat_wxyz(q) @ point[0], quat_rotate(q, point[0]))


@pytest.mark.parametrize("kind", sorted(meshes.UNIT_MESHES))
def test_edge_adjacency_gives_each_fold_once_with_both_of_its_triangles(kind):
    mesh = meshes.unit_mesh(kind, 12)
    edges = meshes.edge_adjacency(mesh).astype(np.int64)
    positions = mesh.positions.astype(float)

    # A closed mesh: 3T/2 edges; each where the surface folds comes once, with both its triangles, none inside a
    # plane (counted here by brute force over the triangles sharing each edge).
    def key(i, j):
        return frozenset((tuple(np.round(positions[i], 5)), tuple(np.round(positions[j], 5))))

    def normal(triangle):
        p0, p1, p2 = positions[list(triangle)]
        n = np.cross(p1 - p0, p2 - p0)
        return n / np.linalg.norm(n)

    sharing = {}
    for triangle in mesh.indices.tolist():
        for i in range(3):
            sharing.setdefault(key(triangle[i], triangle[(i + 1) % 3]), []).append(normal(triangle))
    assert all(len(normals) == 2 for normals in sharing.values())
    folds = sum(1 for first, second in sharing.values() if first @ second < 1.0 - 1e-9)
    assert 0 < folds < len(sharing)
    assert edges.shape == (folds, 6)
    winding = {tuple(np.roll(triangle, shift)) for triangle in mesh.indices.tolist() for shift in range(3)}
    for f, a, b, g, c, d in edges:
        # (a, b, f) and (c, d, g) are triangles of the mesh as they wind, on the same edge run the other way.
        assert (a, b, f) in winding and (c, d, g) in winding
        assert not np.allclose(positions[a], positions[b])
        assert np.allclose(positions[c], positions[b]) and np.allclose(positions[d], positions[a])
        assert g != f
    assert len({key(a, b) for _, a, b, _, _, _ in edges}) == folds


@pytest.mark.parametrize("kind", sorted(meshes.UNIT_MESHES))
def test_edge_adjacency_puts_the_smooth_edges_first(kind):
    # Smooth: both triangles carry the same normals at the edge's two ends (a cylinder's sides, all of a sphere's),
    # else a crease (a cap's rim, a box's edges); the fringes of the coarsest level draw only the leading smooth ones.
    mesh = meshes.unit_mesh(kind, 6)
    edges = meshes.edge_adjacency(mesh).astype(np.int64)
    normals = mesh.normals.astype(float)
    smooth = np.all(np.isclose(normals[edges[:, 1]], normals[edges[:, 5]]), axis=1) & np.all(
        np.isclose(normals[edges[:, 2]], normals[edges[:, 4]]), axis=1
    )
    count = meshes.smooth_edge_count(mesh, edges)
    assert count == smooth.sum()
    assert smooth[:count].all() and not smooth[count:].any()
    expected = {"cylinder": 6, "sphere": len(edges), "box": 0, "cone": 0}  # a cylinder's sides; a cone's apex creases
    assert count == expected[kind]
