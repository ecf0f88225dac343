#version 330
// Each segment becomes a screen-space quad u_width_px wide (plus one pixel of anti-aliased fringe), so lines
// are as wide on every GL (core profiles need not draw glLineWidth > 1).
layout(lines) in;
layout(triangle_strip, max_vertices = 4) out;
uniform vec2 u_viewport_size;    // pixels
uniform float u_width_px;
in vec4 g_color[];
out vec4 f_color;
out float f_across_px;

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
    vec2 half_size = 0.5 * u_viewport_size;
    vec2 pa = a.xy / a.w * half_size;
    vec2 pb = b.xy / b.w * half_size;
    vec2 along = pb - pa;
    float length_px = length(along);
    vec2 direction = length_px > 1e-6 ? along / length_px : vec2(1.0, 0.0);
    float half_width = 0.5 * u_width_px + 1.0;
    vec2 offset = vec2(-direction.y, direction.x) * half_width / half_size;
    f_color = ca; f_across_px = half_width;  gl_Position = vec4(a.xy + offset * a.w, a.zw); EmitVertex();
    f_color = ca; f_across_px = -half_width; gl_Position = vec4(a.xy - offset * a.w, a.zw); EmitVertex();
    f_color = cb; f_across_px = half_width;  gl_Position = vec4(b.xy + offset * b.w, b.zw); EmitVertex();
    f_color = cb; f_across_px = -half_width; gl_Position = vec4(b.xy - offset * b.w, b.zw); EmitVertex();
    EndPrimitive();
}
