#version 330
// ImGui's draw-list vertices: pixel positions (origin top-left, y down), atlas UVs, sRGB colours.
uniform vec2 u_size;    // the target's size in pixels
uniform vec2 u_origin;    // the pixel position of the target's top-left corner (0 but for a layer's texture)
in vec2 in_position;
in vec2 in_uv;
in vec4 in_color;
out vec2 v_uv;
out vec4 v_color;

void main() {
    v_uv = in_uv;
    v_color = in_color;
    vec2 position = in_position - u_origin;
    gl_Position = vec4(position.x / u_size.x * 2.0 - 1.0, 1.0 - position.y / u_size.y * 2.0, 0.0, 1.0);
}
