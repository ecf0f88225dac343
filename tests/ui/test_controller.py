"""The window's controller with no window (no display, no GL, no ImGui): integrator switching, side by side, the
time step, keys, pause and single step, all on real runs (tests/ui/headless_host.py). Loading and saving scenes,
bad values and failures: tests/ui/test_controller_faults.py."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from spinlab.sim.integrators import INTEGRATORS, METHODS
from spinlab.sim.quaternion import quat_conj, quat_rotate
from spinlab.ui.controller import KEYS, step_text
from spinlab.ui.controller_state import PanelEdits
from tests.hang import HANG_S
from tests.ui.headless_host import headless_controller

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def controller(tmp_path):
    return headless_controller("t_handle", str(tmp_path))[0]


def apply(controller, **fields):
    controller.apply(PanelEdits(**fields))
    return controller


def omega_body_y(session, body=0):
    snapshot = session.snapshot
    return quat_rotate(quat_conj(snapshot.q[body]), snapshot.omega_world[body])[1]


def test_the_controller_needs_no_gl_no_window_and_no_imgui():
    code = (
        "import sys, spinlab.ui.controller, spinlab.ui.controller_state, spinlab.ui.edits\n"
        "loaded = [m for m in sys.modules if m.split('.')[0] in ('moderngl', 'pyglet', 'imgui_bundle', 'OpenGL')]\n"
        "print(loaded)\n"
    )
    environment = {key: value for key, value in os.environ.items() if key != "DISPLAY"}
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=environment, capture_output=True, text=True, timeout=HANG_S
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_the_choices_are_the_setup_of_the_running_session(controller):
    choices, session = controller.choices, controller.timeline.session
    assert session.setup == choices.setup()
    assert choices.scene_name == "t_handle" and choices.body_names == ["handle"]
    assert choices.integrators == ["implicit_midpoint"] and controller.form.h_text == "1/60"


def test_switching_an_integrator_restarts_with_it(tmp_path):
    controller, host = headless_controller("compare", str(tmp_path))
    apply(controller, step=True)
    assert controller.timeline.session.t > 0.0
    apply(controller, integrator=(0, "implicit_midpoint"))
    assert controller.timeline.session.simulation.body_integrators[0] == "implicit_midpoint"
    assert controller.choices.integrators[0] == "implicit_midpoint"
    assert controller.timeline.session.t == 0.0, "changing an integrator restarts the run"
    assert controller.timeline.session.setup == controller.choices.setup()


def test_one_integrator_for_every_body_keeps_kinematic_bodies_kinematic(tmp_path):
    controller, host = headless_controller("hierarchy", str(tmp_path))
    before = controller.choices.integrators
    assert None in before and any(name is not None for name in before)
    apply(controller, integrator=(None, "rkmk4"))
    after = controller.choices.integrators
    assert [name is None for name in after] == [name is None for name in before]
    assert {name for name in after if name is not None} == {"rkmk4"}
    assert controller.timeline.session.setup == controller.choices.setup() and controller.timeline.session.t == 0.0


def test_side_by_side_runs_each_compared_integrator_from_the_same_state(controller):
    apply(controller, side_by_side=True)
    assert [group.label for group in controller.timeline.session.groups] == list(METHODS)
    assert controller.timeline.session.simulation.body_integrators == list(METHODS)
    initial = controller.timeline.session.initial
    assert np.all(initial.omega_world == initial.omega_world[0]), "every copy starts from the same state"
    for _ in range(10):
        apply(controller, step=True)
    assert controller.choices.error is None and controller.timeline.session.t == pytest.approx(10 / 60)
    apply(controller, compare=("euler", False))
    assert "euler" not in [group.label for group in controller.timeline.session.groups]
    assert controller.choices.compared == [name for name in METHODS if name != "euler"]
    apply(controller, side_by_side=False, compare=("euler", True))
    assert len(controller.timeline.session.groups) == 1 and "euler" in controller.choices.compared


def test_the_last_compared_integrator_stays(controller):
    apply(controller, side_by_side=True)
    for name in INTEGRATORS:
        apply(controller, compare=(name, False))
    assert len(controller.choices.compared) == 1
    assert [group.label for group in controller.timeline.session.groups] == controller.choices.compared


def test_a_new_time_step_restarts_and_the_same_one_does_not(controller):
    apply(controller, step=True)
    apply(controller, h_text="1/60", apply_h=True)
    assert controller.timeline.session.t == 1 / 60, "the same h: the run goes on"
    apply(controller, h_text=" 1/120 ", apply_h=True)
    assert (
        controller.choices.h == 1 / 120
        and controller.timeline.session.h == 1 / 120
        and controller.timeline.session.t == 0.0
    )
    assert controller.form.h_error is None


@pytest.mark.parametrize("h, text", [(1 / 60, "1/60"), (1 / 1000, "1/1000"), (0.3, "0.3"), (1e-50, "1e-50")])
def test_time_steps_are_shown_as_they_would_be_typed(h, text):
    assert step_text(h) == text


def test_pause_and_single_step(controller):
    host, choices = controller.host, controller.choices
    apply(controller, toggle_pause=True)
    assert choices.paused and controller.timeline.session.t == 0.0
    apply(controller, step=True)
    apply(controller, step=True)
    assert choices.paused and controller.timeline.session.t == pytest.approx(2 * controller.timeline.session.h)
    assert host.series.count == 3, "one plotted sample per step, after the initial one"
    apply(controller, toggle_pause=True)
    assert not choices.paused
    apply(controller, step=True)
    assert choices.paused, "a single step pauses the run"
    apply(controller, reset=True)
    assert controller.timeline.session.t == 0.0 and choices.paused, "a reset keeps the run paused"


def test_the_gyroscopic_term_goes_on_and_off_in_the_running_session(controller):
    apply(controller, step=True)
    apply(controller, gyroscopic=False)
    assert controller.timeline.session.simulation.world.gyroscopic is False and controller.timeline.session.t > 0.0
    apply(controller, reset=True)
    assert controller.timeline.session.simulation.world.gyroscopic is False and controller.timeline.session.t == 0.0


def test_the_t_handle_flips_with_the_gyroscopic_term_and_not_without(controller):
    signs = []
    for _ in range(60):  # 8 s simulated; the first flip comes at about 5 s
        controller.step(8)
        signs.append(np.sign(omega_body_y(controller.timeline.session)))
    assert min(signs) < 0 < max(signs), "with the gyroscopic term the handle should flip"
    apply(controller, gyroscopic=False, reset=True)
    signs = []
    for _ in range(60):
        controller.step(8)
        signs.append(np.sign(omega_body_y(controller.timeline.session)))
    assert controller.timeline.session.t > 7.5
    assert min(signs) > 0, "without the gyroscopic term body Ω_y keeps its sign"


def test_keys_become_edits_of_the_next_frame(controller):
    host, choices = controller.host, controller.choices
    assert controller.key(KEYS["space"]) and controller.key(KEYS["right"])
    edits = controller.take_pending()
    assert edits == PanelEdits(toggle_pause=True, step=True) and controller.take_pending() == PanelEdits()
    controller.apply(edits)
    assert choices.paused and controller.timeline.session.t == controller.timeline.session.h
    controller.key(KEYS["space"])
    controller.key(KEYS["space"])
    assert controller.take_pending() == PanelEdits(), "space twice between frames: no change"
    for name in ("r", "v", "f12", "p"):
        assert controller.key(KEYS[name])
    controller.apply(controller.take_pending())
    assert controller.timeline.session.t == 0.0 and host.view_resets == 1 and host.screenshots == 1
    assert choices.show_plots is False
    assert controller.key(KEYS["h"]) and choices.show_panel is False, "H hides the panel at once"
    assert controller.key(KEYS["h"]) and choices.show_panel is True
    assert not controller.key(ord("q")) and controller.take_pending() == PanelEdits()


def test_plus_and_minus_step_the_text_size_through_its_choices(controller):
    from spinlab.ui.controller_state import TEXT_SCALES

    choices = controller.choices
    assert choices.text_scale == 1.0
    assert controller.key(KEYS["plus"]) and controller.key(KEYS["equal"])  # twice in one frame: two steps
    controller.apply(controller.take_pending())
    assert choices.text_scale == TEXT_SCALES[2]
    for _ in range(len(TEXT_SCALES) + 2):
        controller.key(KEYS["num_add"])
    controller.apply(controller.take_pending())
    assert choices.text_scale == TEXT_SCALES[-1], "kept in range"
    for _ in range(len(TEXT_SCALES) + 2):
        controller.key(KEYS["minus"])
    controller.apply(controller.take_pending())
    assert choices.text_scale == TEXT_SCALES[0]
    apply(controller, text_scale=1.6)  # a size from elsewhere lands on the nearest choice
    assert choices.text_scale == 1.5


def test_view_edits_are_kept_and_passed_to_the_window(controller):
    host, choices = controller.host, controller.choices
    apply(controller, split_views=False, render="options", show_plots=False, record_window=True, reset_view=True)
    assert (choices.split_views, choices.render, choices.show_plots, choices.record_window) == (
        False, "options", False, True
    )  # fmt: skip
    assert host.split_views == [False] and host.render_options == ["options"] and host.view_resets == 1


def test_selecting_a_body_shows_its_initial_state(tmp_path):
    controller, host = headless_controller("hierarchy", str(tmp_path))
    index = len(controller.choices.body_names) - 1
    apply(controller, select_body=index)
    body = controller.choices.scene.bodies[index]
    assert controller.choices.selected_body == index
    assert controller.form.body_texts["orientation"] == ", ".join(f"{v:.10g}" for v in body.orientation)
    assert controller.timeline.session.t == 0.0


def test_a_body_edit_restarts_from_the_new_initial_state(controller):
    apply(controller, body_text=("omega_body", "0.1, 4, 0"), apply_body="omega_body")
    assert controller.timeline.session.t == 0.0 and not controller.form.body_errors
    np.testing.assert_allclose(omega_body_y(controller.timeline.session), 4.0, rtol=1e-12)
    assert controller.timeline.session.setup.scene is controller.choices.scene


def test_the_compare_preset_side_by_side_stays_one_body_per_view_through_an_edit(tmp_path):
    controller, _ = headless_controller("compare", str(tmp_path))
    apply(controller, side_by_side=True)
    groups = controller.timeline.session.groups
    assert [(group.label, len(group.bodies)) for group in groups] == [(name, 1) for name in METHODS]
    apply(controller, select_body=3)  # implicit_midpoint's handle: the one handle each view shows
    apply(controller, body_text=("omega_body", "0.1, 4, 0"), apply_body="omega_body")
    session = controller.timeline.session
    assert [len(group.bodies) for group in session.groups] == [1] * len(METHODS), "every handle got the edit"
    np.testing.assert_allclose(omega_body_y(session, session.row(3)), 4.0, rtol=1e-12)
