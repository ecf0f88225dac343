"""A plot's title that fits its width: the full title when there is room, else a shorter one that names the same
measure, else the shorter one cut with an ellipsis. Seven plots side by side at 1280×720 are ~125 px each, where
"energy error |ΔE|/E" takes ~105 px. ImPlot centres a title over the plotting area, which the y axis's label and
numbers push right, and clips it at the plot's edge: it showed "energy error |ΔE|/". Likewise ImPlot's mouse
position text (the pointer's x and y in the plot's corner) only where the plotting area holds it whole: in a narrow
plot it was clipped to its last digits ("38307e-12")."""

from __future__ import annotations

from imgui_bundle import imgui, implot

__all__ = ["AXES_LABELS_PX", "SHORT_TITLES", "MOUSE_TEXT_WIDEST", "fitted_text", "fitted_title", "mouse_text_flags"]

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
# The widest mouse position text of these plots: ImPlot writes "x, y" with each axis's "%g" (six digits).
MOUSE_TEXT_WIDEST = "-0.523411, -2.38307e-12"
MOUSE_TEXT_PADDING_PX = 10.0  # ImPlot's padding (MousePosPadding) at the plotting area's corner, at ui_scale 1


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


def mouse_text_flags(width: float, y_axes: int = 1) -> int:
    """ImPlot's ``no_mouse_text`` flag for a plot ``width`` pixels wide with ``y_axes`` y axes whose plotting area
    cannot hold the widest mouse position text (:data:`MOUSE_TEXT_WIDEST`) whole, else no flag (0)."""
    room = width - y_axes * AXES_LABELS_PX - 2.0 * MOUSE_TEXT_PADDING_PX
    return 0 if imgui.calc_text_size(MOUSE_TEXT_WIDEST).x <= room else int(implot.Flags_.no_mouse_text)
