"""The plots of each integrator's cost and of the views that failed (ImPlot), from ui/integrator_table.py's
:class:`~ui.integrator_table.IntegratorTable`.

:func:`integrators_plot`: a live accuracy-versus-cost scatter (x: µs of its step per body-step, y: the largest
|ΔE|/E of the integrator's bodies now, both log; one point per integrator in its colour, like
docs/images/accuracy.png). :func:`cost_table` (in the panel): each integrator's µs per body-step, Newton iterations
and sub-steps per body-step (a frozen view's row says it failed), and what the µs time. :func:`mark_frozen_ends`: a
cross where a frozen row's plot line ends, drawn inside the time plots.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from imgui_bundle import imgui, implot

from spinlab.scene.model.samples import ERROR_FLOOR
from spinlab.ui import tips
from spinlab.ui.integrator_table import COST_CAPTION, IntegratorRow, IntegratorTable, cost_text
from spinlab.ui.plot_titles import AXES_LABELS_PX, fitted_title, mouse_text_flags

__all__ = ["integrators_plot", "cost_table", "mark_frozen_ends", "decade_ticks", "TABLE_ROWS_MAX"]

TABLE_ROWS_MAX = 14  # every integrator; a scene's own integrators are fewer
FAILED_RGBA = (1.0, 0.42, 0.4, 1.0)
CAPTION_RGBA = (0.62, 0.66, 0.72, 1.0)
SCATTER_TIP = (
    "Each live integrator now: its step's wall time per body-step (x) against the largest |ΔE|/E of its\n"
    "bodies (y), log-log. Lower left is better: accurate and cheap."
)


def _vec(rgb: Sequence[float]) -> imgui.ImVec4:
    """An RGB or RGBA colour (opaque when it has no alpha)."""
    return imgui.ImVec4(rgb[0], rgb[1], rgb[2], rgb[3] if len(rgb) == 4 else 1.0)


EMPTY_US = (0.1, 1000.0)  # the scatter's axes while it has no point: µs per body-step
EMPTY_ERROR = (1e-16, 1.0)  # and |ΔE|/E
# The least room between a point and the axes' limits: in decades, and in pixels (the marker's radius and a pixel).
EDGE_DECADES = 0.1
MARKER_PX = 4.0
EDGE_PX = MARKER_PX + 1.0
PLOT_FRAME_PX = 40.0  # what a plot's title and x axis take of its height


def integrators_plot(series, _prepared, size) -> None:
    """The accuracy-versus-cost scatter of ``series.integrator_table`` in ``size`` (width, height) pixels at the
    cursor: one point per live integrator in its colour, named in a tooltip when the mouse is near it."""
    live: IntegratorTable | None = getattr(series, "integrator_table", None)
    if live is None:
        return
    table = [row for row in live.table() if row.us > 0 and row.energy_error >= 0 and not row.failed]
    flags = implot.Flags_.no_menus | implot.Flags_.no_legend | mouse_text_flags(size[0])
    if not implot.begin_plot(fitted_title("accuracy vs cost", size[0]), imgui.ImVec2(*size), flags):
        return
    implot.setup_axes("µs / body-step", "|ΔE|/E now")
    # With no point yet (or none left: every integrator failed), the decades of a typical run, not ImPlot's fit of
    # nothing on log axes (1e-300 … 1, its labels run together).
    width, height = size[0] - AXES_LABELS_PX, size[1] - PLOT_FRAME_PX
    x_low, x_high = decades([row.us for row in table], width) if table else EMPTY_US
    y_low, y_high = decades([max(row.energy_error, ERROR_FLOOR) for row in table], height) if table else EMPTY_ERROR
    implot.setup_axes_limits(x_low, x_high, y_low, y_high, implot.Cond_.always)
    # ImPlot labels every decade, which ran together ("1 10 1001000") in a plot ~70 px wide.
    values, labels = decade_ticks(x_low, x_high, width, imgui.calc_text_size("0").x)
    implot.setup_axis_ticks(implot.ImAxis_.x1, values, labels)
    implot.setup_axis_scale(implot.ImAxis_.x1, implot.Scale_.log10)
    implot.setup_axis_scale(implot.ImAxis_.y1, implot.Scale_.log10)
    for row in table:
        rgb = _vec(row.rgb)
        spec = implot.Spec(marker=implot.Marker_.circle, marker_size=MARKER_PX, marker_fill_color=rgb, line_color=rgb)
        implot.plot_scatter(row.name, np.array([row.us]), np.array([max(row.energy_error, ERROR_FLOOR)]), spec)
    if implot.is_plot_hovered():
        _name_nearest(table)
    implot.end_plot()


def decades(values: list[float], length_px: float = 0.0) -> tuple[float, float]:
    """Log-axis limits that hold ``values`` (all > 0): whole decades, beyond them each way by at least
    :data:`EDGE_DECADES` of a decade and, on an axis ``length_px`` long, :data:`EDGE_PX`, so that no point's marker
    is cut by the plot's frame (9.4 µs sat on the edge at 10; 0.065 two pixels under 0.1 on an axis of 17 decades)."""
    # Within 1e±300: a blown-up integrator's |ΔE|/E can be the largest double, whose next decade overflows.
    low, high = (float(np.clip(np.log10(value), -300.0, 300.0)) for value in (min(values), max(values)))
    first, last = float(np.floor(low - EDGE_DECADES)), float(np.ceil(high + EDGE_DECADES))
    for _ in range(4):  # a decade added for the room shortens each decade: until the span holds its own room
        room = max(EDGE_DECADES, EDGE_PX * (last - first) / length_px if length_px > 0 else 0.0)
        wider = float(np.floor(low - room)), float(np.ceil(high + room))
        if wider == (first, last):
            break
        first, last = wider
    return 10.0 ** max(first, -307.0), 10.0 ** min(last, 307.0)  # normal doubles, both


