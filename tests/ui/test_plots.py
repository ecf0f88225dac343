"""The plots' ring buffers and CSV export, and every plot drawn by ImPlot in an ImGui frame without a window."""

import csv

import numpy as np
import pytest

from ui.plots import PLOT_TITLES, PlotHistory, PlotOptions, draw_plots, export_csv
from ui.session import Sample

BODIES = ("a", "b")


def sample(t, rng):
    k = len(BODIES)
    return Sample(
        t=t,
        energy_error=rng.uniform(1e-17, 1e-3, k),
        momentum_error=np.array([1e-17, np.nan]),
        herpolhode=rng.normal(size=(k, 2)),
        herpolhode_exact=rng.normal(size=(k, 2)),
        polhode=rng.normal(size=(k, 2)),
        polhode_exact=np.full((k, 2), np.nan),
    )


def filled(count, capacity=100, seed=1):
    rng = np.random.default_rng(seed)
    history = PlotHistory(list(BODIES), np.array([[1.0, 0.5, 0.2], [0.2, 0.5, 1.0]]), [0], capacity=capacity)
    for i in range(count):
        history.append(sample(i / 60.0, rng), np.array([0.0, 2.0]), 0.1 + i)
    return history


def test_the_ring_buffer_keeps_the_newest_samples_oldest_first():
    history = filled(250, capacity=100)
    assert history.count == 100
    t = history.t()
    assert np.allclose(t, np.arange(150, 250) / 60.0)
    assert np.array_equal(history.series("ms_per_step"), 0.1 + np.arange(150, 250))
    assert history.series("herpolhode").shape == (100, 2, 2)


def test_csv_has_a_column_per_series_and_a_row_per_sample(tmp_path):
    history = filled(30)
    path = export_csv(history, tmp_path / "plots.csv")
    with open(path, newline="") as file:
        rows = list(csv.reader(file))
    header = rows[0]
    assert header[:3] == ["t", "ms_per_step", "energy_error:a"]
    assert "herpolhode_exact_v:b" in header and "newton_per_step:b" in header
    assert len(rows) == 31 and all(len(row) == len(header) for row in rows)
    assert float(rows[-1][0]) == 29 / 60.0


@pytest.mark.parametrize("count", [1, 30, 5000])  # 5000 wraps the buffer and merges samples into buckets
def test_every_plot_draws(imgui_window, count):
    history = filled(count, capacity=3600)
    draw_plots(history, PlotOptions(seconds=1e9), (1000.0, 260.0))
    assert set(PLOT_TITLES) == set(PlotOptions().shown)
