"""The most bodies the window holds (ui/capacity.py): beyond it `gui FILE` is one line and exit 2 before any
window or warm-up, and a scene loaded in the window is refused beside the scene field, the run going on."""

import pytest

from spinlab.commands.cli import main
from spinlab.scene.files.scene_file import resolve_scene_path
from spinlab.ui import capacity
from spinlab.ui.capacity import STEP_CALL_BODY_STEPS, WINDOW_MAX_BODIES, steps_per_call
from spinlab.ui.controller_state import PanelEdits
from tests.ui.headless_host import headless_controller


@pytest.fixture
def limit_of_three(monkeypatch):
    monkeypatch.setattr(capacity, "WINDOW_MAX_BODIES", 3)
    monkeypatch.delenv("SPINLAB_NO_LIMITS", raising=False)


def test_gui_refuses_more_bodies_than_it_holds_in_one_line_exit_2(limit_of_three, monkeypatch, capsys):
    monkeypatch.delenv("DISPLAY", raising=False)  # refused before any window would open
    assert main(["gui", "compare"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "8 bodies in the window, more than the limit of 3" in lines[0], lines
    assert str(resolve_scene_path("compare")) in lines[0]


def test_a_scene_loaded_in_the_window_beyond_the_limit_is_refused_beside_its_field(limit_of_three, tmp_path):
    controller, host = headless_controller("t_handle", str(tmp_path))
    session = controller.timeline.session
    controller.apply(PanelEdits(scene="compare"))
    assert "8 bodies in the window, more than the limit of 3" in controller.form.scene_error
    assert controller.timeline.session is session and controller.choices.scene.name == "t_handle"


def test_the_limit_is_a_hundred_thousand_and_lifted_like_the_others(monkeypatch, tmp_path):
    assert WINDOW_MAX_BODIES == 100_000
    monkeypatch.setattr(capacity, "WINDOW_MAX_BODIES", 3)
    monkeypatch.setenv("SPINLAB_NO_LIMITS", "1")
    controller, host = headless_controller("t_handle", str(tmp_path))
    controller.apply(PanelEdits(scene="compare"))
    assert controller.form.scene_error is None and len(controller.timeline.session.scene.bodies) == 8


@pytest.mark.parametrize(("bodies", "steps"), [(0, STEP_CALL_BODY_STEPS), (1, STEP_CALL_BODY_STEPS), (1000, 100),
                                               (100_000, 1), (10**6, 1)])  # fmt: skip
def test_the_window_steps_a_bounded_number_of_body_steps_at_a_time(bodies, steps):
    assert steps_per_call(bodies) == steps
