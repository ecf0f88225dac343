"""The control panel: ``draw_panel(choices, form) -> edits``, an immediate-mode function over the controller's
dataclasses (ui/controller_state.py).

:func:`draw_panel` draws the person's :class:`~ui.controller_state.Choices` and the panel's
:class:`~ui.controller_state.Form` with ImGui (inside a window the app has begun) and returns a :class:`PanelEdits`
saying what the person asked for this frame. The panel changes nothing itself: the controller (ui/controller.py)
applies the edits (and so can a test, without clicking). Text fields hold what was typed; the controller checks it
(ui/edits.py) and fills in the form's ``*_error`` fields, which the panel shows in red.
"""

from __future__ import annotations

from collections.abc import Sequence

from imgui_bundle import imgui

from spinlab.render.renderer import RenderOptions
from spinlab.ui import tips
from spinlab.ui.controller_state import TEXT_SCALES, Choices, Form, PanelEdits
from spinlab.ui.edits import BODY_FIELDS
from spinlab.ui.failures_panel import FROZEN_RGBA, draw_comparison
from spinlab.ui.help_texts import PLOT_TOOLTIPS, integrator_line, tooltip
from spinlab.ui.kick_panel import kick_section, omega_drags
from spinlab.ui.plots import FIXED_WINDOW, PLOT_TITLES
from spinlab.ui.status import budget_line

__all__ = ["PanelEdits", "PANEL_WINDOW", "draw_panel", "time_scale_text", "TIME_SCALE_EXPONENTS"]

TIME_SCALE_EXPONENTS = (-5, 3)  # 1/32× .. 8×
ERROR_RGBA = imgui.ImVec4(1.0, 0.42, 0.4, 1.0)
ERROR_FRAME_RGBA = imgui.ImVec4(0.45, 0.12, 0.12, 1.0)
NOTE_RGBA = imgui.ImVec4(0.62, 0.66, 0.72, 1.0)
GOOD_RGBA = imgui.ImVec4(0.55, 0.85, 0.55, 1.0)
NOTES_MAX = 3  # integrators in use described under the list; more get a hint to hover instead
BODY_LIST_MAX = 24  # more bodies than this get one integrator choice for all of them (a cloud of 1000 handles)
GYROSCOPIC_NOTE = (
    "The ω × L term of Euler's equations: it makes a top precess and a body spun near its middle axis flip. "
    "Without it ω changes only by torque, and L is not conserved."
)
RENDER_LABELS = {
    "show_omega": "ω arrow",
    "show_momentum": "L arrow",
    "show_axes": "principal axes",
    "show_herpolhode": "herpolhode trail",
    "show_invariable_plane": "invariable plane",
    "show_floor": "floor",
    "show_ghost": "exact ghost",
    "show_poinsot": "Poinsot view",
    "show_captions": "captions",
}
KEYS_BUTTON = "Keys (F1)"
PANEL_WINDOW = "###panel"  # the panel's window's ID, whatever its title says
RECORD_LABEL_WIDEST = "Stop (0000.0 s)"  # the record button's width: its widest label below 10⁴ s


def time_scale_text(exponent: int) -> str:
    """``"1/4×"``, ``"1×"``, ``"8×"`` for a power of two."""
    return f"1/{2**-exponent}×" if exponent < 0 else f"{2**exponent}×"


def draw_panel_window(rect, choices: Choices, form: Form) -> PanelEdits:
    """The panel's window at ``rect`` (ui/view3d.py's ``Rect``), titled with the scene's name: :func:`draw_panel`;
    nothing when ImGui keeps the window as it was (ui/window_layer.py)."""
    imgui.set_next_window_pos(imgui.ImVec2(rect.x, rect.y))
    imgui.set_next_window_size(imgui.ImVec2(rect.width, rect.height))
    edits = PanelEdits()
    if imgui.begin(f"spinlab · {choices.scene_name}{PANEL_WINDOW}", flags=FIXED_WINDOW)[0]:
        edits = draw_panel(choices, form)
    imgui.end()
    return edits


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
    return edits


def _tip(key: str) -> None:
    """The last item's tooltip, from ui/help_texts.py."""
    tips.item_tip(tooltip(key))


def _note(text: str, color: imgui.ImVec4 = NOTE_RGBA) -> None:
    imgui.push_style_color(imgui.Col_.text, color)
    imgui.text_wrapped(text)
    imgui.pop_style_color()


