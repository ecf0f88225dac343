"""A heavy top's pivot and stem (render/body_layout.py, render/frame_instances.py): a thin stem from the pivot to
the centre of mass that turns with the body, and a post fixed under the pivot, in the body's view; nothing for a
free body."""

import numpy as np

from spinlab.render.body_layout import BodyLayout
from spinlab.render.frame_instances import frame_instances
from spinlab.render.instances import body_model_matrices
from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.running.simulation import Simulation

ATOL_M = 1e-12


def _apply(matrix: np.ndarray, point) -> np.ndarray:
    return (matrix @ np.append(point, 1.0))[:3]


def test_the_stem_runs_from_the_pivot_to_the_centre_of_mass_as_the_body_turns():
    scene = load_scene("heavy_top")
    layout = BodyLayout(scene)
    body = scene.bodies[0]
    assert layout.pivoted.tolist() == [True]
    parts = layout.parts["cylinder"]
    stems = parts.matrices()[parts.owner == 0][-1:]  # the disc first, then the stem
    rng = np.random.default_rng(4)
    q = rng.normal(size=(1, 4))
    q /= np.linalg.norm(q)
    position = rng.normal(size=(1, 3))
    model = body_model_matrices(q, position, body.com_offset[None])[0] @ stems[0]
    rotation = body_model_matrices(q, np.zeros((1, 3)), np.zeros((1, 3)))[0, :3, :3]
    pivot_world = position[0] + rotation @ body.pivot
    ends = {tuple(np.round(_apply(model, (0.0, 0.0, z)), 12)) for z in (-0.5, 0.5)}
    expected = {tuple(np.round(pivot_world, 12)), tuple(np.round(position[0], 12))}
    assert ends == expected
    assert layout.radius[0] >= np.linalg.norm(body.pivot)  # the camera and the shadow hold the stem too


def test_the_post_stands_still_under_the_pivot_as_the_top_moves():
    scene = load_scene("heavy_top")
    layout = BodyLayout(scene)
    simulation = Simulation(scene)
    first = simulation.snapshot()
    for _ in range(120):
        simulation.step()
    later = simulation.snapshot()
    apexes = []
    for snapshot in (first, later):
        owner, matrices = layout.post_matrices(snapshot.q, snapshot.position)
        assert owner.tolist() == [0]
        apexes.append(_apply(matrices[0], (0.0, 0.0, 1.0)))
        base = _apply(matrices[0], (0.0, 0.0, 0.0))
        assert base[2] < apexes[-1][2]  # apex up, base below (gravity is −z)
    np.testing.assert_allclose(apexes[0], [0.0, 0.0, 0.0], atol=1e-9)  # the preset's pivot is the origin
    np.testing.assert_allclose(apexes[1], apexes[0], atol=1e-9)
    frame = frame_instances(layout, first, (), show_omega=False, show_momentum=False, floor_z=None)
    rows, owners = frame.solids["cone"]
    assert owners.tolist() == [0]  # the post, drawn with its body's view


def test_a_free_body_has_no_stem_and_no_post():
    layout = BodyLayout(load_scene("t_handle"))
    assert not layout.pivoted.any()
    owner, matrices = layout.post_matrices(np.array([[1.0, 0.0, 0.0, 0.0]]), np.zeros((1, 3)))
    assert len(owner) == 0 and matrices.shape == (0, 4, 4)
