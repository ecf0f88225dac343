"""What every test shares: a watchdog's firing reported as the hang it is (tests/hang.py)."""

import subprocess

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
