"""Rendering without a window: a standalone EGL context and a framebuffer pair that reads back as an image.

stack.md §1: ``create_standalone_context(backend="egl")`` needs no X server; on llvmpipe MSAA is at most 4
samples. An :class:`OffscreenTarget` draws into a multisampled framebuffer (when ``samples > 0``) and resolves it
into a single-sampled one by a blit before reading.
"""

from __future__ import annotations

import moderngl
import numpy as np

__all__ = ["create_offscreen_context", "OffscreenTarget"]


def create_offscreen_context() -> moderngl.Context:
    """A GL 3.3+ core context with no window (EGL; Mesa's llvmpipe on a machine without a GPU)."""
    return moderngl.create_standalone_context(backend="egl", require=330)


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
        self._pack: moderngl.Buffer | None = None  # the pixel buffer of start_read

    def read(self) -> np.ndarray:
        """(height, width, 3) uint8 RGB, rows top-down (a new array)."""
        self._resolve()
        self.resolved.read_into(self._pixels, components=3)
        return self._pixels[::-1].copy()

    def start_read(self) -> None:
        """Ask for the pixels drawn so far into a pixel buffer, without waiting: drawing into another target can go
        on while the rasteriser finishes this one. :meth:`finish_read` returns them."""
        self._resolve()
        if self._pack is None:
            self._pack = self.ctx.buffer(reserve=self._pixels.nbytes)
        self.resolved.read_into(self._pack, components=3)

    def finish_read(self) -> np.ndarray:
        """The pixels of the last :meth:`start_read`, as :meth:`read` gives them (waits for them if need be)."""
        if self._pack is None:
            raise RuntimeError("finish_read() without start_read()")
        self._pack.read_into(self._pixels)
        return self._pixels[::-1].copy()

    def _resolve(self) -> None:
        if self.framebuffer is not self.resolved:
            self.ctx.copy_framebuffer(self.resolved, self.framebuffer)

    def release(self) -> None:
        """Free the GL objects."""
        if self._pack is not None:
            self._pack.release()
        for framebuffer in {id(self.framebuffer): self.framebuffer, id(self.resolved): self.resolved}.values():
            for attachment in (*framebuffer.color_attachments, framebuffer.depth_attachment):
                attachment.release()
            framebuffer.release()
