"""The live plots: fixed-capacity ring buffers appended once per frame, drawn with ImPlot, exported as CSV.

Series are per plotted (dynamic) body, K of them, in the session's order: the relative energy error and |ΔL|/|L|
(log scale), the herpolhode (world ω in the invariable plane's coordinates, the exact solution dashed), the
polhode (body ω along two principal axes, exact dashed), Newton iterations per step and milliseconds per step.
Each plot draws at most ``MAX_POINTS`` points per series (older samples are merged into buckets, keeping the
largest error of each bucket), so a long history costs no more to draw than a short one.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from imgui_bundle import imgui, implot

from ui.files import write_atomically
from ui.session import ERROR_FLOOR, Sample

__all__ = ["PlotHistory", "PlotOptions", "draw_plots", "export_csv", "PLOT_TITLES"]

CAPACITY = 3600  # samples: one minute at 60 frames/s
MAX_POINTS = 200
MAX_CURVE_POINTS = 300  # herpolhode and polhode: curves, not time series
DASH_SAMPLES = 6  # the exact references are drawn as dashes this many samples long, with gaps as long
EXACT_RGBA = (0.92, 0.93, 0.95, 0.85)
NO_INVARIANT = ("L is not conserved", "under a torque")
PLOT_TITLES = {
    "energy": "energy error |ΔE|/E",
    "momentum": "momentum error |ΔL|/|L|",
    "herpolhode": "herpolhode",
    "polhode": "polhode",
    "cost": "cost per step",
}


@dataclass
class PlotOptions:
    """Which plots to show and how many seconds of history the time plots span."""

    shown: dict[str, bool] = field(default_factory=lambda: dict.fromkeys(PLOT_TITLES, True))
    seconds: float = 20.0


class PlotHistory:
    """Ring buffers of ``capacity`` samples for K bodies called ``names``, drawn in ``colors`` (K, 3) sRGB.
    ``exact_rows`` are the bodies whose exact reference is drawn (one per distinct initial state)."""

    def __init__(self, names: list[str], colors: np.ndarray, exact_rows: list[int], capacity: int = CAPACITY) -> None:
        self.names = list(names)
        self.colors = np.asarray(colors, dtype=float).reshape(len(self.names), 3)
        self.exact_rows = list(exact_rows)
        self.capacity = int(capacity)
        k = len(self.names)
        self._t = np.zeros(self.capacity)
        self._series = {
            "energy_error": np.zeros((self.capacity, k)),
            "momentum_error": np.zeros((self.capacity, k)),
            "herpolhode": np.zeros((self.capacity, k, 2)),
            "herpolhode_exact": np.zeros((self.capacity, k, 2)),
            "polhode": np.zeros((self.capacity, k, 2)),
            "polhode_exact": np.zeros((self.capacity, k, 2)),
            "newton_per_step": np.zeros((self.capacity, k)),
            "ms_per_step": np.zeros(self.capacity),
        }
        self._next = 0
        self.count = 0

    def append(self, sample: Sample, newton_per_step: np.ndarray, ms_per_step: float) -> None:
        """Add one frame's sample (the oldest is dropped when full)."""
        i = self._next
        self._t[i] = sample.t
        for name in ("energy_error", "momentum_error", "herpolhode", "herpolhode_exact", "polhode", "polhode_exact"):
            self._series[name][i] = getattr(sample, name)
        self._series["newton_per_step"][i] = newton_per_step
        self._series["ms_per_step"][i] = ms_per_step
        self._next = (i + 1) % self.capacity
        self.count = min(self.count + 1, self.capacity)

    def t(self) -> np.ndarray:
        """(T,) s, oldest first."""
        return self._ordered(self._t)

    def series(self, name: str) -> np.ndarray:
        """The samples of series ``name`` (a :class:`Sample` field, ``newton_per_step`` or ``ms_per_step``),
        oldest first: (T, ...) ."""
        return self._ordered(self._series[name])

    def _ordered(self, buffer: np.ndarray) -> np.ndarray:
        if self.count < self.capacity:
            return buffer[: self.count]
        return np.concatenate([buffer[self._next :], buffer[: self._next]])


