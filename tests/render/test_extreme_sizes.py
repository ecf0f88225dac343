"""Bodies at the ends of a scene file's range of sizes (scene/files/limits.py: 1e-50 m to 1e50 m) are laid out and
recorded: their bounds are float64 (render/meshes.py's ``bounding_radius``; a float32 mesh is all zeros below
~1e-45 m, and a 1e-50 m body divided by its zero size), and the arrows of a zero-size head do not divide by it."""

import numpy as np
import pytest

from spinlab.render import meshes
from spinlab.render.body_layout import BodyLayout
from spinlab.render.video import read_video_info
from spinlab.render.video_file import record_scene
from spinlab.scene.files.scene_file import load_scene

SCALES = [1e-50, 1e-45, 1e-20, 1.0, 1e20, 1e45, 1e50]
RTOL = 1e-6  # the unit meshes' vertices are float32 (and approx's absolute 1e-12 would pass any tiny size)


def box_scene(tmp_path, size: float):
    path = tmp_path / "speck.toml"
    path.write_text(
        f'[[body]]\nname = "speck"\nshape = "box"\nsize = [{size!r}, {size!r}, {size!r}]\n'
        "inertia = [1.0, 1.0, 1.0]\n"  # a shape's own moments at these sizes lie outside the range a scene holds
        "angular_velocity = [0.0, 5.0, 0.1]\n"
    )
    return load_scene(path)


@pytest.mark.parametrize("scale", SCALES)
def test_bounding_radius_scales_with_the_shape_over_the_whole_range(scale):
    unit = meshes.bounding_radius("t_handle", {"radius": 0.1, "length": 1.0, "bar_length": 0.8}, np.zeros(3))
    sizes = {"radius": 0.1 * scale, "length": scale, "bar_length": 0.8 * scale}
    assert meshes.bounding_radius("t_handle", sizes, np.zeros(3)) == pytest.approx(unit * scale, rel=RTOL, abs=0.0)
    assert meshes.bounding_radius("box", {"size": [scale] * 3}, np.zeros(3)) == pytest.approx(
        0.5 * np.sqrt(3.0) * scale, rel=RTOL, abs=0.0
    )


@pytest.mark.parametrize("scale", SCALES)
def test_a_body_anywhere_in_the_range_has_positive_finite_sizes(tmp_path, scale):
    layout = BodyLayout(box_scene(tmp_path, scale))
    values = [layout.radius[0], layout.size, *layout.arrow_sizes, layout.omega_scale, layout.momentum_scale]
    assert all(np.isfinite(value) and value > 0.0 for value in values), values
    assert layout.radius[0] == pytest.approx(0.5 * np.sqrt(3.0) * scale, rel=RTOL, abs=0.0)


def test_arrows_of_a_head_of_no_length_are_finite():
    shaft, head = meshes.arrow_part_matrices(np.array([0.0, 1e-60, 1.0]), 0.0, 0.0, 0.0)
    assert np.isfinite(shaft).all() and np.isfinite(head).all()


def test_arrows_of_a_tiny_body_are_its_size_not_a_nanometre():
    shaft, head = meshes.arrow_part_matrices(np.array([3e-50]), 1e-52, 1e-50, 3e-51)
    tip = head[0] @ np.array([0.0, 0.0, 1.0, 1.0])
    assert tip[2] == pytest.approx(3e-50, rel=1e-12, abs=0.0)


@pytest.mark.parametrize("scale", [1e-50, 1e50])
def test_record_a_body_at_either_end_of_the_range(gl_context, tmp_path, scale):
    out = tmp_path / "speck.mp4"
    result = record_scene(box_scene(tmp_path, scale), out, duration=0.1, fps=30, size=(64, 36))
    assert result.frames == 3 and read_video_info(out)[:3] == (3, 64, 36)
