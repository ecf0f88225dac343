"""What every test shares: a watchdog's firing reported as the hang it is (tests/hang.py), mpmath's working
precision restored after each test, and the session's private X display for whatever opens a window."""

import subprocess
import sys

import pytest

from spinlab.ui.xvfb import virtual_display, xvfb_available
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


NO_XVFB = "no private X display for the window tests (never the caller's): install Xvfb (apt-get install -y xvfb xauth)"


@pytest.fixture(scope="session")
def x_display():
    """The name of a private Xvfb, ``DISPLAY`` pointing at it, for the whole session: the one display every window
    of the process opens on (pyglet keeps its first display's connection, so a window on a second Xvfb, stopped
    since, broke the windows opened after it)."""
    if not xvfb_available():
        pytest.skip(NO_XVFB)
    display = virtual_display()
    try:
        name = display.__enter__()
    except RuntimeError as error:
        pytest.skip(f"{NO_XVFB}: {error}")
    yield name
    display.__exit__(None, None, None)
