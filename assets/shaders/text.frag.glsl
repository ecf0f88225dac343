#version 330
uniform sampler2D u_atlas;
in vec2 v_uv;
in vec4 v_color;
out vec4 f_color;

void main() {
    f_color = v_color * texture(u_atlas, v_uv);
}
