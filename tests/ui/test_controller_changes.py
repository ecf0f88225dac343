"""A scripted change and a change made in the past, through the window-free controller (tests/ui/headless_host.py):
the panel shows the gyroscopic term in force at the step shown, looking back too; the timeline and the plots mark
every switch; a branch's plots hold both runs; and an edit made looking back keeps the run's later steps, as the
original of a branch, which "keep the original" goes back to, and the panel says so."""

import numpy as np

from spinlab.scene.files.scene_file import load_scene
from spinlab.ui.controller import Controller
from spinlab.ui.controller_state import PanelEdits
from spinlab.ui.timeline import tick_fractions
from tests.scene.test_run_changes import changed_scene
from tests.ui.headless_host import SessionHost

OFF_AT_1_S = "\n[[change]]\ntime = 1.0\ngyroscopic = false\n"  # step 60 at h = 1/60 s


def controller_on(scene, tmp_path):
    host = SessionHost()
    controller = Controller(scene, host, output_dir=str(tmp_path))
    host.form = controller.form
    controller.start()
    return controller, host


def test_the_panel_shows_the_term_a_scripted_change_set_at_the_step_shown(tmp_path):
    controller, _ = controller_on(changed_scene(tmp_path, OFF_AT_1_S), tmp_path)
    form = controller.form
    assert form.in_force.gyroscopic is True
    controller.step(90)
    assert form.in_force.gyroscopic is False, "past the change the box is unticked"
    for step, on in ((59, True), (60, False), (30, True), (90, False)):  # looking back, and to the run now
        controller.apply(PanelEdits(seek=step))
        assert controller.timeline.shown_step == step and form.in_force.gyroscopic is on, step
    assert controller.timeline.session.simulation.world.gyroscopic is False


def test_the_timeline_and_the_plots_mark_every_switch(tmp_path):
    controller, host = controller_on(changed_scene(tmp_path, OFF_AT_1_S), tmp_path)
    controller.step(90)
    controller.apply(PanelEdits(gyroscopic=True))  # switched on again at the run now, step 90
    timeline = controller.timeline
    marks = [(change.step, change.gyroscopic, change.scripted) for change in timeline.changes]
    assert marks == [(60, False, True), (90, True, False)]
    assert [(change.t, change.gyroscopic) for change in host.series.changes] == [(1.0, False), (1.5, True)]
    assert tick_fractions([change.step for change in timeline.changes], 0, 90) == [60 / 90, 1.0]
    # Looking back, the plots (made again from the record) still know the run's switches.
    controller.apply(PanelEdits(seek=45))
    assert [change.step for change in host.series.changes] == [60, 90]


def test_a_branchs_plots_hold_both_runs(tmp_path):
    controller, host = controller_on(load_scene("t_handle"), tmp_path)
    controller.step(120)
    controller.apply(PanelEdits(seek=60))
    controller.apply(PanelEdits(branch=True))
    controller.apply(PanelEdits(gyroscopic=False))
    controller.step(60)
    timeline, series = controller.timeline, host.series
    original = timeline.original
    assert original is not None and series.original is not None
    assert timeline.shown_step == original.step == 120
    np.testing.assert_array_equal(series.t(), series.original.t())
    # The original's plots are its own run's measures, step for step; the branch's part from them after step 60.
    recorded = original.session.record.steps_until(120, 121).sample.energy_error[:, 0]
    np.testing.assert_array_equal(series.original.series("energy_error")[:, 0], recorded)
    mine, theirs = series.series("orientation_error")[:, 0], series.original.series("orientation_error")[:, 0]
    np.testing.assert_array_equal(mine[:61], theirs[:61])
    assert np.all(mine[62:] != theirs[62:])
    # Looking back in the branch, both plots end at the step shown.
    controller.apply(PanelEdits(seek=90))
    assert host.series.original is not None and host.series.original.t()[-1] == host.series.t()[-1] == 1.5
    controller.apply(PanelEdits(branch=True))  # ended: the branch's run alone
    assert host.series.original is None and controller.timeline.original is None


def test_an_edit_made_looking_back_keeps_the_later_steps_and_says_so(tmp_path):
    controller, host = controller_on(load_scene("t_handle"), tmp_path)
    controller.step(120)
    was = controller.timeline.session
    controller.apply(PanelEdits(seek=60))
    controller.apply(PanelEdits(gyroscopic=False))
    timeline, form = controller.timeline, controller.form
    assert timeline.moment is None and timeline.session.simulation.step_index == 60
    assert timeline.session.simulation.world.gyroscopic is False and form.in_force.gyroscopic is False
    # The run as it was, its later steps and all, goes on beside it as the original.
    assert timeline.original is not None and timeline.original.session is was and was.record.last_step == 120
    assert form.message.startswith("changed at t = 1 s as a branch: the run as it was, 1 s further")
    assert "keep the original" in form.message and not form.message_is_error
    controller.step(30)
    # Undone: the run as it was again, shown at the step the branch showed, its future still there.
    controller.apply(PanelEdits(back_to_original=True))
    assert timeline.original is None and timeline.session is was and was.record.last_step == 120
    assert timeline.shown_step == 90 and timeline.moment is not None
    assert form.in_force.gyroscopic is True and was.simulation.world.gyroscopic is True
    assert form.message.startswith("back to the original at t = 1.5 s")
    assert host.series.original is None and host.series.t()[-1] == 1.5


def test_in_a_branch_an_edit_made_looking_back_says_what_it_forgets(tmp_path):
    controller, _ = controller_on(load_scene("t_handle"), tmp_path)
    controller.step(120)
    controller.apply(PanelEdits(seek=60))
    controller.apply(PanelEdits(branch=True))
    controller.step(60)
    controller.apply(PanelEdits(seek=90))
    controller.apply(PanelEdits(divergence=0.01))
    assert controller.timeline.original is not None and controller.timeline.session.simulation.step_index == 90
    assert controller.form.message == (
        "changed at t = 1.5 s: the branch's 0.5 s after it are forgotten (the original keeps its own)"
    )
    assert controller.form.in_force.divergence == 0.01


def test_a_reset_after_a_scripted_change_runs_the_scene_as_its_file_says(tmp_path):
    controller, _ = controller_on(changed_scene(tmp_path, OFF_AT_1_S), tmp_path)
    controller.step(90)
    controller.apply(PanelEdits(seek=75, branch=True))  # branched past the change: the term is off there
    assert controller.form.in_force.gyroscopic is False
    controller.apply(PanelEdits(reset=True))
    assert controller.timeline.original is None and controller.form.in_force.gyroscopic is True
    controller.step(90)
    assert [change.step for change in controller.timeline.changes] == [60] and not controller.form.in_force.gyroscopic
