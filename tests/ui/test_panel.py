"""The panel drawn by ImGui without a window (no GL: ImGui lays out without a renderer), every section open,
in the states the app puts it in: a numerical failure, invalid values, recording, side by side, kinematic bodies."""

import dataclasses

import pytest
from imgui_bundle import imgui

from sim.integrators import INTEGRATORS
from ui.panel import PanelEdits, PanelState, draw_panel, time_scale_text

SECTIONS = ("Scene", "Integration", "Initial state", "View", "Capture and files")


def base_state():
    return PanelState(
        presets=["compare", "t_handle"],
        scene_name="t_handle",
        scene_description="A T-handle",
        body_names=["handle", "turntable"],
        integrator_names=list(INTEGRATORS),
        integrators=["implicit_midpoint", None],
        compared=list(INTEGRATORS),
        body_texts={"omega_body": "0.05, 5, 0.05", "moments": "1.3, 1.4, 2.5", "orientation": "1, 0, 0, 0"},
    )


STATES = {
    "plain": {},
    "stopped": {"error": "at t = 15 s, body 'handle' (euler): the state is not finite", "paused": True},
    "invalid": {"h_error": "h must be > 0", "scene_error": "no such file", "body_errors": {"moments": "triangle"}},
    "recording": {"recording": True, "record_seconds": 1.5, "message": "recording to x.mp4"},
    "side by side": {"side_by_side": True, "time_scale_exp": -5},
}


@pytest.fixture
def panel_window(imgui_window):
    for section in SECTIONS:
        imgui.get_state_storage().set_int(imgui.get_id(section), 1)  # the header open


@pytest.mark.parametrize("name", STATES)
def test_the_panel_draws_every_state_and_asks_for_nothing_unprompted(panel_window, name):
    state = dataclasses.replace(base_state(), **STATES[name])
    edits = draw_panel(state)
    assert edits == PanelEdits()


def test_time_scales_read_as_fractions_and_multiples():
    assert [time_scale_text(e) for e in (-5, -1, 0, 3)] == ["1/32×", "1/2×", "1×", "8×"]
