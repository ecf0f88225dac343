"""Leader lines over a frame, from a caption's panel to the body it names (render/captions.py): each a dark halo under
a warm line ending in a dot, drawn as triangles with render/text.py's program (pixels from the target's top-left
corner, y down, sRGB colours) over a one-pixel white texture.
"""

from __future__ import annotations

import math

import moderngl
import numpy as np

from spinlab.render.shaders import load_program, uniform

__all__ = ["LeaderLines", "POINTER_RGBA"]

POINTER_RGBA = (1.0, 0.85, 0.4, 0.95)  # the line and its dot: warm, unlike every overlay's colour
HALO_RGBA = (0.0, 0.0, 0.0, 0.55)  # under the line: it reads over a light body and the dark sky alike
LINE_PX, HALO_PX, DOT_PX = 2.0, 4.0, 3.5  # widths and the dot's radius at scale 1
DOT_SEGMENTS = 16


class LeaderLines:
    """Draws leader lines on ``ctx``."""

    def __init__(self, ctx: moderngl.Context) -> None:
        self.ctx = ctx
        self._program = load_program(ctx, "text")
        self._white = ctx.texture((1, 1), 4, bytes([255, 255, 255, 255]))
        self._vertices = ctx.buffer(reserve=1 << 12)
        self._vao = ctx.vertex_array(self._program, [(self._vertices, "2f 2f 4f1", "in_position", "in_uv", "in_color")])

    def draw(self, framebuffer: moderngl.Framebuffer, size: tuple[int, int], lines, scale: float) -> None:
        """``lines`` ((x, y) start, (x, y) end, pixels) over ``framebuffer`` of ``size``, ``scale`` thick; blending
        on while drawing, the depth test on after."""
        parts = []
        for (start, end), (width, rgba) in ((line, style) for style in _STYLES for line in lines):
            parts.append(_segment(start, end, width * scale, rgba))
            radius = (DOT_PX + 0.5 * (width - LINE_PX)) * scale
            parts.append(_dot(end, radius, rgba))
        vertices = np.concatenate(parts)
        if vertices.nbytes > self._vertices.size:
            self._vertices.orphan(2 * vertices.nbytes)
        self._vertices.write(vertices.tobytes())
        framebuffer.use()
        framebuffer.viewport = (0, 0, *size)
        self.ctx.enable_only(moderngl.BLEND)
        self.ctx.blend_func = moderngl.SRC_ALPHA, moderngl.ONE_MINUS_SRC_ALPHA
        uniform(self._program, "u_size").value = (float(size[0]), float(size[1]))
        self._white.use(location=0)
        self._vao.render(moderngl.TRIANGLES, vertices=len(vertices))
        self.ctx.enable_only(moderngl.DEPTH_TEST)

    def release(self) -> None:
        for thing in (self._vao, self._vertices, self._white, self._program):
            thing.release()


_STYLES = ((HALO_PX, HALO_RGBA), (LINE_PX, POINTER_RGBA))  # the halo first, the line over it
_VERTEX = np.dtype([("position", np.float32, 2), ("uv", np.float32, 2), ("color", np.uint8, 4)])


def _vertices(points: np.ndarray, rgba: tuple[float, ...]) -> np.ndarray:
    made = np.zeros(len(points), dtype=_VERTEX)
    made["position"], made["uv"] = points, 0.5
    made["color"] = np.round(255.0 * np.clip(rgba, 0.0, 1.0)).astype(np.uint8)
    return made


def _segment(start, end, width: float, rgba) -> np.ndarray:
    """Two triangles covering the segment ``start``–``end`` ``width`` pixels wide."""
    a, b = np.asarray(start, dtype=float), np.asarray(end, dtype=float)
    along = b - a
    normal = np.array([-along[1], along[0]]) / max(float(np.hypot(*along)), 1e-9) * 0.5 * width
    corners = np.array([a - normal, a + normal, b + normal, a - normal, b + normal, b - normal])
    return _vertices(corners, rgba)


def _dot(centre, radius: float, rgba) -> np.ndarray:
    """A disc of ``radius`` pixels about ``centre``, as a fan of triangles."""
    angles = np.linspace(0.0, 2.0 * math.pi, DOT_SEGMENTS + 1)
    rim = np.asarray(centre, dtype=float) + radius * np.stack([np.cos(angles), np.sin(angles)], axis=1)
    triangles = np.empty((DOT_SEGMENTS, 3, 2))
    triangles[:, 0], triangles[:, 1], triangles[:, 2] = centre, rim[:-1], rim[1:]
    return _vertices(triangles.reshape(-1, 2), rgba)
