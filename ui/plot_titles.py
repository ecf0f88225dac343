"""A plot's title that fits its width: the full title when there is room, else a shorter one that names the same
measure, else the shorter one cut with an ellipsis. Seven plots side by side at 1280×720 are ~125 px each, where
"energy error |ΔE|/E" takes ~105 px. ImPlot centres a title over the plotting area, which the y axis's label and
numbers push right, and clips it at the plot's edge: it showed "energy error |ΔE|/"."""

from __future__ import annotations

from imgui_bundle import imgui

__all__ = ["AXES_LABELS_PX", "SHORT_TITLES", "fitted_text", "fitted_title"]

SHORT_TITLES = {
    "energy error |ΔE|/E": "|ΔE|/E",
    "L error |ΔL|/|L|": "|ΔL|/|L|",
    "orientation error": "orient. error",
    "cost per step": "cost / step",
    "accuracy vs cost": "ΔE vs cost",
}
TITLE_MARGIN_PX = 12.0  # ImPlot's padding either side of a title, at ui_scale 1
AXES_LABELS_PX = (
    47.0  # what a y axis's label and numbers take of a plot's width (measured: 48 px of one axis, 93 of two)
)


def fitted_text(title: str, width: float, *, y_axis: bool = True) -> str:
    """What of ``title`` to show in a plot ``width`` pixels wide (module docstring); ``y_axis``: one y axis's
    labels take part of the width, off centre (a title centred over the whole width takes ``False``)."""
    room = width - TITLE_MARGIN_PX - (AXES_LABELS_PX if y_axis else 0.0)

    def fits(text: str) -> bool:
        return imgui.calc_text_size(text).x <= room

    if fits(title):
        return title
    text = SHORT_TITLES.get(title, title)
    while len(text) > 1 and not fits(text):
        text = text[:-2] + "…" if text.endswith("…") else text[:-1] + "…"
    return text


def fitted_title(title: str, width: float) -> str:
    """:func:`fitted_text` with ``title`` itself as the ImGui id (``text###title``): the plot keeps its state
    whichever text it shows."""
    return f"{fitted_text(title, width)}###{title}"
