"""A new integrator is one file: written into a copy of the checkout, and found by every consumer, nothing else touched.

The registry (sim/integrators/registry.py) imports every public module on the package's path and takes the records
they declare. So the test copies the checkout (its source, not its history or caches) to a temporary folder, writes
one module into the copy's sim/integrators/, and runs the copy in fresh processes: ``run`` on the new name,
``--integrator all``, the panel's list of integrators (the window's controller, without a window) and the palette.
A copy rather than an extended search path: the processes are the program as a person runs it (``python main.py``),
with no hook that a real addition would not have.
"""

import json
import shutil
import subprocess
import sys
from pathlib import Path

from tests.hang import HANG_S

ROOT = Path(__file__).resolve().parents[2]
NAME = "lie_euler"

# A method the program does not have: explicit Euler's ω, and q turned by the exact rotation exp(h ω) of the rate at
# the step's start (the Lie–Euler method), in numpy. Its record names no colour, place or kernel.
MODULE = '''"""``lie_euler``: ω by explicit Euler, q turned by exp(h ω) from the state at t."""

import numpy as np

from spinlab.sim.integrators.claims import Claims
from spinlab.sim.integrators.explicit import finish_explicit
from spinlab.sim.integrators.record import Integrator
from spinlab.sim.integrators.state import angular_acceleration
from spinlab.sim.quaternion import quat_exp, quat_mul, quat_normalize


def step(state, params, h, *, backend="numba", out=None):
    omega_new = state.omega_world + h * angular_acceleration(state, params)
    q_new = quat_normalize(quat_mul(quat_exp(h * state.omega_world), state.q))
    return finish_explicit("lie_euler", h, q_new, omega_new, params)


INTEGRATOR = Integrator(
    "lie_euler", step, Claims(order=1, conserves_momentum=False, method="Lie-Euler, exp map of the rate at t")
)
'''

PROBE = """
import json, tempfile
from spinlab.scene.model.palette import INTEGRATOR_SRGB, integrator_color
from spinlab.ui.help_texts import integrator_line
from tests.ui.headless_host import headless_controller

controller, _ = headless_controller("t_handle", tempfile.mkdtemp())
print(json.dumps({
    "panel": controller.form.integrator_names,
    "line": integrator_line("lie_euler"),
    "colour": INTEGRATOR_SRGB["lie_euler"],
    "taken": [code for name, code in INTEGRATOR_SRGB.items() if name != "lie_euler"],
    "linear": integrator_color("lie_euler", 0),
}))
"""


def _copy_with_one_module(folder: Path) -> Path:
    copy = folder / "spinlab_copy"
    ignored = shutil.ignore_patterns(
        ".git", "__pycache__", ".typecheck", ".venv", "build", "*.egg-info", ".*_cache", "*.mp4", "*.png", "results"
    )
    shutil.copytree(ROOT, copy, ignore=ignored)
    (copy / "sim" / "integrators" / f"{NAME}.py").write_text(MODULE, encoding="utf-8")
    return copy


def _run(copy: Path, *arguments: str) -> str:
    done = subprocess.run(
        [sys.executable, *arguments], cwd=copy, capture_output=True, text=True, timeout=HANG_S, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_an_integrator_written_in_one_file_is_everywhere(tmp_path):
    copy = _copy_with_one_module(tmp_path)
    alone = _run(copy, "main.py", "run", "t_handle", "--integrator", NAME, "--duration", "0.5", "--trace", "one.csv")
    assert NAME in alone
    trace = (copy / "one.csv").read_text(encoding="utf-8").splitlines()
    assert len(trace) == 1 + 31  # the header, the initial state and 30 steps of 1/60 s
    every = _run(copy, "main.py", "run", "t_handle", "--integrator", "all", "--duration", "0.1")
    assert NAME in every and "implicit_midpoint" in every
    seen = json.loads(_run(copy, "-c", PROBE).splitlines()[-1])
    assert NAME in seen["panel"]
    assert seen["line"].startswith("Lie-Euler, exp map of the rate at t · order 1")
    assert seen["colour"] not in seen["taken"] and len(seen["linear"]) == 3  # a colour of its own (the palette's pick)
    assert not (ROOT / "sim" / "integrators" / f"{NAME}.py").exists()
