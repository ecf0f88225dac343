"""ImGui's draw data drawn by moderngl: the font textures ImGui asks for, and its triangles, into any framebuffer.

Shared by the text labels over rendered frames (render/text.py, a private ImGui context) and the window's panel
and plots (ui/app.py): one vertex and index upload per draw list and one draw per command, with its scissor
rectangle and texture. imgui-bundle's PyOpenGL renderer does the same through dozens of PyOpenGL calls a frame,
each wrapped in Python; moderngl's calls are C.

ImGui's textures protocol (``BackendFlags_.renderer_has_textures``): before drawing, every texture ImGui lists
with ``want_create`` / ``want_updates`` is uploaded whole (the atlas is small) and ``want_destroy`` freed; a
texture's id is its GL name.
"""

from __future__ import annotations

import ctypes

import moderngl
import numpy as np
from imgui_bundle import imgui

from spinlab.render.gpu import write_growing
from spinlab.render.shaders import load_program, uniform

__all__ = ["ImGuiDraw"]


class ImGuiDraw:
    """Draws the current ImGui context's draw data with ``ctx``; call :meth:`render` after ``imgui.render()``."""

    def __init__(self, ctx: moderngl.Context) -> None:
        self.ctx = ctx
        self._program = load_program(ctx, "text")
        self._vertices = ctx.buffer(reserve=1 << 16)
        self._indices = ctx.buffer(reserve=1 << 16)
        self._vao = ctx.vertex_array(
            self._program,
            [(self._vertices, "2f 2f 4f1", "in_position", "in_uv", "in_color")],
            index_buffer=self._indices,
            index_element_size=imgui.INDEX_SIZE,
        )
        self._textures: dict[int, moderngl.Texture] = {}

    def update_textures(self) -> None:
        """Create, update or free the GL textures the current ImGui context asks for."""
        for texture in imgui.get_platform_io().textures:
            status = texture.status
            if status == imgui.ImTextureStatus.want_destroy:
                gl_texture = self._textures.pop(texture.tex_id, None)
                if gl_texture is not None:
                    gl_texture.release()
                texture.set_tex_id(0)
                texture.status = imgui.ImTextureStatus.destroyed
            elif status in (imgui.ImTextureStatus.want_create, imgui.ImTextureStatus.want_updates):
                pixels = np.asarray(texture.get_pixels_array(), dtype=np.uint8)
                gl_texture = self._textures.get(texture.tex_id)
                if gl_texture is None or gl_texture.size != (texture.width, texture.height):
                    if gl_texture is not None:
                        self._textures.pop(texture.tex_id).release()
                    gl_texture = self.ctx.texture((texture.width, texture.height), 4)
                    gl_texture.filter = moderngl.LINEAR, moderngl.LINEAR
                    gl_texture.repeat_x = gl_texture.repeat_y = False
                    self._textures[gl_texture.glo] = gl_texture
                    texture.set_tex_id(gl_texture.glo)
                gl_texture.write(pixels.tobytes())
                texture.status = imgui.ImTextureStatus.ok

    def render(
        self,
        framebuffer: moderngl.Framebuffer,
        draw_data: imgui.ImDrawData,
        framebuffer_scale: tuple[float, float] = (1.0, 1.0),
    ) -> None:
        """Draw ``draw_data`` (made by the current ImGui context) over ``framebuffer``, whose pixels are
        ``framebuffer_scale`` times ImGui's display units (HiDPI). Blending on, depth test off while drawing;
        leaves the depth test on, blending off and no scissor."""
        self.update_textures()
        display_width, display_height = draw_data.display_size.x, draw_data.display_size.y
        scale_x, scale_y = framebuffer_scale
        width, height = int(display_width * scale_x), int(display_height * scale_y)
        if width <= 0 or height <= 0:
            return
        framebuffer.use()
        framebuffer.viewport = (0, 0, width, height)
        self.ctx.enable_only(moderngl.BLEND)
        blend = moderngl.SRC_ALPHA, moderngl.ONE_MINUS_SRC_ALPHA, moderngl.ONE, moderngl.ONE_MINUS_SRC_ALPHA
        self.ctx.blend_func = blend  # type: ignore[assignment]  # colour and alpha factors: the stub allows 2 of 4
        uniform(self._program, "u_size").value = (float(display_width), float(display_height))
        origin_x, origin_y = draw_data.display_pos.x, draw_data.display_pos.y
        for commands in draw_data.cmd_lists:
            vertex_bytes = ctypes.string_at(
                commands.vtx_buffer.data_address(), commands.vtx_buffer.size() * imgui.VERTEX_SIZE
            )
            index_bytes = ctypes.string_at(
                commands.idx_buffer.data_address(), commands.idx_buffer.size() * imgui.INDEX_SIZE
            )
            write_growing(self._vertices, np.frombuffer(vertex_bytes, dtype=np.uint8))
            write_growing(self._indices, np.frombuffer(index_bytes, dtype=np.uint8))
            for command in commands.cmd_buffer:
                texture = self._textures.get(command.tex_ref.get_tex_id())
                if texture is None or command.elem_count == 0:
                    continue
                clip = command.clip_rect
                left, top = (clip.x - origin_x) * scale_x, (clip.y - origin_y) * scale_y
                right, bottom = (clip.z - origin_x) * scale_x, (clip.w - origin_y) * scale_y
                if right <= left or bottom <= top:
                    continue
                framebuffer.scissor = (int(left), int(height - bottom), int(right - left), int(bottom - top))
                texture.use(location=0)
                self._vao.render(moderngl.TRIANGLES, vertices=command.elem_count, first=command.idx_offset)
        framebuffer.scissor = None  # type: ignore[assignment]  # None (no scissor test) is allowed; the stub omits it
        self.ctx.enable_only(moderngl.DEPTH_TEST)

    def release(self) -> None:
        """Free the GL objects (the textures too; ImGui is not told)."""
        for texture in self._textures.values():
            texture.release()
        self._textures.clear()
        self._vao.release()
        self._vertices.release()
        self._indices.release()
        self._program.release()
