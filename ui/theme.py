"""The look of the panel and plots: a Roboto font and a calm dark ImGui/ImPlot style matching the 3D view.

Sizes are for a display of 96 dpi; ``ui_scale`` multiplies them on displays whose window coordinates are pixels
but whose pixels are small (on macOS the framebuffer scale does this instead, and ImGui bakes the font at it).
"""

from __future__ import annotations

from imgui_bundle import imgui, implot

from spinlab.render.text import FONT_DIR

__all__ = ["apply_theme", "set_text_scale", "PANEL_BG_RGB", "FONT_PX"]

FONT_PX = 15.0
PANEL_BG_RGB = (0.106, 0.114, 0.129)  # #1b1d21
_ACCENT = (0.24, 0.45, 0.72)


def _rgba(rgb: tuple[float, float, float], alpha: float = 1.0) -> imgui.ImVec4:
    return imgui.ImVec4(*rgb, alpha)


def apply_theme(ui_scale: float = 1.0) -> None:
    """Load the font and set ImGui's and ImPlot's styles (call once, after the contexts exist)."""
    io = imgui.get_io()
    io.fonts.add_font_from_file_ttf(str(FONT_DIR / "Roboto-Regular.ttf"), FONT_PX * ui_scale)
    style = imgui.get_style()
    imgui.style_colors_dark(style)
    style.window_rounding = 0.0
    style.window_border_size = 0.0
    style.frame_rounding = 4.0
    style.grab_rounding = 4.0
    style.popup_rounding = 4.0
    style.window_padding = imgui.ImVec2(12.0, 10.0)
    style.frame_padding = imgui.ImVec2(8.0, 4.0)
    style.item_spacing = imgui.ImVec2(8.0, 6.0)
    style.scrollbar_size = 12.0
    colors = {
        imgui.Col_.window_bg: _rgba(PANEL_BG_RGB),
        imgui.Col_.child_bg: _rgba(PANEL_BG_RGB),
        imgui.Col_.title_bg: _rgba((0.08, 0.085, 0.095)),
        imgui.Col_.title_bg_active: _rgba((0.08, 0.085, 0.095)),
        imgui.Col_.frame_bg: _rgba((0.17, 0.18, 0.2)),
        imgui.Col_.frame_bg_hovered: _rgba((0.22, 0.24, 0.27)),
        imgui.Col_.frame_bg_active: _rgba((0.25, 0.28, 0.32)),
        imgui.Col_.header: _rgba((0.16, 0.17, 0.19)),
        imgui.Col_.header_hovered: _rgba((0.21, 0.23, 0.26)),
        imgui.Col_.header_active: _rgba((0.24, 0.27, 0.31)),
        imgui.Col_.button: _rgba((0.2, 0.22, 0.25)),
        imgui.Col_.button_hovered: _rgba(_ACCENT, 0.85),
        imgui.Col_.button_active: _rgba(_ACCENT),
        imgui.Col_.check_mark: _rgba((0.55, 0.75, 1.0)),
        imgui.Col_.slider_grab: _rgba((0.32, 0.35, 0.4)),
        imgui.Col_.slider_grab_active: _rgba(_ACCENT),
        imgui.Col_.separator: _rgba((0.22, 0.23, 0.26)),
        imgui.Col_.text: _rgba((0.88, 0.9, 0.93)),
        imgui.Col_.text_disabled: _rgba((0.5, 0.53, 0.58)),
    }
    for index, color in colors.items():
        style.set_color_(index, color)
    style.scale_all_sizes(ui_scale)

    plot_style = implot.get_style()
    implot.style_colors_dark(plot_style)
    plot_style.plot_padding = imgui.ImVec2(6.0, 6.0)
    plot_style.label_padding = imgui.ImVec2(4.0, 2.0)
    plot_style.set_color_(implot.Col_.frame_bg, _rgba(PANEL_BG_RGB, 0.0))
    # Plots lie on the panel's colour, framed by their border: a filled plot area is a blended quad per plot, which
    # a CPU rasteriser pays for every frame.
    plot_style.set_color_(implot.Col_.plot_bg, _rgba(PANEL_BG_RGB, 0.0))
    plot_style.set_color_(implot.Col_.plot_border, _rgba((0.25, 0.27, 0.3)))


def set_text_scale(scale: float) -> None:
    """Draw the panel's and plots' text ``scale`` times its size from the next ImGui frame on (ImGui bakes its
    glyphs at the size asked for: no blur); the widgets grow with their text."""
    style = imgui.get_style()
    if style.font_scale_main != scale:
        style.font_scale_main = scale
