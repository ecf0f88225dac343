"""A private virtual X display (Xvfb) for the window tests and the GUI benchmark on machines without a screen.

``with virtual_display() as name:`` starts ``Xvfb`` on a free display number, points ``DISPLAY`` at it for the
block (so start it before pyglet opens its first window) and stops it afterwards. Xvfb comes from the ``xvfb``
apt package; Mesa's llvmpipe renders in it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["virtual_display", "start_xvfb", "stop_xvfb", "xvfb_available"]

SCREEN = "1920x1080x24"
START_TIMEOUT_S = 20.0
FIRST_DISPLAY = 97


def xvfb_available() -> bool:
    """Whether the ``Xvfb`` program is installed."""
    return shutil.which("Xvfb") is not None


def _free_display() -> int:
    # Neither a lock nor a socket: a killed server can leave a stale socket behind, where a new one cannot listen.
    for number in range(FIRST_DISPLAY, FIRST_DISPLAY + 1000):
        if not os.path.exists(f"/tmp/.X{number}-lock") and not os.path.exists(f"/tmp/.X11-unix/X{number}"):
            return number
    raise RuntimeError("no free X display number")


def start_xvfb(screen: str = SCREEN) -> tuple[str, subprocess.Popen]:
    """Start Xvfb with one ``screen`` (``"WxHxDEPTH"``) on a free display number; returns its display name
    (``":97"``) and the server's process, to be ended with :func:`stop_xvfb`. Raises ``RuntimeError`` when Xvfb
    is missing or does not start within ``START_TIMEOUT_S``."""
    if not xvfb_available():
        raise RuntimeError("Xvfb is not installed (apt-get install -y xvfb xauth)")
    number = _free_display()
    socket = f"/tmp/.X11-unix/X{number}"
    server = subprocess.Popen(
        ["Xvfb", f":{number}", "-screen", "0", screen, "-nolisten", "tcp"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + START_TIMEOUT_S
    while not os.path.exists(socket) and server.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    if server.poll() is not None or not os.path.exists(socket):
        stop_xvfb(server)
        raise RuntimeError(f"Xvfb did not start on :{number} within {START_TIMEOUT_S:g} s")
    return f":{number}", server


def stop_xvfb(server: subprocess.Popen) -> None:
    """End a server :func:`start_xvfb` started (nothing if it has ended already)."""
    server.terminate()
    try:
        server.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


@contextmanager
def virtual_display(screen: str = SCREEN) -> Iterator[str]:
    """Run Xvfb with one ``screen`` (``"WxHxDEPTH"``) and ``DISPLAY`` set to it; yields the display name.
    Raises ``RuntimeError`` when Xvfb is missing or does not start within ``START_TIMEOUT_S``."""
    name, server = start_xvfb(screen)
    previous = os.environ.get("DISPLAY")
    os.environ["DISPLAY"] = name
    try:
        yield name
    finally:
        if previous is None:
            os.environ.pop("DISPLAY", None)
        else:
            os.environ["DISPLAY"] = previous
        stop_xvfb(server)
