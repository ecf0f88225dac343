// Shared colour helpers. Lighting is computed in linear RGB; every program writes sRGB-encoded colour, so the
// output is right on any 8-bit framebuffer (the window's or an offscreen one) without GL_FRAMEBUFFER_SRGB.
// A CPU rasteriser evaluates pow() as exp2(log2()) for every pixel; the power segment of the sRGB curve
// (IEC 61966-2-1: 1.055 c^(1/2.4) - 0.055) is instead a fit in three square roots, within 0.25 of an 8-bit level
// over [0.0031308, 1] (tests/render/test_shading.py measures it on the GL). Flat colours (discs, lines) are
// encoded per vertex, the lit surfaces per pixel.
vec3 linear_to_srgb(vec3 linear) {
    vec3 c = clamp(linear, 0.0, 1.0);
    vec3 s1 = sqrt(c);
    vec3 s2 = sqrt(s1);
    vec3 s3 = sqrt(s2);
    vec3 curve = 0.662002687 * s1 + 0.684122060 * s2 - 0.323583601 * s3 - 0.0225411470 * c;
    return mix(12.92 * c, curve, step(vec3(0.0031308), c));
}
