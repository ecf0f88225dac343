"""The plots' data (ui/plot_series.py): ring buffers, CSV export, and each plot's data prepared for ImPlot.

Reference for the prepared data: the window, buckets and strides computed the plain way from the raw series (a
mask over time, numpy reductions over a reshaped axis, ``np.percentile``).
"""

import csv
import dataclasses

import numpy as np
import pytest

from spinlab.render.overlays import trail_keep
from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.model.run_model import Session, Setup, default_integrators
from spinlab.scene.model.samples import ERROR_FLOOR, Sample
from spinlab.ui import plot_series
from spinlab.ui.plot_series import (
    DASH_SAMPLES,
    DASHES_PER_WINDOW,
    MAX_POINTS,
    CostLines,
    Curves,
    PlotSeries,
    TimeLines,
    _bucketed,
    _percentile,
    dash_segments,
    export_csv,
    new_series,
)

BODIES = ("a", "b", "c")
RTOL_MEAN = 1e-15  # a bucket's mean, summed in another order


def sample(t, rng):
    k = len(BODIES)
    momentum = rng.uniform(1e-17, 1e-3, k)
    momentum[-1] = np.nan  # a body under a torque
    exact = rng.normal(size=(k, 2))
    exact[1:] = np.nan  # one exact reference, for the first body
    orientation = rng.uniform(1e-17, 1.0, k)
    orientation[1] = np.nan  # a body without a closed form (the heavy top c has one)
    return Sample(
        t=t,
        energy_error=rng.uniform(1e-17, 1e-3, k),
        momentum_error=momentum,
        orientation_error=orientation,
        herpolhode=rng.normal(size=(k, 2)),
        herpolhode_exact=exact,
        polhode=rng.normal(size=(k, 2)),
        polhode_exact=np.full((k, 2), np.nan),
    )


def filled(count, capacity=100, seed=1):
    rng = np.random.default_rng(seed)
    colors = np.array([[1.0, 0.5, 0.2], [0.2, 0.5, 1.0], [0.5, 0.5, 0.5]])
    history = PlotSeries(list(BODIES), colors, [0], capacity=capacity)
    for i in range(count):
        history.append(sample(i / 60.0, rng), np.array([0.0, 2.0, float(i % 3)]), 0.1 + i)
    return history


def test_the_ring_buffer_keeps_the_newest_samples_oldest_first():
    history = filled(250, capacity=100)
    assert history.count == 100 and history.version == 250
    assert np.allclose(history.t(), np.arange(150, 250) / 60.0)
    assert np.array_equal(history.series("ms_per_step"), 0.1 + np.arange(150, 250))
    assert history.series("herpolhode").shape == (100, 3, 2)
    for count in (1, 99, 100, 101, 199, 200, 201):
        partial = filled(count, capacity=100)
        expected = np.arange(max(count - 100, 0), count) / 60.0
        np.testing.assert_array_equal(partial.t(), expected)


def test_csv_has_a_column_per_series_and_a_row_per_sample(tmp_path):
    history = filled(130, capacity=100)
    path = export_csv(history, tmp_path / "plots.csv")
    with open(path, newline="") as file:
        rows = list(csv.reader(file))
    header = rows[0]
    assert header[:3] == ["t", "ms_per_step", "energy_error:a"]
    assert "herpolhode_exact_v:b" in header and "newton_per_step:b" in header
    assert len(rows) == 101 and all(len(row) == len(header) for row in rows)
    orientation = {body: header.index(f"orientation_error:{body}") for body in BODIES}
    first_measures = ["energy_error:a", "momentum_error:a", "orientation_error:a"]
    assert header[orientation["a"] - 2 : orientation["a"] + 1] == first_measures
    assert all(row[orientation["b"]] == "" for row in rows[1:]), "no closed form: empty cells"
    expected = history.series("orientation_error")[:, 2]
    np.testing.assert_array_equal([float(row[orientation["c"]]) for row in rows[1:]], expected)
    assert float(rows[1][0]) == 30 / 60.0 and float(rows[-1][0]) == 129 / 60.0


