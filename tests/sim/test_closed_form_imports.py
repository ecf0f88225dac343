"""The closed forms import scipy.special at their first evaluation, not with their modules (issue 22): the
integrators take ``principal_frame`` from sim/euler_poinsot.py, and a program that steps without a reference need
not pay scipy.special's import (~0.15 s of ``run``'s 0.48 s at N = 1)."""

import subprocess
import sys

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


def test_evaluating_a_closed_form_imports_it():
    code = (
        "import numpy as np\nfrom spinlab.sim.exact import TorqueFreeSolution\n"
        "TorqueFreeSolution.from_body_state(np.diag([1.3, 1.4, 2.5]), [1, 0, 0, 0], [0.3, 5.0, 0.2])"
    )
    assert _imports_scipy_special(code)
