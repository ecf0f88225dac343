"""The control panel: ``draw_panel(choices, form) -> edits``, an immediate-mode function over the controller's
dataclasses (ui/controller_state.py).

:func:`draw_panel` draws the person's :class:`~ui.controller_state.Choices` and the panel's
:class:`~ui.controller_state.Form` with ImGui (inside a window the app has begun) and returns a :class:`PanelEdits`
saying what the person asked for this frame. The panel changes nothing itself: the controller (ui/controller.py)
applies the edits (and so can a test, without clicking). Text fields hold what was typed; the controller checks it
(ui/edits.py) and fills in the form's ``*_error`` fields, which the panel shows in red.
"""

from __future__ import annotations

from imgui_bundle import imgui

from render.renderer import RenderOptions
from ui.controller_state import Choices, Form, PanelEdits
from ui.edits import BODY_FIELDS
from ui.failures_panel import draw_comparison, draw_failures
from ui.kick_panel import kick_section, omega_drags
from ui.plots import PLOT_TITLES

__all__ = ["PanelEdits", "draw_panel", "time_scale_text", "TIME_SCALE_EXPONENTS"]

TIME_SCALE_EXPONENTS = (-5, 3)  # 1/32× .. 8×
ERROR_RGBA = imgui.ImVec4(1.0, 0.42, 0.4, 1.0)
ERROR_FRAME_RGBA = imgui.ImVec4(0.45, 0.12, 0.12, 1.0)
NOTE_RGBA = imgui.ImVec4(0.62, 0.66, 0.72, 1.0)
GOOD_RGBA = imgui.ImVec4(0.55, 0.85, 0.55, 1.0)
BODY_LIST_MAX = 24  # more bodies than this get one integrator choice for all of them (a cloud of 1000 handles)
GYROSCOPIC_NOTE = "The ω × L term of Euler's equations: without it L is not conserved and the T-handle never flips."
RENDER_LABELS = {
    "show_omega": "ω arrow",
    "show_momentum": "L arrow",
    "show_axes": "principal axes",
    "show_herpolhode": "herpolhode trail",
    "show_invariable_plane": "invariable plane",
    "show_floor": "floor",
    "show_ghost": "exact ghost",
    "show_poinsot": "Poinsot view",
}
KEYS_HELP = (
    "Space pause · Right step · R reset · F12 screenshot · V reset view · P plots · H panel · "
    "drag: orbit · right-drag: pan · wheel: zoom · Ctrl+drag: kick the selected body"
)


def time_scale_text(exponent: int) -> str:
    """``"1/4×"``, ``"1×"``, ``"8×"`` for a power of two."""
    return f"1/{2**-exponent}×" if exponent < 0 else f"{2**exponent}×"


def draw_panel(choices: Choices, form: Form) -> PanelEdits:
    """Draw the panel's contents for ``choices`` and ``form`` and return this frame's :class:`PanelEdits`."""
    edits = PanelEdits()
    _status(choices, form, edits)
    if imgui.collapsing_header("Scene", imgui.TreeNodeFlags_.default_open):
        _scene(choices, form, edits)
    if imgui.collapsing_header("Integration", imgui.TreeNodeFlags_.default_open):
        _integration(choices, form, edits)
    if imgui.collapsing_header("Initial state"):
        _initial_state(choices, form, edits)
    if imgui.collapsing_header("Kick", imgui.TreeNodeFlags_.default_open):
        kick_section(choices, form, edits, _text_field, _note)
    if imgui.collapsing_header("View"):
        _view(choices, form, edits)
    if imgui.collapsing_header("Capture and files", imgui.TreeNodeFlags_.default_open):
        _capture(choices, form, edits)
    imgui.spacing()
    _note(KEYS_HELP)
    return edits


def _note(text: str, color: imgui.ImVec4 = NOTE_RGBA) -> None:
    imgui.push_style_color(imgui.Col_.text, color)
    imgui.text_wrapped(text)
    imgui.pop_style_color()


