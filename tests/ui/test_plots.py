"""Every plot drawn by ImPlot in an ImGui frame without a window, from the data the history prepares."""

import dataclasses
from contextlib import contextmanager

import numpy as np
import pytest
from imgui_bundle import imgui, implot

from spinlab.ui import plot_series
from spinlab.ui.covered_lines import covered
from spinlab.ui.plot_series import MAX_LINES, line_rows
from spinlab.ui.plots import (
    NO_REFERENCE,
    NO_REFERENCE_NOTE,
    PLOT_TITLES,
    THIN_ERROR_PX,
    TICK_LABEL_PX,
    PlotOptions,
    _kept,
    draw_plots,
    linear_ticks,
)
from tests.ui.test_plot_series import filled, sample


@contextmanager
def plots_window():
    """A window as large as the app's plots strip, so that no plot is clipped away."""
    imgui.set_next_window_pos(imgui.ImVec2(0.0, 400.0))
    imgui.set_next_window_size(imgui.ImVec2(1280.0, 320.0))
    imgui.begin("plots")
    yield
    imgui.end()


@pytest.mark.parametrize("count", [1, 30, 5000])  # 5000 wraps the buffer and merges samples into buckets
def test_every_plot_draws(imgui_window, count):
    history = filled(count, capacity=3600)
    with plots_window():
        draw_plots(history, PlotOptions(seconds=1e9), (1260.0, 280.0))
    assert set(PLOT_TITLES) == set(PlotOptions().shown)


def test_implot_gets_contiguous_float_arrays_of_equal_length(imgui_window, monkeypatch):
    lines = []

    def plot_line(label, xs, ys, spec):
        lines.append(label)
        for values in (xs, ys):
            assert isinstance(values, np.ndarray) and values.dtype == np.float64 and values.flags.c_contiguous
        assert xs.shape == ys.shape and xs.ndim == 1

    monkeypatch.setattr(implot, "plot_line", plot_line)
    history = filled(5000, capacity=3600)
    with plots_window():
        draw_plots(history, PlotOptions(), (1260.0, 280.0))
    # energy 3, momentum 2 (body c is under a torque), orientation 2 (body b has no closed form), herpolhode 3 +
    # exact, polhode 3, Newton 3 and ms per step
    assert lines.count("a") == 6 and lines.count("b") == 5 and lines.count("c") == 5
    assert lines.count("exact##0") == 1
    assert len(lines) == 3 + 2 + 2 + 4 + 3 + 4


def test_a_cloud_of_exact_references_is_left_out_and_the_bodies_lines_kept(imgui_window, monkeypatch):
    """More distinct closed-form references than EXACT_CURVES_MAX: their dashed curves would hide the bodies'."""
    lines = []
    monkeypatch.setattr(implot, "plot_line", lambda label, xs, ys, spec: lines.append(label))
    monkeypatch.setattr(plot_series, "EXACT_CURVES_MAX", 0)
    with plots_window():
        draw_plots(filled(500, capacity=3600), PlotOptions(), (1260.0, 280.0))
    assert lines.count("exact##0") == 0 and len(lines) == 3 + 2 + 2 + 3 + 3 + 4


class _TextRecorder:
    def __init__(self):
        self.texts = []
        self.tops = []  # screen pixels, y down

    def add_text(self, position, color, text):
        self.texts.append(text)
        self.tops.append(position.y)


def test_the_note_of_the_bodies_without_a_reference_crosses_no_line(imgui_window, monkeypatch):
    """The y axis leaves a band below the data for the note: every point of every line is drawn above the note's
    first line (errors that grow from the floor ran through it)."""
    recorder = _TextRecorder()
    monkeypatch.setattr(implot, "get_plot_draw_list", lambda: recorder)
    lowest = []
    real = implot.plot_line

    def spy(label, x, y, *args, **kwargs):
        lowest.append(max(implot.plot_to_pixels(float(a), float(b)).y for a, b in zip(x, y, strict=True)))
        return real(label, x, y, *args, **kwargs)

    monkeypatch.setattr(implot, "plot_line", spy)
    only_orientation = PlotOptions(shown={name: name == "orientation" for name in PLOT_TITLES})
    for height in (180.0, 280.0):
        recorder.texts.clear(), recorder.tops.clear(), lowest.clear()
        with plots_window():
            draw_plots(filled(200), only_orientation, (400.0, height))
        assert recorder.texts == [NO_REFERENCE_NOTE, "b"] and lowest
        assert max(lowest) < min(recorder.tops), (height, max(lowest), recorder.tops)


