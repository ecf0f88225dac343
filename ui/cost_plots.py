"""The plots of each integrator's cost and of the views that failed (ImPlot), from ui/cost_history.py's
:class:`~ui.cost_history.LiveRun`.

:func:`integrators_plot`: a live accuracy-versus-cost scatter (x: µs of kernel per body-step, y: the largest
|ΔE|/E of the integrator's bodies now, both log; one point per integrator in its colour, like
docs/images/accuracy.png) above a table of each integrator's µs per body-step, Newton iterations and sub-steps per
body-step (a frozen view's row says it failed). :func:`mark_frozen_ends`: a cross where a frozen row's plot line
ends, drawn inside the time plots.
"""

from __future__ import annotations

import numpy as np
from imgui_bundle import imgui, implot

from ui.cost_history import IntegratorRow, LiveRun

__all__ = ["integrators_plot", "mark_frozen_ends", "TABLE_ROWS_MAX"]

TABLE_ROWS_MAX = 14  # every integrator; a scene's own integrators are fewer
FAILED_RGBA = (1.0, 0.42, 0.4, 1.0)
SCATTER_SHARE = 0.55  # of the plot's height, the rest for the table


def _vec(rgb) -> imgui.ImVec4:
    return imgui.ImVec4(*rgb, 1.0) if len(rgb) == 3 else imgui.ImVec4(*rgb)


def integrators_plot(history, _prepared, size) -> None:
    """The scatter and the table of ``history.live`` in ``size`` (width, height) pixels at the cursor."""
    live: LiveRun | None = getattr(history, "live", None)
    if live is None:
        return
    table = live.table()
    imgui.begin_group()
    width, height = size
    _scatter(table, (width, max(height * SCATTER_SHARE, 60.0)))
    _table(table, width)
    imgui.end_group()


def _scatter(table: list[IntegratorRow], size) -> None:
    flags = implot.Flags_.no_menus | implot.Flags_.no_legend
    if not implot.begin_plot("accuracy vs cost", imgui.ImVec2(*size), flags):
        return
    implot.setup_axes("µs / body-step", "|ΔE|/E now", implot.AxisFlags_.auto_fit, implot.AxisFlags_.auto_fit)
    implot.setup_axis_scale(implot.ImAxis_.x1, implot.Scale_.log10)
    implot.setup_axis_scale(implot.ImAxis_.y1, implot.Scale_.log10)
    for row in table:
        if not (row.us > 0 and row.energy_error > 0) or row.failed:
            continue
        spec = implot.Spec(
            marker=implot.Marker_.circle, marker_size=5.0, marker_fill_color=_vec(row.rgb), line_color=_vec(row.rgb)
        )
        implot.plot_scatter(row.name, np.array([row.us]), np.array([row.energy_error]), spec)
        implot.plot_text(row.name, row.us, row.energy_error, imgui.ImVec2(0.0, -10.0))
    if implot.is_plot_hovered():
        imgui.set_tooltip("Each integrator now: its kernel's wall time per body-step (x) against the largest\n"
                          "|ΔE|/E of its bodies (y). Lower left is better: accurate and cheap.")  # fmt: skip
    implot.end_plot()


def _table(table: list[IntegratorRow], width: float) -> None:
    flags = imgui.TableFlags_.row_bg | imgui.TableFlags_.sizing_stretch_prop | imgui.TableFlags_.borders_inner_v
    if not imgui.begin_table("integrator cost", 4, flags, imgui.ImVec2(width, 0.0)):
        return
    for title in ("integrator", "µs/step", "Newton", "sub-steps"):
        imgui.table_setup_column(title)
    imgui.table_headers_row()
    for row in table[:TABLE_ROWS_MAX]:
        imgui.table_next_row()
        imgui.table_next_column()
        imgui.text_colored(_vec(row.rgb), row.name)
        if row.failed:
            imgui.table_next_column()
            imgui.text_colored(_vec(FAILED_RGBA), "frozen")
            if imgui.is_item_hovered():
                imgui.set_tooltip(row.failed)
            continue
        for value, text in ((row.us, "{:.3g}"), (row.newton, "{:.1f}"), (row.substeps, "{:.1f}")):
            imgui.table_next_column()
            imgui.text("–" if not np.isfinite(value) else text.format(value))
    imgui.end_table()


def mark_frozen_ends(history, lines) -> None:
    """Inside a time plot: a cross in its colour where each frozen row's line of ``lines`` (a ``TimeLines``) ends."""
    live: LiveRun | None = getattr(history, "live", None)
    if live is None or not np.isfinite(live.frozen_t).any():
        return
    for k in np.flatnonzero(np.isfinite(live.frozen_t)):
        if k not in lines.drawn:
            continue
        kept = np.flatnonzero(np.isfinite(lines.y[k]) & (lines.x <= live.frozen_t[k] + 1e-9))
        if not kept.size:
            continue
        last = kept[-1]
        spec = implot.Spec(marker=implot.Marker_.cross, marker_size=6.0, line_weight=2.0, line_color=_vec(FAILED_RGBA))
        implot.plot_scatter(f"frozen##{k}", lines.x[last : last + 1], lines.y[k, last : last + 1], spec)
