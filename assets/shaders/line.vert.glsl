#version 330
// Line segments (pairs of vertices), instanced: a model matrix and a tint per instance.
uniform mat4 u_view_projection;
in vec3 in_position;
in vec4 in_color;
in mat4 in_model;
in vec4 in_tint;
out vec4 g_color;

void main() {
    g_color = in_color * in_tint;
    gl_Position = u_view_projection * (in_model * vec4(in_position, 1.0));
}
