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
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import moderngl
import numpy as np
from imgui_bundle import imgui

from spinlab.render.gpu import colour_framebuffer, colour_texture, stored_bgra, write_growing
from spinlab.render.shaders import MAX_VIEWS, load_program, uniform

__all__ = ["ImGuiDraw", "ImGuiLayer"]


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
        self._copy_program = load_program(ctx, "copy")  # a layer's texture into its rectangle: the whole viewport
        whole = np.zeros((MAX_VIEWS, 4), dtype=np.float32)
        whole[0] = (-1.0, -1.0, 1.0, 1.0)
        uniform(self._copy_program, "u_rects").write(whole.tobytes())
        uniform(self._copy_program, "u_source").value = 0
        self._copy = ctx.vertex_array(self._copy_program, [])

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
        layers: Sequence[ImGuiLayer] = (),
    ) -> None:
        """Draw ``draw_data`` (made by the current ImGui context) over ``framebuffer``, whose pixels are
        ``framebuffer_scale`` times ImGui's display units (HiDPI). The windows each of ``layers`` owns are drawn as
        they are when it is ``fresh`` and not ``late``, else its texture in their place; and when ``fresh`` and
        asked to ``capture``, into its framebuffer too, after all else. Blending on, depth test off while drawing;
        leaves ``framebuffer`` bound, the depth test on, blending off and no scissor."""
        self.update_textures()
        display_width, display_height = draw_data.display_size.x, draw_data.display_size.y
        scale_x, scale_y = framebuffer_scale
        width, height = int(display_width * scale_x), int(display_height * scale_y)
        if width <= 0 or height <= 0:
            return
        origin = (draw_data.display_pos.x, draw_data.display_pos.y)
        target = _Target(framebuffer, origin, (display_width, display_height), (width, height), framebuffer_scale)
        self._begin(target)
        drawn: dict[ImGuiLayer, list[imgui.ImDrawList]] = {}  # each layer met, and its lists
        for commands in draw_data.cmd_lists:
            owner = commands._owner_name
            layer = next((layer for layer in layers if layer.owns(owner)), None)
            if layer is None:
                self._draw_list(commands, target)
            elif layer not in drawn:  # all the layer's lists here, where its first comes
                owned = drawn[layer] = [listed for listed in draw_data.cmd_lists if layer.owns(listed._owner_name)]
                if layer.fresh and not layer.late:
                    for listed in owned:
                        self._draw_list(listed, target)
                else:
                    self._composite(layer, target)
        # Into the layers last: each framebuffer switched to starts a new llvmpipe scene.
        for layer, owned in drawn.items():
            if layer.fresh and layer.capture:
                self._fill(layer, owned, target)
        framebuffer.use()
        framebuffer.scissor = None  # type: ignore[assignment]  # None (no scissor test) is allowed; the stub omits it
        self.ctx.enable_only(moderngl.DEPTH_TEST)

    def _begin(self, target: _Target) -> None:
        """Bind ``target`` with ImGui's blending and the program's uniforms for it."""
        target.framebuffer.use()
        target.framebuffer.viewport = (0, 0, *target.pixels)
        self.ctx.enable_only(moderngl.BLEND)
        blend = moderngl.SRC_ALPHA, moderngl.ONE_MINUS_SRC_ALPHA, moderngl.ONE, moderngl.ONE_MINUS_SRC_ALPHA
        self.ctx.blend_func = blend  # type: ignore[assignment]  # colour and alpha factors: the stub allows 2 of 4
        uniform(self._program, "u_size").value = tuple(float(value) for value in target.size)
        uniform(self._program, "u_origin").value = tuple(float(value) for value in target.origin)

    def _draw_list(self, commands: imgui.ImDrawList, target: _Target) -> None:
        """One draw list: its vertices and indices uploaded, one draw per command with its scissor and texture."""
        vertex_bytes = ctypes.string_at(
            commands.vtx_buffer.data_address(), commands.vtx_buffer.size() * imgui.VERTEX_SIZE
        )
        index_bytes = ctypes.string_at(
            commands.idx_buffer.data_address(), commands.idx_buffer.size() * imgui.INDEX_SIZE
        )
        write_growing(self._vertices, np.frombuffer(vertex_bytes, dtype=np.uint8))
        write_growing(self._indices, np.frombuffer(index_bytes, dtype=np.uint8))
        (origin_x, origin_y), (scale_x, scale_y), height = target.origin, target.scale, target.pixels[1]
        for command in commands.cmd_buffer:
            texture = self._textures.get(command.tex_ref.get_tex_id())
            if texture is None or command.elem_count == 0:
                continue
            clip = command.clip_rect
            left, top = (clip.x - origin_x) * scale_x, (clip.y - origin_y) * scale_y
            right, bottom = (clip.z - origin_x) * scale_x, (clip.w - origin_y) * scale_y
            if right <= left or bottom <= top:
                continue
            target.framebuffer.scissor = (int(left), int(height - bottom), int(right - left), int(bottom - top))
            texture.use(location=0)
            self._vao.render(moderngl.TRIANGLES, vertices=command.elem_count, first=command.idx_offset)

    def _fill(self, layer: ImGuiLayer, lists: list[imgui.ImDrawList], target: _Target) -> None:
        """Draw ``lists`` into ``layer``'s texture (made for its rectangle first), cleared to the colour under them:
        the pixels the target would hold, blended alike."""
        held = layer.framebuffer_for(self.ctx, target.framebuffer)
        x, y, width, height = layer.rect_px
        scale_x, scale_y = target.scale
        origin = (target.origin[0] + x / scale_x, target.origin[1] + y / scale_y)
        inner = _Target(held, origin, (width / scale_x, height / scale_y), (width, height), target.scale)
        held.scissor = None  # type: ignore[assignment]  # None (no scissor test) is allowed; the stub omits it
        held.use()  # applies the scissor: the last command's would cut the clear
        held.clear(*layer.under, 1.0)
        self._begin(inner)
        for commands in lists:
            self._draw_list(commands, inner)
        layer.captured = True

    def _composite(self, layer: ImGuiLayer, target: _Target) -> None:
        """``layer``'s texture into ``target`` at its rectangle, pixel for pixel."""
        if layer.shown is None:
            return
        x, y, width, height = layer.rect_px
        self.copy(layer.shown, target.framebuffer, (x, target.pixels[1] - y - height, width, height))  # GL's rows
        self._begin(target)

    def copy(self, texture: moderngl.Texture, framebuffer: moderngl.Framebuffer, viewport: tuple[int, ...]) -> None:
        """``texture`` into ``framebuffer`` at ``viewport`` (x, y, width, height: GL's pixels, from the bottom left),
        pixel for pixel, the texture's first pixel at the viewport's corner (assets/shaders/copy.*.glsl; stored
        alike, llvmpipe's linear path: render/window_frame.py). Leaves ``framebuffer`` bound, its scissor the
        viewport, every capability off."""
        x, y, width, height = viewport
        framebuffer.scissor = framebuffer.viewport = (x, y, width, height)
        framebuffer.use()
        self.ctx.enable_only(moderngl.NOTHING)
        uniform(self._copy_program, "u_offset").value = (x, y)
        uniform(self._copy_program, "u_viewport").value = (float(x), float(y), float(width), float(height))
        uniform(self._copy_program, "u_source_size").value = tuple(float(value) for value in texture.size)
        texture.use(location=0)
        self._copy.render(moderngl.TRIANGLES, vertices=6)

    def release(self) -> None:
        """Free the GL objects (the textures too; ImGui is not told)."""
        for texture in self._textures.values():
            texture.release()
        self._textures.clear()
        self._vao.release()
        self._copy.release()
        self._copy_program.release()
        self._vertices.release()
        self._indices.release()
        self._program.release()


