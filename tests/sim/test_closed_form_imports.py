"""The closed forms need no scipy: their elliptic integrals are sim/carlson.py's, so neither importing
nor evaluating them imports scipy.special (~0.17 CPU-s of ``run``'s ~0.49 at N = 1; benchmarks/scaling.py). The
integrators take ``principal_frame`` from sim/euler_poinsot.py."""

import subprocess
import sys

import pytest

from spinlab.sim.carlson import EXTENDED

MODULES = [
    "spinlab.sim.integrators",
    "spinlab.sim.euler_poinsot",
    "spinlab.sim.exact",
    "spinlab.sim.exact_batch",
    "spinlab.sim.lagrange_top",
]


def _imports_scipy_special(code: str) -> bool:
    probe = code + "\nimport sys\nprint('scipy.special' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return result.stdout.strip() == "True"


def test_importing_the_closed_forms_does_not_import_scipy_special():
    assert not _imports_scipy_special("\n".join(f"import {name}" for name in MODULES))


@pytest.mark.skipif(not EXTENDED, reason="no extended longdouble here: the closed forms take scipy's integrals")
def test_evaluating_the_closed_forms_does_not_import_scipy_special():
    # A regular polhode (R_F, R_J, K), one nearly symmetric (Π by DLMF 19.7.9: R_C), a batch of both, and a heavy
    # symmetric top whose nutation passes near the downward vertical (R_J and R_C), each evaluated at times.
    code = """
import numpy as np
from spinlab.sim.exact import TorqueFreeSolution
from spinlab.sim.exact_batch import TorqueFreeBatch
from spinlab.sim.lagrange_top import LagrangeTopSolution
times = np.linspace(0.0, 20.0, 7)
inertia = np.array([np.diag([1.3, 1.4, 2.5]), np.diag([1.0, 1.0 + 1e-9, 2.0])])
omega = np.array([[0.3, 5.0, 0.2], [2.0, 0.1, 1.0]])
for k in range(2):
    TorqueFreeSolution.from_body_state(inertia[k], [1, 0, 0, 0], omega[k]).orientation(times)
TorqueFreeBatch.from_body_states(inertia, np.tile([1.0, 0, 0, 0], (2, 1)), omega).orientation(times)
tilt = np.array([np.cos(1.2), np.sin(1.2), 0.0, 0.0])
top = LagrangeTopSolution.from_state(np.diag([0.02, 0.02, 0.01]), 1.0, [0, 0, 0.1], [0, 0, -9.81], tilt, [0.3, 0, 40.0])
top.orientation(times)
"""
    assert not _imports_scipy_special(code)
