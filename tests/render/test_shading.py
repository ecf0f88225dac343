"""The shaders' colour encoding on the real GL: linear → sRGB (assets/shaders/common.glsl) against IEC 61966-2-1."""

import moderngl
import numpy as np

from spinlab.render.look import linear_to_srgb
from spinlab.render.shaders import shader_source

VERTEX = """#version 330
void main() {
    vec2 ndc = vec2((gl_VertexID << 1) & 2, gl_VertexID & 2) * 2.0 - 1.0;
    gl_Position = vec4(ndc, 0.0, 1.0);
}
"""
FRAGMENT = """#version 330
%s
uniform float u_width;
out vec4 f_color;
void main() {
    float c = (gl_FragCoord.x - 0.5) / (u_width - 1.0);    // 0 .. 1 across the row, linear
    f_color = vec4(linear_to_srgb(vec3(c, c * c, 1.0 - c)), 1.0);
}
"""
WIDTH = 4096


def test_linear_to_srgb_on_the_gl_is_within_a_level_of_the_standard(gl_context):
    ctx = gl_context
    program = ctx.program(vertex_shader=VERTEX, fragment_shader=FRAGMENT % shader_source("common.glsl"))
    program["u_width"].value = float(WIDTH)
    framebuffer = ctx.simple_framebuffer((WIDTH, 1))
    framebuffer.use()
    framebuffer.clear()
    ctx.enable_only(moderngl.NOTHING)  # whatever an earlier test left on (a depth test, blending)
    ctx.vertex_array(program, []).render(vertices=3)
    pixels = np.frombuffer(framebuffer.read(components=3), dtype=np.uint8).reshape(WIDTH, 3).astype(int)
    c = np.arange(WIDTH) / (WIDTH - 1.0)
    expected = np.round(255.0 * linear_to_srgb(np.stack([c, c * c, 1.0 - c], axis=1))).astype(int)
    difference = np.abs(pixels - expected)
    assert difference.max() <= 1
    assert (difference > 0).mean() < 0.05
    program.release()
    framebuffer.release()
