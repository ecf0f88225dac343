"""Small GL helpers for the renderer: a mesh drawn instanced from a growing per-instance buffer, and colour textures
stored as the framebuffer they are copied into is."""

from __future__ import annotations

import moderngl
import numpy as np

from spinlab.render.meshes import Lines, Mesh, edge_adjacency, smooth_edge_count
from spinlab.render.offscreen import gl_function

__all__ = ["InstancedDraw", "write_growing", "bgra_texture", "colour_texture", "colour_framebuffer", "stored_bgra"]

STORED_BGRA = "stored as BGRA8"  # the ``extra`` of a texture :func:`bgra_texture` made
_GL_TEXTURE_2D, _GL_RGBA, _GL_BGRA, _GL_UNSIGNED_BYTE = 0x0DE1, 0x1908, 0x80E1, 0x1401

# Per instance: a model matrix (column-major), an RGBA colour, and the index of the view it is drawn in
# (assets/shaders/views.glsl), as a float.
INSTANCE_FORMAT = "16f 4f 1f/i"
INSTANCE_ATTRIBUTES = ("in_model", "in_color", "in_view")
INSTANCE_FLOATS = 21
INSTANCE_BYTES = INSTANCE_FLOATS * 4


def write_growing(buffer: moderngl.Buffer, data: np.ndarray) -> None:
    """Write ``data`` at the start of ``buffer``, orphaning it to a larger size first when it does not fit (the
    GL name stays, so vertex arrays that use it stay valid)."""
    if data.nbytes > buffer.size:
        buffer.orphan(max(data.nbytes, 2 * buffer.size))
    buffer.write(data)


class InstancedDraw:
    """One vertex array: a unit mesh (or line set) per vertex, a model matrix, an RGBA colour and a view per instance.

    ``mesh`` is a :class:`Mesh` (triangles; ``with_normals`` chooses whether the program reads the normals) or a
    :class:`Lines` (segments, per-vertex colour); with ``edges`` a mesh is drawn as its edges with adjacency, for the
    silhouette fringes. ``instance_attributes`` names the program's three per-instance inputs (a mat4, a vec4 and
    the view, a float). A line set with ``vertex_views`` takes the view per vertex instead (:meth:`set_lines`), and
    ignores the instances' view column. Given ``instances``, another draw's instance buffer, it draws what that one
    wrote (:meth:`draw_written`) and never frees the buffer."""

    def __init__(
        self,
        ctx: moderngl.Context,
        program: moderngl.Program,
        mesh: Mesh | Lines,
        *,
        with_normals: bool = True,
        instance_attributes: tuple[str, str, str] = INSTANCE_ATTRIBUTES,
        edges: bool = False,
        vertex_views: bool = False,
        instances: moderngl.Buffer | None = None,
    ) -> None:
        self.program = program
        # Another draw's instance buffer, read as it last wrote it (:meth:`draw_written`), or one of its own.
        self._owns_instances = instances is None
        self.instances = ctx.buffer(reserve=64 * INSTANCE_BYTES) if instances is None else instances
        self.vertex_views = vertex_views
        instance_format = INSTANCE_FORMAT
        instance_inputs: tuple[str, ...] = instance_attributes
        index_buffer = None
        # With ``edges``: the index count of the smooth edges, which lead (meshes.edge_adjacency); else 0.
        self.smooth_vertices = 0
        # ctx.vertex_array's content: (buffer, format, attribute names...) per buffer.
        content: list[tuple[moderngl.Buffer | str, ...]]
        if isinstance(mesh, Lines):
            columns = [mesh.positions, mesh.colors]
            vertex_format = "3f 4f"
            vertex_attributes: tuple[str, ...] = ("in_position", "in_color")
            if vertex_views:
                columns.append(np.zeros((len(mesh.positions), 1)))
                vertex_format, vertex_attributes = "3f 4f 1f", (*vertex_attributes, "in_view")
                instance_inputs, instance_format = instance_attributes[:2], "16f 4f 4x/i"
            self.vertices = ctx.buffer(np.hstack(columns).astype(np.float32).tobytes())
            content = [(self.vertices, vertex_format, *vertex_attributes)]
            self.mode = moderngl.LINES
        else:
            self.vertices = ctx.buffer(mesh.interleaved().tobytes())
            if with_normals:
                content = [(self.vertices, "3f 3f", "in_position", "in_normal")]
            else:
                content = [(self.vertices, "3f 12x", "in_position")]
            if edges:  # the mesh's edges with their triangles' far corners (meshes.edge_adjacency)
                adjacency = edge_adjacency(mesh)
                index_buffer = ctx.buffer(adjacency.tobytes())
                self.smooth_vertices = 6 * smooth_edge_count(mesh, adjacency)
                self.mode = moderngl.TRIANGLES_ADJACENCY
            else:
                index_buffer = ctx.buffer(mesh.indices.astype(np.uint32).tobytes())
                self.mode = moderngl.TRIANGLES
        content.append((self.instances, instance_format, *instance_inputs))
        self.vao = ctx.vertex_array(program, content, index_buffer=index_buffer, index_element_size=4)

    def draw(self, rows: np.ndarray | None, vertices: int = -1, first: int = 0) -> None:
        """Draw one instance per row of ``rows`` (M, 21) float32 (see ``render.instances.instance_rows``), each of
        ``vertices`` vertices from ``first`` on (all by default). ``rows`` ``None`` draws one instance of what the
        instance buffer already holds."""
        count = 1 if rows is None else len(rows)
        if count == 0 or vertices == 0:
            return
        if rows is not None:
            write_growing(self.instances, np.ascontiguousarray(rows, dtype=np.float32))
        self.vao.render(self.mode, vertices=vertices, first=first, instances=count)

    def draw_written(self, count: int, vertices: int = -1, first: int = 0) -> None:
        """Draw ``count`` instances of what the instance buffer holds: the rows the draw that shares it (the
        ``instances`` it was made with) wrote last, not uploaded again."""
        if count == 0 or vertices == 0:
            return
        self.vao.render(self.mode, vertices=vertices, first=first, instances=count)

    def set_lines(self, positions: np.ndarray, colors: np.ndarray, views: np.ndarray | None = None) -> int:
        """Replace a line set's vertices: ``positions`` (V, 3), ``colors`` (V, 4) and, with ``vertex_views``, the
        view of each, ``views`` (V,). Returns V."""
        columns = [positions, colors] + ([np.reshape(np.asarray(views), (-1, 1))] if self.vertex_views else [])
        write_growing(self.vertices, np.hstack(columns).astype(np.float32))
        return len(positions)

    def release(self) -> None:
        """Free the GL objects."""
        self.vao.release()
        if self._owns_instances:
            self.instances.release()
        self.vertices.release()


