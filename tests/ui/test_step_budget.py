"""The window's stepping within its budget (scene/model/timeline.py's ``Timeline.step``): a frame whose steps are
dear takes the steps the session fits in the budget, and no more."""

import pytest


@pytest.fixture
def ten_ms_steps(app, monkeypatch):
    """The window's and the session's clock faked, and moved on by 10 ms at each step of the app's current run
    (measuring a step's results costs nothing on it). Returns the patch for a run made later."""
    from spinlab.scene.model import run_model, timeline
    from spinlab.ui import app as app_module

    clock = [0.0]
    fake_time = type("Clock", (), {"perf_counter": staticmethod(lambda: clock[0])})
    monkeypatch.setattr(run_model, "time", fake_time)
    monkeypatch.setattr(app_module, "time", fake_time)
    monkeypatch.setattr(timeline, "time", fake_time)

    def dear_steps() -> None:
        simulation = app.timeline.session.simulation
        real_step = simulation.step

        def ten_ms_step():
            clock[0] += 0.010
            return real_step()

        monkeypatch.setattr(simulation, "step", ten_ms_step)

    dear_steps()
    return dear_steps


def test_a_frame_stops_stepping_when_the_session_stops_for_the_budget(app, ten_ms_steps):
    # Once the session knows a step's cost, a 25 ms budget fits 2 steps (ending at 20 ms). The window used to ask
    # the session again with 5 ms left, and a session's first step is always taken: 3 steps, 30 ms (on the numpy
    # paths, 2 steps of 25 ms: a 0.1 s frame).
    app.controller.step(1)  # the session learns what a step costs
    taken = [app.controller.step(100, budget_s=0.025) for _ in range(3)]
    assert taken == [2, 2, 2]
    assert app.controller.step(5) == 5  # no budget, no limit


def test_a_recording_whose_steps_are_dear_records_each_video_frame_at_its_own_step(app, ten_ms_steps, monkeypatch,
                                                                                  tmp_path):  # fmt: skip
    # A frame's budget (25 ms at most) fits 2 or 3 steps of 10 ms. A video frame is 1/60 s of the run: the window
    # takes its steps over two frames and records only the frame that gets there. The recorded steps are those a
    # video's frames show (scene/running/pacing.py), whatever the cost; the window used to take them all in one
    # frame, as long as they took.
    import dataclasses

    from spinlab.scene.running.pacing import steps_to

    app.state.paused, app.state.time_scale_exp = False, 0
    app.timeline.restart(dataclasses.replace(app.timeline.session.setup, h=1 / 240))  # 4 steps a video frame
    ten_ms_steps()
    recorded: list[int] = []
    record_frame = app.recorder.record_frame

    def noted(framebuffer, viewport):
        recorded.append(app.timeline.session.simulation.step_index)
        record_frame(framebuffer, viewport)

    monkeypatch.setattr(app.recorder, "record_frame", noted)
    h, start, owed = app.timeline.session.h, app.timeline.session.simulation.step_index, app.pacing.accumulator.seconds
    app.start_recording(tmp_path / "dear.mp4")
    try:
        for _ in range(12):
            app.frame(1 / 60)
    finally:
        app.stop_recording()
        app.recorder.collect_finished(wait=True)
    assert len(recorded) >= 3
    assert len(recorded) < 12  # frames short of their video frame's steps were not recorded
    expected = [start + steps_to(0, h, (k + 1) / 60 + owed) for k in range(len(recorded))]
    assert recorded == expected


def test_a_recording_stopped_short_of_its_frames_steps_leaves_the_live_run_dropping_what_it_cannot_catch_up(
    app, ten_ms_steps, tmp_path
):
    # Stopped while a video frame's steps were still owed, the window goes back to live pacing: a frame that cannot
    # take all its steps keeps at most one owed, instead of keeping the recording's debt and every later one.
    import dataclasses

    app.state.paused, app.state.time_scale_exp = False, 0
    app.timeline.restart(dataclasses.replace(app.timeline.session.setup, h=1 / 240))
    ten_ms_steps()
    app.start_recording(tmp_path / "short.mp4")
    try:
        app.frame(1 / 60)
        app.frame(1 / 60)  # 4 steps a video frame, 2 or 3 a frame: the second frame ends short
    finally:
        app.stop_recording()
        app.recorder.collect_finished(wait=True)
    for _ in range(3):
        app.frame(1 / 60)  # live: 4 steps due a frame, 2 or 3 taken
    assert app.pacing.accumulator.seconds <= app.timeline.session.h * (1 + 1e-9)
