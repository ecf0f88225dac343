"""The window's frame drawn off screen, then shown by one copy into the window (which has no depth buffer).

Why: a copy of a texture into a framebuffer by a draw, which the window's frame is full of (the cached backdrop into
the views, the panel's and the plots' held textures into their rectangles: render/backdrop.py, render/imgui_draw.py),
takes llvmpipe's "linear" path, rows copied without shading, only when the source is stored as the target is, in
the window system's BGRA8 order (render/gpu.py's :func:`~render.gpu.bgra_texture`), is sampled at the nearest texel
by a plain ``texture()``, and the target has no depth buffer bound. Else each pixel is shaded: at 1920×1080 a full
copy costs ~8 ms of CPU against ~1.5. So the 3D views are drawn into :attr:`WindowFrame.views`, a BGRA texture with a
depth buffer, into which the backdrop's cache (stored alike) is a memcpy; ImGui into :attr:`WindowFrame.overlay`,
the same texture without the depth buffer, into which the held layers are copied along the linear path; and last
the texture is copied into the window along it too (ui/app.py). Screenshots and the window's video are read from
the texture.
"""

from __future__ import annotations

import moderngl

from spinlab.render.gpu import bgra_texture

__all__ = ["WindowFrame"]


class WindowFrame:
    """The frame of a window of ``size`` pixels (see the module docstring): :attr:`views` (colour and depth),
    :attr:`overlay` (the same colour, no depth) and their :attr:`texture`; :meth:`resize` makes them again at
    another size."""

    def __init__(self, ctx: moderngl.Context, size: tuple[int, int]) -> None:
        self.ctx = ctx
        self.size = (int(size[0]), int(size[1]))
        self.texture = bgra_texture(ctx, self.size)
        self.texture.filter = moderngl.NEAREST, moderngl.NEAREST  # copied 1:1 into the window
        self._depth = ctx.depth_renderbuffer(self.size)
        self.views = ctx.framebuffer(color_attachments=[self.texture], depth_attachment=self._depth)
        self.overlay = ctx.framebuffer(color_attachments=[self.texture])

    def resize(self, size: tuple[int, int]) -> WindowFrame:
        """This frame if it is ``size`` pixels, else a new one of that size (this one freed)."""
        if (int(size[0]), int(size[1])) == self.size:
            return self
        self.release()
        return WindowFrame(self.ctx, size)

    def release(self) -> None:
        """Free the framebuffers, the texture and the depth buffer."""
        self.views.release()
        self.overlay.release()
        self.texture.release()
        self._depth.release()
