"""How the plots share their strip: side by side while each gets :data:`MIN_PLOT_EM` of width, else one at a time
under a row of tabs; and a plot a person enlarged (its title clicked, or its tab) alone across the whole strip.

With the text made larger for a projector (ui/theme.py's text size), seven plots side by side were ~110 px wide
each and their titles and ticks ran together; at 1280 × 720 and 100 % they still fit. A click on a plot's title
enlarges it; its tab "all plots" (or its title again) puts them back.
"""

from __future__ import annotations

from imgui_bundle import imgui

__all__ = ["MIN_PLOT_EM", "ALL_PLOTS", "arrangement", "plot_tabs", "TAB_NAMES"]

MIN_PLOT_EM = 8.0  # the least width of a plot side by side, in the font's size (120 px at 15 px)
ALL_PLOTS = ""  # the focus that means every shown plot side by side
TAB_NAMES = {
    "energy": "|ΔE|/E",
    "momentum": "|ΔL|/|L|",
    "orientation": "orientation",
    "herpolhode": "herpolhode",
    "polhode": "polhode",
    "cost": "cost",
    "integrators": "ΔE vs cost",
}


def arrangement(
    shown: list[str], focus: str | None, width: float, spacing: float, font_px: float
) -> tuple[list[str], bool]:
    """``(the plots drawn, whether they fit side by side)`` of the ``shown`` plots in a strip ``width`` pixels wide
    with ``spacing`` between plots, at a font of ``font_px``: the ``focus`` alone when it is shown; else all of
    them when each gets :data:`MIN_PLOT_EM`, else the first (the tabs choose another)."""
    if not shown:
        return [], True
    fits = (width - spacing * (len(shown) - 1)) / len(shown) >= MIN_PLOT_EM * font_px
    if focus in shown:
        return [focus], fits
    return (list(shown), True) if fits else ([shown[0]], False)


def plot_tabs(shown: list[str], drawn: list[str], fits: bool) -> str | None:
    """A row of tabs over the strip: "all plots" when they fit, then each shown plot, the drawn one
    selected. Returns the focus a click chose (a plot's name, or :data:`ALL_PLOTS`), ``None`` without a click."""
    chosen = None
    entries = ([(ALL_PLOTS, "all plots")] if fits else []) + [(name, TAB_NAMES.get(name, name)) for name in shown]
    for index, (name, title) in enumerate(entries):
        if index:
            imgui.same_line()
        selected = drawn == [name] if name != ALL_PLOTS else len(drawn) > 1
        width = imgui.calc_text_size(title).x + 2.0 * imgui.get_style().frame_padding.x
        if imgui.selectable(f"{title}##plot_tab", selected, 0, imgui.ImVec2(width, 0.0))[0] and not selected:
            chosen = name
    return chosen
