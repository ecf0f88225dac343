#version 330
// The solids' vertices again (as mesh.vert), for their silhouette fringes: world position, normal, view clip.
#include "views.glsl"
in vec3 in_position;
in vec3 in_normal;
in mat4 in_model;
in vec4 in_color;
in float in_view;
out vec3 g_world;
out vec3 g_normal;
out vec4 g_color;
flat out int g_view;

void main() {
    int view = int(in_view);
    vec4 world = in_model * vec4(in_position, 1.0);
    g_world = world.xyz;
    g_normal = world_normal(in_model, in_normal);
    g_color = in_color;
    g_view = view;
    gl_Position = u_view_projection[view] * world;    // the view's clip space; the geometry shader places it
}
