#version 330
// Copies the same pixel of u_source (a texture of the target's size): the cached backdrop into a viewport. A
// draw rather than a blit because llvmpipe's blit into part of a framebuffer waits for all queued drawing.
uniform sampler2D u_source;
out vec4 f_color;

void main() {
    f_color = texelFetch(u_source, ivec2(gl_FragCoord.xy), 0);
}
