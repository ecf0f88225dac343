"""The window tests run on their own display (a private Xvfb, tests/ui/conftest.py), never the caller's: no test
points ``DISPLAY`` anywhere itself, and the module window is on the private display."""

import re
import subprocess
import threading
from pathlib import Path

import pytest

from spinlab.ui.xvfb import start_xvfb, stop_xvfb, xvfb_available
from tests.hang import HANG_S

TESTS = Path(__file__).resolve().parents[1]
SETS_DISPLAY = re.compile(r"""environ\[["']DISPLAY["']\]\s*=|setenv\(\s*["']DISPLAY["']""")


def test_no_test_points_the_display_anywhere_itself():
    # test_window_legend.py set DISPLAY to the session's display, which without Xvfb was the caller's.
    found = [
        f"{path.relative_to(TESTS)}:{text.count(chr(10), 0, match.start()) + 1}"
        for path in sorted(TESTS.rglob("*.py"))
        if path.name != Path(__file__).name
        for text in [path.read_text(encoding="utf-8")]
        for match in SETS_DISPLAY.finditer(text)
    ]
    assert not found, f"DISPLAY set by a test (use the x_display fixture, a private Xvfb): {found}"


def test_the_module_window_is_on_the_private_display(app, x_display):
    from pyglet.libs.x11 import xlib

    connected = xlib.XDisplayString(app.window.display._display).decode()
    assert connected == x_display and connected.startswith(":"), (connected, x_display)


@pytest.mark.skipif(not xvfb_available(), reason="no Xvfb (apt-get install -y xvfb xauth)")
def test_servers_started_at_once_each_get_a_display_of_their_own():
    # Two pytest workers (xdist) start their session's Xvfb in the same moment: each saw the same number free, and
    # the one whose server could not listen there took the other's socket for its own, or failed.
    count = 4
    together = threading.Barrier(count)
    started: list[tuple[str, subprocess.Popen]] = []
    failed: list[BaseException] = []

    def start() -> None:
        together.wait(HANG_S)
        try:
            started.append(start_xvfb("64x64x24"))
        except RuntimeError as error:
            failed.append(error)

    threads = [threading.Thread(target=start) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(HANG_S)
    try:
        assert not failed, failed
        names = [name for name, _ in started]
        assert len(set(names)) == count, names
        assert all(server.poll() is None for _, server in started), names
    finally:
        for _, server in started:
            stop_xvfb(server)
    # Each display was the server's own returned with it: stopping that server took its socket away.
    assert not [name for name in names if Path(f"/tmp/.X11-unix/X{name.lstrip(':')}").exists()], names
