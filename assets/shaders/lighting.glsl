// Blinn-Phong in linear RGB: a key light, a fill light, sky/ground hemisphere ambient and a faint rim. Shared by
// the solids (mesh.frag) and their anti-aliased silhouette fringes (edge.frag), which must match them.
// The eye and the lights (which turn with the camera) are per view (views.glsl); MAX_VIEWS is defined by the
// loader (render/shaders.py).
uniform vec3 u_eye[MAX_VIEWS];
uniform vec3 u_key_direction[MAX_VIEWS];    // towards the light, world, unit
uniform vec3 u_key_color;
uniform vec3 u_fill_direction[MAX_VIEWS];
uniform vec3 u_fill_color;
uniform vec3 u_sky_color;
uniform vec3 u_ground_color;
uniform float u_shininess;
uniform float u_specular;
uniform float u_rim;

vec3 shade(vec3 world, vec3 normal, vec3 albedo_linear, int view) {
    vec3 n = normalize(normal);
    vec3 to_eye = normalize(u_eye[view] - world);
    vec3 key_direction = u_key_direction[view];
    float key = max(dot(n, key_direction), 0.0);
    float fill = max(dot(n, u_fill_direction[view]), 0.0);
    vec3 half_vector = normalize(key_direction + to_eye);

    float specular = u_specular * pow(max(dot(n, half_vector), 0.0), u_shininess) * float(dot(n, key_direction) > 0.0);
    vec3 ambient = mix(u_ground_color, u_sky_color, 0.5 + 0.5 * n.z);
    float facing = 1.0 - max(dot(n, to_eye), 0.0);
    float rim = u_rim * facing * facing * facing;
    vec3 albedo = albedo_linear;
    vec3 color = albedo * (ambient + key * u_key_color + fill * u_fill_color) + specular * u_key_color
        + rim * u_sky_color;
    return color;
}
