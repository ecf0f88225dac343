"""render/body_layout.py: sizes, arrow scales and which bodies have an invariable plane; no GL."""

import numpy as np
import pytest

from spinlab.render import meshes
from spinlab.render.body_layout import BodyLayout, nice_step
from spinlab.scene.files.scene_file import load_scene


def test_bounding_radius_and_arrow_scale_of_the_t_handle():
    scene = load_scene("t_handle")
    layout = BodyLayout(scene)
    body = scene.bodies[0]
    vertices = meshes.body_mesh(body.shape, body.sizes).positions - body.com_offset
    assert layout.radius[0] == pytest.approx(np.linalg.norm(vertices, axis=1).max())
    # ω's arrow is about one body length: the handle's 0.87 m to 1.2 m (its bounding diameter).
    arrow = layout.omega_scale * np.linalg.norm(body.omega_parent)
    assert 0.8 < arrow < 2.0 * layout.radius[0]
    assert np.allclose(layout.principal_axes[0], np.eye(3))  # moments (1.3, 1.4, 2.5) along x, y, z


def test_only_torque_free_bodies_have_an_invariable_plane():
    """As the measures define torque-free (scene/model/measures.py): a body held at a pivot under gravity has no
    invariable plane, nor does a kinematic one; a dynamic child on a ball joint has one (the joint holds its centre, not
    its spin: its L stays what it was, exactly)."""
    assert BodyLayout(load_scene("t_handle")).torque_free.all()
    assert not BodyLayout(load_scene("heavy_top")).torque_free.any()  # held at a pivot under gravity
    hierarchy = load_scene("hierarchy")
    planes = dict(zip([body.name for body in hierarchy.bodies], BodyLayout(hierarchy).torque_free, strict=True))
    assert planes == {"turntable": False, "wheel_east": True, "wheel_west": True, "arm": False, "wheel_arm": True}


@pytest.mark.parametrize(
    ("value", "step"), [(0.3, 0.25), (0.07, 0.05), (1.0, 1.0), (1.5, 1.0), (1.9, 2.5), (8.0, 10.0)]
)
def test_nice_step(value, step):
    assert nice_step(value) == pytest.approx(step)


def test_the_arrows_are_scaled_to_the_world_motion_of_a_chain_of_spinning_children(tmp_path):
    # Each child spins at [0, 1, 0.5] rad/s relative to its parent: the last of 40 at 40 times that in the world.
    # The arrows scaled from the file's relative rates were 40 times too long, and the camera framed them, not the
    # bodies (a fuzz scene: a 330-deep chain showed as a dot).
    from spinlab.render.body_layout import MOMENTUM_ARROW_SIZES, OMEGA_ARROW_SIZES
    from spinlab.scene.running.simulation import Simulation, initial_world_state

    lines = [f'[[body]]\nname = "b{i}"\nshape = "sphere"\nangular_velocity = [0.0, 1.0, 0.5]\n' for i in range(40)]
    lines = [line + (f'parent = "b{i - 1}"\n' if i else "") for i, line in enumerate(lines)]
    path = tmp_path / "chain.toml"
    path.write_text("\n".join(lines))
    scene = load_scene(path)
    snapshot = Simulation(scene).snapshot()
    q, omega = initial_world_state(scene)
    np.testing.assert_allclose(omega, snapshot.omega_world, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.abs(np.einsum("ni,ni->n", q, snapshot.q)), 1.0, rtol=1e-12)
    layout = BodyLayout(scene)
    fastest = np.linalg.norm(snapshot.omega_world, axis=1).max()
    assert fastest == pytest.approx(40 * np.hypot(1.0, 0.5))
    assert layout.omega_scale * fastest == pytest.approx(OMEGA_ARROW_SIZES * layout.size)
    largest = np.linalg.norm(snapshot.L_world, axis=1).max()
    assert layout.momentum_scale * largest == pytest.approx(MOMENTUM_ARROW_SIZES * layout.size)
