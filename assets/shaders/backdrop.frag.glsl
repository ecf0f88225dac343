#version 330
// The backdrop in one full-screen pass (on a CPU rasteriser every full-screen pass costs milliseconds): a
// vertical sRGB gradient, and over it the floor grid where the eye ray meets the plane z = u_floor_z. The floor
// lies below every body, so with the eye above it the bodies drawn afterwards hide it correctly without depth.
// Grid lines are anti-aliased from screen-space derivatives and fade out with distance from u_fade_center and
// where they crowd closer than a few pixels. Colours are sRGB. Every operation here runs for every pixel on
// llvmpipe (the branch does not skip work), so the shader stays lean: no dither, no transcendental functions.
uniform vec3 u_eye;
uniform vec4 u_viewport;      // x, y, width, height in pixels
uniform vec3 u_top_srgb;
uniform vec3 u_bottom_srgb;
uniform bool u_show_floor;
uniform float u_floor_z;
uniform float u_cell;
uniform float u_major_every;
uniform vec2 u_fade_center;
uniform float u_fade_radius;
uniform vec3 u_line_srgb;
uniform float u_minor_alpha;
uniform float u_major_alpha;
in vec3 v_ray;
out vec4 f_color;

// Coverage of the nearest line of a unit grid in `coord`, `width_px` wide, given fwidth(coord) = `derivative`.
float lines(vec2 coord, vec2 derivative, float width_px) {
    vec2 distance_px = abs(fract(coord - 0.5) - 0.5) / derivative;
    float line = clamp(0.5 * width_px + 0.5 - min(distance_px.x, distance_px.y), 0.0, 1.0);
    return line * clamp(1.36 - 4.5 * max(derivative.x, derivative.y), 0.0, 1.0);    // 1 below 0.08, 0 above 0.3
}

void main() {
    float v = clamp((gl_FragCoord.y - u_viewport.y) / u_viewport.w, 0.0, 1.0);
    vec3 color = mix(u_bottom_srgb, u_top_srgb, v);
    float t = (u_floor_z - u_eye.z) / v_ray.z;
    vec2 p = u_eye.xy + t * v_ray.xy;
    vec2 dp = fwidth(p);    // outside any branch: derivatives are undefined in non-uniform control flow
    vec2 from_center = (p - u_fade_center) / u_fade_radius;
    float r2 = dot(from_center, from_center);
    if (u_show_floor && t > 0.0 && r2 < 1.0) {
        float minor = lines(p / u_cell, dp / u_cell, 1.0);
        float major = lines(p / (u_cell * u_major_every), dp / (u_cell * u_major_every), 1.5);
        float alpha = max(minor * u_minor_alpha, major * u_major_alpha);
        float fade = (1.0 - r2) * (1.0 - r2);
        color = mix(color, u_line_srgb, alpha * fade);
    }
    f_color = vec4(color, 1.0);
}
