// Several viewports in one draw call (render/renderer.py, draw_views): every instance (or line vertex) carries the
// index of the view it is drawn in. A view's own camera gives clip coordinates as if the view filled the GL
// viewport; to_target() then moves them into the view's rectangle of the GL viewport (an affine map of clip x, y,
// which keeps perspective-correct interpolation and depth) and clips them to that rectangle with four user clip
// planes (GL_CLIP_DISTANCE0-3, enabled by the renderer), so nothing spills into a neighbouring view.
// MAX_VIEWS is defined by the loader (render/shaders.py), from render/renderer.py.
uniform mat4 u_view_projection[MAX_VIEWS];
uniform vec4 u_view_rect[MAX_VIEWS];    // the view in the GL viewport's NDC: scale (x, y), then centre (x, y)
uniform vec2 u_view_size[MAX_VIEWS];    // the view's size in pixels

vec4 to_target(vec4 clip, int view) {
    gl_ClipDistance[0] = clip.w + clip.x;
    gl_ClipDistance[1] = clip.w - clip.x;
    gl_ClipDistance[2] = clip.w + clip.y;
    gl_ClipDistance[3] = clip.w - clip.y;
    vec4 rect = u_view_rect[view];
    return vec4(clip.xy * rect.xy + rect.zw * clip.w, clip.zw);
}

// A normal of the unit mesh in the world: the cofactor of the model matrix's linear part maps normals correctly
// under non-uniform scale (no inverse needed).
vec3 world_normal(mat4 model, vec3 normal) {
    mat3 m = mat3(model);
    return mat3(cross(m[1], m[2]), cross(m[2], m[0]), cross(m[0], m[1])) * normal;
}
