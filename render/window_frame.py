"""The window's frame drawn off screen, then shown by one copy into the window, which has no depth buffer.

Why: llvmpipe copies a texture into a framebuffer by a draw along its "linear" path, rows copied without shading,
only when the source is stored as the target is, in the window system's BGRA8 order (render/gpu.py's
:func:`~render.gpu.bgra_texture`), is sampled at the nearest texel by a plain ``texture()``, and the target has no
depth buffer bound: at 1920×1080 ~1.7 ms of CPU, against ~10 from an RGBA8 texture or with a depth buffer. So the
window has none; the whole frame, the 3D views and ImGui over them, is drawn into :attr:`WindowFrame.framebuffer`
(a BGRA texture and a depth buffer) and copied into the window once (ui/app.py). Stored as BGRA, the frame also
takes the backdrop's cache by one memcpy (render/backdrop.py). ImGui, which needs no depth, draws into
:attr:`WindowFrame.overlay`, the same texture without the depth buffer: the held panel and plots are copied along
the same path (render/imgui_draw.py), and its triangles cost llvmpipe less. Screenshots and the window's video are
read from the frame.
"""

from __future__ import annotations

import moderngl

from spinlab.render.gpu import bgra_texture

__all__ = ["WindowFrame"]


class WindowFrame:
    """The frame of a window of ``size`` pixels (see the module docstring): :attr:`framebuffer` (colour and depth),
    its colour, :attr:`texture`, the colour alone as a framebuffer, :attr:`overlay`, and whether it was
    :attr:`drawn` since it was last copied into the window; :meth:`resize` makes them again at another size."""

    def __init__(self, ctx: moderngl.Context, size: tuple[int, int]) -> None:
        self.ctx = ctx
        self.size = (int(size[0]), int(size[1]))
        self.texture = bgra_texture(ctx, self.size)
        self.texture.filter = moderngl.NEAREST, moderngl.NEAREST  # copied 1:1 into the window
        self._depth = ctx.depth_renderbuffer(self.size)
        self.framebuffer = ctx.framebuffer(color_attachments=[self.texture], depth_attachment=self._depth)
        self.overlay = ctx.framebuffer(color_attachments=[self.texture])
        self.drawn = False  # a frame was drawn and not yet copied into the window

    def resize(self, size: tuple[int, int]) -> WindowFrame:
        """This frame if it is ``size`` pixels, else a new one of that size (this one freed)."""
        if (int(size[0]), int(size[1])) == self.size:
            return self
        self.release()
        return WindowFrame(self.ctx, size)

    def release(self) -> None:
        """Free the framebuffers, the texture and the depth buffer."""
        self.framebuffer.release()
        self.overlay.release()
        self.texture.release()
        self._depth.release()
