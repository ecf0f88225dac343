#version 330
// Instanced, lit meshes: one draw per unit-mesh kind, a model matrix, a colour and a view per instance.
#include "views.glsl"
in vec3 in_position;
in vec3 in_normal;
in mat4 in_model;
in vec4 in_color;
in float in_view;
out vec3 v_world;
out vec3 v_normal;
out vec4 v_color;
flat out int v_view;

void main() {
    int view = int(in_view);
    vec4 world = in_model * vec4(in_position, 1.0);
    v_world = world.xyz;
    v_normal = world_normal(in_model, in_normal);
    v_color = in_color;
    v_view = view;
    gl_Position = to_target(u_view_projection[view] * world, view);
}
