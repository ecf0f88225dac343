#version 330
// Blinn-Phong in linear RGB (lighting.glsl), written as sRGB.
#include "common.glsl"
#include "lighting.glsl"
in vec3 v_world;
in vec3 v_normal;
in vec4 v_color;
flat in int v_view;
out vec4 f_color;

void main() {
    f_color = vec4(linear_to_srgb(shade(v_world, v_normal, v_color.rgb, v_view)), v_color.a);
}
