"""Going back in time in the real window (Xvfb): a past step is drawn again exactly as it was first drawn, whether
jumped to or played on to through the recorded steps, and a change made there goes on from that exact state.

The views (bodies, labels, trails, exact ghosts, the key) are read back from the framebuffer before ImGui draws over
them (``App.draw_views``): the panel says "paused" while looking back, which is not what is compared.
"""

import numpy as np
import pytest

from spinlab.scene.model.run_model import Session
from spinlab.ui.capture import read_pixels
from spinlab.ui.controller import KEYS
from spinlab.ui.controller_state import PanelEdits
from tests.ui.window_frames import finished_video, run_frames, start_running, state_bytes


def views_image(app) -> np.ndarray:
    """The 3D views as drawn now (after the frame's update)."""
    area = app.draw_views(app.window_frame.framebuffer)
    return read_pixels(app.window_frame.framebuffer, area)


@pytest.fixture
def compare_run(app, monkeypatch):
    """The compare preset run for ~12 s, 8 steps a frame, the views' images at four steps on the way.

    Each frame takes all its steps however busy the machine (the step budget lifted): ~90 frames, where a busy
    machine's frames fit fewer steps in the budget and drew several times as many."""
    from spinlab.ui import frame_steps

    monkeypatch.setattr(frame_steps, "STEP_BUDGET_S", 1.0)
    monkeypatch.setattr(frame_steps, "STEP_BUDGET_MOST_S", 1.0)
    state = app.state
    start_running(app, "compare")
    images = {}
    for frame in range(41):
        run_frames(app, 1)
        if frame in (10, 25, 40):
            images[app.timeline.session.simulation.step_index] = views_image(app)
    while app.timeline.session.t <= 11.5:
        run_frames(app, 1)
    images[app.timeline.session.simulation.step_index] = views_image(app)
    assert state.error is None
    return images


def test_a_past_step_is_drawn_again_as_it_was_first_drawn(app, compare_run):
    steps = sorted(compare_run)
    present = steps[-1]
    assert (present - steps[0]) * app.timeline.session.h > 10.0, "back more than 10 s"
    for step in (steps[0], steps[2], steps[1], present):  # back 10 s, on, back, and to the run now
        app.pending = PanelEdits(seek=step)
        run_frames(app, 1)
        assert app.timeline.shown_step == step and app.state.paused
        assert np.array_equal(views_image(app), compare_run[step]), step
    assert app.timeline.moment is None and app.timeline.session.simulation.step_index == present, (
        "seeking steps nothing"
    )


def test_playing_the_recorded_steps_draws_them_as_they_were(app, compare_run):
    first, second = sorted(compare_run)[:2]
    app.pending = PanelEdits(seek=first)
    run_frames(app, 1)
    present = app.timeline.session.simulation.step_index
    app.state.paused, app.pacing.accumulator.seconds = False, 0.0  # 8 steps a frame from here
    while app.timeline.shown_step + 8 <= second:
        run_frames(app, 1)  # played on through the recorded steps, several a frame
    app.state.paused = True
    run_frames(app, 1)
    played, landed = views_image(app), app.timeline.shown_step
    assert first < landed <= second
    for step in (first, landed):  # away and back: drawn from the history at once
        app.pending = PanelEdits(seek=step)
        run_frames(app, 1)
    assert np.array_equal(views_image(app), played), "played on step by step = drawn from the history at once"
    while app.timeline.shown_step < second:
        app.controller.key(KEYS["right"])  # the last few one by one
        run_frames(app, 1)
    assert app.timeline.shown_step == second
    assert np.array_equal(views_image(app), compare_run[second])
    assert app.timeline.session.simulation.step_index == present, "the recorded steps are replayed, not taken again"


def test_a_change_made_at_a_past_step_goes_on_from_its_exact_state(app, compare_run):
    back = sorted(compare_run)[1]
    app.pending = PanelEdits(seek=back)
    run_frames(app, 1)
    app.pending = PanelEdits(gyroscopic=False)
    run_frames(app, 1)  # paused: the change only
    session = app.timeline.session
    assert session.simulation.step_index == back and session.record.last_step == back
    assert app.timeline.moment is None and app.state.gyroscopic is False
    app.state.paused = False
    run_frames(app, 5)
    # The same run taken alone: the same steps, the gyroscopic term off at the same step.
    alone = Session(session.initial_setup)
    alone.step(back)
    alone.set_gyroscopic(False)
    alone.step(session.simulation.step_index - back)
    assert state_bytes(alone.simulation.snapshot()) == state_bytes(session.simulation.snapshot())


def test_the_keys_move_through_the_history(app, compare_run):
    present = sorted(compare_run)[-1]
    controller = app.controller
    for key, expected in (("home", 0), ("right", 1), ("right", 2), ("left", 1), ("end", present)):
        assert controller.key(KEYS[key])
        run_frames(app, 1)
        assert app.timeline.shown_step == expected, key
    assert app.timeline.session.simulation.step_index == present


def test_a_kick_struck_at_a_past_step_lands_on_the_next(app, compare_run):
    back = sorted(compare_run)[0]
    app.pending = PanelEdits(seek=back)
    run_frames(app, 1)
    app.pending = PanelEdits(kick=(0, (0.0, 0.5, 0.0)))
    run_frames(app, 1)
    kicks = app.timeline.session.simulation.kicks
    assert app.timeline.session.simulation.step_index == back
    assert kicks.due(back + 1), "the kick lands on the step after the one shown"


def test_record_while_looking_back_writes_the_history_to_the_run_now(app, compare_run):
    import av

    present = sorted(compare_run)[-1]
    app.pending = PanelEdits(seek=present - 60)
    run_frames(app, 1)
    app.state.time_scale_exp = 0  # one step a video frame at h = 1/60
    # A step still owed from the live run, as its last frame short of its steps leaves it (a busy machine): the
    # video's frames count from the recording's start, its first frame one step too.
    app.pacing.accumulator.seconds = app.timeline.session.h
    app.pending = PanelEdits(toggle_record=True)
    for _ in range(80):
        run_frames(app, 1)
        if app.recorder.recording is None:
            break
    assert app.recorder.recording is None and app.state.paused, "stopped, paused, at the run now"
    assert app.timeline.shown_step == present == app.timeline.session.simulation.step_index, (
        "no step taken past the history"
    )
    with av.open(str(finished_video(app))) as container:
        frames = sum(1 for _ in container.decode(video=0))
    assert frames == 60  # steps present - 59 ... present, one a frame
