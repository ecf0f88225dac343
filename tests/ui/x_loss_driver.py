"""``main.py gui`` with its X taken away from inside at a chosen frame: where the loss is hardest to meet, between a
frame's swap and its draw, while a recording runs. The tests of a window gone from outside run this in a subprocess.

``python tests/ui/x_loss_driver.py HOW FRAMES SCENE`` (the repository root on ``PYTHONPATH``, a private Xvfb in
``DISPLAY`` and its process id in ``XVFB_PID``) starts the window on ``SCENE`` recording from its first frame
(commands/gui.py's ``SPINLAB_GUI_RECORD``) and, at the draw that comes once ``FRAMES`` frames are in the video,
takes X away by ``HOW``: ``server stops`` (the Xvfb is ended), ``XKillClient`` (the window's connection is killed,
as ``xkill`` does) or ``XDestroyWindow`` (another client destroys the window). Just before, it says on stdout
``taking X away: FRAMES frames recorded, K of N kernel stages loaded``; the window then goes on as it would.

:data:`X_WATCH_C` is a library the tests preload into that process (``LD_PRELOAD``) to see the GL driver's side:
Mesa's GLX asks for the window's size with ``XGetGeometry`` at a frame's first draw and goes on with the size from
uninitialised memory when the request fails. The library says on stderr each time a failed ``XGetGeometry``
returns to its caller; a window that ends where the loss is found never lets one return.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

__all__ = ["DRIVER", "X_WATCH_LINE", "build_x_watch", "from_outside", "main"]

DRIVER = Path(__file__).resolve()
X_WATCH_LINE = "x-watch: a failed XGetGeometry returned to its caller"
X_WATCH_C = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>
#include <unistd.h>
typedef int (*geometry_fn)(void *, unsigned long, unsigned long *, int *, int *, unsigned *, unsigned *,
                           unsigned *, unsigned *);
int XGetGeometry(void *display, unsigned long drawable, unsigned long *root, int *x, int *y, unsigned *width,
                 unsigned *height, unsigned *border, unsigned *depth) {
    static geometry_fn real;
    if (!real) real = (geometry_fn)dlsym(RTLD_NEXT, "XGetGeometry");
    int status = real(display, drawable, root, x, y, width, height, border, depth);
    if (!status) {
        static const char line[] = "LINE\n";
        (void)!write(2, line, strlen(line));
    }
    return status;
}
""".replace("LINE", X_WATCH_LINE)

_X_ERROR_HANDLER = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)


def build_x_watch(folder: Path) -> Path | None:
    """Compile :data:`X_WATCH_C` into ``folder`` with the system's C compiler; ``None`` when there is none."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        return None
    source, library = folder / "x_watch.c", folder / "x_watch.so"
    source.write_text(X_WATCH_C)
    built = subprocess.run([compiler, "-shared", "-fPIC", "-o", str(library), str(source), "-ldl"], check=False)
    return library if built.returncode == 0 else None


def _top_level_windows(display: str):
    """(libX11, Display*, the root's children) on ``display``, through Xlib."""
    libx11 = ctypes.CDLL(ctypes.util.find_library("X11") or "libX11.so.6")
    libx11.XOpenDisplay.restype = ctypes.c_void_p
    libx11.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
    libx11.XDefaultRootWindow.restype = ctypes.c_ulong
    libx11.XQueryTree.argtypes = [ctypes.c_void_p, ctypes.c_ulong] + [ctypes.c_void_p] * 4
    connection = libx11.XOpenDisplay(display.encode())
    root, parent = ctypes.c_ulong(), ctypes.c_ulong()
    children, count = ctypes.POINTER(ctypes.c_ulong)(), ctypes.c_uint()
    libx11.XQueryTree(
        connection,
        libx11.XDefaultRootWindow(connection),
        ctypes.byref(root),
        ctypes.byref(parent),
        ctypes.byref(children),
        ctypes.byref(count),
    )
    return libx11, connection, [children[i] for i in range(count.value)]


def from_outside(display: str, request: str) -> None:
    """Destroy every top-level window (``XDestroyWindow``) or kill their client (``XKillClient`` on the first, as
    xkill does: they are all the window's), from a connection of its own, and wait until the server has done it.
    An X error this causes on that connection is ignored, not Xlib's exit."""
    libx11, connection, windows = _top_level_windows(display)
    function = getattr(libx11, request)
    function.argtypes = [ctypes.c_void_p, ctypes.c_ulong]
    libx11.XSync.argtypes = [ctypes.c_void_p, ctypes.c_int]
    libx11.XCloseDisplay.argtypes = [ctypes.c_void_p]
    libx11.XSetErrorHandler.argtypes = [_X_ERROR_HANDLER]
    libx11.XSetErrorHandler.restype = ctypes.c_void_p
    ignore = _X_ERROR_HANDLER(lambda _display, _event: 0)
    previous = libx11.XSetErrorHandler(ignore)
    try:
        for window in windows[:1] if request == "XKillClient" else windows:
            function(connection, window)
        libx11.XSync(connection, 0)
        libx11.XCloseDisplay(connection)
    finally:
        libx11.XSetErrorHandler(ctypes.cast(previous, _X_ERROR_HANDLER) if previous else None)


def _stop_server(display: str) -> None:
    """End the Xvfb (``XVFB_PID``) and wait until it has closed its clients and gone (its lock file is the last)."""
    os.kill(int(os.environ["XVFB_PID"]), signal.SIGTERM)
    number = display.lstrip(":")
    while os.path.exists(f"/tmp/.X11-unix/X{number}") or os.path.exists(f"/tmp/.X{number}-lock"):
        time.sleep(0.01)


def main(how: str, frames: int, scene: str) -> int:
    from spinlab.launch import main as spinlab_main
    from spinlab.ui.app import App

    draw = App.draw

    def draw_then_lose_x(self: App) -> None:
        recording = self.recorder.recording
        if recording is not None and recording.frames == frames and not getattr(self, "x_taken", False):
            self.x_taken = True  # type: ignore[attr-defined]  # once: a window that goes on draws more frames
            loader = self.kernel_loader
            loaded = f"{loader.stages_done} of {len(loader.stages)}" if loader is not None else "no"
            print(f"taking X away: {frames} frames recorded, {loaded} kernel stages loaded", flush=True)
            display = os.environ["DISPLAY"]
            if how == "server stops":
                _stop_server(display)
            else:
                from_outside(display, how)
        draw(self)

    App.draw = draw_then_lose_x  # type: ignore[method-assign]
    return spinlab_main(["gui", scene])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2]), sys.argv[3]))
