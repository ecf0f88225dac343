"""``run --help`` and ``record --help`` list every integrator with its one-line description from its claims."""

import contextlib
import io

import pytest

from spinlab.commands.cli import build_parser
from spinlab.sim.integrators import CLAIMS
from spinlab.sim.integrators.claims import describe


@pytest.mark.parametrize("command", ["run", "record"])
def test_help_lists_every_integrator_with_its_description(command):
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        build_parser().parse_args([command, "--help"])
    lines = out.getvalue().splitlines()
    for name, claims in CLAIMS.items():
        assert any(line.split()[:1] == [name] and line.rstrip().endswith(describe(claims)) for line in lines), name