def test_the_orientation_plot_names_the_bodies_without_a_closed_form(imgui_window, monkeypatch):
    """A body without a reference has no line in the orientation plot, which says so inside it; with none at all,
    the plot's frame says why instead."""
    recorder = _TextRecorder()
    monkeypatch.setattr(implot, "get_plot_draw_list", lambda: recorder)
    only_orientation = PlotOptions(shown={name: name == "orientation" for name in PLOT_TITLES})
    with plots_window():
        draw_plots(filled(30), only_orientation, (1260.0, 280.0))
    assert recorder.texts == [NO_REFERENCE_NOTE, "b"]
    disabled = []
    monkeypatch.setattr(imgui, "text_disabled", disabled.append)
    history = filled(0)
    rng = np.random.default_rng(4)
    for i in range(5):
        history.append(dataclasses.replace(sample(i, rng), orientation_error=np.full(3, np.nan)), np.zeros(3), 1.0)
    with plots_window():
        draw_plots(history, only_orientation, (1260.0, 280.0))
    assert tuple(disabled) == NO_REFERENCE and recorder.texts == [NO_REFERENCE_NOTE, "b"]


def _farthest_dropped_px(pixels, keep):
    """The largest distance (px) of a dropped point from the segment joining the kept points around it."""
    kept = np.flatnonzero(keep)
    worst = 0.0
    for a, b in zip(kept[:-1], kept[1:], strict=True):
        start, end = pixels[a], pixels[b]
        chord = end - start
        for point in pixels[a + 1 : b]:
            along = np.clip(np.dot(point - start, chord) / max(np.dot(chord, chord), 1e-300), 0.0, 1.0)
            worst = max(worst, float(np.linalg.norm(point - (start + along * chord))))
    return worst


@pytest.mark.parametrize("log", [False, True])
def test_thinned_lines_stay_within_a_fraction_of_a_pixel_on_screen(imgui_window, log):
    """Left-out points lie within THIN_ERROR_PX of the line drawn, in ImPlot's own pixels (plot_to_pixels);
    a smooth line loses most of its points, a noisy one keeps them."""
    t = np.linspace(0.0, 10.0, 150)
    smooth = 1.5 + np.sin(t) if not log else 10.0 ** (-8.0 + 0.5 * t)
    noisy = smooth * (1.0 + 0.3 * np.random.default_rng(2).standard_normal(len(t)) ** 2)
    y = np.stack([smooth, noisy])
    with plots_window():
        assert implot.begin_plot("thinned", imgui.ImVec2(300.0, 200.0))
        implot.setup_axis_limits(implot.ImAxis_.x1, 0.0, 10.0, imgui.Cond_.always)
        if log:
            implot.setup_axis_scale(implot.ImAxis_.y1, implot.Scale_.log10)
            implot.setup_axis_limits(implot.ImAxis_.y1, 1e-9, 1e-2, imgui.Cond_.always)
        else:
            implot.setup_axis_limits(implot.ImAxis_.y1, -1.0, 4.0, imgui.Cond_.always)
        keep = _kept(np.broadcast_to(t, y.shape), y, np.arange(len(t)) + 1000, log)
        pixels = [np.array([[p.x, p.y] for p in map(implot.plot_to_pixels, t, row)]) for row in y]
        implot.end_plot()
    for row_pixels, kept in zip(pixels, keep, strict=True):
        assert _farthest_dropped_px(row_pixels, kept) <= THIN_ERROR_PX * 1.001
        assert kept[0] and kept[-1]
    assert keep[0].sum() < 0.5 * len(t), "a smooth line should lose most of its points"
    assert keep[1].sum() > 0.8 * len(t), "a noisy line should keep nearly all"


