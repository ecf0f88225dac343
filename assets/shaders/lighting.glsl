// Blinn-Phong in linear RGB: a key light, a fill light, sky/ground hemisphere ambient and a faint rim. Shared by
// the solids (mesh.frag) and their anti-aliased silhouette fringes (edge.frag), which must match them.
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

vec3 shade(vec3 world, vec3 normal, vec3 albedo_linear) {
    vec3 n = normalize(normal);
    vec3 to_eye = normalize(u_eye - world);
    float key = max(dot(n, u_key_direction), 0.0);
    float fill = max(dot(n, u_fill_direction), 0.0);
    vec3 half_vector = normalize(u_key_direction + to_eye);

    float specular = u_specular * pow(max(dot(n, half_vector), 0.0), u_shininess) * float(dot(n, u_key_direction) > 0.0);
    vec3 ambient = mix(u_ground_color, u_sky_color, 0.5 + 0.5 * n.z);
    float rim = u_rim * pow(1.0 - max(dot(n, to_eye), 0.0), 3.0);
    vec3 albedo = albedo_linear;
    vec3 color = albedo * (ambient + key * u_key_color + fill * u_fill_color) + specular * u_key_color
        + rim * u_sky_color;
    return color;
}
