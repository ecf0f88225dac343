#version 330
// Copies the same pixel of u_source, whose pixel (0, 0) is the target's u_offset (0 for a texture of the target's
// size): the cached backdrop into a viewport, an ImGui layer (render/imgui_draw.py) into its rectangle. A draw
// rather than a blit because llvmpipe's blit into part of a framebuffer waits for all queued drawing.
uniform sampler2D u_source;
uniform ivec2 u_offset;
out vec4 f_color;

void main() {
    f_color = texelFetch(u_source, ivec2(gl_FragCoord.xy) - u_offset, 0);
}
