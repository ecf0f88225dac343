#version 330
// The sky's vertical sRGB gradient over the viewport, from u_bottom_srgb at its bottom edge to u_top_srgb at its top:
// a triangle covering the viewport, made from gl_VertexID (no vertex buffer), whose colour is interpolated (on a CPU
// rasteriser a colour interpolated across a triangle costs a fraction of one computed from gl_FragCoord). Linear in
// NDC y, so exact at every pixel's centre within the viewport; the corner beyond it takes the line's extension.
uniform vec3 u_top_srgb;
uniform vec3 u_bottom_srgb;
out vec3 v_color;

void main() {
    vec2 ndc = vec2((gl_VertexID << 1) & 2, gl_VertexID & 2) * 2.0 - 1.0;
    v_color = u_bottom_srgb + (u_top_srgb - u_bottom_srgb) * (0.5 * ndc.y + 0.5);
    gl_Position = vec4(ndc, 1.0, 1.0);
}
