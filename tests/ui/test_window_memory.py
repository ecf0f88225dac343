"""What the window holds per body: the plots hold the rows they draw, not a history of every
body (ui/plot_series.py's ``new_series``; a history of every body took ~0.7 MB each: 5.6 GB for 8,000 bodies);
the run measures against the closed forms only the rows the plots draw (scene/model/samples.py's ``measured_rows``); the
scene file is read in pieces, never held whole (scene/files/toml_file.py's ``body_pieces``).
Measured with tracemalloc over two cloud sizes, so that what does not grow with the bodies cancels out. The
renderer's share (trails, layout, instance rows) is tests/render/test_renderer_memory.py's.

A 10^5-body cloud as `gui` opens it peaked at 1.40 GB RSS before these three (the window built and 5 frames
drawn, kernel loader included), reading the file alone at 767 MB; reading now peaks at 265 MB."""

import functools
import tracemalloc

import numpy as np
import pytest

import spinlab.scene.files.scene_file as scene_file
import spinlab.scene.files.toml_file as toml_file
from spinlab.benchmarks.cloud import cloud_toml
from spinlab.render.look import PALETTE_LINEAR
from spinlab.scene.model.run_model import Session, Setup, default_integrators
from spinlab.scene.model.samples import ALL_MEASURED_MAX, References, measured_rows
from spinlab.ui.plot_series import MAX_LINES, new_series
from tests.ui.headless_host import headless_controller

BODIES = (300, 1500)
# The plots' share of the window per body: the names and the colours of the integrators' rows (~100 B).
PLOT_BYTES_PER_BODY = 500
# Clouds past ALL_MEASURED_MAX, read in pieces of PIECE_BYTES as a 10^5-body file is (in 2 MB pieces).
LARGE_BODIES = (2000, 5000)
PIECE_BYTES = 64 * 1024
# The scene as read, per body: 835 B measured (a name, a position and ω, the shared arrays, the BodySpec); 1,150 B
# with arrays of its own for every body, 1,695 B before the bodies shared their equal arrays, sizes and colours.
READER_HELD_BYTES_PER_BODY = 1000
# Reading's peak per body: 1,283 B measured (the bodies, and one piece's document at a time); ~3,600 B when the whole
# document was held (~2 kB a body of dicts, lists and floats).
READER_PEAK_BYTES_PER_BODY = 2000
# The plain bodies' text reader's peak per body: 2,280 B measured (every body's matched strings at once, then their
# columns); the price of reading 10^5 bodies in two thirds of the time.
PLAIN_READER_PEAK_BYTES_PER_BODY = 2500
# The references of a window's run per body: 42 B held, 65 B at their making's peak (E0, its scale, L0, whether
# torque-free); 590 B and 2,321 B when every body had its closed form, axes and flip counters.
REFERENCES_BYTES_PER_BODY = 150
# One step's measures per body at their peak: 176 B (the sample: the energy and momentum errors, NaN outside the
# measured rows); 448 B when every body was measured against its closed form.
MEASURE_BYTES_PER_BODY_STEP = 300
PLOTS = ("energy", "momentum", "orientation", "cost", "herpolhode", "polhode")
# The window less its drawing (the scene read, the controller, the run with its history, the plots) after five
# single steps, per body: 3,449 B held and 3,745 B at the peak measured (the scene ~835 B, the run ~1.6 kB, each step
# ~230 B in the history); 4,131 B held when the history kept its samples at full width (NaN outside the measured
# rows), 5,105 B and 5,193 B when the run also copied itself at its start for the history's first checkpoint. The
# renderer's share is tests/render/test_renderer_memory.py's.
WINDOW_BYTES_PER_BODY = 4000
WINDOW_PEAK_BYTES_PER_BODY = 4300
WINDOW_STEPS = 5


def cloud(tmp_path, count: int):
    path = tmp_path / f"cloud{count}.toml"
    path.write_text(cloud_toml(count))
    return path


