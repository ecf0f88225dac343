#version 330
// Copies the same pixel of u_source (sampled at the nearest texel, at its centre: see copy.vert.glsl): the cached
// backdrop into a viewport, an ImGui layer (render/imgui_draw.py) into its rectangle. A draw rather than a blit
// because llvmpipe's blit into part of a framebuffer waits for all queued drawing; a sample at interpolated
// coordinates rather than texelFetch at gl_FragCoord because llvmpipe shades it faster (a sixth, measured).
uniform sampler2D u_source;
in vec2 v_uv;
out vec4 f_color;

void main() {
    f_color = texture(u_source, v_uv);
}
