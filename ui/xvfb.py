"""A private virtual X display (Xvfb) for the window tests and the GUI benchmark on machines without a screen.

``with virtual_display() as name:`` starts ``Xvfb`` on a free display number, points ``DISPLAY`` at it for the
block (so start it before pyglet opens its first window) and stops it afterwards. Xvfb comes from the ``xvfb``
apt package; Mesa's llvmpipe renders in it.
"""

from __future__ import annotations

import os
import select
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


def _unused_displays() -> Iterator[int]:
    """Display numbers from ``FIRST_DISPLAY`` on that neither a lock nor a socket names. A killed server can leave a
    stale socket behind, where a new one cannot listen; an unused number may still be taken by the time a server
    starts on it (another process starting one in the same moment), which :func:`start_xvfb` finds out."""
    for number in range(FIRST_DISPLAY, FIRST_DISPLAY + 1000):
        if not os.path.exists(f"/tmp/.X{number}-lock") and not os.path.exists(f"/tmp/.X11-unix/X{number}"):
            yield number


def _start_on(number: int, screen: str, deadline: float) -> subprocess.Popen | None:
    """Xvfb on display ``number``, once it listens; ``None`` when it ended instead (the number was taken meanwhile).

    The server says itself that it listens, by writing its display number to a pipe (``-displayfd``): a socket
    appearing at the number's path may be another server's, started on the same number in the same moment, whose
    display this one would then take for its own while it exits and the other is stopped by its own caller."""
    read_end, write_end = os.pipe()
    try:
        server = subprocess.Popen(
            ["Xvfb", f":{number}", "-screen", "0", screen, "-nolisten", "tcp", "-displayfd", str(write_end)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(write_end,),
        )
        os.close(write_end)
        write_end = -1
        said = b""
        while not said.endswith(b"\n") and time.monotonic() < deadline:
            ready, _, _ = select.select([read_end], [], [], max(deadline - time.monotonic(), 0.0))
            if not ready:
                break
            chunk = os.read(read_end, 16)
            if not chunk:  # the server ended without listening
                break
            said += chunk
    finally:
        os.close(read_end)
        if write_end >= 0:
            os.close(write_end)
    if said.strip() == str(number).encode() and server.poll() is None:
        return server
    stop_xvfb(server)
    if time.monotonic() >= deadline:
        raise RuntimeError(f"Xvfb did not start on :{number} within {START_TIMEOUT_S:g} s")
    return None


def start_xvfb(screen: str = SCREEN) -> tuple[str, subprocess.Popen]:
    """Start Xvfb with one ``screen`` (``"WxHxDEPTH"``) on a free display number; returns its display name
    (``":97"``) and the server's process, to be ended with :func:`stop_xvfb`. Two processes starting one at once
    get different displays. Raises ``RuntimeError`` when Xvfb is missing or does not start within
    ``START_TIMEOUT_S``."""
    if not xvfb_available():
        raise RuntimeError("Xvfb is not installed (apt-get install -y xvfb xauth)")
    deadline = time.monotonic() + START_TIMEOUT_S
    for number in _unused_displays():
        server = _start_on(number, screen, deadline)
        if server is not None:
            return f":{number}", server
    raise RuntimeError("no free X display number")


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