def _one_line(text: str, color: imgui.ImVec4 | None = NOTE_RGBA, tip: str | None = None) -> None:
    """``text`` on exactly one line, whatever it says (an empty one too), in ``color`` (``None``: the text's): cut to
    the panel's width with "…", the whole of it (or ``tip``) in a tooltip. A line that appears, vanishes or wraps
    would move every control below it."""
    room = imgui.get_content_region_avail().x
    shown = text
    if imgui.calc_text_size(shown).x > room:  # the longest start that fits with "…": a few measures, not one a letter
        low, high = 0, len(text)
        while low < high:
            middle = (low + high + 1) // 2
            low, high = (middle, high) if imgui.calc_text_size(text[:middle] + "…").x <= room else (low, middle - 1)
        shown = text[:low] + "…"
    if color is not None:
        imgui.push_style_color(imgui.Col_.text, color)
    imgui.text(shown)
    if color is not None:
        imgui.pop_style_color()
    if tip is not None or shown != text:
        tips.item_tip(text if tip is None else tip)


def _text_field(
    label: str, text: str, error: str | None, hint: str = "", width: float = -1.0, *, tip: str
) -> tuple[bool, str, bool]:
    """A text field (``width`` as ImGui takes it: < 0 leaves that much room on the right), red when ``error``,
    with the tooltip ``tip`` (a ui/help_texts.py key); returns (changed, text, applied: Enter pressed or focus
    left after an edit)."""
    if error:
        imgui.push_style_color(imgui.Col_.frame_bg, ERROR_FRAME_RGBA)
    imgui.set_next_item_width(width)
    changed, text = imgui.input_text_with_hint(label, hint, text)
    applied = imgui.is_item_deactivated_after_edit()
    _tip(tip)
    if error:
        imgui.pop_style_color()
        _note(error, ERROR_RGBA)
    return changed, text, applied


def _status(choices: Choices, form: Form, edits: PanelEdits) -> None:
    status = form.status
    imgui.text(f"t = {status.sim_t:8.2f} s sim   {status.wall_t:8.2f} s wall")
    line, tip = budget_line(status)  # what each part of the frame took: what to turn off on a slow machine
    _one_line(line, None, tip)
    # The lag line is always there, so that nothing below it moves when stepping starts or stops keeping up.
    speed = time_scale_text(choices.time_scale_exp)
    if status.speed_ratio < 0.98 and not choices.paused:
        _one_line(f"stepping lags: {status.speed_ratio:.0%} of {speed}", ERROR_RGBA)
    else:
        _one_line("paused" if choices.paused else f"stepping keeps up with {speed}")
    imgui.spacing()
    label = "Run" if choices.paused else "Pause"
    if imgui.button(f"{label}##pause", imgui.ImVec2(70, 0)):
        edits.toggle_pause = True
    _tip("pause")
    imgui.same_line()
    if imgui.button("Step"):
        edits.step = True
    _tip("step")
    imgui.same_line()
    if imgui.button("Reset"):
        edits.reset = True
    _tip("reset_error" if choices.error else "reset")
    imgui.same_line()
    imgui.set_next_item_width(-1.0)
    low, high = TIME_SCALE_EXPONENTS
    changed, exponent = imgui.slider_int(
        "##time scale", choices.time_scale_exp, low, high, f"speed {time_scale_text(choices.time_scale_exp)}"
    )
    if changed:
        edits.time_scale_exp = exponent
    _tip("speed")
    _capture_buttons(form, edits)
    if imgui.small_button(KEYS_BUTTON):
        edits.toggle_key_help = True
    _tip("key_help")
    # What the last action did, or why it failed, then why the run stopped or which views froze: under the buttons,
    # always in sight whatever is folded away, and each always one line (empty when there is nothing to say, the
    # whole of it in a tooltip), so that no control moves when a message, a failure or a frozen view comes or goes
    # (a Stop click once landed on the header below it, the recording going on).
    _one_line(form.message or "", ERROR_RGBA if form.message_is_error else GOOD_RGBA)
    faults_line(choices.error, form.failures)


def faults_line(error: str | None, frozen: Sequence[str]) -> None:
    """One line, always: why the run stopped (red), else the views frozen (``frozen``: ui/integrator_table.py's
    ``failure_lines``, the run goes on), else nothing; each frozen view on its own line of the tooltip."""
    if error:
        _one_line(f"Stopped: {error}", ERROR_RGBA, f"Stopped: {error}\n{tooltip('reset_error')}")
    elif frozen:
        _one_line(f"frozen: {'; '.join(frozen)}", FROZEN_RGBA, "\n".join(f"frozen: {line}" for line in frozen))
    else:
        _one_line("")


