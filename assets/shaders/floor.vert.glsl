#version 330
// The floor's disc, where its grid is drawn: the regular polygon of u_sides sides round the circle of radius
// u_fade_radius about u_fade_center (world x, y) on the plane z = u_floor_z, as a fan of triangles made from
// gl_VertexID (no vertex buffer): vertex 3k is the centre, 3k + 1 and 3k + 2 the corners k and k + 1. Clipped
// by the near plane only: the grid fades out before the far plane could cut it, and depth is not tested.
uniform mat4 u_view_projection;
uniform vec2 u_fade_center;
uniform float u_fade_radius;
uniform float u_floor_z;
uniform int u_sides;
out vec2 v_floor;    // the world point (x, y) on the floor
out vec2 v_from_center;    // (v_floor - u_fade_center) / u_fade_radius: affine in v_floor, so interpolated alike

const float TAU = 6.28318530718;

void main() {
    int corner = gl_VertexID % 3;
    vec2 p = u_fade_center;
    if (corner != 0) {
        float angle = TAU * float(gl_VertexID / 3 + corner - 1) / float(u_sides);
        p += u_fade_radius / cos(0.5 * TAU / float(u_sides)) * vec2(cos(angle), sin(angle));
    }
    v_floor = p;
    v_from_center = (p - u_fade_center) / u_fade_radius;
    vec4 clip = u_view_projection * vec4(p, u_floor_z, 1.0);
    gl_Position = vec4(clip.xy, min(clip.z, clip.w), clip.w);
}
