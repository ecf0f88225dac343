"""What the live plots show: ring buffers appended once per simulation step, each plot's data prepared for ImPlot,
and CSV.

Series are per plotted (dynamic) body the plots draw, in the session's order (see :class:`~scene.model.samples.Sample`;
the window appends each call's steps, :attr:`scene.model.run_model.Session.latest`, in one batch): every one up to
``MAX_LINES``, else that many evenly spread with the exact references drawn (:func:`line_rows`). The window holds
what it draws, not what it might: a series holds those rows alone (:func:`new_series`), ~0.7 MB each over
``CAPACITY`` samples, and nothing for the other bodies of a cloud (a series of every body took 5.6 GB for 8,000).
Series drawn alike share a buffer (the three errors; Newton iterations and ms per step; the four curves) with time
as its last axis, as ImPlot takes a series, and every buffer holds each sample twice, at ``i`` and ``i + capacity``,
so the samples in time order are always one slice, with no copy. Each plot draws at most ``MAX_POINTS`` points per
series over time (older samples are merged into buckets, keeping the largest error of each), so a long series costs
no more to draw than a short one. The herpolhode and polhode keep every step's sample (a curve strided to a few
points per loop is a polygon, and aliases at 8×): the plots thin them on screen to a quarter of a pixel. Thinning
along a line keeps the points of a loop drawn over an earlier one (a polhode retraces its loop), so a curve plot
draws at most ``MAX_CURVE_POINTS`` points, its lines' newest samples. What the plots draw is prepared in one batch
of array operations over every body and series, and kept until the next sample (:meth:`PlotSeries.prepared`): a
frame without a new sample (paused, or slowed down) prepares nothing.
"""

from __future__ import annotations

import csv
import io
import math
import mmap
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from spinlab.render.look import linear_to_srgb
from spinlab.scene.files.atomic_file import write_atomically
from spinlab.scene.model.branch import Divergence, Original
from spinlab.scene.model.palette import PALETTE_LINEAR, rgb_triple
from spinlab.scene.model.run_changes import Change, run_changes
from spinlab.scene.model.samples import ERROR_FLOOR, Sample, concatenated
from spinlab.scene.model.timeline import Follower
from spinlab.ui.integrator_table import IntegratorTable

__all__ = ["PlotSeries", "PlotFeed", "TimeLines", "CostLines", "Curves", "export_csv", "new_series", "series_until",
           "dash_segments", "CAPACITY", "MAX_POINTS", "MAX_CURVE_POINTS", "DASH_SAMPLES",
           "DASHES_PER_WINDOW"]  # fmt: skip

CAPACITY = 3600  # samples: one minute of steps of 1/60 s
# The plots are ~150 px wide at 1280x720 (five in a row): 100 points is one per 1.5 px, and a curve of 150 points
# has segments of a few pixels. Every point is two triangles a frame, which a CPU rasteriser pays for (~0.25 µs
# each): at 200/300 the plots were ~20 000 triangles, half of the window's.
MAX_POINTS = 100
# The exact references are dashed: dashes at least DASH_SAMPLES samples long, with gaps as long, and at most about
# DASHES_PER_WINDOW of them over the window (longer dashes over more samples).
DASH_SAMPLES = 6
DASHES_PER_WINDOW = 25
EXACT_CURVES_MAX = 24  # dashed exact curves drawn for at most this many distinct initial states
# Lines drawn per plot at most, evenly spread over the bodies' rows (with the exact references drawn): a cloud of
# 1000 draws 64 (its rows sweep the initial tilt), the compare preset side by side (14 integrators × 8 handles)
# 4 or 5 of each integrator's 8. Each line costs ImPlot ~5 µs and the rasteriser far more: 1000 lines in each of
# 5 plots took ~60 ms a frame here, 128 of them ~50 ms once the plots hold 20 s, 64 ~25 ms.
MAX_LINES = 64
MAX_CURVE_POINTS = 16 * 1200
"""The points of a curve plot's lines together, at most: each of L lines draws its newest ``MAX_CURVE_POINTS // L``
samples. Sixteen lines keep the plots' default window whole (20 s of steps of 1/60 s); a cloud's 64 keep their last
300 samples (5 s), the herpolhodes fewer of their loops, where 64 lines overlap. Without it a cloud's frame grew with
the window's samples, to half as long again."""
_ERRORS = ("energy_error", "momentum_error", "orientation_error")  # and the plots that draw them:
_ERROR_PLOTS = ("energy", "momentum", "orientation")
_CURVES = ("herpolhode", "herpolhode_exact", "polhode", "polhode_exact")
# The planes of :attr:`PlotSeries.spread` by plot: log10 of each error, Newton iterations per step, the herpolhode's
# and the polhode's points (the distance between two rows' points, bounded by their x's and y's spreads).
_SPREAD = {"energy": 0, "momentum": 1, "orientation": 2, "cost": 3, "herpolhode": 4, "polhode": 5}
# Pairs' differences folded into the spread a call, about: a series made from a long record (a seek) catches up over
# the next appends (~1 ms each), its lines all drawn meanwhile.
SPREAD_STEP_WORK = 1 << 18
# A series of more lines than this (the cloud's 66) compares none, and draws them all: the comparison a step grows as
# the square of the lines (a cloud's costs more than it saves), and few of a cloud's lines lie under another for long.
COMPARED_LINES = 16


