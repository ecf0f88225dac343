"""The cloud preset (benchmarks/cloud.py's 1000 T-handles round the intermediate axis) and the scaling benchmark."""

import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from spinlab.benchmarks import scaling
from spinlab.benchmarks.cloud import (
    MOMENTS,
    PRESET_BODIES,
    PRESET_PATH,
    SPACING,
    SPIN,
    TILT_RANGE,
    cloud_state,
    cloud_toml,
    flip_periods,
)
from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.model.palette import flip_colors
from tests.hang import HANG_S

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def cloud():
    return load_scene("cloud")


def _omega_body(scene):
    """Body ω: every handle starts in the identity orientation, so it is the world ω the scene holds."""
    assert all(np.array_equal(body.orientation, [1.0, 0.0, 0.0, 0.0]) for body in scene.bodies)
    return np.array([body.omega_parent for body in scene.bodies])


def test_the_preset_is_the_generators_output():
    assert PRESET_PATH.read_text(encoding="utf-8") == cloud_toml(PRESET_BODIES)


def test_the_preset_loads_1000_t_handles_in_a_grid_that_never_overlaps(cloud):
    assert len(cloud.bodies) == 1000
    assert {body.shape for body in cloud.bodies} == {"t_handle"}
    for body in cloud.bodies:
        assert np.allclose(np.asarray(body.inertia_com), np.diag(MOMENTS))
    position = np.array([body.position for body in cloud.bodies])
    assert np.all(position[:, 1] == 0.0)
    gaps = np.linalg.norm(position[:, None] - position[None], axis=-1) + np.eye(len(position)) * 1e9
    assert gaps.min() >= SPACING - 1e-9  # a handle reaches at most 0.8 m from its centre of mass


def test_every_omega_is_near_the_intermediate_axis_and_sweeps_round_it(cloud):
    omega = _omega_body(cloud)
    assert np.allclose(np.linalg.norm(omega, axis=1), SPIN, rtol=1e-5)
    tilt = np.arccos(np.clip(omega[:, 1] / np.linalg.norm(omega, axis=1), -1.0, 1.0))
    assert tilt.min() == pytest.approx(TILT_RANGE[0], rel=1e-3) and tilt.max() == pytest.approx(TILT_RANGE[1], rel=1e-3)
    # Every way round: the swept angle ψ (benchmarks/cloud.py) covers the circle in 40 equal steps, and the
    # separatrix g = Σ Iᵢ (Iᵢ − I₂) Ωᵢ² = 0 splits the handles in two halves.
    i1, i2, i3 = MOMENTS
    psi = np.arctan2(math.sqrt(i3 * (i3 - i2)) * omega[:, 2], math.sqrt(i1 * (i2 - i1)) * omega[:, 0])
    columns = np.unique(np.round(np.degrees(psi) % 360.0, 1))
    assert len(columns) == 40 and np.allclose(np.diff(columns), 9.0, atol=0.2)
    g = (np.array(MOMENTS) * (np.array(MOMENTS) - i2) * omega**2).sum(axis=1)
    assert (g > 0).sum() == 500 and (g < 0).sum() == 500


def test_colours_are_the_flip_periods_of_the_closed_form(cloud):
    periods, axes = flip_periods(_omega_body(cloud))
    assert np.all(np.isfinite(periods)) and periods.min() > 2.0 and periods.max() < 40.0
    colors = np.array([body.color for body in cloud.bodies])
    assert np.allclose(colors, flip_colors(periods, axes), atol=6e-4)  # written to 3 decimals
    # About the minor axis blue (blue > red), about the major orange (red > blue); longer periods paler.
    assert np.all((colors[:, 2] > colors[:, 0]) == (axes == 0))
    for family in (0, 2):
        chosen = axes == family
        order = np.argsort(periods[chosen])
        assert np.all(np.diff(colors[chosen].sum(axis=1)[order]) >= -1e-3)


def test_flip_colors_puts_an_infinite_period_at_the_pale_end():
    colors = flip_colors(np.array([1.0, 10.0, np.inf, 1.0, np.inf]), np.array([0, 0, 0, 2, 2]))
    assert np.allclose(colors[1], colors[2]) and colors[2].sum() > colors[0].sum()
    assert colors[4].sum() > colors[3].sum()


def test_run_steps_the_cloud():
    done = subprocess.run(
        [sys.executable, "main.py", "run", "cloud", "--duration", "0.05"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("cloud: 3 steps")
    rows = [line.split() for line in lines[3:] if line.startswith("h")]
    assert len(rows) == 1000
    energy = np.array([float(row[2]) for row in rows])
    assert np.all(np.isfinite(energy)) and energy.max() < 1e-4  # implicit midpoint, 3 steps of 1/60 s
    assert scaling._loop_seconds(done.stdout) >= 0.0


def test_the_scaling_table_and_mujocos_bodies(tmp_path):
    mujoco = pytest.importorskip("mujoco")
    states = tmp_path / "states.npz"
    position, omega_body, _, _ = cloud_state(3)
    np.savez(states, position=position, omega_body=omega_body, moments=np.array(MOMENTS))
    assert scaling.mujoco_child(str(states), 2, 1.0 / 240.0)["loop_s"] >= 0.0
    row = {"process_s": 2.0, "cpu_s": 1.0, "loop_s": 0.5, "peak_mb": 100.0}
    result = {
        "steps": 60,
        "h": 1 / 240,
        "integrator": "implicit_midpoint",
        "mujoco": mujoco.__version__,
        "rows": [{"n": 100, "spinlab": scaling._with_rates(row, 100), "mujoco": scaling._with_rates(row, 100)}],
    }
    table = scaling.format_table(result)
    assert "3e+03" in table and "1.2e+04" in table and "1.00×" in table


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="the started environment is read from /proc")
def test_the_scaling_children_get_the_environment_the_benchmark_started_with(monkeypatch):
    # What this process's own imports set (imgui_bundle sets PYGLFW_LIBRARY, which speeds MuJoCo's import) is not
    # handed on; what it started with is.
    monkeypatch.setenv("SPINLAB_SET_AFTER_START", "1")
    started = scaling.started_environment()
    assert "SPINLAB_SET_AFTER_START" not in started
    assert "PATH" in started and "SPINLAB_SET_AFTER_START" in os.environ  # (not an empty environment)


def test_many_bodies_start_without_overlays():
    from spinlab.render.legend import legend_box
    from spinlab.render.renderer import MANY_BODIES, RenderOptions

    assert RenderOptions.for_bodies(MANY_BODIES) == RenderOptions()
    bare = RenderOptions.for_bodies(MANY_BODIES + 1)
    assert not (bare.show_omega or bare.show_momentum or bare.show_axes or bare.show_herpolhode)
    assert not bare.show_invariable_plane and bare.show_floor
    assert legend_box(bare, 0.0, 0.0, "top_left").lines == ()


def test_record_draws_the_cloud_in_its_two_colours(tmp_path):
    import av

    out = tmp_path / "cloud.mp4"
    done = subprocess.run(
        [sys.executable, "main.py", "record", "cloud", "--out", str(out), "--duration", "0.1", "--size", "640x360"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    assert done.returncode == 0, done.stderr
    with av.open(str(out)) as container:
        frames = [frame.to_ndarray(format="rgb24").astype(int) for frame in container.decode(video=0)]
    assert len(frames) == 6
    red, green, blue = np.moveaxis(frames[-1], -1, 0)
    orange = (red > blue + 60) & (red > 150)
    blue_ish = (blue > red + 40) & (blue > 150)
    assert orange.sum() > 300 and blue_ish.sum() > 300  # both families of handles drawn in their colours