def bgra_texture(ctx: moderngl.Context, size: tuple[int, int]) -> moderngl.Texture:
    """An 8-bit RGBA texture of ``size`` stored in the order B, G, R, A, the window system's own on llvmpipe (its
    storage given again as an unsized ``GL_RGBA`` of ``GL_BGRA`` data, which moderngl cannot ask for); read and
    written as RGBA like any other, GL converting. Sampled at the nearest texel by a plain ``texture()`` and drawn
    into a framebuffer stored alike with no depth buffer, llvmpipe copies it by its "linear" path, rows without
    shading: at 1920×1080 a sixth of the CPU time of the same copy from RGBA8 (docs/performance.md). Where no GL
    library is found to call, a plain RGBA8 texture (the same pixels)."""
    width, height = size
    texture = ctx.texture((width, height), 4)
    texture.use(location=0)
    gl_function("glTexImage2D")(_GL_TEXTURE_2D, 0, _GL_RGBA, width, height, 0, _GL_BGRA, _GL_UNSIGNED_BYTE, None)
    texture.extra = STORED_BGRA
    return texture


def colour_texture(ctx: moderngl.Context, size: tuple[int, int], like: moderngl.Framebuffer) -> moderngl.Texture:
    """An RGBA8 texture of ``size``, sampled at the nearest texel (copied 1:1), stored as ``like``'s colour is
    (:func:`bgra_texture`'s BGRA, else RGBA): a copy from one into the other is then a memcpy on llvmpipe, or a draw
    along its linear path."""
    texture = bgra_texture(ctx, size) if stored_bgra(like) else ctx.texture(size, 4)
    texture.filter = moderngl.NEAREST, moderngl.NEAREST
    return texture


def colour_framebuffer(
    ctx: moderngl.Context, size: tuple[int, int], like: moderngl.Framebuffer
) -> moderngl.Framebuffer:
    """A framebuffer of one :func:`colour_texture` of ``size``, stored as ``like`` is."""
    return ctx.framebuffer(color_attachments=[colour_texture(ctx, size, like)])


def stored_bgra(target: moderngl.Framebuffer | moderngl.Texture) -> bool:
    """Whether ``target`` is a :func:`bgra_texture` or a framebuffer whose colour is one."""
    attachments = target.color_attachments if isinstance(target, moderngl.Framebuffer) else (target,)
    return any(getattr(attachment, "extra", None) == STORED_BGRA for attachment in attachments)
