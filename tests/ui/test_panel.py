"""The panel drawn by ImGui without a window (no GL: ImGui lays out without a renderer), every section open,
over the controller's choices and form in the states it puts them in: a numerical failure, invalid values,
recording, side by side, kinematic bodies."""

import dataclasses

import pytest
from imgui_bundle import imgui

from spinlab.render.renderer import RenderOptions
from spinlab.scene.scene_file import list_presets, load_scene
from spinlab.sim.integrators import INTEGRATORS
from spinlab.ui.controller_state import Choices, Form
from spinlab.ui.panel import BODY_LIST_MAX, PanelEdits, draw_panel, time_scale_text
from spinlab.ui.plots import PlotOptions

SECTIONS = ("Scene", "Integration", "Initial state", "Kick", "View", "Capture and files")


def base_state():
    """The choices and the form on the hierarchy preset (kinematic bodies among them)."""
    scene = load_scene("hierarchy")
    integrators = [None if body.kinematic else "implicit_midpoint" for body in scene.bodies]
    choices = Choices(scene, integrators, list(INTEGRATORS), 1 / 60, render=RenderOptions(), plots=PlotOptions())
    form = Form(
        presets=list_presets(),
        integrator_names=list(INTEGRATORS),
        body_texts={"omega_body": "0.05, 5, 0.05", "moments": "1.3, 1.4, 2.5", "orientation": "1, 0, 0, 0"},
    )
    return choices, form


CHOICES = {
    "stopped": {"error": "at t = 15 s, body 'handle' (euler): the state is not finite", "paused": True},
    "side by side": {"side_by_side": True, "time_scale_exp": -5},
}
FORMS = {
    "invalid": {"h_error": "h must be > 0", "scene_error": "no such file", "body_errors": {"moments": "triangle"}},
    "recording": {"recording": True, "record_seconds": 1.5, "message": "recording to x.mp4"},
    "kick refused": {"kick_error": "give 3 numbers", "omega_polar_drag": (4.0, 12.5, -30.0)},
}
STATES = {"plain": ({}, {}), **{k: (v, {}) for k, v in CHOICES.items()}, **{k: ({}, v) for k, v in FORMS.items()}}


@pytest.fixture
def panel_window(imgui_window):
    for section in SECTIONS:
        imgui.get_state_storage().set_int(imgui.get_id(section), 1)  # the header open


@pytest.mark.parametrize("name", STATES)
def test_the_panel_draws_every_state_and_asks_for_nothing_unprompted(panel_window, name):
    choices, form = base_state()
    choice_fields, form_fields = STATES[name]
    edits = draw_panel(dataclasses.replace(choices, **choice_fields), dataclasses.replace(form, **form_fields))
    assert edits == PanelEdits()


def test_a_cloud_of_bodies_gets_one_integrator_choice_not_a_list(panel_window, monkeypatch):
    scene = load_scene("cloud")
    assert len(scene.bodies) > BODY_LIST_MAX
    choices = Choices(scene, ["implicit_midpoint"] * len(scene.bodies), list(INTEGRATORS), 1 / 240,
                      render=RenderOptions(), plots=PlotOptions())  # fmt: skip
    form = Form(presets=list_presets(), integrator_names=list(INTEGRATORS), body_texts={})
    combos = []
    monkeypatch.setattr(imgui, "begin_combo", lambda label, preview: combos.append((label, preview)) and False)
    assert draw_panel(choices, form) == PanelEdits()
    assert [preview for label, preview in combos if "integrator" in label] == ["implicit_midpoint"]
    choices.integrators[3] = "rkmk4"
    combos.clear()
    draw_panel(choices, form)
    assert [preview for label, preview in combos if "integrator" in label] == ["mixed"]


def test_time_scales_read_as_fractions_and_multiples():
    assert [time_scale_text(e) for e in (-5, -1, 0, 3)] == ["1/32×", "1/2×", "1×", "8×"]
