"""A branch in the real window (Xvfb): from a past step, a second run goes on with the gyroscopic term off beside
the original, both futures in lock step, and the original's future is the one it had recorded; saved, the branch is
a scene file that runs it again."""

import dataclasses

import numpy as np
import pytest

from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.model.branch import divergence_angles
from spinlab.scene.model.run_model import Session
from spinlab.ui.controller import KEYS
from spinlab.ui.controller_state import PanelEdits
from tests.ui.window_frames import run_frames, start_running, state_bytes


@pytest.fixture
def t_handle_run(app):
    """t_handle run for 6 s at 8 steps a frame, then looked back at t = 4 s."""
    state = app.state
    start_running(app, "t_handle")
    while app.timeline.session.t < 6.0:
        run_frames(app, 1)
    four = round(4.0 / app.timeline.session.h)
    app.pending = PanelEdits(seek=four)
    run_frames(app, 1)
    assert app.timeline.shown_step == four and state.paused
    yield four
    app.pending = PanelEdits(reset=True)  # a restart ends the branch
    run_frames(app, 1)
    assert app.timeline.original is None


def test_a_branch_with_the_gyroscopic_term_off_runs_beside_the_original(app, t_handle_run):
    four = t_handle_run
    original = app.timeline.session
    recorded = {step: original.record.steps_until(step).snapshots[-1] for step in (four + 40, four + 80)}
    assert app.controller.key(KEYS["b"])
    run_frames(app, 1)
    assert app.timeline.original is not None and app.timeline.original.session is original, (
        "the original is kept, history and all"
    )
    branch = app.timeline.session
    assert branch is not original and branch.simulation.step_index == four
    app.pending = PanelEdits(gyroscopic=False)  # applies to the branch alone
    run_frames(app, 1)
    assert branch.simulation.world.gyroscopic is False and original.simulation.world.gyroscopic is True
    app.state.paused, app.pacing.accumulator.seconds = False, 0.0
    while app.timeline.shown_step < four + 80:
        run_frames(app, 1)
    app.state.paused = True
    run_frames(app, 1)
    step = app.timeline.shown_step
    assert app.timeline.original.step == step, "both futures at the same step"
    # The original's future is the one it had recorded; the branch's is the run taken alone with the term off.
    shown = app.timeline.original.shown.drawable()
    if step in recorded:
        assert state_bytes(shown) == state_bytes(recorded[step])
    alone = Session(branch.initial_setup)
    alone.step(four)
    alone.set_gyroscopic(False)
    alone.step(step - four)
    assert state_bytes(alone.snapshot) == state_bytes(branch.snapshot)
    # The two futures part: the branch's label says by how much.
    labels = app.timeline.view_labels(app.view.groups)
    assert labels[0][0].endswith("· branch") and labels[0][-1].startswith("Δθ from the original = ")
    assert float(labels[0][-1].split("= ")[1].split()[0]) > 1e-6
    # ... and the orientation plot draws the divergence at every step since the branch: none at its first step, the
    # label's at the step shown.
    divergence = app.timeline.divergence(app.view.groups, app.plots.series.rgb)
    assert divergence is not None and app.plots.series.divergence is not None
    np.testing.assert_array_equal(divergence.t, np.arange(four, step + 1) * branch.h)
    assert divergence.angle.shape == (1, step - four + 1) and divergence.angle[0, 0] == 0.0
    assert divergence.angle[0, -1] == divergence_angles(branch, app.timeline.original.shown, app.view.groups)[0]
    assert np.all(divergence.angle[0, 1:] > 0.0)
    left, right = app.view.viewports[0], app.display.original_view.view.viewports[0]
    assert right[0] + right[2] <= left[0], "the original on the left, the branch on the right"


@pytest.mark.usefixtures("t_handle_run")
def test_the_original_is_stepped_on_past_its_recorded_future(app):
    original = app.timeline.session
    last = original.record.last_step
    app.pending = PanelEdits(branch=True)
    run_frames(app, 1)
    app.state.paused, app.pacing.accumulator.seconds = False, 0.0
    while app.timeline.shown_step <= last + 16:
        run_frames(app, 1)
    assert original.simulation.step_index == app.timeline.shown_step == app.timeline.original.step
    assert original.record.last_step == app.timeline.shown_step
    # Stepped on alike: the original and the branch (no change made) are the same run.
    assert np.array_equal(app.timeline.session.snapshot.q, original.snapshot.q)
    assert app.timeline.view_labels(app.view.groups)[0][-1] == "as the original"


def test_a_branch_saved_as_a_scene_file_runs_again_bit_for_bit(app, t_handle_run, tmp_path):
    four = t_handle_run
    app.pending = PanelEdits(branch=True)
    run_frames(app, 1)
    app.pending = PanelEdits(gyroscopic=False)
    run_frames(app, 1)
    branch = app.timeline.session
    app.state.paused, app.pacing.accumulator.seconds = False, 0.0
    while app.timeline.shown_step < four + 40:
        run_frames(app, 1)
    app.state.paused = True
    run_frames(app, 1)
    saved = tmp_path / "branch.toml"
    app.pending = PanelEdits(save_text=str(saved), save_scene=True)
    run_frames(app, 1)
    assert app.form.message == f"scene saved to {saved}" and not app.form.message_is_error
    # The original scene plus the switch made at the branch's moment.
    scene = load_scene(saved)
    assert [(change.time, change.gyroscopic) for change in scene.changes] == [(four * branch.h, False)]
    again = Session(dataclasses.replace(branch.initial_setup, scene=scene))
    again.step(branch.simulation.step_index)
    assert state_bytes(again.snapshot) == state_bytes(branch.snapshot)


@pytest.mark.parametrize("back", [0, 30])
def test_a_branch_in_the_first_second_runs_on_past_its_checkpoints(app, back):
    """Branched before the run's first checkpoint (step 60: the start is rebuilt, not copied), with the gyroscopic
    term off, the branch runs on past two checkpoints in the window: the window once ended here."""
    start_running(app, "t_handle")
    while app.timeline.session.simulation.step_index < 70:
        run_frames(app, 1)
    app.pending = PanelEdits(seek=back)
    run_frames(app, 1)
    assert app.controller.key(KEYS["b"])
    run_frames(app, 1)
    app.pending = PanelEdits(gyroscopic=False)
    app.state.paused = False
    while app.timeline.session.simulation.step_index < back + 130:
        run_frames(app, 1)
    assert app.state.error is None and app.timeline.original is not None
    assert app.timeline.original.step == app.timeline.shown_step
    assert not app.form.message_is_error, app.form.message
