"""``run`` imports what its run needs: a short run of one body without a trace loads neither
the trace writer, nor the window's model, nor the other commands' machinery, nor the standard library's modules
that only a mistake, a written file, a help text or numba's cache look needs (each a few milliseconds of a process
that MuJoCo's whole takes ~0.25 s for: benchmarks/scaling.py).

Checked in a fresh interpreter through ``sys.modules``. The standard library's modules are checked against what
``import numpy, argparse`` imports by itself, so that a numpy that imports one of them does not fail this test.
scipy is not imported at all: the closed forms' elliptic integrals are sim/carlson.py's.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

BODY = """
[[body]]
name = "handle"
shape = "t_handle"
inertia = [1.3, 1.4, 2.5]
body_angular_velocity = [0.05, 5.0, 0.0]
"""
# Torque-free (its closed form is the table's reference), and a T-handle on a pivot under gravity (no closed form:
# it is not a symmetric top).
SCENES = {
    "torque_free": "[scene]\ngravity = [0.0, 0.0, 0.0]\n" + BODY,
    # torque-free and symmetric: its closed form is circular functions only, no elliptic integral (sim/exact_batch.py
    # returns before them)
    "symmetric": "[scene]\ngravity = [0.0, 0.0, 0.0]\n" + BODY.replace("1.3, 1.4", "1.3, 1.3"),
    "heavy_handle": "[scene]\ngravity = [0.0, 0.0, -9.81]\n" + BODY + "mass = 1.0\npivot = [0.0, 0.0, -0.5]\n",
}

NOT_OURS = [
    "spinlab.scene.files.trace",  # no --trace
    "spinlab.render",
    "spinlab.ui",
    "spinlab.benchmarks",
    "numba",
]
NOT_STANDARD = [
    "importlib.resources",  # the presets' folder (assets/__init__.py)
    "tempfile",  # written files only (scene/files/atomic_file.py), numba's cache look (sim/_numba_cache.py)
    "difflib",  # a mistake's "did you mean"
    "hashlib",  # numba's cache folders
    "shutil",  # a help text's width (commands/cli.py)
]


def _modules(code: str) -> set[str]:
    probe = code + "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    return set(json.loads(done.stdout.splitlines()[-1]))


def _run_modules(scene: Path, *options: str) -> set[str]:
    arguments = ["run", str(scene), "--duration", "0.25", "--integrator", "implicit_midpoint", *options]
    return _modules(f"from spinlab.launch import main\nassert main({arguments!r}) == 0")


@pytest.mark.parametrize("name", SCENES)
def test_a_short_run_imports_only_what_it_needs(tmp_path, name):
    scene = tmp_path / "one.toml"
    scene.write_text(SCENES[name], encoding="utf-8")
    loaded = _run_modules(scene)
    baseline = _modules("import numpy, argparse")
    assert "spinlab.scene.model.runner" in loaded  # the probe sees the run's modules
    assert sorted(module for module in NOT_OURS if module in loaded) == []
    assert sorted(module for module in NOT_STANDARD if module in loaded and module not in baseline) == []
    # the heavy top's closed form is tried on a body under a torque only
    assert ("spinlab.sim.lagrange_top" in loaded) == (name == "heavy_handle")
    # no scipy at all (~0.2 CPU-s): the torque-free references' elliptic integrals are sim/carlson.py's
    assert sorted(module for module in loaded if module.split(".")[0] == "scipy") == []


def test_a_trace_imports_its_writer(tmp_path):
    scene = tmp_path / "one.toml"
    scene.write_text(SCENES["torque_free"], encoding="utf-8")
    loaded = _run_modules(scene, "--trace", str(tmp_path / "out.csv"))
    assert {"spinlab.scene.files.trace", "tempfile"} <= loaded  # written atomically through a temporary file


def test_numba_is_readied_without_scipy_linalg():
    # numba imports scipy.linalg (~0.2 CPU-s) only to find BLAS for np.dot in compiled code, which no kernel calls:
    # sim/jit.py's ready_numba keeps it out, and the kernels compile or load as before.
    probe = (
        "import numpy as np\n"
        "from spinlab.sim.compiled import load_numba\n"
        "from spinlab.sim.world import World\n"
        "load_numba()\n"
        "world = World(gravity=np.zeros(3))\n"
        "world.add_body(q=np.array([1.0, 0, 0, 0]), omega_world=np.array([0.05, 5.0, 0.05]),"
        " inertia_body=np.diag([1.3, 1.4, 2.5]), integrator='implicit_midpoint')\n"
        "world.step(1 / 240)\n"
        "import sys\n"
        "assert 'scipy.linalg' not in sys.modules\n"
        "from spinlab.sim.integrators import _kernels\n"
        "assert _kernels.implicit_kernel.signatures  # compiled, not plain\n"
    )
    loaded = _modules(probe)
    assert "numba" in loaded and "scipy.linalg" not in loaded
    assert "scipy.linalg" in _modules("from spinlab.sim.compiled import load_numba\nload_numba()\nimport scipy.linalg")


def test_numba_is_readied_under_its_compiler_lock():
    # A thread compiling or loading a kernel walks the registries refresh() walks: numba refreshes them under its
    # compiler lock, and so must ready_numba (else "generator already executing" in the other thread).
    probe = (
        "from numba.core.compiler_lock import global_compiler_lock\n"
        "from numba.core.registry import cpu_target\n"
        "context = cpu_target.target_context\n"
        "held = []\n"
        "refresh = type(context).refresh\n"
        "type(context).refresh = lambda self: (held.append(global_compiler_lock.is_locked()), refresh(self))\n"
        "from spinlab.sim.jit import ready_numba\n"
        "ready_numba()\n"
        "assert held and held[0], held\n"
    )
    _modules(probe)