def decade_ticks(low: float, high: float, width_px: float, char_px: float) -> tuple[list[float], list[str]]:
    """Ticks of a log axis from the decade ``low`` to the decade ``high`` that is ``width_px`` wide: every
    decade, or every second, fifth, … so that no two labels (``1``, ``10``, ``100``, ``1e3``; ``char_px`` a
    digit's width) come closer than a digit's width."""
    first, last = round(np.log10(low)), round(np.log10(high))
    exponents = np.arange(first, last + 1)
    labels = [str(10**k) if 0 <= k <= 2 else f"1e{k}" for k in exponents.tolist()]
    widest = (max(len(label) for label in labels) + 1) * char_px
    per_decade = width_px / max(last - first, 1)
    stride = next(s for s in (1, 2, 3, 5, 10, 20, 50, 100, 200, 600) if s * per_decade >= widest or s == 600)
    kept = exponents % stride == 0
    if not kept.any():  # a short span between multiples of the stride: its first decade alone
        kept[0] = True
    return [10.0**k for k in exponents[kept].tolist()], [
        label for label, keep in zip(labels, kept, strict=True) if keep
    ]


def _name_nearest(table: list[IntegratorRow]) -> None:
    """A tooltip naming the point nearest the mouse (in log-log pixels), or saying what the plot shows."""
    mouse = implot.get_plot_mouse_pos()
    near = None
    if table and mouse.x > 0 and mouse.y > 0:
        log_distance = [
            np.hypot(np.log10(row.us / mouse.x), np.log10(max(row.energy_error, ERROR_FLOOR) / mouse.y))
            for row in table
        ]
        k = int(np.argmin(log_distance))
        near = table[k] if log_distance[k] < 0.5 else None
    if near is None:
        tips.tip(SCATTER_TIP)
    else:
        tips.tip(f"{cost_text(near)[1]}; |ΔE|/E = {near.energy_error:.2g}")


def cost_table(table: list[IntegratorRow]) -> None:
    """Each integrator's µs per body-step (on what, in its tooltip), Newton iterations and sub-steps per body-step
    (a frozen one: why), with :data:`~ui.integrator_table.COST_CAPTION` under them."""
    flags = imgui.TableFlags_.row_bg | imgui.TableFlags_.sizing_stretch_prop
    if not imgui.begin_table("integrator cost", 4, flags):
        return
    for title, weight in (("integrator", 2.4), ("µs", 1.0), ("Newton", 1.0), ("sub-steps", 1.0)):
        imgui.table_setup_column(title, imgui.TableColumnFlags_.width_stretch, weight)
    imgui.table_headers_row()
    for row in table[:TABLE_ROWS_MAX]:
        imgui.table_next_row()
        imgui.table_next_column()
        imgui.text_colored(_vec(row.rgb), row.name)
        imgui.table_next_column()
        if row.failed:
            imgui.text_colored(_vec(FAILED_RGBA), "frozen")
            if imgui.is_item_hovered():
                tips.tip(row.failed)
            continue
        cell, explained = cost_text(row)
        imgui.text(cell)
        if imgui.is_item_hovered():
            tips.tip(explained)
        for value in (row.newton, row.substeps):
            imgui.table_next_column()
            imgui.text("–" if not np.isfinite(value) else f"{value:.1f}")
    imgui.end_table()
    imgui.push_style_color(imgui.Col_.text, imgui.ImVec4(*CAPTION_RGBA))
    imgui.text_wrapped(COST_CAPTION)
    imgui.pop_style_color()


def mark_frozen_ends(series, lines) -> None:
    """Inside a time plot: a cross in its colour where each frozen row's line of ``lines`` (a ``TimeLines``) ends."""
    live: IntegratorTable | None = getattr(series, "integrator_table", None)
    frozen_t = None if live is None else series.held(live.frozen_t)  # of the rows the series holds
    if frozen_t is None or not np.isfinite(frozen_t).any():
        return
    for k in np.flatnonzero(np.isfinite(frozen_t)):
        if k not in lines.drawn:
            continue
        kept = np.flatnonzero(np.isfinite(lines.y[k]) & (lines.x <= frozen_t[k] + 1e-9))
        if not kept.size:
            continue
        last = kept[-1]
        spec = implot.Spec(marker=implot.Marker_.cross, marker_size=6.0, line_weight=2.0, line_color=_vec(FAILED_RGBA))
        implot.plot_scatter(f"frozen##{k}", lines.x[last : last + 1], lines.y[k, last : last + 1], spec)
