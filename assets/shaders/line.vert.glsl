#version 330
// Line segments (pairs of vertices), instanced: a model matrix and a tint per instance. The view index comes per
// instance (the principal axes) or per vertex (the herpolhode trails, one line set for every view).
#include "common.glsl"
#include "views.glsl"
in vec3 in_position;
in vec4 in_color;
in mat4 in_model;
in vec4 in_tint;
in float in_view;
out vec4 g_color;    // sRGB, straight alpha
flat out int g_view;

void main() {
    int view = int(in_view);
    vec4 color = in_color * in_tint;
    g_color = vec4(linear_to_srgb(color.rgb), color.a);
    g_view = view;
    gl_Position = u_view_projection[view] * (in_model * vec4(in_position, 1.0));    // placed by line.geom
}