@dataclass(frozen=True)
class TimeLines:
    """One plot over time, ready to draw: ``t_range`` the first and last time of the window (s), ``x`` (P,) s,
    ``y`` (K, P) with a contiguous row per body, ``drawn`` the bodies with any data, ``y_range`` (low, high) of the
    window's positive finite values (``None`` when there are none), ``level`` (P,) each point's absolute index in
    buckets (consecutive; what the plots thin lines by, ui/plots.py)."""

    t_range: tuple[float, float]
    x: np.ndarray
    y: np.ndarray
    drawn: list[int]
    y_range: tuple[float, float] | None
    level: np.ndarray
    spread: np.ndarray | None = None  # (K, K): PlotSeries.spread of this plot's y (ui/covered_lines.py)


def small_pages_zeros(shape: tuple[int, ...]) -> np.ndarray:
    """float64 zeros of ``shape`` whose memory the kernel makes 4 kB at a time as it is first written. numpy asks
    for 2 MB pages for a large array (madvise), and a ring buffer's first sample, one column across every row,
    then made all of them at once: ~44 MB zeroed for a comparison side by side, 30–80 ms of the frame that starts
    the run, past the frame budget. Anonymous memory comes zeroed; ``np.zeros`` where the kernel has no such advice."""
    size = math.prod(shape) * 8
    if size < 2**21 or not hasattr(mmap, "MADV_NOHUGEPAGE"):
        return np.zeros(shape)
    memory = mmap.mmap(-1, size)
    memory.madvise(mmap.MADV_NOHUGEPAGE)
    return np.frombuffer(memory, dtype=np.float64).reshape(shape)


@dataclass(frozen=True)
class CostLines:
    """The cost plot: Newton iterations per step (:class:`TimeLines`, bucket means, top of its axis
    ``newton_top``) and milliseconds per step, ``ms`` (P,) at times ``x_ms``, its axis up to ``ms_top``."""

    newton: TimeLines
    newton_top: float
    x_ms: np.ndarray
    ms: np.ndarray
    ms_top: float


@dataclass(frozen=True)
class Curves:
    """A 2D curve per body: ``xy`` (K, 2, P) contiguous (x then y of each body), ``drawn`` the bodies with any
    data, ``exact`` ``(k, curve)`` of each exact reference drawn, ``curve`` (2, P) its x and y, drawn in dashes of
    ``dash`` samples (:func:`dash_segments`), ``level`` (P,) each point's absolute sample index (consecutive: every
    step's sample is a point, and keeps its level from one sample to the next), ``spread`` (K, K) the series'
    (ui/covered_lines.py)."""

    xy: np.ndarray
    drawn: list[int]
    exact: list[tuple[int, np.ndarray]]
    level: np.ndarray
    dash: int = DASH_SAMPLES
    spread: np.ndarray | None = None


