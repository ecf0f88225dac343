"""The first start (issue 15, point 7): the kernels compiled one integrator at a time on a worker thread, with a
splash in the window meanwhile, and the window handed on to the app."""

import threading
import time

import numpy as np
import pytest

from spinlab.commands import gui
from spinlab.scene.scene_file import load_scene
from spinlab.scene.warm_up import warm_up, warm_up_steps
from spinlab.ui.splash import BAR_RGBA, BAR_TRACK_RGBA, Warmup, show_splash, splash_lines


def test_warm_up_reports_each_integrator_in_turn_then_the_scene():
    scene = load_scene("compare")
    names = warm_up_steps(scene)
    assert len(names) == len(set(names)) == len(scene.bodies)  # one body per integrator in compare
    reports = []
    warm_up(scene, lambda done, total, what: reports.append((done, total, what)))
    total = len(names) + 1
    assert [done for done, _, _ in reports] == list(range(total + 1))
    assert {t for _, t, _ in reports} == {total}
    assert [what for _, _, what in reports[: len(names)]] == list(names)


def test_warm_up_of_a_scene_with_torque_steps_the_closed_form_torque_free(tmp_path):
    # A heavy top beside a free body on the closed form: the scene runs (the free body has no torque), so its
    # warm-up must not refuse it by stepping the closed form under the top's torque (a fuzz case, stop 14).
    path = tmp_path / "mixed.toml"
    path.write_text('[scene]\ngravity = [0.0, 0.0, -9.81]\ndt = 1.0\n'
                    '[[body]]\nshape = "t_handle"\nintegrator = "euler"\npivot = [0.0, 0.0, 0.0]\n'
                    '[[body]]\nshape = "t_handle"\nintegrator = "exact"\n')  # fmt: skip
    scene = load_scene(path)
    assert scene.has_torque and warm_up_steps(scene) == ("euler", "exact")
    reports = []
    warm_up(scene, lambda done, total, what: reports.append(done))
    assert reports == [0, 1, 2, 3]


def test_warm_up_raises_what_the_scene_check_raises(tmp_path):
    from spinlab.sim.errors import NumericalError

    path = tmp_path / "explodes.toml"
    # Implicit midpoint at a huge step and spin: Newton cannot converge on the first step.
    path.write_text('[scene]\ndt = 1.0\n[[body]]\nshape = "box"\ninertia = [1, 2, 2.9]\n'
                    'angular_velocity = [1e10, 1, 1]\nintegrator = "implicit_midpoint"\n')  # fmt: skip
    warmup = Warmup(lambda report: warm_up(load_scene(path), report))
    assert warmup.wait(120)
    with pytest.raises(NumericalError):
        warmup.result()


def test_splash_lines_say_what_is_compiled_and_how_far():
    lines = splash_lines((3, 9, "im4"), 2.04)
    assert lines[0] == "spinlab"
    assert "compiling" in lines[1] and "3 of 9 ready" in lines[2] and "im4" in lines[2] and "2.0 s" in lines[2]


def test_the_splash_draws_progress_until_the_work_ends_then_the_app_takes_the_window(x_display, monkeypatch):
    from spinlab.ui.app import App
    from spinlab.ui.capture import read_pixels
    from spinlab.ui.window import open_window

    release = threading.Event()
    seen = []

    def work(report):
        report(1, 2, "something slow")
        release.wait(30)
        report(2, 2, "")

    warmup = Warmup(work)
    window = open_window((640, 360), vsync=False)
    original = window.flip

    def flip():  # read the splash's frame before it is shown, then let the work end
        import moderngl

        seen.append(read_pixels(moderngl.get_context(), (0, 0, 640, 360)))
        release.set()
        original()

    monkeypatch.setattr(window, "flip", flip)
    assert show_splash(window, warmup)
    assert warmup.done and seen
    frame = seen[0].astype(float) / 255.0
    row = frame[_bar_row(frame)]
    # Half done: the bar's filled colour on the left half of the track, the track's on the right.
    assert _has(row, BAR_RGBA) and _has(row, BAR_TRACK_RGBA)
    monkeypatch.undo()
    app = App(load_scene("t_handle"), vsync=False, window=window)
    try:
        assert app.window is window
        app.run(max_fps=None, frames=2)
    finally:
        app.close()


def _bar_row(frame):
    """The row (top-down image) holding most of the bar's colour."""
    hits = np.all(np.abs(frame[..., :3] - np.array(BAR_RGBA[:3])) < 0.02, axis=-1).sum(axis=1)
    return int(hits.argmax())


def _has(row, rgba):
    return bool(np.any(np.all(np.abs(row[..., :3] - np.array(rgba[:3])) < 0.02, axis=-1)))


def test_a_fast_check_opens_no_window_and_a_slow_one_gives_the_app_the_splash_window(x_display, monkeypatch):
    scene = load_scene("t_handle")
    assert gui._warmed_up(scene, (640, 360), False) is None  # warm: done within SPLASH_AFTER_S, nothing opened
    import spinlab.scene.warm_up as warm_up_module

    def slow(spec, report):  # as a first start is: longer than SPLASH_AFTER_S
        time.sleep(2 * gui.SPLASH_AFTER_S)
        warm_up(spec, report)

    monkeypatch.setattr(warm_up_module, "warm_up", slow)
    window = gui._warmed_up(scene, (640, 360), False)
    from spinlab.ui.window import close_window

    try:
        assert window is not None and not window.has_exit
    finally:
        close_window(window)
