#version 330
in vec4 f_color;
in float f_across_px;
flat in float f_width_px;
out vec4 f_color_out;

void main() {
    // Coverage of a pixel by a line f_width_px wide: 1 inside, falling to 0 over the last pixel.
    float coverage = clamp(0.5 * f_width_px + 0.5 - abs(f_across_px), 0.0, 1.0);
    f_color_out = vec4(f_color.rgb, f_color.a * coverage);    // f_color is sRGB already
}