class PlotSeries:
    """Ring buffers of ``capacity`` samples for K bodies called ``names``, drawn in ``colors`` (K, 3) sRGB.
    ``exact_rows`` are the bodies whose exact reference is drawn (one per distinct initial state). The samples
    appended have ``bodies`` columns (default K), of which it holds ``rows`` (K,), ascending (default: all): a
    cloud's series holds the rows it draws (:func:`new_series`). Samples come in time order (a run's time only
    advances; a restart makes a new series). ``version`` counts the samples appended."""

    def __init__(
        self,
        names: list[str],
        colors: np.ndarray,
        exact_rows: list[int],
        capacity: int = CAPACITY,
        *,
        rows: np.ndarray | None = None,
        bodies: int | None = None,
    ) -> None:
        self.names = list(names)
        self.bodies = len(self.names) if bodies is None else int(bodies)
        # The columns of the samples held: None for all of them (no copy).
        self.rows = None if rows is None else np.asarray(rows, dtype=np.intp).reshape(len(self.names))
        self.colors = np.asarray(colors, dtype=float).reshape(len(self.names), 3)
        self.rgb = [rgb_triple(color) for color in self.colors]
        self.exact_rows = list(exact_rows)
        self.line_rows = line_rows(len(self.names), self.exact_rows)
        self.capacity = int(capacity)
        k, length = len(self.names), 2 * self.capacity
        self._t = np.zeros(length)
        self._errors = small_pages_zeros((len(_ERRORS), k, length))
        self._cost = small_pages_zeros((k + 1, length))  # Newton iterations per step of each body, then ms per step
        self._curves = small_pages_zeros((len(_CURVES), k, 2, length))
        # name: (buffer, index of the series in the buffer)
        self._series: dict[str, tuple[np.ndarray, int | slice]] = {
            name: (self._errors, j) for j, name in enumerate(_ERRORS)
        }
        self._series |= {name: (self._curves, j) for j, name in enumerate(_CURVES)}
        self._series |= {"newton_per_step": (self._cost, slice(0, k)), "ms_per_step": (self._cost, k)}
        self._next = 0
        self.count = 0
        self.version = 0
        # Samples appended in all (a series made from a run's record sets ``version`` to its step), and the count
        # after the newest sample in which each curve of each body had a number: whether a body has a curve in the
        # window is then a comparison, not a pass over every sample of the window.
        self._appended = 0
        self._curve_until = np.zeros((len(_CURVES), k), dtype=np.int64)
        self._prepared: tuple[tuple[int, float], dict[str, object]] | None = None
        # For each pair of rows, how far apart their values as the plots draw them were at most, over the samples
        # held (and some older: NaN once one had a value where the other had none), a plane per plot
        # (:data:`_SPREAD`): whether a line lies under another on screen is then a comparison per plot, not a pass
        # over their points (ui/covered_lines.py). The curves' planes bound the distance by the largest differences
        # of x and of y. ``inf`` while samples appended are not yet folded in (:meth:`_fold_spread`).
        self.spread = np.zeros((len(_SPREAD), k, k)) if k <= COMPARED_LINES else np.full((len(_SPREAD), k, k), np.inf)
        self._apart = np.zeros((8, k, k))  # the largest differences of each value: the errors, Newton, x, y, x, y
        self._scratch = np.empty((8, k, k))
        self._folded = 0  # samples appended (as ``_appended`` counts them) folded into ``_apart``
        # Each integrator's cost, accuracy and failure now (ui/integrator_table.py).
        self.integrator_table: IntegratorTable | None = None
        # s: the step boundaries kicks land on (scene/files/kick_table.py), marked in plots
        self.kick_times: list[float] = []
        # The run's switches of the gyroscopic term (scene/model/run_changes.py), marked in plots
        self.changes: tuple[Change, ...] = ()
        self.divergence: Divergence | None = None  # a branch's from its original (scene/model/branch.py)
        self.original: PlotSeries | None = None  # a branch's original's plots, drawn faded under its own

    def append(self, sample: Sample, newton_per_step: np.ndarray, ms_per_step: float | np.ndarray) -> None:
        """Add one sample (fields (K, ...)) or a batch of S steps' (fields (S, K, ...), ``t`` (S,)), each with these
        costs (the same for every step, or one row per step: newton (S, K), ms (S,)); the oldest are dropped when
        full."""
        t = np.atleast_1d(np.asarray(sample.t, dtype=float))
        count, fresh = len(t), self._appended == 0
        newton = np.asarray(newton_per_step, dtype=float)
        newton = newton.reshape(-1, self.bodies) if self.bodies else np.zeros((1, 0))  # (1 or S, bodies)
        newton = np.broadcast_to(self.held(newton.T), (len(self.names), count))  # (K, S)
        ms = np.broadcast_to(np.asarray(ms_per_step, dtype=float), (count,))
        errors = np.stack([self._held(getattr(sample, name), count, ()) for name in _ERRORS])  # (3, S, K)
        curves = np.stack([self._held(getattr(sample, name), count, (2,)) for name in _CURVES])  # (4, S, K, 2)
        if count > self.capacity:  # only the newest fit
            skip = count - self.capacity
            t, newton, ms, errors, curves = t[skip:], newton[:, skip:], ms[skip:], errors[:, skip:], curves[:, skip:]
            self.version += skip
            self._appended += skip
            count = self.capacity
        has_number = ~np.isnan(curves).all(axis=-1)  # (4, S, K)
        newest = count - np.argmax(has_number[:, ::-1], axis=1)  # (4, K): 1 + the last step with a number
        self._curve_until = np.where(has_number.any(axis=1), self._appended + newest, self._curve_until)
        self._appended += count
        # The slots from _next on, wrapping round: at most two runs, each written with its mirror (+ capacity).
        done = 0
        while done < count:
            first = (self._next + done) % self.capacity
            size = min(count - done, self.capacity - first)
            taken = slice(done, done + size)
            for start in (first, first + self.capacity):
                slots = slice(start, start + size)
                self._t[slots] = t[taken]
                self._errors[..., slots] = np.moveaxis(errors[:, taken], 1, -1)
                self._curves[..., slots] = np.moveaxis(curves[:, taken], 1, -1)
                self._cost[:-1, slots] = newton[:, taken]
                self._cost[-1, slots] = ms[taken]
            done += size
        self._next = int((self._next + count) % self.capacity)
        self.count = min(self.count + count, self.capacity)
        self.version += count
        self._fold_spread(count, fresh)

    def _fold_spread(self, appended: int, fresh: bool) -> None:
        """Fold held samples not yet in :attr:`spread` into it, oldest first, after ``appended`` were appended (to a
        ``fresh`` series: its first): as many as ``SPREAD_STEP_WORK`` differences allow, or twice ``appended`` when
        more, so that a backlog shrinks as a run goes on. A run going on by more samples a call than that (a cloud
        at 8x) folds none: its lines are all drawn, until it slows down. The plots draw each error at the floor or
        above, a bucket's largest (or mean) of the samples: neither takes two rows further apart than theirs are."""
        rows, oldest = len(self.names), self._appended - self.count
        if rows > COMPARED_LINES:
            return
        first = max(self._folded, oldest)  # samples no longer held are drawn no more
        budget = max(1, SPREAD_STEP_WORK // max(8 * rows * rows, 1))
        most = max(budget, 2 * appended) if appended <= budget else (budget if fresh else 0)
        last = min(self._appended, first + most)
        if last > first:
            held = slice(first - oldest, last - oldest)
            with np.errstate(divide="ignore", invalid="ignore"):
                logs = np.log10(np.maximum(self._ordered(self._errors)[..., held], ERROR_FLOOR))  # NaN stays NaN
            newton = self._ordered(self._cost)[None, :-1, held]
            curves = self._ordered(self._curves)[[0, 0, 2, 2], :, [0, 1, 0, 1], held]  # (4, K, S): x, y, x, y
            values = np.concatenate([logs, newton, curves])  # (8, K, S)
            apart, scratch = self._apart, self._scratch
            if last - first == 1:  # a frame's step, into the scratch (a fresh temporary is page faults: 3x slower)
                np.subtract(values[:, :, None, 0], values[:, None, :, 0], out=scratch)
                np.maximum(apart, np.abs(scratch, out=scratch), out=apart)
            else:
                np.maximum(apart, np.abs(values[:, :, None] - values[:, None, :]).max(axis=-1), out=apart)
            self._folded = last
        if self._folded < self._appended:
            self.spread[...] = np.inf
            return
        self.spread[:4] = self._apart[:4]
        np.hypot(self._apart[4], self._apart[5], out=self.spread[4])
        np.hypot(self._apart[6], self._apart[7], out=self.spread[5])

    def held(self, values: np.ndarray) -> np.ndarray:
        """The rows it holds of ``values`` (``bodies``, ...), one per plotted body: (K, ...)."""
        return values if self.rows is None else values[self.rows]

    def _held(self, values, count: int, tail: tuple[int, ...]) -> np.ndarray:
        """The held columns of ``values`` (``count`` steps of ``bodies`` columns, each of shape ``tail``), as
        (count, K, *tail) float."""
        values = np.asarray(values, dtype=float).reshape(count, self.bodies, *tail)
        return values if self.rows is None else values[:, self.rows]

    def t(self) -> np.ndarray:
        """(T,) s, oldest first (a view: read it before the next append)."""
        return self._ordered(self._t)

    def series(self, name: str) -> np.ndarray:
        """The samples of series ``name`` (a :class:`Sample` field, ``newton_per_step`` or ``ms_per_step``),
        oldest first: (T, ...) (a view: read it before the next append)."""
        buffer, index = self._series[name]
        return np.moveaxis(self._ordered(buffer[index]), -1, 0)

    def window_start(self, seconds: float) -> int:
        """Index into :meth:`t` of the first sample at most ``seconds`` older than the newest."""
        t = self.t()
        return int(np.searchsorted(t, t[-1] - seconds, side="left")) if len(t) else 0

    def prepared(self, plot: str, seconds: float):
        """What plot ``plot`` (``"energy"``, ``"momentum"``, ``"orientation"``: :class:`TimeLines`; ``"cost"``:
        :class:`CostLines`; ``"herpolhode"``, ``"polhode"``: :class:`Curves`, or ``None`` when no body has that curve)
        draws over the last ``seconds``. Every plot's is made at once, again only after a sample is added or for another
        ``seconds``. Needs at least one sample."""
        key = (self.version, seconds)
        if self._prepared is None or self._prepared[0] != key:
            self._prepared = (key, _prepare(self, seconds))
        return self._prepared[1].get(plot)  # None for a plot drawn from `live` (ui/cost_plots.py)

    def _ordered(self, buffer: np.ndarray) -> np.ndarray:
        """The samples of ``buffer`` (..., 2 capacity) in time order: (..., T)."""
        start = self._next if self.count == self.capacity else 0
        return buffer[..., start : start + self.count]


def export_csv(series: PlotSeries, path: str | Path) -> Path:
    """Write every plotted series to ``path`` as CSV, one row per sample, atomically. Columns: ``t`` (s),
    ``ms_per_step``, then per body held (a cloud's: those drawn) ``<measure>:<body>`` (the errors relative, but
    ``orientation_error`` in rad against the body's closed form; an error that is exactly zero is 0.0, not the plots'
    log floor); a measure that does not apply is an empty cell. Returns the path."""
    columns: list[tuple[str, np.ndarray]] = [("t", series.t()), ("ms_per_step", series.series("ms_per_step"))]
    per_body = {
        "energy_error": ("energy_error",),
        "momentum_error": ("momentum_error",),
        "orientation_error": ("orientation_error",),
        "herpolhode": ("herpolhode_u", "herpolhode_v"),
        "herpolhode_exact": ("herpolhode_exact_u", "herpolhode_exact_v"),
        "polhode": ("polhode_intermediate", "polhode_other"),
        "polhode_exact": ("polhode_exact_intermediate", "polhode_exact_other"),
        "newton_per_step": ("newton_per_step",),
    }
    for k, body in enumerate(series.names):
        for name, headers in per_body.items():
            values = series.series(name)[:, k]
            for j, header in enumerate(headers):
                columns.append((f"{header}:{body}", values if values.ndim == 1 else values[:, j]))
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow([name for name, _ in columns])
    for row in zip(*(values for _, values in columns), strict=True):
        # A measure that does not apply (no invariable plane under torque, no cost before the first step) is NaN in
        # the plots and an empty cell here: every number written is finite.
        writer.writerow(["" if math.isnan(value) else repr(float(value)) for value in row])
    path = Path(path)
    write_atomically(path, text.getvalue().encode("utf-8"))
    return path


def new_series(session, colors_linear: np.ndarray) -> PlotSeries:
    """Empty plots for ``session``'s (:class:`~scene.model.run_model.Session`) plotted bodies, in ``colors_linear`` (N,
    3) (every body's, as the renderer draws them); one exact reference per distinct initial state. It holds the rows
    the plots draw (:func:`line_rows`): all of them up to ``MAX_LINES``, else a sample."""
    count = len(session.plotted)
    rows = line_rows(count, session.exact_rows)
    held = {int(row): k for k, row in enumerate(rows)}
    exact = session.exact_rows if len(session.exact_rows) <= EXACT_CURVES_MAX else []
    srgb = linear_to_srgb(colors_linear[session.plotted[rows]])
    series = PlotSeries(
        [session.names[row] for row in rows], srgb, [held[row] for row in exact], rows=rows, bodies=count
    )
    series.integrator_table = IntegratorTable(session, linear_to_srgb(colors_linear[session.plotted]))
    marked(series, session)
    return series


def marked(series: PlotSeries, session) -> None:
    """``series`` marks ``session``'s kicks and switches of the gyroscopic term (when one is made, too)."""
    series.kick_times = session.simulation.kicks.times()
    series.changes = run_changes(session)


def series_until(session, colors_linear: np.ndarray, step: int, live: IntegratorTable | None = None) -> PlotSeries:
    """The plots of ``session``'s run as they were right after its step ``step``: :func:`new_series` fed the run's
    steps up to there (the last ``CAPACITY`` of them), call by call as they were taken (scene/model/step_record.py), and
    counting every sample appended since the start, as the plots fed live do. ``live``: the cost table to keep."""
    plots = new_series(session, colors_linear)
    if live is not None:
        plots.integrator_table = live
    first = max(session.record.first_step, step + 1 - plots.capacity)
    entries = list(session.record.entries_between(first, step))
    lengths = [len(entry.steps.snapshots) for entry in entries]
    newton = np.repeat(np.array([entry.newton_per_step for entry in entries]), lengths, axis=0)  # (S, K)
    ms = np.repeat([entry.ms_per_step for entry in entries], lengths)
    plots.append(concatenated([entry.steps.sample for entry in entries]), newton, ms)  # at once: one copy
    plots.version = step + 1
    return plots


def _played_on(plots: PlotSeries, session, first: int, last: int) -> None:
    """``plots`` fed ``session``'s recorded steps ``first`` to ``last``, call by call as they were taken."""
    for entry in session.record.entries_between(first, last):
        plots.append(entry.steps.sample, entry.newton_per_step, entry.ms_per_step)


class PlotFeed(Follower):
    """The plots of a timeline's run (scene/model/timeline.py), with no window: :attr:`series` made for each run it
    starts, fed each step it takes or plays, made again from the step record for a step shown afresh; the integrator
    table follows the run (taken back, or recomputed on the compiled kernels). Branched, the original's plots too
    (:attr:`PlotSeries.original`), at the original's step as the timeline moves it."""

    def __init__(self) -> None:
        self._series: PlotSeries | None = None
        self._colors: np.ndarray | None = None
        self._original: tuple[Original, int, PlotSeries] | None = None  # a branch's original, its step, its plots

    @property
    def series(self) -> PlotSeries:
        assert self._series is not None, "made when the run started"
        return self._series

    def started(self, session, colors_linear: np.ndarray | None = None) -> None:
        """The plots of ``session`` with its initial sample, its bodies in ``colors_linear`` (N, 3) (by default the
        palette in turn)."""
        if colors_linear is None:
            colors_linear = np.resize(PALETTE_LINEAR, (len(session.scene.bodies), 3))
        self._series, self._colors = new_series(session, colors_linear), colors_linear
        self._original = None
        self.stepped(session, np.zeros(len(session.plotted)), float("nan"))

    def stepped(self, shown, newton_per_step: np.ndarray, ms_per_step: float) -> None:
        self.series.append(shown.latest.sample, newton_per_step, ms_per_step)

    def shown_at(self, session, step: int) -> None:
        assert self._colors is not None, "made when the run started"
        table = self.series.integrator_table
        self._series = series_until(session, self._colors, step, table)
        self.switched(session)

    def switched(self, session) -> None:
        table = self.series.integrator_table
        if table is not None:
            table.session = session

    def original_moved(self, original: Original | None) -> None:
        """The original's plots at its step: fed the steps it moved on through, or made again where it went back."""
        kept = self._original
        if original is None:
            self._original = self.series.original = None
            return
        step, session = original.step, original.session
        if kept is not None and kept[0] is original and kept[1] <= step:
            plots = kept[2]
            if step > kept[1]:
                _played_on(plots, session, kept[1] + 1, step)
        else:
            assert self._colors is not None, "made when the run started"
            plots = series_until(session, self._colors, step)
        self._original = (original, step, plots)
        self.series.original = plots


def _bucketed(t: np.ndarray, values: np.ndarray, limit: int, reduce: np.ufunc) -> tuple[np.ndarray, np.ndarray]:
    """At most ``limit`` points of ``values`` (..., T) over ``t`` (T,): the newest samples in buckets of equal size,
    each stamped with its last time and reduced along time, by ``np.maximum`` (the largest; NaN if any is) or
    ``np.add`` (the mean). Returns contiguous arrays."""
    size = int(np.ceil(len(t) / limit))
    if size <= 1:
        return np.ascontiguousarray(t), np.ascontiguousarray(values)
    usable = (len(t) // size) * size
    t, values = t[len(t) - usable :], values[..., values.shape[-1] - usable :]
    # Element-wise over the bucket's positions: numpy's reductions along a short axis cost ~20 ns an element.
    reduced = values[..., 0::size].copy()
    for position in range(1, size):
        reduce(reduced, values[..., position::size], out=reduced)
    if reduce is np.add:
        reduced /= size
    return t[size - 1 :: size].copy(), reduced


def _prepare(series: PlotSeries, seconds: float) -> dict[str, object]:
    """Every plot's data over the last ``seconds`` (see :meth:`PlotSeries.prepared`), each step batched over the
    series drawn alike and every body."""
    start = series.window_start(seconds)
    t = series.t()[start:]
    t_range = (float(t[0]), float(t[-1]))
    rows = series.line_rows  # the rows whose lines are drawn (all but a cloud's): only theirs are reduced
    bodies = len(series.names)
    every = rows.size == bodies
    errors = series._ordered(series._errors)[..., start:]  # (3, K, W), a view
    errors = errors if every else errors[:, rows]  # (3, L, W)
    # The log plots draw an exact 0 at the floor (NaN, a measure that does not apply, stays NaN: no line): taken
    # after the buckets' largest, as it commutes with it, on the few points drawn.
    x, drawn_rows = _bucketed(t, errors, MAX_POINTS, np.maximum)  # (3, L, B), a copy
    np.maximum(drawn_rows, ERROR_FLOOR, out=drawn_rows)
    error_rows = drawn_rows if every else _rows_of_all(drawn_rows, rows, bodies)  # (3, K, B)
    # The newest point is the newest sample's; each point before it is one bucket older.
    bucket = max(1, int(np.ceil(len(t) / MAX_POINTS)))
    level = (series.version - 1) // bucket - np.arange(len(x))[::-1]
    low, high = _positive_range(errors)
    prepared: dict[str, object] = {
        plot: TimeLines(
            t_range,
            x,
            error_rows[j],
            rows[~np.isnan(error_rows[j, rows]).all(axis=1)].tolist(),
            (float(low[j]), float(high[j])) if np.isfinite(low[j]) else None,
            level,
            series.spread[_SPREAD[plot]],
        )
        for j, plot in enumerate(_ERROR_PLOTS)
    }
    cost = series._ordered(series._cost)[:, start:]  # (K + 1, W): each body's Newton iterations, then ms
    cost = cost if every else cost[np.append(rows, bodies)]  # (L + 1, W)
    _, cost_rows = _bucketed(t, cost, MAX_POINTS, np.add)  # bucket means
    newton, ms = cost_rows[:-1], cost_rows[-1]
    newton = newton if every else _rows_of_all(newton, rows, bodies)
    # The first steps of a run include compiling the kernels: a percentile keeps them from setting the scale.
    finite = ms[np.isfinite(ms)]
    newton_drawn = rows[~np.isnan(newton[rows]).all(axis=1)].tolist()
    newton_lines = TimeLines(t_range, x, newton, newton_drawn, None, level, series.spread[_SPREAD["cost"]])
    prepared["cost"] = CostLines(
        newton_lines,
        float(cost[:-1].max(initial=0.0)),
        x,
        ms,
        1.25 * _percentile(finite, 95.0) if len(finite) else 1.0,
    )
    prepared |= _curves(series, start)
    return prepared


def _positive_range(errors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(3,) each: the smallest and largest of each error's (3, L, W) values as drawn (at the floor or above: the
    log plots draw a smaller one at the floor), finite and NaN left out; ``inf`` and ``-inf`` where there are none
    (every body kinematic). Two passes that skip NaN, not a mask and two copies of the window."""
    low = np.fmin.reduce(errors, axis=(1, 2), initial=np.inf)
    high = np.fmax.reduce(errors, axis=(1, 2), initial=-np.inf)
    if np.isposinf(high).any() or np.isneginf(low).any():
        # An infinite error (samples hold none: scene/model/samples.py makes them the largest double), left out.
        floored = np.maximum(errors, ERROR_FLOOR)
        finite = np.isfinite(floored)
        return (np.where(finite, floored, np.inf).min(axis=(1, 2), initial=np.inf),
                np.where(finite, floored, -np.inf).max(axis=(1, 2), initial=-np.inf))  # fmt: skip
    none = np.isposinf(low)
    return np.where(none, np.inf, np.maximum(low, ERROR_FLOOR)), np.where(none, -np.inf, np.maximum(high, ERROR_FLOOR))


def _rows_of_all(values: np.ndarray, rows: np.ndarray, count: int) -> np.ndarray:
    """``values`` (..., L, B) of the bodies ``rows`` placed among ``count`` bodies' (..., K, B), NaN elsewhere."""
    full = np.full((*values.shape[:-2], count, values.shape[-1]), np.nan)
    full[..., rows, :] = values
    return full


def _curves(series: PlotSeries, start: int) -> dict[str, Curves | None]:
    """The herpolhode and polhode from sample ``start`` on: every step's sample, ending with the newest, at most
    :data:`MAX_CURVE_POINTS` in all of a plot's lines."""
    newest = max(MAX_CURVE_POINTS // max(len(series.line_rows), 1), 2)
    xy = series._ordered(series._curves)[..., start:][..., -newest:]  # (4, K, 2, W), a view: the plots copy theirs
    count = xy.shape[-1]
    # Absolute sample index of each point: the newest sample's is version − 1.
    level = series.version - count + np.arange(count)
    dash = max(DASH_SAMPLES, int(np.ceil(count / (2 * DASHES_PER_WINDOW))))
    rows = series.line_rows
    drawn = series._curve_until[:, rows] > series._appended - count  # (4, L): a number within the window
    # A cloud: a thousand white references would hide every body's line (and cost ~16 ms a frame to cut in dashes).
    exact_rows = series.exact_rows if len(series.exact_rows) <= EXACT_CURVES_MAX else []
    prepared: dict[str, Curves | None] = {}
    for j, plot in ((0, "herpolhode"), (2, "polhode")):
        if not drawn[j].any():
            prepared[plot] = None
            continue
        exact = [(k, xy[j + 1, k]) for k in exact_rows if count > 1 and not np.isnan(xy[j + 1, k]).all()]
        prepared[plot] = Curves(xy[j], rows[drawn[j]].tolist(), exact, level, dash, series.spread[_SPREAD[plot]])
    return prepared


def line_rows(count: int, exact_rows: list[int]) -> np.ndarray:
    """The rows of ``count`` bodies whose lines the plots draw: every one up to :data:`MAX_LINES` and the drawn
    exact references, else :data:`MAX_LINES` evenly spread from the first to the last, with the rows of drawn exact
    references (ascending, unique). Of the rows it gives, it gives every one (a series of them draws them all)."""
    exact = exact_rows if len(exact_rows) <= EXACT_CURVES_MAX else []
    if count <= MAX_LINES + len(exact):
        return np.arange(count)
    spread = np.round(np.linspace(0, count - 1, MAX_LINES)).astype(np.intp)
    return np.union1d(spread, np.asarray(exact, dtype=np.intp))


def _percentile(values: np.ndarray, percent: float) -> float:
    """``np.percentile(values, percent)`` (linear interpolation) of a non-empty 1D array, without its overhead."""
    ordered = np.sort(values)
    position = percent / 100.0 * (len(ordered) - 1)
    lower = int(position)
    upper = min(lower + 1, len(ordered) - 1)
    return float(ordered[lower] + (position - lower) * (ordered[upper] - ordered[lower]))


def dash_segments(xy: np.ndarray, level: np.ndarray, dash: int, keep: np.ndarray | None = None) -> np.ndarray:
    """x and y (2, 2S) of the segment end points drawing the curve ``xy`` (2, T) in dashes of ``dash`` samples
    with equal gaps, anchored to the samples' absolute indices ``level`` (T,) so that they stay put as samples
    come (NaN samples left out, a dash bridging them). ``keep`` (T,) bool: the samples a dash may be drawn through
    (the plot's thinning on screen, ui/plots.py); every dash starts and ends where it would through all of them."""
    finite = ~np.isnan(xy).any(axis=0)
    if not finite.all():
        xy, level = xy[:, finite], level[finite]
        keep = None if keep is None else keep[finite]
    count = len(level)
    if count < 2:
        return np.empty((2, 0))
    position = np.arange(count) + int(level[0]) % (2 * dash)  # in samples from a dash's start
    if keep is None:
        kept = np.arange(count)
    else:
        ends = np.zeros(count, dtype=bool)
        ends[[0, -1]] = True
        kept = np.flatnonzero(keep | ends | (position % dash == 0))
    start, end = kept[:-1], kept[1:]
    in_dash = (position[start] // dash) % 2 == 0  # a dash's and a gap's ends are kept: [start, end] is one of them
    return np.stack([xy[:, start[in_dash]], xy[:, end[in_dash]]], axis=-1).reshape(2, -1)
