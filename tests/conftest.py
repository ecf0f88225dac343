"""What every test shares: a watchdog's firing reported as the hang it is (tests/hang.py), and mpmath's working
precision restored after each test."""

import subprocess
import sys

import pytest

from tests.hang import hang_message


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A child process that outlived its watchdog (``subprocess.TimeoutExpired``) fails with a line saying it hung,
    not that it was slow: the tests bound work, never time."""
    outcome = yield
    report = outcome.get_result()
    if call.excinfo is not None and call.excinfo.errisinstance(subprocess.TimeoutExpired):
        command = call.excinfo.value.cmd
        shown = " ".join(map(str, command))[:200] if isinstance(command, list | tuple) else str(command)[:200]
        report.sections.append(("watchdog", hang_message(f"the child process {shown}", call.excinfo.value.timeout)))


@pytest.fixture(autouse=True)
def _mpmath_precision_restored():
    """mpmath's working precision is one global (``mpmath.mp.dps = 20``): a test that sets it leaves it to the tests
    after it, which on two workers (pytest-xdist) may be any; test_taylor.py's references at 20 digits lost the
    cancellations they were to resolve. Restored after each test to what it was before (mpmath's 53 bits if the
    test imported it)."""
    mpmath = sys.modules.get("mpmath")
    before = mpmath.mp.prec if mpmath is not None else None
    yield
    mpmath = sys.modules.get("mpmath")
    if mpmath is not None:
        mpmath.mp.prec = before if before is not None else 53