def _text_field(
    label: str, text: str, error: str | None, hint: str = "", width: float = -1.0
) -> tuple[bool, str, bool]:
    """A text field (``width`` as ImGui takes it: < 0 leaves that much room on the right), red when ``error``;
    returns (changed, text, applied: Enter pressed or focus left after an edit)."""
    if error:
        imgui.push_style_color(imgui.Col_.frame_bg, ERROR_FRAME_RGBA)
    imgui.set_next_item_width(width)
    changed, text = imgui.input_text_with_hint(label, hint, text)
    applied = imgui.is_item_deactivated_after_edit()
    if error:
        imgui.pop_style_color()
        _note(error, ERROR_RGBA)
    return changed, text, applied


def _status(choices: Choices, form: Form, edits: PanelEdits) -> None:
    status = form.status
    imgui.text(f"t = {status.sim_t:8.2f} s sim   {status.wall_t:8.2f} s wall")
    lag = f"   stepping lags: {status.speed_ratio:.0%} of {time_scale_text(choices.time_scale_exp)}"
    imgui.text(f"{status.frame_ms:5.1f} ms/frame   {status.steps_per_frame:.1f} steps/frame")
    if status.speed_ratio < 0.98 and not choices.paused:
        _note(lag.strip(), ERROR_RGBA)
    if choices.error:
        _note(f"Stopped: {choices.error}", ERROR_RGBA)
        if imgui.button("Reset to the initial state"):
            edits.reset = True
    draw_failures(form)
    imgui.spacing()
    label = "Run" if choices.paused else "Pause"
    if imgui.button(f"{label}##pause", imgui.ImVec2(70, 0)):
        edits.toggle_pause = True
    imgui.same_line()
    if imgui.button("Step"):
        edits.step = True
    imgui.same_line()
    if imgui.button("Reset"):
        edits.reset = True
    imgui.same_line()
    imgui.set_next_item_width(-1.0)
    low, high = TIME_SCALE_EXPONENTS
    changed, exponent = imgui.slider_int(
        "##time scale", choices.time_scale_exp, low, high, f"speed {time_scale_text(choices.time_scale_exp)}"
    )
    if changed:
        edits.time_scale_exp = exponent
    # What the last action did, or why it failed, under the buttons: always in sight, whatever is folded away.
    if form.message:
        _note(form.message, ERROR_RGBA if form.message_is_error else GOOD_RGBA)


def _scene(choices: Choices, form: Form, edits: PanelEdits) -> None:
    current = form.presets.index(choices.scene_name) if choices.scene_name in form.presets else -1
    imgui.set_next_item_width(-1.0)
    if imgui.begin_combo("##preset", choices.scene_name):
        for index, name in enumerate(form.presets):
            if imgui.selectable(name, index == current)[0] and index != current:
                edits.scene = name
        imgui.end_combo()
    if choices.scene_description:
        _note(choices.scene_description)
    changed, text, applied = _text_field("##scene path", form.scene_text, form.scene_error, "open a .toml file…")
    if changed:
        edits.scene_text = text
    if applied and text.strip():
        edits.scene = text.strip()


def _integration(choices: Choices, form: Form, edits: PanelEdits) -> None:
    if imgui.radio_button("one integrator per body", not choices.side_by_side) and choices.side_by_side:
        edits.side_by_side = False
    if imgui.radio_button("all side by side", choices.side_by_side) and not choices.side_by_side:
        edits.side_by_side = True
    if choices.side_by_side:
        _note("Each integrator below runs its own copy of the scene, in lock step, from the same initial state.")
        if imgui.begin_table("compared", 2):
            for name in form.integrator_names:
                imgui.table_next_column()
                changed, on = imgui.checkbox(name, name in choices.compared)
                if changed:
                    edits.compare = (name, on)
            imgui.end_table()
    elif len(choices.body_names) > BODY_LIST_MAX:
        _every_body_integrator(choices, form, edits)
    else:
        names = form.integrator_names
        for index, (body, integrator) in enumerate(zip(choices.body_names, choices.integrators, strict=True)):
            imgui.push_id(index)
            imgui.align_text_to_frame_padding()
            imgui.text(body)
            imgui.same_line(imgui.get_content_region_avail().x * 0.45)
            imgui.set_next_item_width(-1.0)
            if integrator is None:
                imgui.text_disabled("kinematic")
            elif imgui.begin_combo("##integrator", integrator):  # the list is built only while it is open
                for name in names:
                    if imgui.selectable(name, name == integrator)[0] and name != integrator:
                        edits.integrator = (index, name)
                imgui.end_combo()
            imgui.pop_id()
    imgui.align_text_to_frame_padding()
    imgui.text("h (s)")
    imgui.same_line()
    changed, text, applied = _text_field("##h", form.h_text, form.h_error, "e.g. 1/120")
    if changed:
        edits.h_text = text
    edits.apply_h = applied
    changed, on = imgui.checkbox("gyroscopic term", choices.gyroscopic)
    if changed:
        edits.gyroscopic = on
    _note(GYROSCOPIC_NOTE)
    draw_comparison(choices, form, edits)