def export_csv(history: PlotHistory, path: str | Path) -> Path:
    """Write every plotted series to ``path`` as CSV, one row per sample, atomically. Columns: ``t`` (s),
    ``ms_per_step``, then per body ``<measure>:<body>``. Returns the path."""
    columns: list[tuple[str, np.ndarray]] = [("t", history.t()), ("ms_per_step", history.series("ms_per_step"))]
    per_body = {
        "energy_error": ("energy_error",),
        "momentum_error": ("momentum_error",),
        "herpolhode": ("herpolhode_u", "herpolhode_v"),
        "herpolhode_exact": ("herpolhode_exact_u", "herpolhode_exact_v"),
        "polhode": ("polhode_intermediate", "polhode_other"),
        "polhode_exact": ("polhode_exact_intermediate", "polhode_exact_other"),
        "newton_per_step": ("newton_per_step",),
    }
    for k, body in enumerate(history.names):
        for series, headers in per_body.items():
            values = history.series(series)[:, k]
            for j, header in enumerate(headers):
                columns.append((f"{header}:{body}", values if values.ndim == 1 else values[:, j]))
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow([name for name, _ in columns])
    for row in zip(*(values for _, values in columns), strict=True):
        writer.writerow([repr(float(value)) for value in row])
    path = Path(path)
    write_atomically(path, text.getvalue().encode("utf-8"))
    return path


def draw_plots(history: PlotHistory, options: PlotOptions, size: tuple[float, float]) -> None:
    """Draw the shown plots side by side in ``size`` (width, height) pixels at the cursor, after a row naming
    each body in its colour."""
    top = imgui.get_cursor_pos_y()
    _legend_row(history)
    shown = [name for name, on in options.shown.items() if on]
    if not shown or history.count == 0:
        return
    spacing = imgui.get_style().item_spacing.x
    width = (size[0] - spacing * (len(shown) - 1)) / len(shown)
    height = max(size[1] - (imgui.get_cursor_pos_y() - top), 80.0)
    t = history.t()
    window = t >= t[-1] - options.seconds
    for index, name in enumerate(shown):
        if index:
            imgui.same_line()
        _PLOTTERS[name](history, t, window, (width, height))


def _legend_row(history: PlotHistory) -> None:
    """Each body's name after a dot of its colour, wrapping onto more lines when the row is full."""
    draw_list = imgui.get_window_draw_list()
    line = imgui.get_text_line_height()
    radius, gap = 0.3 * line, 2.0 * imgui.get_style().item_spacing.x
    right = imgui.get_cursor_screen_pos().x + imgui.get_content_region_avail().x
    for k, name in enumerate(history.names):
        width = 2.6 * radius + imgui.calc_text_size(name).x
        if k:
            imgui.same_line(spacing=gap)
            if imgui.get_cursor_screen_pos().x + width > right:
                imgui.new_line()
        position = imgui.get_cursor_screen_pos()
        center = imgui.ImVec2(position.x + radius, position.y + 0.5 * line)
        draw_list.add_circle_filled(center, radius, imgui.get_color_u32(imgui.ImVec4(*history.colors[k], 1.0)))
        imgui.dummy(imgui.ImVec2(2.6 * radius, line))
        imgui.same_line(spacing=0.0)
        imgui.text(name)


def _spec(rgb, weight: float = 1.5, flags: int = 0) -> implot.Spec:
    return implot.Spec(
        line_color=imgui.ImVec4(*rgb, 1.0) if len(rgb) == 3 else imgui.ImVec4(*rgb), line_weight=weight, flags=flags
    )


