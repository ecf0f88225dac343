#version 330
// u_mode 0: an invariable plane, a faint fill with a brighter rim and rings every quarter radius.
// u_mode 1: a soft contact shadow, darkest at the centre.
uniform int u_mode;
in vec2 v_local;
in vec4 v_color;
out vec4 f_color;

void main() {
    float r = length(v_local);
    float alpha;
    if (u_mode == 1) {
        float s = clamp(1.0 - r * r, 0.0, 1.0);
        alpha = v_color.a * s * s;
    } else {
        float width = fwidth(r);
        float rim = 1.0 - smoothstep(0.0, 1.5 * width, 1.0 - r);
        float ring_distance = abs(fract(r * 4.0 + 0.5) - 0.5) / 4.0;
        float rings = (1.0 - smoothstep(0.0, 1.2 * width, ring_distance)) * step(r, 0.9);
        float edge = 1.0 - smoothstep(1.0 - width, 1.0, r);
        alpha = v_color.a * edge * (0.55 + 0.45 * r * r + 1.8 * rings + 4.0 * rim);
    }
    f_color = vec4(v_color.rgb, clamp(alpha, 0.0, 1.0));
}
