#version 330
// A silhouette fringe (edge.geom): the surface's colour at the edge (shaded there, sRGB), its alpha the fraction of
// the pixel the solid would cover, falling linearly from u_edge_alpha at the edge to 0 at u_fringe_px outside.
uniform float u_fringe_px;
uniform float u_edge_alpha;
in vec3 v_srgb;
in float v_outside_px;
out vec4 f_color;

void main() {
    float alpha = u_edge_alpha * clamp(1.0 - v_outside_px / u_fringe_px, 0.0, 1.0);
    f_color = vec4(v_srgb, alpha);
}
