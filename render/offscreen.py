"""Rendering without a window: a standalone EGL context and a framebuffer pair that reads back as an image.

stack.md §1: ``create_standalone_context(backend="egl")`` needs no X server; on llvmpipe MSAA is at most 4
samples. An :class:`OffscreenTarget` draws into a multisampled framebuffer (when ``samples > 0``) and resolves it
into a single-sampled one by a blit before reading.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import moderngl
import numpy as np

__all__ = ["create_offscreen_context", "OffscreenTarget", "EglCurrent", "flush", "finish", "gl_function"]


def flush() -> None:
    """``glFlush``: hand the commands issued so far to the driver without waiting for them. On llvmpipe this starts
    the rasteriser's threads on the frame, so the CPU can prepare the next one meanwhile (moderngl has only
    ``finish``, which waits). Through GLVND's libOpenGL (or libGL), which dispatches to the current context; a
    no-op where neither library is found (nothing then overlaps, the pixels are the same)."""
    gl_function("glFlush")()


def finish() -> None:
    """``glFinish``: wait until the commands issued so far are done, without Python's GIL (a ctypes call lets go of
    it). A read-back made afterwards copies at once; moderngl's reads wait for the rasteriser holding the GIL, so
    that no other thread's Python (the video encoder's, the next frame's steps) ran meanwhile. A no-op where no GL
    library is found (the read then waits)."""
    gl_function("glFinish")()


def gl_function(name: str) -> Callable[..., None]:
    """The GL entry point ``name``, called with integer arguments (or ``None`` for a null pointer) on the current
    context, found at its first call (find_library runs a subprocess); a no-op where no GL library is found."""
    function = _gl_functions.get(name)
    if function is None:
        function = _gl_functions[name] = _find_gl_function(name)
    return function


def _find_gl_function(name: str) -> Callable[..., None]:
    for library in ("OpenGL", "GL"):
        path = ctypes.util.find_library(library)
        if path:
            try:
                return getattr(ctypes.CDLL(path), name)
            except (OSError, AttributeError):
                continue
    return lambda *arguments: None


_gl_functions: dict[str, Callable[..., None]] = {}


class EglCurrent:
    """The EGL context current on this thread when made (none: ``context`` is null), to make current again with
    :meth:`restore`. moderngl makes each context it creates current and never gives the one before back: a caller's
    own context (a notebook's, a test's) would be left unbound by a recording made in between, and its next calls
    would draw nowhere."""

    def __init__(self) -> None:
        self._egl = _egl_library()
        self.state: tuple[int, int, int, int] | None = None  # display, draw and read surfaces, context
        if self._egl is not None and self._egl.eglGetCurrentContext():
            egl = self._egl
            self.state = (
                egl.eglGetCurrentDisplay(),
                egl.eglGetCurrentSurface(EGL_DRAW),
                egl.eglGetCurrentSurface(EGL_READ),
                egl.eglGetCurrentContext(),
            )

    def restore(self) -> None:
        """Make the context that was current at :meth:`__init__` current again (if there was one)."""
        if self._egl is not None and self.state is not None:
            self._egl.eglMakeCurrent(*self.state)

    @contextmanager
    def drawing_with(self, ctx: moderngl.Context) -> Iterator[None]:
        """``ctx`` current for the body, then this context again (with none, ``ctx`` stays current). moderngl's own
        ``with ctx`` makes the one before current on ``ctx``'s EGL display, which fails for another display's
        context and leaves none current."""
        ctx.__enter__()
        try:
            yield
        finally:
            self.restore()


EGL_DRAW, EGL_READ = 0x3059, 0x305A


def _egl_library() -> ctypes.CDLL | None:
    """libEGL, its calls typed (pointers as such), or ``None`` where there is none; looked for once."""
    if not _egl:
        try:
            library: ctypes.CDLL | None = ctypes.CDLL(ctypes.util.find_library("EGL") or "libEGL.so.1")
        except OSError:
            library = None
        if library is not None:
            for name in ("eglGetCurrentDisplay", "eglGetCurrentContext", "eglGetCurrentSurface"):
                getattr(library, name).restype = ctypes.c_void_p
            library.eglGetCurrentSurface.argtypes = [ctypes.c_int]
            library.eglMakeCurrent.argtypes = [ctypes.c_void_p] * 4
            library.eglMakeCurrent.restype = ctypes.c_uint
        _egl.append(library)
    return _egl[0]


_egl: list[ctypes.CDLL | None] = []  # libEGL once looked for


def create_offscreen_context() -> moderngl.Context:
    """A GL 3.3+ core context with no window (EGL; Mesa's llvmpipe on a machine without a GPU)."""
    # The stub types each keyword setting as a dict; moderngl passes them on to glcontext as they are.
    return moderngl.create_standalone_context(backend="egl", require=330)  # type: ignore[arg-type]


class OffscreenTarget:
    """An RGBA8 + depth framebuffer of ``width`` × ``height`` pixels, multisampled with ``samples`` (clamped to
    the context's maximum; 0 or 1 means none). Draw into :attr:`framebuffer`, then :meth:`read`."""

    def __init__(self, ctx: moderngl.Context, width: int, height: int, samples: int = 4) -> None:
        self.ctx = ctx
        self.size = (int(width), int(height))
        self.samples = min(int(samples), ctx.max_samples) if samples > 1 else 0
        self.resolved = ctx.framebuffer(
            color_attachments=[ctx.renderbuffer(self.size)], depth_attachment=ctx.depth_renderbuffer(self.size)
        )
        if self.samples:
            self.framebuffer = ctx.framebuffer(
                color_attachments=[ctx.renderbuffer(self.size, samples=self.samples)],
                depth_attachment=ctx.depth_renderbuffer(self.size, samples=self.samples),
            )
        else:
            self.framebuffer = self.resolved
        self._pixels = np.empty((self.size[1], self.size[0], 3), dtype=np.uint8)

    def read(self) -> np.ndarray:
        """(height, width, 3) uint8 RGB, rows top-down (a new array)."""
        self._resolve()
        finish()
        self.resolved.read_into(self._pixels, components=3)
        return self._pixels[::-1].copy()

    def read_rgba(self, into: np.ndarray | None = None) -> np.ndarray:
        """(height, width, 4) uint8 RGBA, rows bottom-up as GL stores them (``into``, C-contiguous, else a new
        array): GL's native layout, read several times faster than :meth:`read` on llvmpipe, for a video writer
        that flips rows itself."""
        self._resolve()
        pixels = np.empty((self.size[1], self.size[0], 4), dtype=np.uint8) if into is None else into
        finish()
        self.resolved.read_into(pixels, components=4)
        return pixels

    def _resolve(self) -> None:
        if self.framebuffer is not self.resolved:
            self.ctx.copy_framebuffer(self.resolved, self.framebuffer)

    def release(self) -> None:
        """Free the GL objects."""
        for framebuffer in {id(self.framebuffer): self.framebuffer, id(self.resolved): self.resolved}.values():
            for attachment in (*framebuffer.color_attachments, framebuffer.depth_attachment):
                attachment.release()
            framebuffer.release()
