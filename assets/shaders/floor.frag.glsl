#version 330
// The floor grid over the sky (blended: alpha is the lines' coverage), on the floor's disc (floor.vert.glsl). Grid
// lines are anti-aliased from screen-space derivatives and fade out with distance from the fade's centre and where
// they crowd closer than a few pixels. Colours are sRGB. Every operation here runs for every pixel of the disc on
// llvmpipe (a branch does not skip work), so the shader stays lean: no dither, no transcendental functions, and
// what is affine in the floor's point comes interpolated from the vertices (the fade's offset: ~8 % of the pass).
uniform float u_cell;
uniform float u_major_every;
uniform vec3 u_line_srgb;
uniform float u_minor_alpha;
uniform float u_major_alpha;
in vec2 v_floor;
in vec2 v_from_center;
out vec4 f_color;

// Coverage of the nearest line of a unit grid in `coord`, `width_px` wide, given fwidth(coord) = `derivative`.
float lines(vec2 coord, vec2 derivative, float width_px) {
    vec2 distance_px = abs(fract(coord - 0.5) - 0.5) / derivative;
    float line = clamp(0.5 * width_px + 0.5 - min(distance_px.x, distance_px.y), 0.0, 1.0);
    return line * clamp(1.36 - 4.5 * max(derivative.x, derivative.y), 0.0, 1.0);    // 1 below 0.08, 0 above 0.3
}

void main() {
    vec2 p = v_floor;
    vec2 dp = fwidth(p);
    float fade = max(1.0 - dot(v_from_center, v_from_center), 0.0);
    float minor = lines(p / u_cell, dp / u_cell, 1.0);
    float major = lines(p / (u_cell * u_major_every), dp / (u_cell * u_major_every), 1.5);
    float alpha = max(minor * u_minor_alpha, major * u_major_alpha);
    f_color = vec4(u_line_srgb, alpha * fade * fade);
}
