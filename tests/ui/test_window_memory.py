"""What the window holds per body (issue 26, point 3): the plots hold the rows they draw, not a history of every
body (ui/plot_history.py's ``new_history``; a history of every body took ~0.7 MB each: 5.6 GB for 8,000 bodies).
Measured with tracemalloc over two cloud sizes, so that what does not grow with the bodies cancels out. The
renderer's share (trails, layout, instance rows) is tests/render/test_renderer_memory.py's."""

import tracemalloc

import numpy as np
import pytest

from spinlab.benchmarks.cloud import cloud_toml
from spinlab.render.look import PALETTE_LINEAR
from spinlab.ui.plot_history import MAX_LINES, new_history
from tests.ui.headless_host import headless_controller

BODIES = (300, 1500)
# The plots' share of the window per body: the names and the colours of the integrators' rows (~100 B).
PLOT_BYTES_PER_BODY = 500
PLOTS = ("energy", "momentum", "orientation", "cost", "herpolhode", "polhode")


def cloud(tmp_path, count: int):
    path = tmp_path / f"cloud{count}.toml"
    path.write_text(cloud_toml(count))
    return path


def plots_traced(host) -> int:
    """Bytes a new history of ``host``'s session holds after three samples and every plot prepared."""
    session = host.session
    colors = np.resize(PALETTE_LINEAR, (len(session.scene.bodies), 3))
    newton = np.zeros(len(session.plotted))
    tracemalloc.start()
    try:
        history = new_history(session, colors)
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
        host.step(2)
        held.append(plots_traced(host))
    per_body = (held[1] - held[0]) / (BODIES[1] - BODIES[0])
    assert per_body < PLOT_BYTES_PER_BODY, f"{per_body:.0f} B a body"


def test_a_cloud_plots_a_sample_of_its_bodies_with_their_names_and_colours(tmp_path):
    controller, host = headless_controller(str(cloud(tmp_path, 1000)), str(tmp_path))
    host.step(3)
    history, session = host.history, host.session
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
    assert host.step(5) == 5 and host.choices.error is None
    prepared = {plot: host.history.prepared(plot, 10.0) for plot in PLOTS}
    assert prepared["energy"].drawn == [] and prepared["energy"].y_range is None
    assert prepared["herpolhode"] is None and prepared["polhode"] is None
    controller.apply(PanelEdits(export_csv=True))
    assert not controller.form.message_is_error, controller.form.message
    # Started on it, as `gui FILE` does.
    controller, host = headless_controller(str(all_kinematic), str(tmp_path))
    assert host.step(2) == 2 and host.history.prepared("cost", 10.0).newton.drawn == []
