"""Tooltips that stay inside the window: every tooltip of the panel, the plots and the cost table is drawn here,
its text wrapped at :data:`TIP_WIDTH_EM` font heights, so a long line (an integrator's claims, a frozen view's
reason) wraps instead of running past the window's edge, at any text size."""

from __future__ import annotations

from imgui_bundle import imgui

TIP_WIDTH_EM = 36.0
"""The widest a tooltip's text runs, in font heights (about 470 px at 13 px text): ImGui keeps a tooltip's box on
the screen, but not its text, so the text is wrapped to this width or the window's, whichever is less."""


def _wrapped(text: str) -> None:
    width = min(TIP_WIDTH_EM * imgui.get_font_size(), 0.9 * imgui.get_io().display_size.x)
    imgui.push_text_wrap_pos(imgui.get_cursor_pos_x() + max(width, imgui.get_font_size()))
    imgui.text_unformatted(text)
    imgui.pop_text_wrap_pos()


def item_tip(text: str) -> None:
    """``text`` as the tooltip of the last item, shown when it is hovered (ImGui's ``set_item_tooltip``, wrapped)."""
    if imgui.begin_item_tooltip():
        _wrapped(text)
        imgui.end_tooltip()


def tip(text: str) -> None:
    """``text`` as a tooltip now, at the mouse (ImGui's ``set_tooltip``, wrapped)."""
    if imgui.begin_tooltip():
        _wrapped(text)
        imgui.end_tooltip()
