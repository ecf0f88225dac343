"""The window's ImGui backend: input from imgui-bundle's pyglet backend, drawing by moderngl.

imgui-bundle's pyglet renderer feeds ImGui the window's keys, mouse, text and clipboard, and draws through
PyOpenGL: dozens of GL calls a frame, each wrapped in Python. Here the input half is kept and the drawing (and
ImGui's font textures) is :class:`render.imgui_draw.ImGuiDraw`'s.
"""

from __future__ import annotations

from collections.abc import Sequence

import moderngl
from imgui_bundle import imgui

# The backend's module opts out of type checking (a `# type: ignore` at its top): mypy sees none of its names.
from imgui_bundle.python_backends.pyglet_backend import PygletProgrammablePipelineRenderer  # type: ignore[attr-defined]

from spinlab.render.imgui_draw import ImGuiDraw, ImGuiLayer

__all__ = ["ImGuiBackend"]


class ImGuiBackend(PygletProgrammablePipelineRenderer):
    """ImGui on ``window`` (its input callbacks attached), drawn with ``ctx`` into ``ctx.screen``."""

    def __init__(self, window, ctx: moderngl.Context) -> None:
        super().__init__(window)
        self._ctx = ctx
        self._draw = ImGuiDraw(ctx)

    def render(
        self,
        draw_data: imgui.ImDrawData,
        framebuffer: moderngl.Framebuffer | None = None,
        layers: Sequence[ImGuiLayer] = (),
    ) -> None:
        """Draw ``draw_data`` over the window's ``framebuffer`` (default ``ctx.screen``; HiDPI-aware), the windows
        each of ``layers`` owns from its texture, and set the mouse cursor ImGui asks for."""
        scale = self.io.display_framebuffer_scale
        self._draw.render(framebuffer or self._ctx.screen, draw_data, (scale.x, scale.y), layers)
        self._handle_mouse_cursor()

    def copy(self, texture: moderngl.Texture, framebuffer: moderngl.Framebuffer, viewport: tuple[int, ...]) -> None:
        """``texture`` into ``framebuffer`` at ``viewport`` (GL's pixels), pixel for pixel (render/imgui_draw.py's
        :meth:`~render.imgui_draw.ImGuiDraw.copy`): the window's frame into the window."""
        self._draw.copy(texture, framebuffer, viewport)

    def shutdown(self) -> None:
        """Free the textures and GL objects; ImGui's textures are marked destroyed."""
        for texture in imgui.get_platform_io().textures:
            texture.set_tex_id(0)
            texture.status = imgui.ImTextureStatus.destroyed
        self._draw.release()
        self.io.backend_flags &= ~imgui.BackendFlags_.renderer_has_textures
        self._invalidate_device_objects()
