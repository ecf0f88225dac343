"""The window tests run on their own display (a private Xvfb, tests/ui/conftest.py), never the caller's: no test
points ``DISPLAY`` anywhere itself, and the module window is on the private display."""

import re
from pathlib import Path

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
