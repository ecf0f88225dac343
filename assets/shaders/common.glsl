// Shared colour helpers. Lighting is computed in linear RGB; every program writes sRGB-encoded colour, so the
// output is right on any 8-bit framebuffer (the window's or an offscreen one) without GL_FRAMEBUFFER_SRGB.
vec3 linear_to_srgb(vec3 linear) {
    vec3 c = clamp(linear, 0.0, 1.0);
    return mix(12.92 * c, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, step(vec3(0.0031308), c));
}
