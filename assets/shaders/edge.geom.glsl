#version 330
// Anti-aliasing of the solids' silhouettes, instead of multisampling (which costs 2-3x on a CPU rasteriser).
// Each primitive is one mesh edge with its two triangles (render/meshes.py edge_adjacency): 0 = the far corner of
// triangle F, 1-2 = the edge as F winds it (CCW outside), 3 = the far corner of triangle G, 4-5 = the edge as G
// winds it (4 where 2 is, 5 where 1 is, with G's normals). Where one triangle faces the eye and the other does not,
// the edge is on the silhouette: it becomes a thin quad reaching u_fringe_px outward in screen space, shaded like
// the front triangle's surface at the edge and fading out (edge.frag), which covers the pixels the solid's
// staircase left out. The surface is shaded here, at the edge's two ends, not per pixel: a fringe is a pixel wide,
// and on a CPU rasteriser a thin quad's pixels cost the most when each runs the lighting.
layout(triangles_adjacency) in;
layout(triangle_strip, max_vertices = 4) out;
#include "views.glsl"
#include "common.glsl"
#include "lighting.glsl"
uniform float u_fringe_px;
in vec3 g_world[];
in vec3 g_normal[];
in vec4 g_color[];
flat in int g_view[];
out vec3 v_srgb;
out float v_outside_px;

void corner(int index, vec3 srgb, vec2 offset_ndc, float outside_px) {
    vec4 clip = gl_in[index].gl_Position;
    v_srgb = srgb;
    v_outside_px = outside_px;
    gl_Position = to_target(vec4(clip.xy + offset_ndc * clip.w, clip.zw), g_view[index]);
    EmitVertex();
}

vec3 lit(int index) {
    return linear_to_srgb(shade(g_world[index], g_normal[index], g_color[index].rgb, g_view[index]));
}

void main() {
    int view = g_view[1];
    vec3 a = g_world[1];
    vec3 b = g_world[2];
    vec3 eye = u_eye[view];
    bool f_front = dot(cross(b - a, g_world[0] - a), eye - a) > 0.0;
    bool g_front = dot(cross(a - b, g_world[3] - b), eye - b) > 0.0;
    if (f_front == g_front) return;
    // The front triangle's edge (first, second) and far corner.
    int first = f_front ? 1 : 4;
    int second = f_front ? 2 : 5;
    int far_corner = f_front ? 0 : 3;
    vec4 ca = gl_in[first].gl_Position;
    vec4 cb = gl_in[second].gl_Position;
    vec4 co = gl_in[far_corner].gl_Position;
    if (ca.w <= 0.0 || cb.w <= 0.0 || co.w <= 0.0) return;
    vec2 half_size = 0.5 * u_view_size[view];
    vec2 pa = ca.xy / ca.w * half_size;
    vec2 pb = cb.xy / cb.w * half_size;
    vec2 po = co.xy / co.w * half_size;
    vec2 along = pb - pa;
    float length_px = length(along);
    if (length_px < 1e-6) return;
    vec2 outward = vec2(-along.y, along.x) / length_px;
    if (dot(outward, po - pa) > 0.0) outward = -outward;    // away from the front triangle's inside
    vec2 offset = outward * u_fringe_px / half_size;
    vec3 first_srgb = lit(first);
    vec3 second_srgb = lit(second);
    corner(first, first_srgb, vec2(0.0), 0.0);
    corner(first, first_srgb, offset, u_fringe_px);
    corner(second, second_srgb, vec2(0.0), 0.0);
    corner(second, second_srgb, offset, u_fringe_px);
    EndPrimitive();
}
