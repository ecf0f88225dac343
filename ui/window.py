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
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys

import moderngl

from sim.errors import SpinlabError

__all__ = ["open_window", "close_window", "clear_gl_errors", "LLVMPIPE_THREADS_PER_CORE"]

LLVMPIPE_THREADS_PER_CORE = 3
LLVMPIPE_MAX_THREADS = 16


def open_window(size: tuple[int, int], *, visible: bool = True, vsync: bool = True):
    """A resizable ``pyglet.window.Window`` of ``size`` (width, height) with a current GL 3.3 core context,
    double-buffered with a 24-bit depth buffer. No display raises :class:`SpinlabError` saying what to do."""
    _release_egl_thread()
    _share_cores_with_llvmpipe()
    try:
        import pyglet

        # pyglet checks glGetError after each of its own GL calls by default; an error another GL context of this
        # thread left pending would then fail the window's creation.
        pyglet.options["debug_gl"] = False
        config = pyglet.gl.Config(
            major_version=3, minor_version=3, forward_compatible=True, depth_size=24, double_buffer=True
        )
        window = pyglet.window.Window(
            *size, caption="spinlab", resizable=True, config=config, visible=visible, vsync=vsync
        )
    except Exception as error:  # pyglet has two NoSuchDisplayException classes, neither exported
        if "NoSuchDisplay" in type(error).__name__:
            raise SpinlabError(
                f"cannot open a window: no display ({error}); on a machine without a screen use 'xvfb-run -a' "
                "or the 'record' command"
            ) from error
        raise
    window.switch_to()
    return window


def close_window(window) -> None:
    """Close ``window`` and leave no GLX context current (pyglet makes its hidden shadow window's current)."""
    import pyglet.gl

    window.close()
    if pyglet.gl.current_context is not None:
        pyglet.gl.current_context.detach()


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


def _release_egl_thread() -> None:
    if not sys.platform.startswith("linux"):
        return
    try:
        egl = ctypes.CDLL(ctypes.util.find_library("EGL") or "libEGL.so.1")
    except OSError:
        return
    egl.eglReleaseThread()
