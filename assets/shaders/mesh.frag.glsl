#version 330
// Blinn-Phong in linear RGB: a key light, a fill light, sky/ground hemisphere ambient and a faint rim.
#include "common.glsl"
uniform vec3 u_eye;
uniform vec3 u_key_direction;    // towards the light, world, unit
uniform vec3 u_key_color;
uniform vec3 u_fill_direction;
uniform vec3 u_fill_color;
uniform vec3 u_sky_color;
uniform vec3 u_ground_color;
uniform float u_shininess;
uniform float u_specular;
uniform float u_rim;
in vec3 v_world;
in vec3 v_normal;
in vec4 v_color;
out vec4 f_color;

void main() {
    vec3 n = normalize(v_normal);
    vec3 to_eye = normalize(u_eye - v_world);
    float key = max(dot(n, u_key_direction), 0.0);
    float fill = max(dot(n, u_fill_direction), 0.0);
    vec3 half_vector = normalize(u_key_direction + to_eye);

    float specular = u_specular * pow(max(dot(n, half_vector), 0.0), u_shininess) * float(dot(n, u_key_direction) > 0.0);
    vec3 ambient = mix(u_ground_color, u_sky_color, 0.5 + 0.5 * n.z);
    float rim = u_rim * pow(1.0 - max(dot(n, to_eye), 0.0), 3.0);
    vec3 albedo = v_color.rgb;
    vec3 color = albedo * (ambient + key * u_key_color + fill * u_fill_color) + specular * u_key_color
        + rim * u_sky_color;
    f_color = vec4(linear_to_srgb(color), 1.0);
}
