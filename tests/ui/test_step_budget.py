"""The window's stepping within its budget (ui/app.py's ``App.step``): a frame whose steps are dear takes the steps
the session fits in the budget, and no more."""


def test_a_frame_stops_stepping_when_the_session_stops_for_the_budget(app, monkeypatch):
    # A clock that a step moves on by 10 ms, measuring by nothing: once the session knows a step's cost, a 25 ms
    # budget fits 2 steps (ending at 20 ms). The window used to ask the session again with 5 ms left, and a
    # session's first step is always taken: 3 steps, 30 ms (on the numpy paths, 2 steps of 25 ms: a 0.1 s frame).
    from spinlab.scene.model import run_model
    from spinlab.ui import app as app_module

    clock = [0.0]
    fake_time = type("Clock", (), {"perf_counter": staticmethod(lambda: clock[0])})
    monkeypatch.setattr(run_model, "time", fake_time)
    monkeypatch.setattr(app_module, "time", fake_time)
    simulation = app.session.simulation
    real_step = simulation.step

    def ten_ms_step():
        clock[0] += 0.010
        return real_step()

    monkeypatch.setattr(simulation, "step", ten_ms_step)
    app.step(1)  # the session learns what a step costs
    taken = [app.step(100, budget_s=0.025) for _ in range(3)]
    assert taken == [2, 2, 2]
    assert app.step(5) == 5  # no budget, no limit
