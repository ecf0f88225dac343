#version 330
// Each segment becomes a screen-space quad u_width_px wide (plus one pixel of anti-aliased fringe), so lines
// are as wide on every GL (core profiles need not draw glLineWidth > 1).
layout(lines) in;
layout(triangle_strip, max_vertices = 4) out;
#include "views.glsl"
uniform float u_width_px;               // at a view u_reference_height_px high; scaled with the view's height
uniform float u_reference_height_px;
uniform float u_min_width_scale;
in vec4 g_color[];
flat in int g_view[];
out vec4 f_color;
out float f_across_px;
flat out float f_width_px;

void main() {
    vec4 a = gl_in[0].gl_Position;
    vec4 b = gl_in[1].gl_Position;
    // Clip against the near plane (z = -w) so a segment passing behind the eye does not flip across the screen.
    float da = a.z + a.w;
    float db = b.z + b.w;
    if (da < 0.0 && db < 0.0) return;
    vec4 ca = g_color[0];
    vec4 cb = g_color[1];
    if (da < 0.0) { float t = da / (da - db); a = mix(a, b, t); ca = mix(ca, cb, t); }
    if (db < 0.0) { float t = db / (db - da); b = mix(b, a, t); cb = mix(cb, ca, t); }
    int view = g_view[0];
    vec2 half_size = 0.5 * u_view_size[view];
    vec2 pa = a.xy / a.w * half_size;
    vec2 pb = b.xy / b.w * half_size;
    vec2 along = pb - pa;
    float length_px = length(along);
    vec2 direction = length_px > 1e-6 ? along / length_px : vec2(1.0, 0.0);
    float width_px = u_width_px * max(u_view_size[view].y / u_reference_height_px, u_min_width_scale);
    float half_width = 0.5 * width_px + 1.0;
    f_width_px = width_px;
    vec2 offset = vec2(-direction.y, direction.x) * half_width / half_size;
    f_color = ca; f_across_px = half_width;  gl_Position = to_target(vec4(a.xy + offset * a.w, a.zw), view); EmitVertex();
    f_color = ca; f_across_px = -half_width; gl_Position = to_target(vec4(a.xy - offset * a.w, a.zw), view); EmitVertex();
    f_color = cb; f_across_px = half_width;  gl_Position = to_target(vec4(b.xy + offset * b.w, b.zw), view); EmitVertex();
    f_color = cb; f_across_px = -half_width; gl_Position = to_target(vec4(b.xy - offset * b.w, b.zw), view); EmitVertex();
    EndPrimitive();
}
