#version 330
// Rectangles of the GL viewport, two triangles each, made from gl_VertexID (no vertex buffer): vertices 6k to
// 6k + 5 cover u_rects[k], given in NDC as (x0, y0, x1, y1). One draw copies the cached backdrop of every view.
uniform vec4 u_rects[MAX_VIEWS];
const int CORNERS[6] = int[6](0, 1, 2, 2, 1, 3);    // bit 0: x1 (else x0), bit 1: y1 (else y0)

void main() {
    vec4 rect = u_rects[gl_VertexID / 6];
    int corner = CORNERS[gl_VertexID % 6];
    gl_Position = vec4((corner & 1) != 0 ? rect.z : rect.x, (corner & 2) != 0 ? rect.w : rect.y, 0.0, 1.0);
}