TICK_CASES = [(0.0, 20.0, 90.0), (2.0, 21.7, 90.0), (2.0, 21.7, 30.0), (0.0, 0.5, 140.0), (100.0, 160.0, 300.0)]


@pytest.mark.parametrize("first, last, width", [*TICK_CASES, (0.0, 1e-6, 100.0)])
def test_time_ticks_are_round_inside_the_axis_and_far_enough_apart_for_their_labels(first, last, width):
    ticks = linear_ticks(first, last, width)
    assert len(ticks) >= 1 and np.all(ticks >= first - 1e-12) and np.all(ticks <= last + 1e-12)
    if len(ticks) > 1:
        step = ticks[1] - ticks[0]
        assert np.allclose(np.diff(ticks), step)
        mantissa = step / 10.0 ** np.floor(np.log10(step))
        assert min(abs(mantissa - m) for m in (1.0, 2.0, 5.0, 10.0)) < 1e-9  # 1, 2 or 5 × 10^k
        assert (last - first) / step <= max(2, width // TICK_LABEL_PX) + 1e-9  # labels TICK_LABEL_PX apart or more


def test_the_plots_name_a_few_bodies_and_count_a_cloud(imgui_window, monkeypatch):
    from spinlab.ui.plot_series import PlotSeries
    from spinlab.ui.plots import LEGEND_MAX

    for count in (3, LEGEND_MAX + 1, 1000, "long"):
        texts = []
        monkeypatch.setattr(imgui, "text", texts.append)
        monkeypatch.setattr(imgui, "text_disabled", texts.append)
        if count == "long":  # 24 names that would take more than two lines (the engines preset's)
            names = [f"bullet_implicit_world racket {i}" for i in range(LEGEND_MAX)]
            draw_plots(PlotSeries(names, np.full((LEGEND_MAX, 3), 0.5), []), PlotOptions(), (1260.0, 280.0))
            assert texts == [f"{LEGEND_MAX} bodies: each line is in its body's colour"]
            continue
        names = [f"h{i:03d}" for i in range(count)]
        draw_plots(PlotSeries(names, np.full((count, 3), 0.5), []), PlotOptions(), (1260.0, 280.0))
        if count <= LEGEND_MAX:
            assert texts == names
        elif count <= MAX_LINES:
            assert texts == [f"{count} bodies: each line is in its body's colour"]
        else:
            assert texts == [
                f"{count} bodies: {MAX_LINES} of them drawn, evenly spread, each line in its body's colour"
            ]


def _cloud(names, exact_rows, steps):
    """A history of ``names`` bodies with every measure finite, ``steps`` samples long."""
    from spinlab.scene.model.samples import Sample
    from spinlab.ui.plot_series import PlotSeries

    rng, k = np.random.default_rng(3), len(names)
    history = PlotSeries(names, rng.uniform(size=(k, 3)), exact_rows, capacity=100)
    for i in range(steps):
        errors = {name: rng.uniform(1e-17, 1e-3, k) for name in ("energy_error", "momentum_error", "orientation_error")}
        curves = {
            name: rng.normal(size=(k, 2)) for name in ("herpolhode", "herpolhode_exact", "polhode", "polhode_exact")
        }
        # Newton iterations apart: lines that agree lie under one another, and are not drawn
        history.append(Sample(t=i / 60.0, **errors, **curves), np.arange(k, dtype=float), 0.5)
    return history


def test_a_cloud_draws_max_lines_per_plot_evenly_spread_with_every_exact_reference(imgui_window, monkeypatch):
    lines, recorder = [], _TextRecorder()
    monkeypatch.setattr(implot, "plot_line", lambda label, xs, ys, spec: lines.append(label))
    monkeypatch.setattr(implot, "get_plot_draw_list", lambda: recorder)
    names = [f"h{i:04d}" for i in range(1000)]
    history = _cloud(names, exact_rows=[7, 500], steps=40)
    spread = set(np.round(np.linspace(0, 999, MAX_LINES)).astype(int).tolist())
    assert history.line_rows.tolist() == sorted(spread | {7, 500})
    with plots_window():
        draw_plots(history, PlotOptions(), (1260.0, 280.0))
    drawn = {label for label in lines if not label.startswith("exact")} - {"ms per step"}
    assert drawn == {names[k] for k in history.line_rows}
    assert recorder.texts == []  # every body has a closed form: none is named as missing one
    # each drawn body: a line in each of the 3 error plots, the cost plot and both curves; the 2 exact references
    # dashed in both curves; the cost plot's ms per step
    assert len(lines) == len(history.line_rows) * 6 + 2 * 2 + 1
    assert not any(line_rows(count, []).size != count for count in (1, 50, MAX_LINES))


def _agreeing(offset: float, steps: int = 120):
    """A history of bodies a, b, c: b's every measure is a's plus ``offset`` (a's errors times 10**offset); c's its
    own."""
    from spinlab.scene.model.samples import Sample
    from spinlab.ui.plot_series import PlotSeries

    rng = np.random.default_rng(5)
    history = PlotSeries(["a", "b", "c"], rng.uniform(size=(3, 3)), [], capacity=400)
    for i in range(steps):
        errors = {name: rng.uniform(1e-12, 1e-3, 3) for name in ("energy_error", "momentum_error", "orientation_error")}
        for values in errors.values():
            values[1] = values[0] * 10.0**offset
        curves = {name: rng.normal(size=(3, 2)) for name in ("herpolhode", "polhode")}
        for values in curves.values():
            values[1] = values[0] + offset
        exact = {name: np.full((3, 2), np.nan) for name in ("herpolhode_exact", "polhode_exact")}
        newton = np.array([float(i % 4), float(i % 4) + offset, 2.0])
        history.append(Sample(t=i / 60.0, **errors, **curves, **exact), newton, 0.5)
    return history


@pytest.mark.parametrize("offset", [0.0, 0.01])
def test_a_line_under_a_later_one_that_agrees_to_a_tenth_of_a_pixel_is_not_drawn(imgui_window, monkeypatch, offset):
    """Body a's line in every plot lies under body b's (drawn after it, the same at every sample): only b's is
    drawn, and c's; a's is drawn when it is apart from b's by more than a tenth of a pixel (here 0.2 px and more)."""
    lines = []
    monkeypatch.setattr(implot, "plot_line", lambda label, xs, ys, spec: lines.append(label))
    with plots_window():
        draw_plots(_agreeing(offset), PlotOptions(), (1260.0, 280.0))
    # energy, momentum, orientation, herpolhode, polhode, Newton iterations
    assert lines.count("a") == (0 if offset == 0.0 else 6) and lines.count("b") == lines.count("c") == 6


def test_lines_are_covered_only_by_a_line_drawn_on_top():
    """A line goes under a later line that no line after it covers: of a, b, c (c drawn last), b close to both and
    a not to c, b is left out and a drawn (10 px a unit)."""
    spread = np.array([[0.0, 0.005, 0.03], [0.005, 0.0, 0.005], [0.03, 0.005, 0.0]])
    assert covered(spread, [0, 1, 2], 10.0).tolist() == [False, True, False]
    assert covered(spread, [0, 2], 10.0).tolist() == [False, False]
    assert covered(spread, [0, 1, 2], 1.0).tolist() == [True, True, False]
    assert covered(np.full((3, 3), np.nan), [0, 1, 2], 1.0).tolist() == [False, False, False]  # never alike


def test_the_spread_of_two_rows_is_how_far_apart_they_were_drawn_at_most_over_every_sample():
    history = _agreeing(0.5, steps=30)
    spread = history.spread
    assert spread.shape == (6, 3, 3)
    np.testing.assert_allclose(spread[:4, 0, 1], 0.5)  # log10 of the errors, Newton iterations
    np.testing.assert_allclose(spread[4:, 0, 1], np.hypot(0.5, 0.5))  # the curves' points, 0.5 apart in x and y
    assert np.all(spread[:, 0, 2] > 0.5) and np.array_equal(spread, spread.transpose(0, 2, 1))
