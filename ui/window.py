"""The pyglet window with an OpenGL 3.3 core context, made and closed so that it lives beside EGL contexts.

pyglet.window is imported only here, when a window is opened: importing it needs a display. On Linux, libglvnd
keeps one current context per thread across GLX and EGL, so an offscreen renderer's EGL context (the render
tests, the benchmarks) is released before the window's GLX context is made current, and no GLX context is left
current when the window closes.

On Mesa's CPU rasteriser (llvmpipe) the window asks for three rasteriser threads per core rather than one
(``LP_NUM_THREADS``, unless set): they share the cores with the main thread (simulation, ImGui, draw calls) and the
X server, and a frame is shown only when its last tile is rasterised. Measured with the GUI bench on 2 cores
(compare, all plots, 1280×720, medians of 5 runs of 400 frames): 2 threads 18.2 ms a frame, 4 threads 17.0,
6 threads 16.5; `record`, which has no X server to share with, is the same with 2, 4 or 6 (~70 frames/s).

Those threads run :data:`RASTERISER_NICE` steps of niceness below the window's thread (``SPINLAB_RASTERISER_NICE``
sets it; 0: alike). The window's thread is the frame's path: it steps, lays out and issues the draw calls that feed
the rasteriser, and at equal priority six busy rasteriser threads leave it a third of a core of two. Linux shares a
core by session first (autogroups) or by cgroup, so this moves time between the window's own threads, not to other
programs; only a busy program of the same session (started from the same shell) then gets more of the cores than
the rasteriser. Measured on 2 cores, 30-frame blocks alternated in one window (docs/performance.md): idle, compare
at 1920×1080 1.6–3.5 ms a frame faster, the others 0.5–1.8; beside two busy programs of another session, 57 → 40 ms
at 1920×1080; beside two of the same session, 45 → 78 ms.

The window can go from outside: the X server closes the connection (it stops, or ``xkill`` kills the client) or
another program destroys the window. Xlib's default answer to a lost connection is to print a message and
``exit(1)`` at once, which would leave a recording unfinished; :func:`watch_window` makes the loss a flag instead
(``XSetIOErrorExitHandler``, libX11 1.7 and later; with an older one Xlib still exits), and notices the window's
destruction, so that :func:`window_gone` can tell the frame loop, which finalises and stops. After a lost
connection nothing may touch the display again (pyglet's close waits for an event that never comes):
:func:`close_window` then leaves the window alone.

The loss is often found inside a GL call, not by the frame loop: Mesa's GLX asks the X server for the window's size
(``XGetGeometry``) at a frame's first draw and sends each frame with ``XShmPutImage``; when that request fails (no
connection, or ``BadDrawable``: the window is gone), Mesa goes on with the size read from uninitialised memory and
sizes the window's buffers by it: a gigapixel frame drawn for seconds, or a crash in the driver. A flag cannot help
there, since the call returns into Mesa first. :func:`end_when_gone` therefore has a function called inside the
X call that found the loss, from Xlib's I/O error exit handler or its error handler (a ``BadWindow`` or
``BadDrawable`` naming the window), which finalises what must be and ends the process without returning.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys
import weakref
from collections.abc import Callable
from pathlib import Path

import moderngl

from spinlab.sim.errors import InputError, SpinlabError, quoted

__all__ = [
    "open_window",
    "close_window",
    "clear_gl_errors",
    "window_framebuffer",
    "watch_window",
    "window_gone",
    "end_when_gone",
    "WindowGone",
    "DISPLAY_LOST",
    "WINDOW_DESTROYED",
    "LLVMPIPE_THREADS_PER_CORE",
    "RASTERISER_NICE",
    "rasteriser_nice",
]

LLVMPIPE_THREADS_PER_CORE = 3
LLVMPIPE_MAX_THREADS = 16
RASTERISER_NICE = 10
RASTERISER_NICE_VARIABLE = "SPINLAB_RASTERISER_NICE"
DISPLAY_LOST = "the display connection was lost"
WINDOW_DESTROYED = "the window was destroyed from outside"
_DESTROY_NOTIFY = 17  # X.h
_BAD_WINDOW, _BAD_DRAWABLE = 3, 9  # X.h's error codes of a request on a window that is not there


class WindowGone(SpinlabError):
    """The window went from outside (see :func:`window_gone`); the app has finalised what it was writing."""


# Displays (their Display* addresses) whose connection Xlib reported lost, and windows destroyed from outside.
_lost_displays: set[int] = set()
_destroyed_windows: weakref.WeakSet = weakref.WeakSet()
_X_IO_ERROR_HANDLER = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)
_X_IO_ERROR_EXIT_HANDLER = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)
_X_ERROR_HANDLER = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)  # (Display*, XErrorEvent*)
_handlers: list = []  # the C callbacks, kept alive as long as Xlib may call them
# What ends the process when a window goes from outside (end_when_gone), by window.
_ends: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class _XErrorEvent(ctypes.Structure):
    _fields_ = [
        ("type", ctypes.c_int),
        ("display", ctypes.c_void_p),
        ("resourceid", ctypes.c_ulong),
        ("serial", ctypes.c_ulong),
        ("error_code", ctypes.c_ubyte),
        ("request_code", ctypes.c_ubyte),
        ("minor_code", ctypes.c_ubyte),
    ]


def open_window(size: tuple[int, int], *, visible: bool = True, vsync: bool = True, fullscreen: bool = False):
    """A resizable ``pyglet.window.Window`` of ``size`` (width, height), or covering the screen when
    ``fullscreen``, with a current GL 3.3 core context, double-buffered, without a depth buffer: the frame is drawn
    off screen and copied in (render/window_frame.py), along llvmpipe's fast path, which a depth buffer would
    close. No display raises :class:`SpinlabError` saying what to do."""
    nice = rasteriser_nice()  # a mistake in it refused before anything opens
    _release_egl_thread()
    _share_cores_with_llvmpipe()
    try:
        import pyglet

        # pyglet checks glGetError after each of its own GL calls by default; an error another GL context of this
        # thread left pending would then fail the window's creation.
        pyglet.options["debug_gl"] = False
        # pyglet.gl.Config is the platform's concrete class at run time; its typed base is abstract.
        config = pyglet.gl.Config(  # type: ignore[abstract]
            major_version=3, minor_version=3, forward_compatible=True, depth_size=0, double_buffer=True
        )
        if fullscreen:
            window = pyglet.window.Window(
                caption="spinlab", fullscreen=True, config=config, visible=visible, vsync=vsync
            )
        else:
            window = pyglet.window.Window(
                *size, caption="spinlab", resizable=True, config=config, visible=visible, vsync=vsync
            )
    except Exception as error:  # pyglet has two NoSuchDisplayException classes, neither exported
        if "NoSuchDisplay" in type(error).__name__:
            # pyglet says 'Cannot connect to "None"' when DISPLAY is unset: say which display, or that there is none.
            name = os.environ.get("DISPLAY")
            why = "DISPLAY is not set" if not name else f"cannot connect to DISPLAY={quoted(name)}"
            raise SpinlabError(
                f"cannot open a window: no display ({why}); on a machine without a screen use 'xvfb-run -a' "
                "or the 'record' command"
            ) from error
        # No GL 3.3 core context, a display that refuses the window: what the system lacks, in one line.
        raise SpinlabError(f"cannot open a window: {type(error).__name__}: {error}") from error
    window.switch_to()
    _yield_cores_to_the_window(nice)
    watch_window(window)
    return window


def close_window(window) -> None:
    """Close ``window`` and leave no GLX context current (pyglet makes its hidden shadow window's current).
    After a lost connection (:data:`DISPLAY_LOST`) the display is not touched: only Python's side is dropped."""
    import pyglet.gl

    _ends.pop(window, None)  # closed on purpose: its X window is destroyed now, and its errors are expected
    if window_gone(window) == DISPLAY_LOST:
        return
    window.close()
    # pyglet made its hidden shadow window's context current. Release it without detaching it: a detached shadow
    # context has no GLX drawable left, and closing the next window (which switches back to it) would fail.
    context = pyglet.gl.current_context
    if context is None:
        return
    x_display = getattr(context, "x_display", None)
    if x_display is None:
        context.detach()
        return
    from pyglet.gl import glx

    glx.glXMakeContextCurrent(x_display, 0, 0, None)  # type: ignore[has-type]  # a ctypes binding made at import
    pyglet.gl.current_context = None


def watch_window(window) -> None:
    """Have :func:`window_gone` learn when ``window``'s X connection is lost or the window is destroyed from
    outside. Does nothing for a window that is not an X11 one."""
    display = _display_address(window)
    if display is None:
        return
    # pyglet selects DestroyNotify (StructureNotifyMask) but has no handler for it: the window's and the view's.
    on_destroyed = _destroy_handler(weakref.ref(window))
    for handlers in (window._event_handlers, window._view_event_handlers):
        handlers[_DESTROY_NOTIFY] = on_destroyed
    if _handlers:
        _set_exit_handler(display)
        return
    try:
        libx11 = ctypes.CDLL(ctypes.util.find_library("X11") or "libX11.so.6")
    except OSError:
        return
    # Xlib prints its own message before calling the exit handler: the app says it in one line instead.
    quiet = _X_IO_ERROR_HANDLER(lambda _display: 0)
    on_exit = _X_IO_ERROR_EXIT_HANDLER(lambda lost, _data: _display_lost(int(lost or 0)))
    libx11.XSetErrorHandler.argtypes = [_X_ERROR_HANDLER]
    libx11.XSetErrorHandler.restype = ctypes.c_void_p
    previous: list = []  # the handler that was there (pyglet's, which ignores X errors): called after this one
    on_error = _X_ERROR_HANDLER(lambda display, event: _x_error(display, event, *previous))
    address = libx11.XSetErrorHandler(on_error)
    previous.append(_X_ERROR_HANDLER(address) if address else None)
    _handlers.extend([libx11, quiet, on_exit, on_error])
    if not hasattr(libx11, "XSetIOErrorExitHandler"):
        return  # libX11 older than 1.7: a lost connection still ends the process, as Xlib always did
    libx11.XSetIOErrorHandler.argtypes = [_X_IO_ERROR_HANDLER]
    libx11.XSetIOErrorHandler.restype = ctypes.c_void_p
    libx11.XSetIOErrorExitHandler.argtypes = [ctypes.c_void_p, _X_IO_ERROR_EXIT_HANDLER, ctypes.c_void_p]
    libx11.XSetIOErrorExitHandler.restype = None
    libx11.XSetIOErrorHandler(quiet)
    _set_exit_handler(display)


def end_when_gone(window, end: Callable[[str], object]) -> None:
    """From now on, ``window`` going from outside calls ``end(why)`` (``why``: :data:`DISPLAY_LOST` or
    :data:`WINDOW_DESTROYED`) at once, inside the X call that found it: dispatching events, the swap, or a GL call
    whose driver asked the X server about the window (module docstring). ``end`` must not return: it finalises
    what must be (no GL, no X) and ends the process (``os._exit``). :func:`close_window` disarms it."""
    _ends[window] = end


def _gone(window, why: str) -> None:
    """``window`` went from outside: the flag :func:`window_gone` reads, and ``end_when_gone``'s end if armed."""
    if why == WINDOW_DESTROYED:
        _destroyed_windows.add(window)
    end = _ends.pop(window, None)
    if end is not None:
        end(why)


def _display_lost(display: int) -> None:
    _lost_displays.add(display)
    for window in [window for window in _ends if _display_address(window) == display]:
        _gone(window, DISPLAY_LOST)


def _x_error(display, event, previous) -> int:
    """Xlib's error handler: a request on a window that is no longer there (``BadWindow``, ``BadDrawable``) names
    the window gone; every error then goes on to the handler that was there before (pyglet's)."""
    error = ctypes.cast(event, ctypes.POINTER(_XErrorEvent)).contents
    if error.error_code in (_BAD_WINDOW, _BAD_DRAWABLE):
        for window in [window for window in _ends if error.resourceid in _x_windows(window)]:
            _gone(window, WINDOW_DESTROYED)
    return previous(display, event) if previous is not None else 0


def _x_windows(window) -> tuple[int, ...]:
    """The X windows of a pyglet window: its top-level one and the view inside it that GL draws into."""
    return tuple(int(getattr(window, name, None) or 0) for name in ("_window", "_view"))


def _destroy_handler(window_ref):
    def on_destroyed(_event) -> None:
        window = window_ref()
        if window is not None:
            _gone(window, WINDOW_DESTROYED)

    return on_destroyed


def _set_exit_handler(display: int) -> None:
    libx11, on_exit = _handlers[0], _handlers[2]
    if hasattr(libx11, "XSetIOErrorExitHandler"):
        libx11.XSetIOErrorExitHandler(display, on_exit, None)


def window_gone(window) -> str | None:
    """Why ``window`` is gone from outside (:data:`DISPLAY_LOST`, :data:`WINDOW_DESTROYED`), or ``None``."""
    if _display_address(window) in _lost_displays:
        return DISPLAY_LOST
    if window in _destroyed_windows:
        return WINDOW_DESTROYED
    return None


def _display_address(window) -> int | None:
    display = getattr(window, "_x_display", None)
    if display is None or not hasattr(window, "_event_handlers"):
        return None
    return ctypes.cast(display, ctypes.c_void_p).value


def window_framebuffer(ctx: moderngl.Context, size: tuple[int, int]) -> moderngl.Framebuffer:
    """The window's default framebuffer as ``size`` = (width, height) pixels, what the window system made it after
    a resize (``window.get_framebuffer_size()``). moderngl measures the default framebuffer once, when the context
    is made, and ``ctx.screen`` keeps that size for ever: drawn through it, a window made larger is covered only
    in its first size (the rest black), and caches of the screen's size stay at it. This is a new reference to
    the same GL framebuffer (0) whose size is ``size``; what draws into the window takes it, never ``ctx.screen``.
    """
    screen = ctx.detect_framebuffer(0)
    # moderngl has no public way to set a detected framebuffer's size: its Python side keeps it in ``_size``,
    # which ``size``, ``read`` and every caller here read (GL itself clips nothing to it; the viewport and the
    # scissor are set explicitly by each pass).
    width, height = int(size[0]), int(size[1])
    screen._size = (width, height)  # type: ignore[attr-defined]  # moderngl's private attribute (see above)
    screen.viewport = (0, 0, width, height)
    return screen


def clear_gl_errors(ctx: moderngl.Context) -> None:
    """Read away pending GL errors, which PyOpenGL (the ImGui backend) would otherwise raise at its next call."""
    for _ in range(16):
        if ctx.error == "GL_NO_ERROR":
            return


def _share_cores_with_llvmpipe() -> None:
    """Ask llvmpipe for ``LLVMPIPE_THREADS_PER_CORE`` rasteriser threads per core this process may use, before the
    first GL context is made (llvmpipe reads it then; other drivers ignore it). A value already set is kept."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    threads = min(LLVMPIPE_THREADS_PER_CORE * cores, LLVMPIPE_MAX_THREADS)
    os.environ.setdefault("LP_NUM_THREADS", str(threads))


def rasteriser_nice() -> int:
    """How much lower than the window's thread llvmpipe's rasteriser threads run (:data:`RASTERISER_NICE`, or
    ``SPINLAB_RASTERISER_NICE``: 0 to 19, 0 the same). Raises :class:`InputError` for another value."""
    text = os.environ.get(RASTERISER_NICE_VARIABLE, "").strip()
    if not text:
        return RASTERISER_NICE
    try:
        nice = int(text)
    except ValueError:
        nice = -1
    if not 0 <= nice <= 19:
        raise InputError(
            f"give a whole number of steps of niceness from 0 to 19 (0: at the window thread's priority; unset: "
            f"{RASTERISER_NICE})",
            where=f"the environment's {RASTERISER_NICE_VARIABLE}",
            value=text,
        )
    return nice


def _yield_cores_to_the_window(nice: int) -> None:
    """Run llvmpipe's rasteriser threads (named ``llvmpipe-N``; made with the first GL context) ``nice`` steps of
    niceness below the window's thread, on Linux; another driver's threads are left alone (see the module
    docstring)."""
    tasks = Path("/proc/self/task")
    if not nice or not sys.platform.startswith("linux") or not tasks.is_dir():
        return
    own = os.getpriority(os.PRIO_PROCESS, 0)
    for task in tasks.iterdir():
        try:
            if (task / "comm").read_text().startswith("llvmpipe"):
                os.setpriority(os.PRIO_PROCESS, int(task.name), min(own + nice, 19))
        except (OSError, ValueError):  # the thread ended, or the system refuses: the threads keep their priority
            continue


def _release_egl_thread() -> None:
    if not sys.platform.startswith("linux"):
        return
    try:
        egl = ctypes.CDLL(ctypes.util.find_library("EGL") or "libEGL.so.1")
    except OSError:
        return
    egl.eglReleaseThread()