def test_the_window_starts_at_the_first_sample_within_its_seconds():
    history = filled(250, capacity=100)
    t = history.t()
    for seconds in (0.0, 0.5, 1.0, 1.01, 1e9):
        assert history.window_start(seconds) == np.flatnonzero(t >= t[-1] - seconds)[0]


def _reference_bucketed(t, values, reduce):
    size = int(np.ceil(len(t) / MAX_POINTS))
    if size <= 1:
        return t, values
    usable = (len(t) // size) * size
    t, values = t[len(t) - usable :], values[len(values) - usable :]
    return t[size - 1 :: size], reduce(values.reshape(usable // size, size, *values.shape[1:]), axis=1)


@pytest.mark.parametrize("count", [1, 150, 200, 201, 1199, 3600])
def test_buckets_keep_the_largest_and_the_mean(count):
    rng = np.random.default_rng(count)
    t, values = np.arange(count) / 60.0, rng.uniform(size=(count, 4))
    values[rng.integers(count, size=3), rng.integers(4, size=3)] = np.nan
    x, largest = _bucketed(t, values.T, MAX_POINTS, np.maximum)  # time is the last axis
    x_expected, largest_expected = _reference_bucketed(t, values, np.max)
    np.testing.assert_array_equal(x, x_expected)
    np.testing.assert_array_equal(largest, largest_expected.T)  # NaN where a bucket holds one
    _, mean = _bucketed(t, values.T, MAX_POINTS, np.add)
    np.testing.assert_allclose(mean, _reference_bucketed(t, values, np.mean)[1].T, rtol=RTOL_MEAN)
    assert len(x) <= MAX_POINTS and x.flags.c_contiguous and largest.flags.c_contiguous


def test_the_percentile_is_numpys_linear_one():
    rng = np.random.default_rng(5)
    for size in (1, 2, 7, 200):
        values = rng.exponential(size=size)
        for percent in (0.0, 50.0, 95.0, 100.0):
            assert _percentile(values, percent) == pytest.approx(np.percentile(values, percent), rel=1e-15)


@pytest.mark.parametrize("count", [1, 30, 1500, 5000])
def test_prepared_time_lines_are_the_windows_buckets_one_row_per_body(count):
    history = filled(count, capacity=3600)
    seconds = 20.0
    t = history.t()
    window = t >= t[-1] - seconds
    drawn = {"energy": [0, 1, 2], "momentum": [0, 1], "orientation": [0, 2]}
    for plot, series in (
        ("energy", "energy_error"),
        ("momentum", "momentum_error"),
        ("orientation", "orientation_error"),
    ):
        lines = history.prepared(plot, seconds)
        assert isinstance(lines, TimeLines)
        values = history.series(series)[window]
        x, expected = _reference_bucketed(t[window], values, np.max)
        np.testing.assert_array_equal(lines.x, x)
        np.testing.assert_array_equal(lines.y, expected.T)
        assert lines.t_range == (t[window][0], t[window][-1])
        positive = values[np.isfinite(values) & (values > 0)]
        assert lines.y_range == (positive.min(), positive.max())
        assert lines.drawn == drawn[plot]
    cost = history.prepared("cost", seconds)
    assert isinstance(cost, CostLines)
    x, ms = _reference_bucketed(t[window], history.series("ms_per_step")[window], np.mean)
    np.testing.assert_array_equal(cost.x_ms, x)
    np.testing.assert_allclose(cost.ms, ms, rtol=RTOL_MEAN)
    assert cost.ms_top == pytest.approx(1.25 * np.percentile(ms, 95), rel=1e-14)
    assert cost.newton_top == history.series("newton_per_step")[window].max()


@pytest.mark.parametrize("count", [1, 2, 30, 1500, 5000])
def test_prepared_curves_are_every_step_of_the_window_with_dashed_references(count):
    """Per-step samples, not a polygon of a fixed number of points: at 8× (many steps a frame) a loop of the
    herpolhode keeps every step's point, and the plots thin them on screen (ui/plots.py)."""
    history = filled(count, capacity=3600)
    t = history.t()
    window = t >= t[-1] - 20.0
    curves = history.prepared("herpolhode", 20.0)
    assert isinstance(curves, Curves)
    points, exact = history.series("herpolhode")[window], history.series("herpolhode_exact")[window]
    np.testing.assert_array_equal(curves.xy, points.transpose(1, 2, 0))
    np.testing.assert_array_equal(curves.level, np.arange(history.version - len(points), history.version))
    assert curves.drawn == [0, 1, 2]
    if count == 1:
        assert curves.exact == []
        return
    ((k, curve),) = curves.exact
    assert k == 0
    dash = max(DASH_SAMPLES, int(np.ceil(len(points) / (2 * DASHES_PER_WINDOW))))
    assert curves.dash == dash
    reference = exact[:, 0]
    np.testing.assert_array_equal(curve, reference.T)
    segments = dash_segments(curve, curves.level, curves.dash)
    start = np.arange(len(reference) - 1)
    start = start[((curves.level[start]) // dash) % 2 == 0]  # anchored to the absolute sample index
    expected = np.stack([reference[start], reference[start + 1]], axis=1).reshape(-1, 2)
    np.testing.assert_array_equal(segments, expected.T)
    assert segments.shape[1] // 2 <= len(points) // 2 + dash  # dashes over about half the samples


def test_points_keep_their_level_from_one_sample_to_the_next():
    """The levels that anchor the plots' thinning (ui/plots.py): consecutive, and a curve's point keeps its level
    (its sample's absolute index) as samples come."""
    history = filled(1000, capacity=3600)  # 16.7 s: all in the window
    before = history.prepared("herpolhode", 20.0)
    lines = history.prepared("energy", 20.0)
    assert np.array_equal(np.diff(before.level), np.ones(len(before.level) - 1))
    assert np.array_equal(np.diff(lines.level), np.ones(len(lines.level) - 1))
    assert before.level[-1] == history.version - 1
    rng = np.random.default_rng(5)
    for _ in range(7):
        history.append(sample(history.t()[-1] + 1 / 60.0, rng), np.zeros(3), 1.0)
    after = history.prepared("herpolhode", 20.0)
    common, mine, theirs = np.intersect1d(before.level, after.level, return_indices=True)
    assert len(common) == len(before.level)
    np.testing.assert_array_equal(before.xy[:, :, mine], after.xy[:, :, theirs])


def test_a_curve_no_body_has_is_none_and_dashes_skip_missing_samples():
    history = filled(0)
    rng = np.random.default_rng(3)
    for i in range(10):
        history.append(dataclasses.replace(sample(i, rng), polhode=np.full((3, 2), np.nan)), np.zeros(3), 1.0)
    assert history.prepared("polhode", 20.0) is None
    curve = np.arange(20.0).reshape(10, 2)
    curve[3] = np.nan
    segments = dash_segments(np.ascontiguousarray(curve.T), np.arange(10), DASH_SAMPLES)
    assert not np.isnan(segments).any()
    np.testing.assert_array_equal(segments[0], [0.0, 2.0, 2.0, 4.0, 4.0, 8.0, 8.0, 10.0, 10.0, 12.0, 12.0, 14.0])


@pytest.mark.parametrize("first", [0, 5, 37])
def test_dashes_drawn_through_the_thinned_samples_start_end_and_bend_as_through_all(first):
    """A dash drawn through the samples the plot's thinning keeps (render/overlays.py's ``trail_keep``, as
    ui/plots.py thins on screen) starts and ends at the samples it would through all of them, leaves out no
    sample by more than the thinning's error, and draws nothing over a gap."""
    error_px = 0.25
    t = np.arange(600) / 60.0
    pixels = np.stack([80.0 * np.cos(1.3 * t), 60.0 * np.sin(2.1 * t)])  # (2, T): a Lissajous curve, in pixels
    level = first + np.arange(t.size)
    keep = trail_keep(pixels.T[None], np.ones((1, t.size), bool), level, 1, segment_px=1e6, error_px=error_px,
                      max_stride=32)[0]  # fmt: skip
    dash = 12
    full = dash_segments(pixels, level, dash).reshape(2, -1, 2)  # (2, S, 2): each segment's two ends
    thinned = dash_segments(pixels, level, dash, keep).reshape(2, -1, 2)
    assert thinned.shape[1] < full.shape[1] / 3
    # Index each end by its sample (the curve never repeats a point here).
    index = {tuple(point): k for k, point in enumerate(pixels.T)}
    ends = np.array([[index[tuple(thinned[:, s, e])] for e in (0, 1)] for s in range(thinned.shape[1])])
    full_ends = np.array([[index[tuple(full[:, s, e])] for e in (0, 1)] for s in range(full.shape[1])])
    assert set(full_ends[:, 0]) == {j for a, b in ends for j in range(a, b)}  # the same samples' segments
    assert np.all(ends[:, 1] > ends[:, 0])
    for a, b in ends:
        chord = pixels[:, b] - pixels[:, a]
        between = pixels[:, a : b + 1] - pixels[:, a : a + 1]
        distance = np.abs(chord[0] * between[1] - chord[1] * between[0]) / np.hypot(*chord)
        assert distance.max() <= error_px * (1 + 1e-9)
    with_none = dash_segments(pixels, level, dash, np.zeros(t.size, bool)).reshape(2, -1, 2)
    assert with_none.shape[1] == len({(level[j] - level[0] + level[0] % (2 * dash)) // dash for j in full_ends[:, 0]})


def test_prepared_data_is_made_again_only_after_a_sample_or_for_another_window():
    history = filled(50)
    plots = ("energy", "momentum", "orientation", "herpolhode", "polhode", "cost")
    first = {plot: history.prepared(plot, 20.0) for plot in plots}
    for plot, data in first.items():
        assert history.prepared(plot, 20.0) is data
    assert history.prepared("energy", 0.1) is not first["energy"]
    history.append(sample(1.0, np.random.default_rng(2)), np.zeros(3), 1.0)
    again = history.prepared("energy", 0.1)
    assert again.t_range[1] == 1.0


def stacked(samples):
    """One batch of ``samples``: fields with the steps' axis first."""
    return Sample(np.array([s.t for s in samples]), *(np.stack([getattr(s, f) for s in samples]) for f in FIELDS))


@pytest.mark.parametrize("batches", [[7, 1, 30, 2], [150], [99, 1, 101]])
def test_a_batch_of_steps_is_appended_as_its_steps_one_by_one(batches):
    """The window appends each call's steps at once (scene/model/run_model.py): the buffers, the order and the version
    must be those of appending the samples one at a time, across the ring's wrap and past its capacity."""
    rng = np.random.default_rng(3)
    samples = [sample(i / 60.0, rng) for i in range(sum(batches))]
    one_by_one, batched = filled(0), filled(0)
    for one in samples:
        one_by_one.append(one, np.full(3, 0.0), 1.0)
    start = 0
    for size in batches:
        batched.append(stacked(samples[start : start + size]), np.full(3, 0.0), 1.0)
        start += size
    assert batched.version == one_by_one.version == len(samples) and batched.count == one_by_one.count
    np.testing.assert_array_equal(batched.t(), one_by_one.t())
    for name in (*FIELDS, "newton_per_step", "ms_per_step"):
        np.testing.assert_array_equal(batched.series(name), one_by_one.series(name))
    for plot in ("energy", "herpolhode", "cost"):
        # The spread of the samples held (one by one, of evicted ones too): compared below, as a bound
        unspread = [dataclasses.replace(lines.newton if plot == "cost" else lines, spread=None)
                    for lines in (batched.prepared(plot, 20.0), one_by_one.prepared(plot, 20.0))]  # fmt: skip
        assert repr(unspread[0]) == repr(unspread[1])
    assert np.all((batched.spread <= one_by_one.spread) | np.isnan(one_by_one.spread))


FIELDS = ("energy_error", "momentum_error", "orientation_error", "herpolhode", "herpolhode_exact", "polhode",
          "polhode_exact")  # fmt: skip


def test_an_exact_zero_is_written_as_zero_and_drawn_at_the_floor(tmp_path):
    # A run that keeps its energy to the last bit (the exact closed form, object_trapezoidal torque-free) has a
    # |ΔE|/E of exactly 0: the CSV says 0.0, and only the log plot puts it at its floor.
    scene = load_scene("t_handle")
    session = Session(Setup(scene, default_integrators(scene), True, ("exact",), scene.h))
    history = new_series(session, np.ones((len(session.scene.bodies), 3)))
    history.append(session.sample(), np.zeros(len(session.plotted)), 0.0)
    with open(export_csv(history, tmp_path / "plots.csv"), newline="") as file:
        rows = list(csv.DictReader(file))
    assert rows[0]["energy_error:exact"] == "0.0" and rows[0]["orientation_error:exact"] == "0.0"
    lines = history.prepared("energy", 10.0)
    assert lines.y[lines.drawn[0]].min() == ERROR_FLOOR


def _resident_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096


def test_a_new_histories_first_sample_makes_only_the_pages_it_writes():
    """The rings' first sample is one column across every row: with numpy's 2 MB pages it made all ~44 MB of a
    comparison side by side at once (30-80 ms of the frame that starts the run). Bounds the resident memory it adds
    (on a kernel without 2 MB pages both ways pass)."""
    scene = load_scene("compare")
    # Each handle spun a little faster than the last: eight bodies in each integrator's copy, 112 rows.
    spun = [dataclasses.replace(body, omega_parent=(1.0 + 0.01 * k) * body.omega_parent) for k, body in
            enumerate(scene.bodies)]  # fmt: skip
    scene = dataclasses.replace(scene, bodies=tuple(spun))
    session = Session(Setup(scene, default_integrators(scene), True))
    history = new_series(session, np.ones((len(session.scene.bodies), 3)))
    reserved = sum(buffer.nbytes for buffer in (history._errors, history._curves, history._cost))
    assert reserved > 30e6, "a side-by-side comparison's rings"
    before = _resident_bytes()
    history.append(session.latest.sample, np.zeros(len(session.plotted)), float("nan"))
    assert _resident_bytes() - before < 0.4 * reserved
    for buffer in (history._errors, history._curves, history._cost):
        assert buffer.flags.writeable and not np.any(buffer[..., 1 : history.capacity])  # zeros, but the first


def test_a_curve_leaves_its_plot_once_its_last_number_leaves_the_window():
    history = filled(40)
    rng = np.random.default_rng(4)
    seconds = 10 / 60.0  # 11 samples
    for i in range(40, 60):
        stopped = sample(i / 60.0, rng)
        stopped.polhode[1] = np.nan  # body b's polhode ends (a blow-up made NaN of it)
        history.append(stopped, np.zeros(3), 1.0)
        window = history.t()[history.window_start(seconds) :]
        assert history.prepared("polhode", seconds).drawn == ([0, 1, 2] if window[0] < 40 / 60.0 - 1e-12 else [0, 2])
    assert history.prepared("herpolhode", seconds).drawn == [0, 1, 2]


def test_a_frames_plot_data_takes_no_mask_over_the_windows_samples(monkeypatch):
    """What each plot draws is made every frame that stepped: the bodies with a curve and each error's range are
    found without a mask over every sample of the window of every body (those took ~1.5 ms a frame of 64 lines)."""
    history = filled(600, capacity=1000)
    largest = {"isnan": 0, "isfinite": 0}
    for name in largest:
        real = getattr(np, name)

        def counted(values, *args, real=real, name=name, **kwargs):
            largest[name] = max(largest[name], np.size(values))
            return real(values, *args, **kwargs)

        monkeypatch.setattr(np, name, counted)
    history.prepared("energy", 20.0)
    window = len(history.t())
    assert largest["isnan"] <= 2 * window and largest["isfinite"] <= window, largest


def test_a_long_record_is_folded_into_the_spread_over_the_next_appends(monkeypatch):
    """A series made from a long record (a seek) folds its samples into the pairs' spread a few at a time, as the
    run goes on (its lines all drawn meanwhile: spread infinite), so no frame waits for all of them; once caught
    up, the spread is the one of appending its samples one by one."""
    rng = np.random.default_rng(3)
    samples = [sample(i / 60.0, rng) for i in range(20)]
    one_by_one = filled(0)
    for one in samples:
        one_by_one.append(one, np.zeros(3), 1.0)
    monkeypatch.setattr(plot_series, "SPREAD_STEP_WORK", 2 * 3 * 3 * 8)  # two samples' differences a call
    caught_up = filled(0)
    caught_up.append(stacked(samples[:8]), np.zeros(3), 1.0)
    calls = 1
    while np.isinf(caught_up.spread).all():
        assert calls < len(samples), "never caught up"
        caught_up.append(samples[8 + calls - 1], np.zeros(3), 1.0)
        calls += 1
    assert calls > 2  # not all at once
    for one in samples[8 + calls - 1 :]:
        caught_up.append(one, np.zeros(3), 1.0)
    np.testing.assert_array_equal(caught_up.spread, one_by_one.spread)


def test_a_series_of_many_lines_compares_none_and_draws_them_all():
    """Comparing lines costs a step the square of their number: a series of more than COMPARED_LINES (a cloud's)
    leaves its spread infinite (every line drawn), even where its lines agree exactly."""
    lines = plot_series.COMPARED_LINES + 1
    history = PlotSeries([f"b{i}" for i in range(lines)], np.full((lines, 3), 0.5), [])
    same = np.full(lines, 1e-6)
    curve = np.zeros((lines, 2))
    for i in range(5):
        history.append(Sample(i / 60.0, same, same, same, curve, curve, curve, curve), np.zeros(lines), 1.0)
    assert np.isinf(history.spread).all()
    few = PlotSeries([f"b{i}" for i in range(3)], np.full((3, 3), 0.5), [])
    for i in range(5):
        few.append(Sample(i / 60.0, same[:3], same[:3], same[:3], *[curve[:3]] * 4), np.zeros(3), 1.0)
    assert (few.spread == 0.0).all()  # the same lines, compared: each under the next


def _many_lines(lines: int, count: int) -> PlotSeries:
    """``count`` samples of ``lines`` bodies' curves, each point numbered by its sample."""
    names = [f"body {k}" for k in range(lines)]
    history = PlotSeries(names, np.full((lines, 3), 0.5), [], capacity=3600)
    for i in range(count):
        point = np.column_stack([np.full(lines, float(i)), np.arange(lines, dtype=float)])
        nan = np.full(lines, np.nan)
        history.append(Sample(t=i / 60.0, energy_error=np.full(lines, 1e-9), momentum_error=nan,
                              orientation_error=nan, herpolhode=point, herpolhode_exact=np.full((lines, 2), np.nan),
                              polhode=point, polhode_exact=np.full((lines, 2), np.nan)),
                       np.zeros(lines), 0.1)  # fmt: skip
    return history


@pytest.mark.parametrize("lines", [3, 16, 64])
def test_a_curve_plot_draws_its_lines_newest_samples_within_its_points(lines):
    """A curve plot's lines together draw at most MAX_CURVE_POINTS points: sixteen lines keep the default window
    (20 s of steps of 1/60 s) whole, a cloud's 64 their newest samples."""
    history = _many_lines(lines, 1500)
    for plot in ("herpolhode", "polhode"):
        curves = history.prepared(plot, 20.0)
        kept = min(1200, plot_series.MAX_CURVE_POINTS // lines)
        assert curves.xy.shape == (lines, 2, kept) and lines * kept <= plot_series.MAX_CURVE_POINTS
        np.testing.assert_array_equal(curves.xy[:, 0], np.tile(np.arange(1500 - kept, 1500.0), (lines, 1)))
        np.testing.assert_array_equal(curves.level, np.arange(1500 - kept, 1500))
        assert curves.drawn == list(range(lines))
    assert (lines <= 16) == (kept == 1200)