def plots_traced(controller) -> int:
    """Bytes new plots of ``controller``'s session hold after three samples and every plot prepared."""
    session = controller.timeline.session
    colors = np.resize(PALETTE_LINEAR, (len(session.scene.bodies), 3))
    newton = np.zeros(len(session.plotted))
    tracemalloc.start()
    try:
        history = new_series(session, colors)
        for _ in range(3):
            history.append(session.latest.sample, newton, 1.0)
        for plot in PLOTS:
            history.prepared(plot, 10.0)
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert len(history.names) <= MAX_LINES + len(session.exact_rows)
    return held


def test_the_plots_hold_what_they_draw_a_few_hundred_bytes_a_body(tmp_path):
    held = []
    for count in BODIES:
        controller, host = headless_controller(str(cloud(tmp_path, count)), str(tmp_path))
        controller.step(2)
        held.append(plots_traced(controller))
    per_body = (held[1] - held[0]) / (BODIES[1] - BODIES[0])
    assert per_body < PLOT_BYTES_PER_BODY, f"{per_body:.0f} B a body"


def test_a_cloud_plots_a_sample_of_its_bodies_with_their_names_and_colours(tmp_path):
    controller, host = headless_controller(str(cloud(tmp_path, 1000)), str(tmp_path))
    controller.step(3)
    history, session = host.series, controller.timeline.session
    assert history.bodies == 1000 and len(history.names) == len(history.line_rows) == MAX_LINES
    rows = history.rows
    assert history.names == [session.names[row] for row in rows]
    # The rows held are the session's, sample for sample.
    np.testing.assert_array_equal(history.series("energy_error")[-1], session.latest.sample.energy_error[-1][rows])
    np.testing.assert_array_equal(history.series("herpolhode")[-1], session.latest.sample.herpolhode[-1][rows])
    lines = history.prepared("energy", 10.0)
    assert lines.y.shape[0] == MAX_LINES and lines.drawn == list(range(MAX_LINES))


@pytest.fixture
def all_kinematic(tmp_path):
    path = tmp_path / "turntable.toml"
    path.write_text(
        '[[body]]\nname = "turntable"\nshape = "cylinder"\nradius = 1.6\nlength = 0.1\n'
        "[body.kinematic]\nangular_velocity = [0.0, 0.0, 0.5]\n"
    )
    return path


def test_a_scene_of_kinematic_bodies_only_runs_and_plots_nothing(tmp_path, all_kinematic):
    from spinlab.ui.controller_state import PanelEdits

    controller, host = headless_controller("t_handle", str(tmp_path))
    controller.apply(PanelEdits(scene=str(all_kinematic)))
    assert controller.form.scene_error is None and not controller.form.message_is_error
    assert controller.step(5) == 5 and controller.choices.error is None
    prepared = {plot: host.series.prepared(plot, 10.0) for plot in PLOTS}
    assert prepared["energy"].drawn == [] and prepared["energy"].y_range is None
    assert prepared["herpolhode"] is None and prepared["polhode"] is None
    controller.apply(PanelEdits(export_csv=True))
    assert not controller.form.message_is_error, controller.form.message
    # Started on it, as `gui FILE` does.
    controller, host = headless_controller(str(all_kinematic), str(tmp_path))
    assert controller.step(2) == 2 and host.series.prepared("cost", 10.0).newton.drawn == []


def _per_body(measure, counts=LARGE_BODIES) -> np.ndarray:
    """(held, peak) bytes per body of ``measure(count)`` over two sizes (each a pair of bytes, traced)."""
    measure(500)  # the first call's imports and caches, which do not grow with the bodies
    small, large = (np.array(measure(count), dtype=float) for count in counts)
    return (large - small) / (counts[1] - counts[0])


def _traced(work):
    """(held, peak) bytes traced while ``work()`` runs (its result held), and its result."""
    tracemalloc.start()
    try:
        result = work()
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return (held, peak), result


