#version 330
// Instanced unit discs (in their z = 0 plane): contact shadows on the floor and invariable planes.
#include "common.glsl"
#include "views.glsl"
in vec3 in_position;
in mat4 in_model;
in vec4 in_color;
in float in_view;
out vec2 v_local;
out vec4 v_color;    // sRGB, straight alpha

void main() {
    int view = int(in_view);
    v_local = in_position.xy;
    v_color = vec4(linear_to_srgb(in_color.rgb), in_color.a);
    gl_Position = to_target(u_view_projection[view] * (in_model * vec4(in_position, 1.0)), view);
}
