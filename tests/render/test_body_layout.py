"""render/body_layout.py: sizes, arrow scales and which bodies have an invariable plane; no GL."""

import numpy as np
import pytest

from render import meshes
from render.body_layout import BodyLayout, nice_step
from scene.scene_file import load_scene


def test_bounding_radius_and_arrow_scale_of_the_t_handle():
    scene = load_scene("t_handle")
    layout = BodyLayout(scene)
    body = scene.bodies[0]
    vertices = meshes.body_mesh(body.shape, body.sizes).positions - body.com_offset
    assert layout.radius[0] == pytest.approx(np.linalg.norm(vertices, axis=1).max())
    # ω's arrow is about one body length: the handle's 0.87 m to 1.2 m (its bounding diameter).
    arrow = layout.omega_scale * np.linalg.norm(body.omega_world)
    assert 0.8 < arrow < 2.0 * layout.radius[0]
    assert np.allclose(layout.principal_axes[0], np.eye(3))  # moments (1.3, 1.4, 2.5) along x, y, z


def test_only_free_bodies_have_an_invariable_plane():
    assert BodyLayout(load_scene("t_handle")).torque_free.all()
    assert not BodyLayout(load_scene("heavy_top")).torque_free.any()  # held at a pivot under gravity
    assert not BodyLayout(load_scene("hierarchy")).torque_free.any()  # kinematic or carried by a parent


@pytest.mark.parametrize(
    ("value", "step"), [(0.3, 0.25), (0.07, 0.05), (1.0, 1.0), (1.5, 1.0), (1.9, 2.5), (8.0, 10.0)]
)
def test_nice_step(value, step):
    assert nice_step(value) == pytest.approx(step)
