#version 330
// A triangle that covers the viewport, made from gl_VertexID (no vertex buffer).
void main() {
    vec2 ndc = vec2((gl_VertexID << 1) & 2, gl_VertexID & 2) * 2.0 - 1.0;
    gl_Position = vec4(ndc, 0.0, 1.0);
}
