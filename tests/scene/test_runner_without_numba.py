"""A small run steps without numba (sim/compiled.py's ``steps_without_numba``), and its trace is the compiled
path's bytes all the same."""

import subprocess
import sys
from pathlib import Path

import pytest

from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.model.runner import run_scene
from spinlab.sim import compiled
from spinlab.sim.compiled import steps_without_numba

ROOT = Path(__file__).resolve().parents[2]


def test_small_runs_of_integrators_with_the_kernels_bits_on_numpy_skip_numba(monkeypatch):
    monkeypatch.setattr(compiled, "_twins_cached", lambda names: True)  # a warm cache
    assert steps_without_numba(["implicit_midpoint"], 60)
    assert steps_without_numba(["implicit_midpoint"] * 100 + [None], 60)
    assert steps_without_numba(["euler", "trapezoidal", "mujoco_rk4"], 60)
    assert not steps_without_numba(["implicit_midpoint"] * 100_000, 60)  # numba's fixed cost is the smaller
    # A thousand bodies step in lockstep (sim/integrators/kernel_lockstep.py), ~2 ms a step: not worth numba.
    assert steps_without_numba(["implicit_midpoint"] * 1000, 60) and steps_without_numba(["im4"] * 1000, 20)
    assert not steps_without_numba(["implicit_midpoint"], 100_000)
    assert steps_without_numba(["im6"], 200) and not steps_without_numba(["im6"], 2000)  # ~8 stages a step
    # Each body on the kernel's own loop: a group of 7 costs seven times one.
    assert steps_without_numba(["im6"], 300) and not steps_without_numba(["im6"] * 7, 300)
    # The scene graph's composition without numba counts too: a chain 2,000 deep takes ~60 ms a step.
    assert steps_without_numba(["euler"], 50) and not steps_without_numba(["euler"], 50, graph_nodes=2000)
    assert not steps_without_numba(["implicit_midpoint", "axes4"], 1)  # no twin, nor numpy path of its kernel's bits
    assert not steps_without_numba(["euler"], 1, gyroscopic=False)  # the paths are checked with the term on


def test_on_a_cold_cache_longer_runs_skip_numba_too(monkeypatch):
    monkeypatch.setattr(compiled, "_twins_cached", lambda names: False)
    assert steps_without_numba(["im6"], 60)  # ~0.6 s on numpy against ~5 s compiling
    assert steps_without_numba(["implicit_midpoint"], 600)  # run's default 10 s of t_handle
    assert not steps_without_numba(["implicit_midpoint"], 100_000)
    assert not steps_without_numba(["implicit_midpoint"] * 100_000, 60)


@pytest.mark.parametrize(
    ("preset", "integrator"),
    [("t_handle", "implicit_midpoint"), ("t_handle", "object_trapezoidal"), ("heavy_top", "trapezoidal"),
     ("heavy_top", "euler"), ("heavy_top", "split4"), ("heavy_top", "im6"), ("compare", "implicit_midpoint"),
     ("compare", None), ("compare", "rkmk4"), ("t_handle", "magnus")],
)  # fmt: skip
def test_a_run_without_numba_writes_the_compiled_paths_trace(tmp_path, monkeypatch, preset, integrator):
    monkeypatch.setattr(compiled, "_twins_cached", lambda names: False)  # the longer budget, cold
    scene = load_scene(preset)
    duration = 20 * scene.h
    assert steps_without_numba([integrator or body.integrator for body in scene.bodies], 20)
    twin_path, compiled_path = tmp_path / "twin.csv", tmp_path / "compiled.csv"
    run_scene(scene, integrator=integrator, h=scene.h, duration=duration, trace_path=twin_path)
    monkeypatch.setattr(compiled, "steps_without_numba", lambda *args, **kwargs: False)
    run_scene(scene, integrator=integrator, h=scene.h, duration=duration, trace_path=compiled_path)
    assert twin_path.read_bytes() == compiled_path.read_bytes()


def test_a_small_run_does_not_import_numba():
    script = (
        "import sys\nfrom spinlab.launch import main\n"
        "status = main(['run', 't_handle', '--duration', '1'])\n"
        "print('numba' in sys.modules, status)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.splitlines()[-1] == "False 0"


def test_a_run_of_thousands_of_bodies_steps_in_lockstep_without_numba(tmp_path):
    # 6000 bodies, 20 steps: the twins in lockstep (~0.2 s) cost less than readying numba, and the references'
    # exact sums of so many bodies do not ready it either (sim/exact_batch.py's NUMBA_SUM_ROWS).
    from spinlab.benchmarks.cloud import cloud_toml

    scene = tmp_path / "cloud.toml"
    scene.write_text(cloud_toml(6000, colors=False), encoding="utf-8")
    script = (
        "import sys\nfrom spinlab.launch import main\n"
        f"status = main(['run', {str(scene)!r}, '--integrator', 'implicit_midpoint', '--duration', '0.2', "
        "'--dt', '0.01'])\n"
        "print('numba' in sys.modules, status)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.splitlines()[-1] == "False 0"
