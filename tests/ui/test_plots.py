"""Every plot drawn by ImPlot in an ImGui frame without a window, from the data the history prepares."""

from contextlib import contextmanager

import numpy as np
import pytest
from imgui_bundle import imgui, implot

from tests.ui.test_plot_history import filled
from ui.plots import PLOT_TITLES, PlotOptions, draw_plots


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
    # energy 3, momentum 2 (body c is under a torque), herpolhode 3 + exact, polhode 3, Newton 3 and ms per step
    assert lines.count("a") == 5 and lines.count("c") == 4 and lines.count("exact##0") == 1
    assert len(lines) == 3 + 2 + 4 + 3 + 4
