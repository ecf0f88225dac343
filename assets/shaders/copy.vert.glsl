#version 330
// Rectangles of the GL viewport u_viewport (x, y, width, height pixels), two triangles each, made from gl_VertexID
// (no vertex buffer): vertices 6k to 6k + 5 cover u_rects[k], given in NDC as (x0, y0, x1, y1). One draw copies the
// cached backdrop of every view. Each corner's texture coordinate is its pixel's in u_source, whose pixel (0, 0) is
// the target's u_offset: interpolated, every fragment samples its own texel's centre.
uniform vec4 u_rects[MAX_VIEWS];
uniform vec4 u_viewport;
uniform ivec2 u_offset;
uniform vec2 u_source_size;  // u_source's pixels: no sampler here, whose use at a draw could wait for llvmpipe
out vec2 v_uv;
const int CORNERS[6] = int[6](0, 1, 2, 2, 1, 3);    // bit 0: x1 (else x0), bit 1: y1 (else y0)

void main() {
    vec4 rect = u_rects[gl_VertexID / 6];
    int corner = CORNERS[gl_VertexID % 6];
    vec2 ndc = vec2((corner & 1) != 0 ? rect.z : rect.x, (corner & 2) != 0 ? rect.w : rect.y);
    vec2 pixel = u_viewport.xy + (0.5 * ndc + 0.5) * u_viewport.zw - vec2(u_offset);
    v_uv = pixel / u_source_size;
    gl_Position = vec4(ndc, 0.0, 1.0);
}