def _every_body_integrator(choices: Choices, form: Form, edits: PanelEdits) -> None:
    """One integrator for every dynamic body of a scene with too many to list ("mixed" while they differ)."""
    used = list(dict.fromkeys(name for name in choices.integrators if name is not None))
    imgui.align_text_to_frame_padding()
    imgui.text(f"all {len(choices.body_names)} bodies")
    imgui.same_line(imgui.get_content_region_avail().x * 0.45)
    imgui.set_next_item_width(-1.0)
    if not used:
        imgui.text_disabled("kinematic")
    elif imgui.begin_combo("##every integrator", used[0] if len(used) == 1 else "mixed"):
        for name in form.integrator_names:
            if imgui.selectable(name, used == [name])[0] and used != [name]:
                edits.integrator = (None, name)
        imgui.end_combo()


def _initial_state(choices: Choices, form: Form, edits: PanelEdits) -> None:
    imgui.set_next_item_width(-1.0)
    changed, index = imgui.combo("##body", choices.selected_body, choices.body_names)
    if changed:
        edits.select_body = index
    for key, (label, _) in BODY_FIELDS.items():
        imgui.text(label)
        changed, text, applied = _text_field(f"##{key}", form.body_texts.get(key, ""), form.body_errors.get(key))
        if changed:
            edits.body_text = (key, text)
        if applied:
            edits.apply_body = key
    _note(
        "Enter applies a value and restarts the run from the new initial state; in a comparison, every copy that "
        "started alike gets it."
    )
    omega_drags(choices, form, edits, _note)


def _view(choices: Choices, form: Form, edits: PanelEdits) -> None:
    options = choices.render
    for name, label in RENDER_LABELS.items():
        changed, on = imgui.checkbox(label, getattr(options, name))
        if changed:
            edits.render = RenderOptions(**{**vars(options), name: on})
    changed, on = imgui.checkbox("a view per integrator", choices.split_views)
    if changed:
        edits.split_views = on
    if imgui.button("Reset view"):
        edits.reset_view = True
    imgui.separator_text("plots")
    changed, on = imgui.checkbox("show plots", choices.show_plots)
    if changed:
        edits.show_plots = on
    for name, title in PLOT_TITLES.items():
        changed, on = imgui.checkbox(title, choices.plots.shown[name])
        if changed:
            edits.plot_shown = (name, on)


def _capture(choices: Choices, form: Form, edits: PanelEdits) -> None:
    imgui.text("folder")
    changed, text, _ = _text_field("##output", choices.output_dir, None)
    if changed:
        edits.output_dir = text
    if imgui.button("Screenshot"):
        edits.screenshot = True
    imgui.same_line()
    if form.recording:
        imgui.push_style_color(imgui.Col_.button, ERROR_FRAME_RGBA)
        edits.toggle_record = imgui.button(f"Stop ({form.record_seconds:.1f} s)")
        imgui.pop_style_color()
    else:
        edits.toggle_record = imgui.button("Record")
    imgui.same_line()
    if imgui.button("Export CSV"):
        edits.export_csv = True
    imgui.begin_disabled(form.recording)
    changed, whole = imgui.checkbox("record the whole window", choices.record_window)
    imgui.end_disabled()
    if changed:
        edits.record_window = whole
    imgui.text("save the setup as a scene file")
    changed, text, _ = _text_field("##save", form.save_text, None, "file.toml", -imgui.calc_text_size("Save").x - 24.0)
    if changed:
        edits.save_text = text
    imgui.same_line()
    if imgui.button("Save"):
        edits.save_scene = True
