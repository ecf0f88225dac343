#version 330
// A triangle that covers the viewport, made from gl_VertexID (no vertex buffer). The eye ray through a pixel is
// linear in its normalised device coordinates, so it is interpolated exactly from the corners.
uniform vec3 u_ray_x;     // ray = ndc.x · u_ray_x + ndc.y · u_ray_y + u_ray_z (world, unnormalised)
uniform vec3 u_ray_y;
uniform vec3 u_ray_z;
out vec3 v_ray;

void main() {
    vec2 ndc = vec2((gl_VertexID << 1) & 2, gl_VertexID & 2) * 2.0 - 1.0;
    v_ray = ndc.x * u_ray_x + ndc.y * u_ray_y + u_ray_z;
    gl_Position = vec4(ndc, 1.0, 1.0);
}