def _capture_buttons(form: Form, edits: PanelEdits) -> None:
    """Record (Stop while recording) and Screenshot, at the top of the panel where nothing above them comes or
    goes: a recording is stopped by a click that lands on the button it aimed at."""
    # One identity ("###record") and one width whatever the label says: a press and its release land on the same
    # button while the running seconds change its label (ImGui drops a click whose button changed identity).
    width = imgui.calc_text_size(RECORD_LABEL_WIDEST).x + 2.0 * imgui.get_style().frame_padding.x
    if form.recording:
        imgui.push_style_color(imgui.Col_.button, ERROR_FRAME_RGBA)
        edits.toggle_record = imgui.button(f"Stop ({form.record_seconds:.1f} s)###record", imgui.ImVec2(width, 0))
        imgui.pop_style_color()
        _tip("stop_record")
    else:
        edits.toggle_record = imgui.button("Record###record", imgui.ImVec2(width, 0))
        _tip("record")
    imgui.same_line()
    if imgui.button("Screenshot"):
        edits.screenshot = True
    _tip("screenshot")
    imgui.same_line()


def _scene(choices: Choices, form: Form, edits: PanelEdits) -> None:
    current = form.presets.index(choices.scene_name) if choices.scene_name in form.presets else -1
    imgui.set_next_item_width(-1.0)
    if imgui.begin_combo("##preset", choices.scene_name):
        for index, name in enumerate(form.presets):
            if imgui.selectable(name, index == current)[0] and index != current:
                edits.scene = name
        imgui.end_combo()
    _tip("preset")
    if choices.scene_description:
        _note(choices.scene_description)
    changed, text, applied = _text_field(
        "##scene path", form.scene_text, form.scene_error, "open a .toml file…", tip="scene_path"
    )
    if changed:
        edits.scene_text = text
    if applied and text.strip():
        edits.scene = text.strip()


def _integration(choices: Choices, form: Form, edits: PanelEdits) -> None:
    torque = choices.scene.has_torque  # the integrators' orders as they are in this scene
    if imgui.radio_button("one integrator per body", not choices.side_by_side) and choices.side_by_side:
        edits.side_by_side = False
    _tip("per_body")
    if imgui.radio_button("all side by side", choices.side_by_side) and not choices.side_by_side:
        edits.side_by_side = True
    _tip("side_by_side")
    if choices.side_by_side:
        _note("Each integrator below runs its own copy of the scene, in lock step, from the same initial state.")
        if imgui.begin_table("compared", 2):
            for name in form.integrator_names:
                imgui.table_next_column()
                changed, on = imgui.checkbox(name, name in choices.compared)
                if changed:
                    edits.compare = (name, on)
                tips.item_tip(f"{tooltip('compare')}\n{integrator_line(name, torque)}")
            imgui.end_table()
        _note("Hover a name for its order, what it conserves, explicit or implicit, and its cost.")
    elif len(choices.scene.bodies) > BODY_LIST_MAX:
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
                _integrator_items(names, integrator, lambda name, index=index: (index, name), edits, torque)
            if integrator is not None:
                tips.item_tip(f"{tooltip('integrator')}\n{integrator_line(integrator, torque)}")
            imgui.pop_id()
        _integrator_notes(choices.integrators, torque)
    imgui.align_text_to_frame_padding()
    imgui.text("h (s)")
    imgui.same_line()
    changed, text, applied = _text_field("##h", form.h_text, form.h_error, "e.g. 1/120", tip="h")
    if changed:
        edits.h_text = text
    edits.apply_h = applied
    # The term the run takes at the step shown (its scripted changes and switches), not the last one clicked.
    in_force = form.in_force
    changed, on = imgui.checkbox("gyroscopic term", choices.gyroscopic if in_force is None else in_force.gyroscopic)
    if changed:
        edits.gyroscopic = on
    _tip("gyroscopic")
    _note(GYROSCOPIC_NOTE)
    draw_comparison(choices, form, edits)


def _integrator_items(
    names: list[str], current: str | None, target, edits: PanelEdits, under_torque: bool = False
) -> None:
    """The items of an open integrator combo, each with its one-line description as a tooltip (``under_torque``:
    in a scene with a torque); ``target(name)`` is the edit a choice makes. Ends the combo."""
    for name in names:
        if imgui.selectable(name, name == current)[0] and name != current:
            edits.integrator = target(name)
        tips.item_tip(integrator_line(name, under_torque))
    imgui.end_combo()


def _integrator_notes(integrators: Sequence[str | None], under_torque: bool = False) -> None:
    """A wrapped note per integrator in use (its one-line description, ``under_torque`` in a scene with a
    torque), or a hint to hover when there are more than ``NOTES_MAX``."""
    used = list(dict.fromkeys(name for name in integrators if name is not None))
    if len(used) > NOTES_MAX:
        _note("Hover an integrator for its order, what it conserves, explicit or implicit, and its cost.")
        return
    for name in used:
        _note(f"{name}: {integrator_line(name, under_torque)}")


