"""``run``'s figures as columns (scene/model/runner.py's RunSummary): the table of 10⁵ bodies is made from them at
once, with no object a body; a row is a BodySummary only when asked for."""

import numpy as np

from spinlab.commands.run import format_summary
from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.model import runner


def test_the_table_is_made_from_columns_and_a_row_on_asking(monkeypatch):
    made = []
    original = runner.BodySummary
    monkeypatch.setattr(runner, "BodySummary", lambda *fields: made.append(fields) or original(*fields))
    scene = load_scene("compare")
    summary = runner.run_scene(scene, integrator=None, h=scene.h, duration=2 * scene.h)
    table = format_summary([summary])
    assert made == [] and len(table.splitlines()) == 2 + len(scene.bodies)
    row = summary[1]
    assert len(made) == 1 and row.body == scene.bodies[1].name and row.integrator == scene.bodies[1].integrator
    assert row.wall_seconds == summary.wall_seconds and [r.body for r in summary[:2]] == summary.body[:2]


def test_run_makes_no_curves_its_table_does_not_show(monkeypatch):
    """``run``'s table shows the errors alone: its references make no polhode or invariable-plane axes and count no
    flips (the window's do), and the errors are those of a run that made them."""
    from spinlab.scene.model import samples

    made = []
    for name in ("plane_axes_of", "polhode_axes_of"):
        original = getattr(samples, name)
        monkeypatch.setattr(samples, name, lambda *args, _f=original, _n=name: made.append(_n) or _f(*args))
    scene = load_scene("compare")
    summary = runner.run_scene(scene, integrator=None, h=scene.h, duration=3 * scene.h)
    assert made == []
    session = runner.Session(runner.Setup(scene, runner.scene_integrators(scene, None), h=scene.h, gyroscopic=True))
    session.step(3)
    assert sorted(made) == ["plane_axes_of", "polhode_axes_of"]
    sample = session.sample()
    assert sample.flips is not None
    assert summary.energy_error == sample.energy_error.tolist()
    assert summary.orientation_error == sample.orientation_error.tolist()


def test_references_without_curves_measure_a_sample_of_the_bodies_too():
    from spinlab.scene.model.samples import References

    scene = load_scene("compare")
    session = runner.Session(runner.Setup(scene, runner.scene_integrators(scene, None), h=scene.h, gyroscopic=True))
    session.step(2)
    rows = session.plotted
    start, now = session.initial, session.snapshot
    energy = np.zeros(len(scene.bodies))
    sampled = References(scene, start, energy, rows, measured=np.array([0, 2]), curves=False)
    every = References(scene, start, energy, rows)
    args = (np.array([now.t]), now.q[None, rows], now.omega_world[None, rows], now.L_world[None, rows])
    few, all_of_them = sampled.measure(*args, now.energy[None, rows]), every.measure(*args, now.energy[None, rows])
    assert few.flips is None and np.isnan(few.polhode).all()
    np.testing.assert_array_equal(few.orientation_error[:, [0, 2]], all_of_them.orientation_error[:, [0, 2]])
    np.testing.assert_array_equal(few.energy_error, all_of_them.energy_error)