@dataclass(frozen=True)
class _Target:
    """Where a draw list goes: ``framebuffer``, whose top-left pixel is ImGui's point ``origin`` and which spans
    ``size`` display units, ``pixels`` (width, height), ``scale`` pixels per display unit."""

    framebuffer: moderngl.Framebuffer
    origin: tuple[float, float]
    size: tuple[float, float]
    pixels: tuple[int, int]
    scale: tuple[float, float]


class ImGuiLayer:
    """The ImGui windows whose draw lists ``owns`` (by the list's owner window's name), shown from a texture in the
    frames that do not lay them out (ui/window_layer.py). A frame that lays them out (``fresh``) draws them as ImGui
    drew them and, when asked to ``capture``, into a framebuffer too, cleared to the colour ``under`` them (sRGB):
    all the target holds under them, so the pixels are the same, blended alike (llvmpipe rounds a blend into the
    window's pixel format and into the texture's each its own way: a level apart at a few pixels). :meth:`settle`,
    before the next frame draws anything, copies them into the texture shown; a frame that is not ``fresh`` draws
    that texture where the windows' first draw list comes (ImGui keeps a window's last list when asked to). A
    ``late`` frame lays them out only because time passed: it draws them into the framebuffer alone and shows the
    texture, so the windows drawn then are shown a frame later, and llvmpipe rasterises them once, not twice.
    ``rect_px``: (x, y, width, height) pixels of the target, from its top-left, that the texture covers.

    Why a copy: a texture llvmpipe drew into stays tied to the scene that drew it, and a frame that samples it
    waits for all the rasterising queued so far (~4 ms of the window's thread, measured); one written by a copy
    does not. The copy is a memcpy, made before anything else is queued: it waits for nothing (the last frame's
    scenes are done when it was shown)."""

    def __init__(self, owns: Callable[[str], bool], under: tuple[float, float, float]) -> None:
        self.owns = owns
        self.under = under
        self.rect_px: tuple[int, int, int, int] = (0, 0, 0, 0)
        self.fresh = True
        self.capture = True
        self.late = False
        self.captured = False  # drawn into the framebuffer, not yet copied into the texture shown
        self.framebuffer: moderngl.Framebuffer | None = None
        self.shown: moderngl.Texture | None = None  # what frames that leave the windows out show
        self._shown_framebuffer: moderngl.Framebuffer | None = None  # of ``shown``: what the copy goes into

    def framebuffer_for(self, ctx: moderngl.Context, target: moderngl.Framebuffer) -> moderngl.Framebuffer:
        """The framebuffer the windows are drawn into, stored as ``target`` is (render/gpu.py's
        :func:`~render.gpu.colour_framebuffer`), made again when the rectangle's size or the storage changed."""
        size = self.rect_px[2:]
        held = self.framebuffer
        if held is None or tuple(held.size) != size or stored_bgra(held) != stored_bgra(target):
            self.release()
            held = self.framebuffer = colour_framebuffer(ctx, size, like=target)
        return held

    def settle(self, ctx: moderngl.Context) -> None:
        """Copy what the last frame captured into the texture shown (stored as the framebuffer it was drawn into);
        call before the frame draws anything."""
        held = self.framebuffer
        if not self.captured or held is None:
            return
        into = self._shown_framebuffer
        if into is None:  # freed with the framebuffer (framebuffer_for): made again at its size and storage
            self.shown = colour_texture(ctx, (held.width, held.height), like=held)
            into = self._shown_framebuffer = ctx.framebuffer(color_attachments=[self.shown])
        ctx.copy_framebuffer(into, held)  # stored alike: a memcpy
        self.captured = False

    def release(self) -> None:
        """Free the framebuffer and the texture."""
        if self.framebuffer is not None:
            for attachment in self.framebuffer.color_attachments:
                attachment.release()
            self.framebuffer.release()
            self.framebuffer = None
        self._release_shown()
        self.captured = False

    def _release_shown(self) -> None:
        if self._shown_framebuffer is not None:
            self._shown_framebuffer.release()
            self._shown_framebuffer = None
        if self.shown is not None:
            self.shown.release()
            self.shown = None