def _bucketed(t: np.ndarray, values: np.ndarray, limit: int, reduce) -> tuple[np.ndarray, np.ndarray]:
    """At most ``limit`` points: the newest samples in buckets of equal size, each reduced by ``reduce`` along
    time and stamped with its last time."""
    size = int(np.ceil(len(t) / limit))
    if size <= 1:
        return t, values
    usable = (len(t) // size) * size
    t, values = t[len(t) - usable :], values[len(values) - usable :]
    # ImPlot takes contiguous arrays only.
    buckets = reduce(values.reshape(usable // size, size, *values.shape[1:]), axis=1)
    return np.ascontiguousarray(t[size - 1 :: size]), np.ascontiguousarray(buckets)


def _begin_time_plot(title: str, t: np.ndarray, size, y_label: str, values: np.ndarray | None = None) -> bool:
    """Begin a plot over time ``t``; with ``values`` the y axis is logarithmic and spans them (ImPlot's own fit
    of a constant series on a log axis runs down to 1e-308)."""
    if not implot.begin_plot(title, imgui.ImVec2(*size), implot.Flags_.no_legend | implot.Flags_.no_menus):
        return False
    implot.setup_axes("t (s)", y_label, 0, 0 if values is not None else implot.AxisFlags_.auto_fit)
    implot.setup_axis_limits(implot.ImAxis_.x1, float(t[0]), float(max(t[-1], t[0] + 1e-6)), imgui.Cond_.always)
    if values is not None:
        implot.setup_axis_scale(implot.ImAxis_.y1, implot.Scale_.log10)
        finite = values[np.isfinite(values) & (values > 0)]
        low, high = (float(finite.min()), float(finite.max())) if len(finite) else (ERROR_FLOOR, 1.0)
        implot.setup_axis_limits(implot.ImAxis_.y1, low / 4.0, max(high * 4.0, low * 100.0), imgui.Cond_.always)
    return True


def _time_lines(history: PlotHistory, t: np.ndarray, values: np.ndarray, reduce=np.max) -> None:
    """Draw each body's column of ``values`` (T, K) over ``t`` (bodies without data are left out)."""
    t_drawn, drawn = _bucketed(t, values, MAX_POINTS, reduce)
    for k, name in enumerate(history.names):
        column = np.ascontiguousarray(drawn[:, k])
        if not np.isnan(column).all():
            implot.plot_line(name, t_drawn, column, _spec(history.colors[k]))


def _empty_plot(title: str, size) -> None:
    """In place of a plot that has nothing to show: its title and why, in a frame of the same size."""
    imgui.begin_child(title, imgui.ImVec2(*size), imgui.ChildFlags_.borders)
    _centered(title, imgui.text)
    imgui.set_cursor_pos_y(0.4 * size[1])
    for line in NO_INVARIANT:
        _centered(line, imgui.text_disabled)
    imgui.end_child()


def _centered(line: str, show) -> None:
    imgui.set_cursor_pos_x(max(0.5 * (imgui.get_window_width() - imgui.calc_text_size(line).x), 0.0))
    show(line)


def _energy_plot(history: PlotHistory, t_all: np.ndarray, window: np.ndarray, size) -> None:
    t = t_all[window]
    values = history.series("energy_error")[window]
    if _begin_time_plot(PLOT_TITLES["energy"], t, size, "", values):
        _time_lines(history, t, values)
        implot.end_plot()


def _momentum_plot(history: PlotHistory, t_all: np.ndarray, window: np.ndarray, size) -> None:
    t = t_all[window]
    values = history.series("momentum_error")[window]
    if np.isnan(values).all():
        _empty_plot(PLOT_TITLES["momentum"], size)
    elif _begin_time_plot(PLOT_TITLES["momentum"], t, size, "", values):
        _time_lines(history, t, values)
        implot.end_plot()


def _cost_plot(history: PlotHistory, t_all: np.ndarray, window: np.ndarray, size) -> None:
    t = t_all[window]
    if not _begin_time_plot(PLOT_TITLES["cost"], t, size, "Newton iterations"):
        return
    newton = history.series("newton_per_step")[window]
    t_drawn, ms = _bucketed(t, history.series("ms_per_step")[window], MAX_POINTS, np.mean)
    # The first steps of a run include compiling the kernels: a percentile keeps them from setting the scale.
    finite = ms[np.isfinite(ms)]
    top = 1.25 * float(np.percentile(finite, 95)) if len(finite) else 1.0
    implot.setup_axis_limits(
        implot.ImAxis_.y1, -0.2, max(float(newton.max(initial=0.0)), 1.0) + 0.5, imgui.Cond_.always
    )
    implot.setup_axis(implot.ImAxis_.y2, "ms / step", implot.AxisFlags_.aux_default)
    implot.setup_axis_limits(implot.ImAxis_.y2, 0.0, max(top, 1e-3), imgui.Cond_.always)
    _time_lines(history, t, newton, reduce=np.mean)
    implot.set_axes(implot.ImAxis_.x1, implot.ImAxis_.y2)
    implot.plot_line("ms per step", t_drawn, np.ascontiguousarray(ms), _spec((0.75, 0.77, 0.8), 1.0))
    implot.end_plot()


def _curve_plot(
    history: PlotHistory, window: np.ndarray, size, title: str, series: str, labels: tuple[str, str]
) -> None:
    points, exact = history.series(series)[window], history.series(f"{series}_exact")[window]
    if np.isnan(points).all():
        _empty_plot(title, size)
        return
    if not implot.begin_plot(
        title, imgui.ImVec2(*size), implot.Flags_.no_legend | implot.Flags_.no_menus | implot.Flags_.equal
    ):
        return
    implot.setup_axes(labels[0], labels[1], implot.AxisFlags_.auto_fit, implot.AxisFlags_.auto_fit)
    stride = max(1, int(np.ceil(len(points) / MAX_CURVE_POINTS)))
    keep = slice((len(points) - 1) % stride, None, stride)  # the newest sample is always kept
    points, exact = points[keep], exact[keep]
    for k, name in enumerate(history.names):
        curve = points[:, k]
        if np.isnan(curve).all():
            continue
        implot.plot_line(
            name, np.ascontiguousarray(curve[:, 0]), np.ascontiguousarray(curve[:, 1]), _spec(history.colors[k])
        )
    for k in history.exact_rows:
        dashes = _dashes(exact[:, k])
        if len(dashes):
            flags = implot.LineFlags_.segments | implot.ItemFlags_.no_fit
            implot.plot_line(f"exact##{k}", dashes[:, 0].copy(), dashes[:, 1].copy(), _spec(EXACT_RGBA, 1.2, flags))
    implot.end_plot()


def _dashes(curve: np.ndarray) -> np.ndarray:
    """Segment end points (2S, 2) drawing ``curve`` (T, 2) in dashes of ``DASH_SAMPLES`` samples with equal gaps."""
    curve = curve[~np.isnan(curve).any(axis=1)]
    if len(curve) < 2:
        return np.empty((0, 2))
    start = np.arange(len(curve) - 1)
    start = start[(start // DASH_SAMPLES) % 2 == 0]
    return np.stack([curve[start], curve[start + 1]], axis=1).reshape(-1, 2)


def _herpolhode_plot(history: PlotHistory, t_all: np.ndarray, window: np.ndarray, size) -> None:
    _curve_plot(
        history, window, size, PLOT_TITLES["herpolhode"], "herpolhode", ("ω in the invariable plane (rad/s)", "")
    )


def _polhode_plot(history: PlotHistory, t_all: np.ndarray, window: np.ndarray, size) -> None:
    _curve_plot(history, window, size, PLOT_TITLES["polhode"], "polhode", ("Ω along the middle axis (rad/s)", ""))


_PLOTTERS = {
    "energy": _energy_plot,
    "momentum": _momentum_plot,
    "herpolhode": _herpolhode_plot,
    "polhode": _polhode_plot,
    "cost": _cost_plot,
}
