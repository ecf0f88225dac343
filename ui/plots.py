"""The live plots, drawn with ImPlot from a :class:`~ui.plot_series.PlotSeries`.

Side by side: each body's relative energy error, |ΔL|/|L| and orientation error (rad, against its closed-form
motion: torque-free, or a heavy symmetric top's; no line for a body without one), all on log scales; the herpolhode
(world ω in the invariable plane's coordinates, the exact solution dashed), the polhode (body ω along two principal
axes, exact dashed), Newton iterations per step and milliseconds per step. The data each plot draws is prepared by
the series (once per sample, batched over the bodies); drawing leaves out the points of each line that the line
drawn without them passes within a quarter of a pixel of (``THIN_ERROR_PX``, in the plot's own pixels), and the
lines a line drawn after them covers (ui/covered_lines.py), then is ImGui calls only.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from functools import cache

import numpy as np
from imgui_bundle import imgui, implot

from spinlab.render.overlays import trail_keep
from spinlab.scene.model.captions import scene_captions
from spinlab.scene.model.samples import ERROR_FLOOR
from spinlab.ui import tips
from spinlab.ui.cost_plots import integrators_plot, mark_frozen_ends
from spinlab.ui.covered_lines import covered
from spinlab.ui.help_texts import PLOT_TOOLTIPS
from spinlab.ui.plot_focus import ALL_PLOTS, arrangement, plot_tabs
from spinlab.ui.plot_series import CostLines, Curves, Divergence, PlotSeries, TimeLines, dash_segments, export_csv
from spinlab.ui.plot_titles import AXES_LABELS_PX, fitted_text, fitted_title, mouse_text_flags
from spinlab.ui.theme import PANEL_BG_RGB
from spinlab.ui.timeline import CHANGE_RGBA, draw_timeline

__all__ = [
    "PlotSeries",
    "PlotOptions",
    "draw_plots",
    "draw_plots_window",
    "PLOTS_WINDOW",
    "options_key",
    "FIXED_WINDOW",
    "export_csv",
    "PLOT_TITLES",
    "LEGEND_MAX",
]

EXACT_RGBA = (0.92, 0.93, 0.95, 0.85)
EXACT_LEGEND = "exact (Euler–Poinsot closed form)"
EXACT_TIP = (
    "Dashed: the exact torque-free motion from the same initial state (Euler–Poinsot closed form, sim/exact.py).\n"
    "The orientation error is measured against it, or for a heavy symmetric top against Lagrange's closed form."
)
MS_RGB = (0.75, 0.77, 0.8)
KICK_RGBA = (1.0, 0.78, 0.25, 0.8)  # the vertical marker of a kick
# A branch's original (ui/branch.py) drawn under the branch's lines: each body's colour, faint and thin.
ORIGINAL_ALPHA = 0.45
ORIGINAL_WEIGHT = 1.25
CHANGE_LEGEND = "gyro on/off"
ORIGINAL_LEGEND = "faint: original"
DIVERGENCE_LEGEND = "thick: Δθ"
PLOTS_WINDOW = "plots"  # the plots' window: its draw list's owner, and its children's ("plots/...")
NO_INVARIANT = ("L is not conserved", "under a torque")
NO_REFERENCE = ("no closed form", "for this motion")
NO_REFERENCE_NOTE = "no reference:"
NOTE_NAMES = 2  # bodies named in the note, one per line (the tooltip names them all)
NO_REFERENCE_TIP = "no closed-form reference (only torque-free bodies and symmetric heavy tops have one), no line: "
# Lines are thinned on screen: a point is left out when the line drawn without it is within THIN_ERROR_PX of it
# (see render.overlays.trail_keep). Each point drawn is two triangles a frame, which a CPU rasteriser pays for.
# A time tick's label ("12", "0.25") with room around it, in pixels: ImPlot's own ticks ignore the width that the
# y axes' labels take, and "4 81216 20" ran together on the cost plot (two y axes) at 1280x720.
TICK_LABEL_PX = 22.0
# The panel and the plots are fixed windows without a background of their own: the window is cleared to their
# colour first (a clear costs nothing on llvmpipe; ImGui's window backgrounds, blended and textured, cost ~6 ms of
# CPU a frame at 1280x720).
FIXED_WINDOW = (
    imgui.WindowFlags_.no_move | imgui.WindowFlags_.no_resize | imgui.WindowFlags_.no_collapse
    | imgui.WindowFlags_.no_saved_settings | imgui.WindowFlags_.no_background
)  # fmt: skip
CHAR_PX = 8.5  # the width of a digit of the plots' font at ui_scale 1 (the plots measure it when they draw)
TICK_GAP_PX = 6.0  # the least room between two tick labels
CURVE_FRAME_PX = 50.0  # what a curve plot's title, x ticks and x label take of its height
MIN_TIME_SPAN_S = 1.0  # a time axis spans at least this (after a reset it would span nothing: ticks of 1e-7 s)
THIN_ERROR_PX = 0.25
THIN_MAX_STRIDE = 32
# More bodies than this are not named one by one above the plots (the cloud preset has 1000).
LEGEND_MAX = 24
LEGEND_LINES = 2  # more lines of names than this give way to one line counting the bodies
PLOT_TITLES = {
    "energy": "energy error |ΔE|/E",  # scene/model/measures.py's, as a magnitude
    "momentum": "L error |ΔL|/|L|",
    "orientation": "orientation error",
    "herpolhode": "herpolhode",
    "polhode": "polhode",
    "cost": "cost per step",
    "integrators": "integrators",  # accuracy vs cost, and each integrator's cost (ui/cost_plots.py)
}
# Branched (ui/branch.py): the orientation plot also draws each view's divergence from the original, thick and pale
# (the legend row says so: the plot keeps its title).
DIVERGENCE_WEIGHT = 3.5
DIVERGENCE_POINTS = 1500
_CURVE_LABELS = {
    "herpolhode": ("ω in its plane (rad/s)", ""),  # the invariable plane
    "polhode": ("Ω on mid axis (rad/s)", ""),
}


@dataclass
class PlotOptions:
    """Which plots to show and how many seconds of the run the time plots span."""

    shown: dict[str, bool] = field(default_factory=lambda: dict.fromkeys(PLOT_TITLES, True))
    seconds: float = 20.0
    focus: str = ALL_PLOTS  # a plot enlarged across the strip (ui/plot_focus.py), or every shown plot


def options_key(options: PlotOptions) -> tuple:
    """What of ``options`` the plots show, comparable from one frame to the next."""
    return tuple(options.shown.items()), options.seconds, options.focus


def draw_plots_window(rect, edits, timeline, series: PlotSeries, options: PlotOptions, groups) -> None:
    """The plots' window at ``rect`` (ui/view3d.py's ``Rect``): the timeline of ``timeline``'s run
    (scene/model/timeline.py) over its plots, ``series``, with a branch's divergence from its original in the
    views of ``groups``; what is clicked goes into ``edits``. Nothing when ImGui keeps the window as it was
    (ui/window_layer.py)."""
    if _begin_plots_window(rect):
        record = timeline.record
        draw_timeline(
            edits, record.first_step, timeline.shown_step, record.last_step, timeline.session.h,
            branched=timeline.original is not None, changes=timeline.changes,
            captions=scene_captions(timeline.session.setup.scene, timeline.session.h).spans,
        )  # fmt: skip
        available = imgui.get_content_region_avail()
        series.divergence = timeline.divergence(groups, series.rgb)
        edits.plot_focus = draw_plots(series, options, (available.x, available.y))
    imgui.end()


def _begin_plots_window(rect) -> bool:
    imgui.set_next_window_pos(imgui.ImVec2(rect.x, rect.y))
    imgui.set_next_window_size(imgui.ImVec2(rect.width, rect.height))
    flags = FIXED_WINDOW | imgui.WindowFlags_.no_title_bar | imgui.WindowFlags_.no_scrollbar
    return bool(imgui.begin(PLOTS_WINDOW, flags=flags)[0])


def draw_plots(series: PlotSeries, options: PlotOptions, size: tuple[float, float]) -> str | None:
    """Draw the shown plots in ``size`` (width, height) pixels at the cursor, after a row naming each body in its
    colour: side by side, or one at a time under tabs when they would be too narrow, or the one enlarged alone
    (ui/plot_focus.py). Returns the focus a click chose (a plot's title or tab), ``None`` without one."""
    top = imgui.get_cursor_pos_y()
    _legend_row(series, size[0])
    shown = [name for name, on in options.shown.items() if on]
    if not shown or series.count == 0:
        return None
    spacing = imgui.get_style().item_spacing.x
    drawn, fits = arrangement(shown, options.focus, size[0], spacing, imgui.get_font_size())
    chosen = plot_tabs(shown, drawn, fits) if len(drawn) < len(shown) else None
    width = (size[0] - spacing * (len(drawn) - 1)) / len(drawn)
    height = max(size[1] - (imgui.get_cursor_pos_y() - top), 80.0)
    original = series.original if series.original is not None and series.original.count else None
    for index, name in enumerate(drawn):
        if index:
            imgui.same_line()
        corner = imgui.get_cursor_screen_pos()
        faded = None if original is None else original.prepared(name, options.seconds)
        _PLOTTERS[name](series, series.prepared(name, options.seconds), (width, height), faded)
        if _title_clicked(name, corner, width, enlarged=len(drawn) == 1 and len(shown) > 1):
            chosen = ALL_PLOTS if len(drawn) == 1 else name
    return chosen


def _title_clicked(name: str, corner: imgui.ImVec2, width: float, enlarged: bool) -> bool:
    """The tooltip of plot ``name`` (ui/help_texts.py) while the mouse is over its title row, from ``corner``
    (its top-left, screen pixels) ``width`` wide (inside the plot, ImPlot's own hover belongs to the data), saying
    that a click there enlarges it (or, ``enlarged``, puts it back); returns whether the title was clicked."""
    title_height = imgui.get_text_line_height_with_spacing() + 2.0 * imgui.get_style().frame_padding.y
    low, high = corner, imgui.ImVec2(corner.x + width, corner.y + title_height)
    if not (imgui.is_window_hovered() and imgui.is_mouse_hovering_rect(low, high)):
        return False
    tips.tip(
        PLOT_TOOLTIPS[name] + ("\n(Click the title: all plots.)" if enlarged else "\n(Click the title to enlarge.)")
    )
    return imgui.is_mouse_clicked(imgui.MouseButton_.left)


def _legend_row(series: PlotSeries, room: float) -> None:
    """Each body's name after a dot of its colour, wrapping onto a second line when the row is full; beyond
    ``LEGEND_MAX`` bodies (a cloud of them), or names that would take more than ``LEGEND_LINES`` lines (the engines
    preset's 24 took four, a third of the plots' height), one line saying how many, which leaves the plots their
    room, the names in its tooltip. ``room``: the row's width (px)."""
    line = imgui.get_text_line_height()
    radius, gap = 0.3 * line, 2.0 * imgui.get_style().item_spacing.x
    if series.bodies > LEGEND_MAX or _legend_width(series.names, radius, gap) > LEGEND_LINES * room:
        imgui.text_disabled(_cloud_legend(series.bodies, len(series.line_rows)))
        if series.bodies <= LEGEND_MAX:
            tips.item_tip(", ".join(series.names))
        return
    draw_list = imgui.get_window_draw_list()
    right = imgui.get_cursor_screen_pos().x + room
    for k, name in enumerate(series.names):
        width = 2.6 * radius + imgui.calc_text_size(name).x
        if k:
            imgui.same_line(spacing=gap)
            if imgui.get_cursor_screen_pos().x + width > right:
                imgui.new_line()
        position = imgui.get_cursor_screen_pos()
        center = imgui.ImVec2(position.x + radius, position.y + 0.5 * line)
        draw_list.add_circle_filled(center, radius, _color_u32(series.rgb[k]))
        imgui.dummy(imgui.ImVec2(2.6 * radius, line))
        imgui.same_line(spacing=0.0)
        imgui.text(name)
    if series.exact_rows:
        _exact_entry(draw_list, line, gap, right)
    if series.original is not None:
        _branch_entries(series, draw_list, line, gap, right)
    if series.changes or (series.original is not None and series.original.changes):
        _legend_entry(CHANGE_LEGEND, CHANGE_RGBA, 0.0, draw_list, line, gap, right)


def _legend_width(names, radius: float, gap: float) -> float:
    """The width (px) the legend's entries take on one line, gaps included (the exact reference's entry aside)."""
    return sum(2.6 * radius + imgui.calc_text_size(name).x + gap for name in names)


def _cloud_legend(count: int, lines: int) -> str:
    """The legend of ``count`` bodies too many to name, ``lines`` of which are drawn (ui/plot_series.py)."""
    if lines < count:
        return f"{count} bodies: {lines} of them drawn, evenly spread, each line in its body's colour"
    return f"{count} bodies: each line is in its body's colour"


def _exact_entry(draw_list, line: float, gap: float, right: float) -> None:
    """The legend's last entry: a dash and the exact reference's name, with a tooltip saying what it is."""
    width = 1.4 * line + imgui.calc_text_size(EXACT_LEGEND).x
    imgui.same_line(spacing=gap)
    if imgui.get_cursor_screen_pos().x + width > right:
        imgui.new_line()
    position = imgui.get_cursor_screen_pos()
    y = position.y + 0.5 * line
    color = imgui.get_color_u32(imgui.ImVec4(*EXACT_RGBA))
    for start in (0.0, 0.5 * line):  # two dashes, as the plots draw it
        draw_list.add_line(
            imgui.ImVec2(position.x + start, y), imgui.ImVec2(position.x + start + 0.3 * line, y), color, 1.5
        )
    imgui.dummy(imgui.ImVec2(1.0 * line, line))
    imgui.same_line(spacing=0.4 * line)
    imgui.text(EXACT_LEGEND)
    tips.item_tip(EXACT_TIP)


def _branch_entries(series: PlotSeries, draw_list, line: float, gap: float, right: float) -> None:
    """Branched, the legend's last entries: the original's lines, faint, and the divergence's, thick (their own
    colours: the first body's)."""
    rgb = series.rgb[0] if series.rgb else (0.8, 0.8, 0.8)
    _legend_entry(ORIGINAL_LEGEND, (*rgb, ORIGINAL_ALPHA), ORIGINAL_WEIGHT, draw_list, line, gap, right)
    if series.divergence is not None:
        _legend_entry(DIVERGENCE_LEGEND, (*_pale(rgb), 1.0), DIVERGENCE_WEIGHT, draw_list, line, gap, right)


def _legend_entry(text: str, rgba: tuple, weight: float, draw_list, line: float, gap: float, right: float) -> None:
    """A legend entry after the others (on the next line when the row is full): a line of ``rgba`` drawn
    ``weight`` px thick (0: upright, a marker across the time axis), then ``text``."""
    width = 1.4 * line + imgui.calc_text_size(text).x
    imgui.same_line(spacing=gap)
    if imgui.get_cursor_screen_pos().x + width > right:
        imgui.new_line()
    position = imgui.get_cursor_screen_pos()
    color = imgui.get_color_u32(imgui.ImVec4(*rgba))
    if weight:
        y = position.y + 0.5 * line
        draw_list.add_line(imgui.ImVec2(position.x, y), imgui.ImVec2(position.x + line, y), color, weight)
    else:
        x = position.x + 0.5 * line
        draw_list.add_line(imgui.ImVec2(x, position.y), imgui.ImVec2(x, position.y + line), color, 1.5)
    imgui.dummy(imgui.ImVec2(1.0 * line, line))
    imgui.same_line(spacing=0.4 * line)
    imgui.text(text)


def _pale(rgb: tuple[float, ...]) -> tuple[float, float, float]:
    """A view's colour, paler: its divergence from the original, apart from its errors."""
    return (0.45 * rgb[0] + 0.55, 0.45 * rgb[1] + 0.55, 0.45 * rgb[2] + 0.55)


def _color_u32(rgb: tuple[float, float, float]) -> int:
    return imgui.get_color_u32(imgui.ImVec4(*rgb, 1.0))


@cache
def _spec(rgb: tuple[float, ...], weight: float = 1.5, flags: int = 0) -> implot.Spec:
    """The line style of a colour (RGB, or RGBA), made once: a frame draws dozens of lines in a few colours."""
    color = imgui.ImVec4(*rgb, 1.0) if len(rgb) == 3 else imgui.ImVec4(*rgb)
    return implot.Spec(line_color=color, line_weight=weight, flags=flags)


def linear_ticks(first: float, last: float, width_px: float, char_px: float = CHAR_PX) -> np.ndarray:
    """Ticks for a linear axis (time, s, or a curve's) from ``first`` to ``last`` that is ``width_px`` wide: steps
    of 1, 2 or 5 × 10ᵏ,
    as many as fit ``TICK_LABEL_PX`` apart (at least two), and never closer than their widest label (as ImPlot
    writes it, ``%g``, ``char_px`` a character) and a gap: labels never overlap, however long ("12.5", "1e-07")."""
    span = max(last - first, 1e-6)
    most = max(2, int(width_px // TICK_LABEL_PX))
    raw = span / most
    magnitude = 10.0 ** np.floor(np.log10(raw))
    steps = [factor * magnitude * 10.0**decade for decade in range(4) for factor in (1.0, 2.0, 5.0)]
    for step in steps:
        if step < raw * (1 - 1e-9):
            continue
        ticks = _ticks(first, last, step)
        widest = max((len(f"{tick:g}") for tick in ticks), default=0) * char_px + TICK_GAP_PX
        if len(ticks) < 2 or step * width_px / span >= widest:
            return ticks
    return ticks


def _ticks(first: float, last: float, step: float) -> np.ndarray:
    start = np.ceil(first / step - 1e-9) * step
    ticks = start + step * np.arange(int(np.floor((last - start) / step + 1e-9)) + 1)
    return np.where(np.abs(ticks) < 1e-9 * step, 0.0, ticks)  # no "-0" nor "1.1e-16"


def _begin_time_plot(
    title: str, lines: TimeLines, size, y_label: str, log: bool, y_axes: int = 1, bottom_px: float = 0.0
) -> bool:
    """Begin a plot over the window's time; ``log``: the y axis is logarithmic and spans the data (ImPlot's own
    fit of a constant series on a log axis runs down to 1e-308), and ``bottom_px`` of the plot's height left below
    the data (a note there crosses no line); ``y_axes``: how many y axes take its width."""
    flags = implot.Flags_.no_legend | implot.Flags_.no_menus | mouse_text_flags(size[0], y_axes)
    if not implot.begin_plot(fitted_title(title, size[0]), imgui.ImVec2(*size), flags):
        return False
    implot.setup_axes("t (s)", y_label, 0, 0 if log else implot.AxisFlags_.auto_fit)
    first, last = lines.t_range
    last = max(last, first + MIN_TIME_SPAN_S)
    implot.setup_axis_limits(implot.ImAxis_.x1, first, last, imgui.Cond_.always)
    ticks = linear_ticks(first, last, size[0] - y_axes * AXES_LABELS_PX, imgui.calc_text_size("0").x)
    implot.setup_axis_ticks(implot.ImAxis_.x1, [float(t) for t in ticks])
    if log:
        implot.setup_axis_scale(implot.ImAxis_.y1, implot.Scale_.log10)
        low, high = lines.y_range if lines.y_range is not None else (ERROR_FLOOR, 1.0)
        low, high = low / 4.0, max(high * 4.0, low * 100.0)
        # The bottom ``bottom_px`` of a plot about ``size[1] - CURVE_FRAME_PX`` high below the data: the axis starts
        # at ``10^x`` with (log low - x) / (log high - x) = that fraction (a blown-up run's inf keeps its range).
        fraction = min(bottom_px / max(size[1] - CURVE_FRAME_PX, 1.0), 0.6)
        if fraction > 0.0 and 0.0 < low < high < math.inf:
            low = 10.0 ** ((math.log10(low) - fraction * math.log10(high)) / (1.0 - fraction))
        implot.setup_axis_limits(implot.ImAxis_.y1, low, high, imgui.Cond_.always)
    return True


def _draw_lines(series: PlotSeries, lines: TimeLines, log: bool, faded: TimeLines | None = None) -> None:
    """Each body's row of ``lines`` (bodies without data are left out), thinned on screen (``log``: the y axis
    is logarithmic), over a branch's original's (``faded``), the kicks and switches marked."""
    names, rgb, drawn = series.names, series.rgb, lines.drawn
    _kick_markers(series, lines)
    _change_markers(series, lines)
    if faded is not None and faded.drawn:
        x = np.broadcast_to(faded.x, (len(faded.drawn), len(faded.x)))
        for k, keep in zip(faded.drawn, _kept(x, faded.y[faded.drawn], faded.level, log), strict=True):
            implot.plot_line(f"{names[k]} (original)##original{k}", faded.x[keep], faded.y[k, keep],
                             _spec((*rgb[k], ORIGINAL_ALPHA), ORIGINAL_WEIGHT))  # fmt: skip
    x = np.broadcast_to(lines.x, (len(drawn), len(lines.x)))
    for k, keep in _shown(drawn, x, lines.y[drawn], lines.level, log, lines.spread, curve=False):
        implot.plot_line(names[k], lines.x[keep], lines.y[k, keep], _spec(rgb[k]))
    mark_frozen_ends(series, lines)


def _kick_markers(series: PlotSeries, lines: TimeLines) -> None:
    """A vertical line at each kick's step boundary (scene/running/kicks.py) within the plot's time window."""
    times = np.asarray(series.kick_times, dtype=float)
    first, last = lines.t_range
    shown = times[(times >= first) & (times <= last)]
    if shown.size:
        implot.plot_inf_lines("kick##kicks", shown, _spec(KICK_RGBA, 1.0))


def _change_markers(series: PlotSeries, lines: TimeLines) -> None:
    """A vertical line at each switch of the gyroscopic term (scene/model/run_changes.py) within the plot's time
    window, "off" or "on" beside it at the top; a branch's original's own, faint."""
    first, last = lines.t_range
    shown = [change for change in series.changes if first <= change.t <= last]
    if series.original is not None:
        theirs = [change.t for change in series.original.changes if first <= change.t <= last]
        theirs = [t for t in theirs if all(t != change.t for change in shown)]
        if theirs:
            implot.plot_inf_lines("gyroscopic term, original##original changes", np.array(theirs),
                                  _spec((*CHANGE_RGBA[:3], ORIGINAL_ALPHA), ORIGINAL_WEIGHT))  # fmt: skip
    if not shown:
        return
    implot.plot_inf_lines("gyroscopic term##changes", np.array([change.t for change in shown]), _spec(CHANGE_RGBA))
    corner, size = implot.get_plot_pos(), implot.get_plot_size()
    color, draw_list = imgui.get_color_u32(imgui.ImVec4(*CHANGE_RGBA)), implot.get_plot_draw_list()
    shade = imgui.get_color_u32(imgui.ImVec4(*PANEL_BG_RGB, 0.75))  # the tag over the lines, readable
    implot.push_plot_clip_rect()
    for change in shown:
        x, tag = implot.plot_to_pixels(change.t, 1.0).x, change_tag(change)
        width = imgui.calc_text_size(tag).x
        # Right of the line, or left of it where the plot ends first.
        left = x + 3.0 if x + 3.0 + width <= corner.x + size.x else x - 3.0 - width
        top, height = corner.y + 2.0, imgui.get_text_line_height()
        draw_list.add_rect_filled(imgui.ImVec2(left - 1.0, top), imgui.ImVec2(left + width + 1.0, top + height), shade)
        draw_list.add_text(imgui.ImVec2(left, top), color, tag)
    implot.pop_plot_clip_rect()


def change_tag(change) -> str:
    """What a plot writes beside a switch's line: ``"off"`` (the legend row says of what)."""
    return "on" if change.gyroscopic else "off"


def _kept(x: np.ndarray, y: np.ndarray, level: np.ndarray, log: bool) -> np.ndarray:
    """(K, P) bool: the points of the lines (``x``, ``y``) (K, P) in the current plot's axes that keep each line
    as drawn with all of them, within ``THIN_ERROR_PX``; ``level`` (P,) the points' consecutive absolute indices,
    which anchor the choice so that it stays put as the data scroll. Call after the plot's setup."""
    return _thinned(_plot_pixels(x, y, log, _plot_scales(log)), level)


def _shown(
    rows: list[int], x: np.ndarray, y: np.ndarray, level: np.ndarray, log: bool, spread: np.ndarray | None, curve: bool
) -> list[tuple[int, np.ndarray]]:
    """Each line to draw of ``rows`` (their lines ``x``, ``y`` (K, P), drawn in that order) and its points kept
    (:func:`_kept`): a line that a later one covers on screen (ui/covered_lines.py) by ``spread`` (the lines'
    data's: apart along y, the lines sharing their x; ``curve``: apart in the plane) is left out. Call after the
    plot's setup."""
    scales = _plot_scales(log)
    if spread is not None and len(rows) > 1:
        drawn = ~covered(spread, rows, max(scales) if curve else scales[1])
        rows, x, y = np.asarray(rows)[drawn].tolist(), x[drawn], y[drawn]
    return list(zip(rows, _thinned(_plot_pixels(x, y, log, scales), level), strict=True))


def _plot_scales(log: bool) -> tuple[float, float]:
    """The current plot's pixels per unit of x and of y (of log10 y: ``log``)."""
    limits, size = implot.get_plot_limits(), implot.get_plot_size()
    if log:
        low, high = np.log10(max(limits.y.min, 1e-300)), np.log10(max(limits.y.max, 1e-300))
    else:
        low, high = limits.y.min, limits.y.max
    scale_x = size.x / max(limits.x.max - limits.x.min, 1e-300)
    return scale_x, size.y / max(high - low, 1e-300)


def _plot_pixels(x: np.ndarray, y: np.ndarray, log: bool, scales: tuple[float, float]) -> np.ndarray:
    """(K, P, 2): the points of the lines (``x``, ``y``) (K, P) in the current plot's pixels (:func:`_plot_scales`),
    from an origin of their own (NaN or infinite where a line has no point)."""
    if log:
        with np.errstate(divide="ignore", invalid="ignore"):
            y = np.log10(y)
    return np.stack([x * scales[0], y * scales[1]], axis=-1)


def _thinned(pixels: np.ndarray, level: np.ndarray) -> np.ndarray:
    """(K, P) bool: the points of the lines ``pixels`` (K, P, 2) to draw (render/overlays.py's ``trail_keep``)."""
    return trail_keep(
        pixels,
        np.ones(pixels.shape[:2], dtype=bool),
        level,
        1,
        segment_px=1e6,
        error_px=THIN_ERROR_PX,
        max_stride=THIN_MAX_STRIDE,
    )


def _empty_plot(title: str, size, why: tuple[str, ...] = NO_INVARIANT) -> None:
    """In place of a plot that has nothing to show: its title and ``why`` (lines), in a frame of the same size."""
    imgui.begin_child(title, imgui.ImVec2(*size), imgui.ChildFlags_.borders)
    _centered(fitted_text(title, size[0], y_axis=False), imgui.text)
    imgui.set_cursor_pos_y(0.4 * size[1])
    for line in why:
        _centered(line, imgui.text_disabled)
    imgui.end_child()


def _centered(line: str, show) -> None:
    imgui.set_cursor_pos_x(max(0.5 * (imgui.get_window_width() - imgui.calc_text_size(line).x), 0.0))
    show(line)


def _energy_plot(series: PlotSeries, lines: TimeLines, size, faded: TimeLines | None = None) -> None:
    if _begin_time_plot(PLOT_TITLES["energy"], _with_faded(lines, faded), size, "", log=True):
        _draw_lines(series, lines, log=True, faded=faded)
        implot.end_plot()


def _momentum_plot(series: PlotSeries, lines: TimeLines, size, faded: TimeLines | None = None) -> None:
    if not lines.drawn:
        _empty_plot(PLOT_TITLES["momentum"], size)
    elif _begin_time_plot(PLOT_TITLES["momentum"], _with_faded(lines, faded), size, "", log=True):
        _draw_lines(series, lines, log=True, faded=faded)
        implot.end_plot()


def _with_faded(lines: TimeLines, faded: TimeLines | None) -> TimeLines:
    """``lines`` whose y range takes in a branch's original's (``faded``) too."""
    if faded is None or faded.y_range is None:
        return lines
    return dataclasses.replace(lines, y_range=_joined_range(lines.y_range, np.array(faded.y_range)))


def _orientation_plot(series: PlotSeries, lines: TimeLines, size, faded: TimeLines | None = None) -> None:
    divergence = series.divergence
    if not lines.drawn and divergence is None:
        _empty_plot(PLOT_TITLES["orientation"], size, NO_REFERENCE)
        return
    missing = _missing(series, lines)
    notes = _note_lines(missing)
    bottom = (len(notes) * imgui.get_text_line_height() + 4.0) if notes else 0.0
    lines = _with_faded(lines, faded)
    if divergence is not None:
        lines = dataclasses.replace(lines, y_range=_joined_range(lines.y_range, divergence.angle))
    if _begin_time_plot(PLOT_TITLES["orientation"], lines, size, "rad", log=True, bottom_px=bottom):
        _draw_lines(series, lines, log=True, faded=faded)
        if divergence is not None:
            _divergence_lines(divergence, lines.t_range)
        _note_missing(notes, missing)
        implot.end_plot()


def _joined_range(y_range: tuple[float, float] | None, values: np.ndarray) -> tuple[float, float] | None:
    """``y_range`` widened to the positive finite ``values``."""
    shown = values[np.isfinite(values) & (values > 0.0)]
    if not shown.size:
        return y_range
    low, high = float(shown.min()), float(shown.max())
    return (low, high) if y_range is None else (min(y_range[0], low), max(y_range[1], high))


def _divergence_lines(divergence: Divergence, t_range: tuple[float, float]) -> None:
    """A branch's divergence from its original (ui/branch.py), one thick line per view in its colour, over the
    plot's time window, at most ``DIVERGENCE_POINTS`` points a line (every k-th step, and the last)."""
    inside = np.flatnonzero((divergence.t >= t_range[0]) & (divergence.t <= t_range[1]))
    if not inside.size:
        return
    stride = max(1, -(-inside.size // DIVERGENCE_POINTS))
    kept = np.unique(np.append(inside[::stride], inside[-1]))
    for view, rgb in enumerate(divergence.rgb):
        apart = kept[divergence.angle[view, kept] > 0.0]  # from the first step the two runs differ (log axis)
        implot.plot_line(f"Δθ from the original##divergence{view}", divergence.t[apart], divergence.angle[view, apart],
                         _spec(_pale(rgb), DIVERGENCE_WEIGHT))  # fmt: skip


def _missing(series: PlotSeries, lines: TimeLines) -> list[str]:
    """The names of the bodies ``lines`` has no line for (of those whose lines are drawn: a cloud's are not all)."""
    drawn = set(lines.drawn)
    return [series.names[k] for k in series.line_rows.tolist() if k not in drawn]


def _note_lines(missing: list[str]) -> list[str]:
    """The note naming the ``missing`` bodies: a heading and a line each, at most :data:`NOTE_NAMES` of them."""
    if not missing:
        return []
    names = (
        missing
        if len(missing) <= NOTE_NAMES
        else [*missing[: NOTE_NAMES - 1], f"and {len(missing) - NOTE_NAMES + 1} more"]
    )
    return [NO_REFERENCE_NOTE, *names]


def _note_missing(notes: list[str], missing: list[str]) -> None:
    """Inside the current plot, at its bottom right, in the band the y axis leaves below the data (so it crosses no
    line): ``notes`` (:func:`_note_lines`), and a tooltip naming every one of the ``missing`` bodies and saying
    why."""
    if not notes:
        return
    position, size = implot.get_plot_pos(), implot.get_plot_size()
    color, line = imgui.get_color_u32(imgui.Col_.text_disabled), imgui.get_text_line_height()
    # Each line cut to the plot's width (a narrow plot clipped "no closed-form reference:" at its left edge).
    texts = [fitted_text(text, size.x, y_axis=False) for text in notes]
    draw_list = implot.get_plot_draw_list()
    implot.push_plot_clip_rect()
    for row, text in enumerate(texts):
        x = position.x + size.x - imgui.calc_text_size(text).x - 4.0
        y = position.y + size.y - (len(texts) - row) * line - 2.0
        draw_list.add_text(imgui.ImVec2(x, y), color, text)
    implot.pop_plot_clip_rect()
    if implot.is_plot_hovered():
        tips.tip(NO_REFERENCE_TIP + ", ".join(missing))


def _cost_plot(series: PlotSeries, cost: CostLines, size, faded: CostLines | None = None) -> None:
    """Newton iterations and ms per step (a branch's original's costs are its own: not drawn)."""
    if not _begin_time_plot(PLOT_TITLES["cost"], cost.newton, size, "Newton iterations", log=False, y_axes=2):
        return
    implot.setup_axis_limits(implot.ImAxis_.y1, -0.2, max(cost.newton_top, 1.0) + 0.5, imgui.Cond_.always)
    implot.setup_axis(implot.ImAxis_.y2, "ms / step", implot.AxisFlags_.aux_default)
    implot.setup_axis_limits(implot.ImAxis_.y2, 0.0, max(cost.ms_top, 1e-3), imgui.Cond_.always)
    _draw_lines(series, cost.newton, log=False)
    implot.set_axes(implot.ImAxis_.x1, implot.ImAxis_.y2)
    implot.plot_line("ms per step", cost.x_ms, cost.ms, _spec(MS_RGB, 1.0))
    implot.end_plot()


def _curve_plot(series: PlotSeries, curves: Curves | None, size, name: str, faded: Curves | None = None) -> None:
    """The herpolhode or polhode (``name``), over a branch's original's (``faded``)."""
    title = PLOT_TITLES[name]
    if curves is None:
        _empty_plot(title, size)
        return
    flags = implot.Flags_.no_legend | implot.Flags_.no_menus | implot.Flags_.equal | mouse_text_flags(size[0])
    if not implot.begin_plot(fitted_title(title, size[0]), imgui.ImVec2(*size), flags):
        return
    implot.setup_axes(*_CURVE_LABELS[name], implot.AxisFlags_.auto_fit, implot.AxisFlags_.auto_fit)
    names, rgb, xy, drawn = series.names, series.rgb, curves.xy, curves.drawn
    xs, ys = xy[drawn, 0], xy[drawn, 1]  # (L, P) each, contiguous: copied once for the ticks and the thinning
    _curve_ticks(xs, ys, size)
    if faded is not None and faded.drawn:
        old = faded.xy[faded.drawn]
        for k, keep in zip(faded.drawn, _kept(old[:, 0], old[:, 1], faded.level, log=False), strict=True):
            implot.plot_line(f"{names[k]} (original)##original{k}", faded.xy[k, 0, keep], faded.xy[k, 1, keep],
                             _spec((*rgb[k], ORIGINAL_ALPHA), ORIGINAL_WEIGHT))  # fmt: skip
    for k, keep in _shown(drawn, xs, ys, curves.level, False, curves.spread, curve=True):
        implot.plot_line(names[k], xy[k, 0, keep], xy[k, 1, keep], _spec(rgb[k]))
    if curves.exact:
        # Each dash through the points that keep it as drawn through all of them, its ends kept.
        exact = np.stack([curve for _, curve in curves.exact])  # (E, 2, P)
        dashed = _spec(EXACT_RGBA, 1.2, implot.LineFlags_.segments | implot.ItemFlags_.no_fit)
        kept = _kept(exact[:, 0], exact[:, 1], curves.level, log=False)
        for (k, curve), keep in zip(curves.exact, kept, strict=True):
            segments = dash_segments(curve, curves.level, curves.dash, keep)
            if segments.shape[1]:
                implot.plot_line(f"exact##{k}", segments[0], segments[1], dashed)
    implot.end_plot()


def _curve_ticks(xs: np.ndarray, ys: np.ndarray, size) -> None:
    """The x ticks of a curve plot of the lines ``xs``, ``ys`` (L, P) in ``size`` pixels: ImPlot's own ran
    together in a plot ~80 px wide ("-0.80.4"). With equal scales the x axis spans the data's x range, or its y
    range scaled to the plot's shape when that is wider."""
    with np.errstate(invalid="ignore"):
        low = np.array([np.nanmin(xs), np.nanmin(ys)])
        high = np.array([np.nanmax(xs), np.nanmax(ys)])
    if not np.all(np.isfinite(low) & np.isfinite(high)):
        return
    width, height = size[0] - AXES_LABELS_PX, max(size[1] - CURVE_FRAME_PX, 1.0)
    middle = 0.5 * (low[0] + high[0])
    half = 0.5 * max(high[0] - low[0], (high[1] - low[1]) * width / height, 1e-12)
    ticks = linear_ticks(middle - half, middle + half, width, imgui.calc_text_size("0").x)
    implot.setup_axis_ticks(implot.ImAxis_.x1, [float(t) for t in ticks])


_PLOTTERS = {
    "energy": _energy_plot,
    "momentum": _momentum_plot,
    "orientation": _orientation_plot,
    "herpolhode": lambda series, curves, size, faded: _curve_plot(series, curves, size, "herpolhode", faded),
    "polhode": lambda series, curves, size, faded: _curve_plot(series, curves, size, "polhode", faded),
    "cost": _cost_plot,
    "integrators": lambda series, live, size, faded: integrators_plot(series, live, size),
}