def _every_body_integrator(choices: Choices, form: Form, edits: PanelEdits) -> None:
    """One integrator for every dynamic body of a scene with too many to list ("mixed" while they differ)."""
    used = list(dict.fromkeys(name for name in choices.integrators if name is not None))
    imgui.align_text_to_frame_padding()
    imgui.text(f"all {len(choices.scene.bodies)} bodies")
    imgui.same_line(imgui.get_content_region_avail().x * 0.45)
    imgui.set_next_item_width(-1.0)
    if not used:
        imgui.text_disabled("kinematic")
    elif imgui.begin_combo("##every integrator", used[0] if len(used) == 1 else "mixed"):
        _integrator_items(
            form.integrator_names,
            used[0] if len(used) == 1 else None,
            lambda name: (None, name),
            edits,
            choices.scene.has_torque,
        )
    if used:
        _tip("every_integrator")
        _integrator_notes(used, choices.scene.has_torque)


def _initial_state(choices: Choices, form: Form, edits: PanelEdits) -> None:
    imgui.set_next_item_width(-1.0)
    changed, index = imgui.combo("##body", choices.selected_body, choices.body_names)
    if changed:
        edits.select_body = index
    _tip("body")
    for key, (label, _) in BODY_FIELDS.items():
        imgui.text(label)
        changed, text, applied = _text_field(
            f"##{key}", form.body_texts.get(key, ""), form.body_errors.get(key), tip=key
        )
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
        if not hasattr(options, name):  # an option another part of the window adds
            continue
        changed, on = imgui.checkbox(label, getattr(options, name))
        if changed:
            edits.render = RenderOptions(**{**vars(options), name: on})
        _tip(name)
    changed, on = imgui.checkbox("a view per integrator", choices.split_views)
    if changed:
        edits.split_views = on
    _tip("split_views")
    changed, on = imgui.checkbox("follow the selected body", choices.follow)
    if changed:
        edits.follow = on
    _tip("follow")
    if choices.camera.path:
        changed, on = imgui.checkbox("play the camera keys", choices.camera.playing)
        if changed:
            edits.camera_keys = on
        _tip("camera_keys")
    if imgui.button("Reset view"):
        edits.reset_view = True
    _tip("reset_view")
    imgui.same_line()
    imgui.set_next_item_width(-1.0)
    percent = round(100 * choices.text_scale)
    if imgui.begin_combo("##text_scale", f"text {percent} %"):
        for scale in TEXT_SCALES:
            if imgui.selectable(f"text {round(100 * scale)} %", scale == choices.text_scale)[0]:
                edits.text_scale = scale
        imgui.end_combo()
    _tip("text_scale")
    imgui.separator_text("plots")
    changed, on = imgui.checkbox("show plots", choices.show_plots)
    if changed:
        edits.show_plots = on
    _tip("show_plots")
    for name, title in PLOT_TITLES.items():
        changed, on = imgui.checkbox(title, choices.plots.shown[name])
        if changed:
            edits.plot_shown = (name, on)
        tips.item_tip(PLOT_TOOLTIPS[name])


def _capture(choices: Choices, form: Form, edits: PanelEdits) -> None:
    imgui.text("folder")
    changed, text, _ = _text_field("##output", choices.output_dir, None, tip="output_dir")
    if changed:
        edits.output_dir = text
    if imgui.button("Export CSV"):
        edits.export_csv = True
    _tip("export_csv")
    imgui.begin_disabled(form.recording)
    changed, whole = imgui.checkbox("record the whole window", choices.record_window)
    tips.item_tip(tooltip("record_window"))
    imgui.end_disabled()
    if changed:
        edits.record_window = whole
    imgui.text("save the setup as a scene file")
    save_width = -imgui.calc_text_size("Overwrite").x - 24.0
    changed, text, _ = _text_field("##save", form.save_text, None, "file.toml", save_width, tip="save_text")
    if changed:
        edits.save_text = text
    imgui.same_line()
    overwrite = form.save_confirm is not None and form.save_confirm == form.save_text.strip()
    width = imgui.calc_text_size("Overwrite").x + 2.0 * imgui.get_style().frame_padding.x
    if imgui.button("Overwrite###save" if overwrite else "Save###save", imgui.ImVec2(width, 0)):
        edits.save_scene = True
    _tip("overwrite" if overwrite else "save")