@pytest.mark.parametrize("reader", ["pieces", "plain"])
def test_the_scene_file_is_read_in_pieces_under_2_kB_a_body(tmp_path, monkeypatch, reader):
    """Both readers of a large file: in pieces (a file of any form), and the plain bodies' text reader
    (scene/files/body_text.py, a generated file's form), which holds every body's matched text at once."""
    monkeypatch.setattr(scene_file, "FAST_PARSE_BYTES", 0)
    monkeypatch.setattr(scene_file, "body_pieces", functools.partial(toml_file.body_pieces, piece_bytes=PIECE_BYTES))
    if reader == "pieces":
        monkeypatch.setattr(scene_file, "PLAIN_BYTES", float("inf"))

    def read(count):
        path = cloud(tmp_path, count)
        return _traced(lambda: scene_file.load_scene(path))[0]

    held, peak = _per_body(read)
    assert held < READER_HELD_BYTES_PER_BODY, f"{held:.0f} B a body held"
    limit = READER_PEAK_BYTES_PER_BODY if reader == "pieces" else PLAIN_READER_PEAK_BYTES_PER_BODY
    assert peak < limit, f"{peak:.0f} B a body at the peak"


def test_a_window_runs_references_and_measures_grow_by_a_few_hundred_bytes_a_body(tmp_path):
    def measured(count):
        scene = scene_file.load_scene(cloud(tmp_path, count))
        session = Session(Setup(scene, default_integrators(scene), h=scene.h), record=True)
        rows = session.plotted
        assert count <= ALL_MEASURED_MAX or len(session.references.measured) < ALL_MEASURED_MAX
        (made, references) = _traced(
            lambda: References(session.scene, session.initial, np.zeros(count), rows, measured=measured_rows(count))
        )
        session.step(4)
        steps = [session.simulation.snapshot()] * 4
        states = [np.stack([getattr(s, name)[rows] for s in steps]) for name in ("q", "omega_world", "L_world")]
        energy = np.stack([s.energy[rows] for s in steps])
        t = session.t + session.h * np.arange(4)
        (held, peak), _ = _traced(lambda: references.measure(t, *states, energy))
        return made[0], made[1], peak / 4

    held, peak, step_peak = _per_body(measured)
    assert max(held, peak) < REFERENCES_BYTES_PER_BODY, f"{held:.0f} B a body held, {peak:.0f} B at the peak"
    assert step_peak < MEASURE_BYTES_PER_BODY_STEP, f"{step_peak:.0f} B a body-step"


def test_a_large_clouds_plots_draw_the_rows_it_measures(tmp_path):
    count = ALL_MEASURED_MAX + 500
    controller, host = headless_controller(str(cloud(tmp_path, count)), str(tmp_path))
    controller.step(2)
    history, references = host.series, controller.timeline.session.references
    assert len(references.measured) == MAX_LINES < count
    assert set(history.rows.tolist()) <= set(references.measured.tolist())
    # Every line drawn has its closed form's measures; a row not measured has none.
    assert np.isfinite(history.series("orientation_error")[-1]).all()
    assert np.isfinite(history.series("herpolhode")[-1]).all()
    others = np.setdiff1d(np.arange(count), references.measured)
    assert np.isnan(controller.timeline.session.latest.sample.orientation_error[-1][others]).all()
    assert np.isfinite(controller.timeline.session.latest.sample.energy_error[-1]).all()


def test_the_window_less_its_drawing_takes_a_few_kB_a_body(tmp_path):
    def opened(count):
        path = cloud(tmp_path, count)

        def work():
            controller, host = headless_controller(str(path), str(tmp_path))
            for _ in range(WINDOW_STEPS):
                assert controller.step(1) == 1
            return controller, host

        return _traced(work)[0]

    held, peak = _per_body(opened)
    assert held < WINDOW_BYTES_PER_BODY, f"{held:.0f} B a body held"
    assert peak < WINDOW_PEAK_BYTES_PER_BODY, f"{peak:.0f} B a body at the peak"
