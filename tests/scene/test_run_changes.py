"""A run's changes read from the run itself (scene/model/run_changes.py): the gyroscopic term in force at any step is
its setup's, switched by the scene's [[change]] tables and by the switches made while it ran, in the order the
simulation makes them; the views' labels carry a caption for a few seconds after each switch, in the window and in
a video alike."""

import pytest

from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.model.run_changes import CAPTION_S, in_force, run_changes
from spinlab.scene.model.run_model import Session, Setup, default_integrators, view_labels

CHANGES = "\n[[change]]\ntime = 1.0\ngyroscopic = false\n\n[[change]]\ntime = 2.0\ngyroscopic = false\n"


def changed_scene(tmp_path, changes=CHANGES):
    """The t_handle preset (h = 1/60 s) with ``changes`` appended."""
    path = tmp_path / "changed.toml"
    path.write_text(load_scene("t_handle").path.read_text(encoding="utf-8") + changes, encoding="utf-8")
    return load_scene(path)


def test_the_term_in_force_follows_the_scripted_changes_then_the_switches(tmp_path):
    scene = changed_scene(tmp_path)
    session = Session(Setup(scene, default_integrators(scene), h=scene.h), record=True)
    session.step(150)
    session.set_gyroscopic(True)  # at step 150, between the two scripted changes
    session.step(100)
    # The change to the term already in force (off at 2 s, switched on at 2.5 s) is none; the switch at 2.5 s is.
    assert [(c.step, c.gyroscopic, c.scripted) for c in run_changes(session)] == [(60, False, True), (150, True, False)]
    assert [in_force(session, step).gyroscopic for step in (0, 59, 60, 149, 150, 250)] == [
        True, True, False, False, True, True,
    ]  # fmt: skip
    # What the simulation took: the term in force at its last step.
    assert session.simulation.world.gyroscopic is in_force(session, session.simulation.step_index).gyroscopic


def test_a_scripted_change_and_a_switch_at_the_same_step_the_switch_last(tmp_path):
    scene = changed_scene(tmp_path, "\n[[change]]\ntime = 0.5\ngyroscopic = false\n")
    session = Session(Setup(scene, default_integrators(scene), h=scene.h))
    session.step(30)
    assert session.simulation.world.gyroscopic is False
    session.set_gyroscopic(True)  # made after the step boundary's change, as the simulation made it
    assert in_force(session, 30).gyroscopic is True and session.simulation.world.gyroscopic is True
    assert [(change.step, change.gyroscopic) for change in run_changes(session)] == [(30, False), (30, True)]


def test_the_divergence_threshold_in_force_is_the_setups_then_the_edits():
    scene = load_scene("t_handle")
    session = Session(Setup(scene, default_integrators(scene), h=scene.h, divergence=0.5))
    session.step(10)
    session.set_divergence(0.01)
    assert in_force(session, 9).divergence == 0.5 and in_force(session, 10).divergence == 0.01


@pytest.mark.parametrize(("step", "shown"), [(59, False), (60, True), (60 + round(60 * CAPTION_S) - 1, True),
                                             (60 + round(60 * CAPTION_S), False)])  # fmt: skip
def test_the_views_labels_carry_a_caption_for_a_few_seconds_after_a_change(tmp_path, step, shown):
    scene = changed_scene(tmp_path)
    session = Session(Setup(scene, default_integrators(scene), h=scene.h))
    session.step(step)
    lines = view_labels(session, session.groups)[0]
    assert ("gyroscopic term off at t = 1.00 s" in lines) is shown, lines
