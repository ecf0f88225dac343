"""Over the window's 3D view, drawn with ImGui: the key-help overlay (F1 or ?, ui/controller.py toggles
``Choices.show_key_help``) and the run's state badge (PAUSED, or STOPPED when the run stopped on an error).

Rectangles are ui/view3d.py's :class:`~ui.view3d.Rect` (window coordinates, top-left origin, logical pixels).
The texts are ui/help_texts.py's.
"""

from __future__ import annotations

from imgui_bundle import imgui

from spinlab.ui.help_texts import KEY_HELP, KEY_HELP_TITLE
from spinlab.ui.view3d import Rect

__all__ = ["draw_key_help", "draw_state_badge", "badge_text", "PAUSED_RGBA", "STOPPED_RGBA"]

PAUSED_RGBA = (0.95, 0.78, 0.25, 1.0)  # amber: the run waits for the person
STOPPED_RGBA = (0.85, 0.22, 0.2, 1.0)  # red: the run stopped on a numerical failure
BADGE_TEXT_RGBA = (0.06, 0.06, 0.07, 1.0)
BADGE_MARGIN_PX = 10.0
_FLAGS = (
    imgui.WindowFlags_.no_resize
    | imgui.WindowFlags_.no_move
    | imgui.WindowFlags_.no_collapse
    | imgui.WindowFlags_.always_auto_resize
    | imgui.WindowFlags_.no_saved_settings
)


def badge_text(paused: bool, error: str | None) -> str | None:
    """What the badge says: ``"STOPPED (error)"`` after a numerical failure, ``"PAUSED"`` while paused, else
    ``None`` (no badge)."""
    if error:
        return "STOPPED (error): Reset to start again"
    return "PAUSED" if paused else None


def draw_state_badge(
    view: Rect, paused: bool, error: str | None, scale: float = 1.0, avoid: Rect | None = None
) -> Rect | None:
    """A badge at the bottom centre of the 3D view ``view`` (clear of the views' labels) saying
    :func:`badge_text`, amber when paused, red when stopped; nothing while running. Drawn on the foreground,
    under no window, with no input. Where it would cover ``avoid`` (the overlays' key in a free cell of the grid),
    it is centred in the part of the view left of it instead, or else above it. Returns where it went."""
    text = badge_text(paused, error)
    if text is None:
        return None
    size = imgui.calc_text_size(text)
    pad_x, pad_y = 10.0 * scale, 4.0 * scale
    width, height = size.x + 2 * pad_x, size.y + 2 * pad_y
    x = view.x + 0.5 * (view.width - width)
    y = view.y + view.height - BADGE_MARGIN_PX * scale - height
    if avoid is not None and Rect(x, y, width, height).overlaps(avoid):
        if avoid.x - view.x >= width + 2 * BADGE_MARGIN_PX * scale:
            x = view.x + 0.5 * (avoid.x - view.x - width)
        else:
            y = avoid.y - BADGE_MARGIN_PX * scale - height
    draw_list = imgui.get_foreground_draw_list()
    color = STOPPED_RGBA if error else PAUSED_RGBA
    draw_list.add_rect_filled(
        imgui.ImVec2(x, y),
        imgui.ImVec2(x + size.x + 2 * pad_x, y + size.y + 2 * pad_y),
        imgui.get_color_u32(imgui.ImVec4(*color)),
        4.0 * scale,
    )
    draw_list.add_text(imgui.ImVec2(x + pad_x, y + pad_y), imgui.get_color_u32(imgui.ImVec4(*BADGE_TEXT_RGBA)), text)
    return Rect(x, y, width, height)


def draw_key_help(view: Rect) -> bool:
    """The key-help window centred on the 3D view ``view``: every key and mouse gesture. Returns whether it
    stays open (its close button closes it)."""
    imgui.set_next_window_pos(
        imgui.ImVec2(view.x + 0.5 * view.width, view.y + 0.5 * view.height), imgui.Cond_.always, imgui.ImVec2(0.5, 0.5)
    )
    imgui.set_next_window_bg_alpha(0.92)
    expanded, still_open = imgui.begin(f"{KEY_HELP_TITLE}###key help", True, _FLAGS)
    if expanded and imgui.begin_table("keys", 2, imgui.TableFlags_.sizing_fixed_fit):
        for key, action in KEY_HELP:
            imgui.table_next_column()
            imgui.text(key)
            imgui.table_next_column()
            imgui.text_disabled(action)
        imgui.end_table()
    imgui.end()
    return bool(still_open)
