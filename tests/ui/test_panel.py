"""The panel drawn by ImGui without a window (no GL: ImGui lays out without a renderer), every section open,
over the controller's choices and form in the states it puts them in: a numerical failure, invalid values,
recording, side by side, kinematic bodies."""

import dataclasses

import pytest
from imgui_bundle import imgui, implot

from spinlab.render.renderer import RenderOptions
from spinlab.scene.files.camera_table import CameraKey
from spinlab.scene.files.scene_file import list_presets, load_scene
from spinlab.scene.model.camera_path import CameraDirector
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
    "camera keys": {"camera": CameraDirector((CameraKey(0.0, azimuth=30.0), CameraKey(1.0, fov=50.0)))},
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


# ---------------------------------------------------------------------- a hand on the panel: frames with a mouse


@pytest.fixture
def frames(monkeypatch):
    """``frame(choices, form, *, mouse=None, down=None) -> (edits, buttons)``: one ImGui frame of the panel, every
    section open, in a 320 px wide window at the top left, after moving the mouse to ``mouse`` and pressing (``down``
    True) or releasing (False) its left button; ``buttons`` maps each button's ID label to its rectangle."""
    context = imgui.create_context()
    implot.create_context()
    io = imgui.get_io()
    io.set_ini_filename("")
    io.display_size = imgui.ImVec2(1280.0, 2000.0)  # tall enough for every section open: each button on screen
    io.backend_flags |= imgui.BackendFlags_.renderer_has_textures
    real_button, buttons = imgui.button, {}

    def button(label, *args, **kwargs):
        pressed = real_button(label, *args, **kwargs)
        buttons[label.rpartition("###")[2] if "###" in label else label] = (
            tuple(imgui.get_item_rect_min()),
            tuple(imgui.get_item_rect_max()),
        )
        return pressed

    monkeypatch.setattr(imgui, "button", button)

    def frame(choices, form, *, mouse=None, down=None):
        if mouse is not None:
            io.add_mouse_pos_event(*mouse)
        if down is not None:
            io.add_mouse_button_event(0, down)
        buttons.clear()
        imgui.new_frame()
        imgui.set_next_window_pos(imgui.ImVec2(0.0, 0.0))
        imgui.set_next_window_size(imgui.ImVec2(320.0, 2000.0))
        imgui.begin("panel")
        for section in SECTIONS:
            imgui.get_state_storage().set_int(imgui.get_id(section), 1)
        edits = draw_panel(choices, form)
        imgui.end()
        imgui.render()
        return edits, dict(buttons)

    yield frame
    implot.destroy_context()
    imgui.destroy_context(context)


def _centre(rect):
    (x0, y0), (x1, y1) = rect
    return (x0 + x1) / 2.0, (y0 + y1) / 2.0


def test_a_stop_click_lands_while_the_label_counts_the_seconds(frames):
    choices, form = base_state()
    form.recording, form.record_seconds = True, 1.0
    _, buttons = frames(choices, form)
    _, buttons = frames(choices, form)  # laid out
    where = _centre(buttons["record"])
    frames(choices, form, mouse=where)
    edits, _ = frames(choices, form, down=True)
    assert not edits.toggle_record
    form.record_seconds = 1.1  # "Stop (1.0 s)" became "Stop (1.1 s)" between the press and the release
    edits, after = frames(choices, form, down=False)
    assert edits.toggle_record, "the release on the relabelled button was dropped"
    assert after["record"] == buttons["record"], "the button moved or changed size with its label"


def test_no_button_moves_when_the_lag_line_or_a_message_comes_and_goes(frames):
    choices, form = base_state()
    frames(choices, form)
    _, calm = frames(choices, form)
    form.status = dataclasses.replace(form.status, speed_ratio=0.4)
    form.message = "a message long enough to need two lines of this panel if it were wrapped: " + "word " * 20
    frames(choices, form)
    _, busy = frames(choices, form)
    assert calm.keys() == busy.keys()
    moved = {label: (calm[label], busy[label]) for label in calm if calm[label] != busy[label]}
    assert not moved, moved


def test_save_says_overwrite_when_its_file_exists(frames):
    choices, form = base_state()
    form.save_text = "t_handle-edited.toml"
    _, buttons = frames(choices, form)
    assert "save" in buttons
    form.save_confirm = "t_handle-edited.toml"
    _, buttons_then = frames(choices, form)
    assert buttons_then["save"] == buttons["save"], "one identity and one place for Save and Overwrite"


def test_no_button_moves_when_views_freeze_or_the_run_stops_while_recording(frames):
    choices, form = base_state()
    form.recording, form.record_seconds, choices.paused = True, 3.0, True  # paused: "Run", as a stopped run says
    frames(choices, form)
    _, calm = frames(choices, form)
    form.failures = [f"view {k}: diverged at t = {k}.00 s: |ΔE|/E passed 0.5" for k in range(7)]
    frames(choices, form)
    _, frozen = frames(choices, form)
    choices.error = "at t = 15 s, body 'handle' (euler): the state is not finite"
    frames(choices, form)
    _, stopped = frames(choices, form)
    for after in (frozen, stopped):
        assert after.keys() == calm.keys()
        moved = {label: (calm[label], after[label]) for label in calm if calm[label] != after[label]}
        assert not moved, moved
    assert calm["record"][1][1] < min(rect[0][1] for label, rect in calm.items() if label not in TOP_BUTTONS), (
        "Stop is above every section, where nothing that comes or goes is drawn above it"
    )


TOP_BUTTONS = ("Run##pause", "Step", "Reset", "record", "Screenshot")


def test_the_status_says_which_part_of_the_frame_took_the_time_and_no_button_moves_for_it(frames, monkeypatch):
    choices, form = base_state()
    frames(choices, form)
    _, before = frames(choices, form)  # no part timed yet: frame time and steps per frame
    texts = []
    real_text = imgui.text
    monkeypatch.setattr(imgui, "text", lambda text: texts.append(text) or real_text(text))
    parts = {"steps": 31.0, "plots": 20.0, "panel": 17.0, "views": 79.0, "ui": 3.0, "gpu": 12.0}
    form.status = dataclasses.replace(form.status, frame_ms=187.1, parts_ms=parts)
    frames(choices, form)
    _, after = frames(choices, form)
    budget = [text for text in texts if text.startswith("frame 187.1 ms: views 79, steps 31")]
    assert budget, texts[:5]
    assert after == before, "a button moved when the frame's budget came"


def test_a_clouds_panel_asks_nothing_of_each_body_every_frame(panel_window, monkeypatch):
    from spinlab.scene.files.scene_file import SceneSpec

    scene = load_scene("cloud")
    choices = Choices(scene, ["implicit_midpoint"] * len(scene.bodies), list(INTEGRATORS), 1 / 240,
                      render=RenderOptions(), plots=PlotOptions())  # fmt: skip
    form = Form(presets=list_presets(), integrator_names=list(INTEGRATORS), body_texts={})
    asked = []
    real = SceneSpec.under_torque
    monkeypatch.setattr(SceneSpec, "under_torque", lambda self, body: asked.append(body) or real(self, body))
    for _ in range(3):
        draw_panel(choices, form)
    assert len(asked) <= len(scene.bodies), "whether the scene has a torque, found again every frame"
