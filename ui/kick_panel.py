"""The panel's "Kick" section and the "Initial state" drags of ω (ImGui; the maths is ui/kick_controls.py).

Like ui/panel.py, these draw the controller's dataclasses and return what the person asked for in the frame's
:class:`~ui.controller_state.PanelEdits`; they change nothing themselves. ``text_field`` and ``note`` are the
panel's own widgets (ui/panel.py), passed in so the sections look like the rest of the panel.
"""

from __future__ import annotations

import math

import numpy as np
from imgui_bundle import imgui

from spinlab.sim.quaternion import quat_conj, quat_rotate
from spinlab.ui import tips
from spinlab.ui.controller_state import Choices, Form, PanelEdits
from spinlab.ui.help_texts import tooltip
from spinlab.ui.kick_controls import AXES, omega_to_polar

__all__ = ["kick_section", "omega_drags", "KICK_NOTE"]

KICK_NOTE = (
    "N·m·s, world frame; lands at the next step, on every copy in a comparison. Ctrl+drag on the view strikes too. "
    "Kept: Reset replays them, Save writes them."
)


def kick_section(choices: Choices, form: Form, edits: PanelEdits, text_field, note) -> None:
    """The angular impulse field, "Kick now" and "Clear kicks" (the count of the scene's kicks beside it)."""
    body = choices.scene.bodies[choices.selected_body]
    imgui.text(f"angular impulse on '{body.name}'")
    changed, text, applied = text_field("##kick", form.kick_text, form.kick_error, "x, y, z", -96.0, tip="kick_impulse")
    if changed:
        edits.kick_text = text
    imgui.same_line()
    imgui.begin_disabled(body.kinematic)
    kick_now = imgui.button("Kick now")
    tips.item_tip(tooltip("kick_now"))
    if kick_now or applied:
        edits.kick = (choices.selected_body, None)
    imgui.end_disabled()
    count = len(choices.scene.kicks)
    imgui.begin_disabled(count == 0)
    clear = imgui.button("Clear kicks")
    tips.item_tip(tooltip("clear_kicks"))
    if clear:
        edits.clear_kicks = True
    imgui.end_disabled()
    imgui.same_line()
    imgui.text(f"{count} kick{'' if count == 1 else 's'} in the scene")
    note(KICK_NOTE)


def omega_drags(choices: Choices, form: Form, edits: PanelEdits, note) -> None:
    """|ω| and the angle of ω off a principal axis (and the azimuth about it), dragged; released, they apply."""
    body = choices.scene.bodies[choices.selected_body]
    if body.kinematic:
        return
    imgui.separator_text("ω: size and angle off a principal axis")
    imgui.set_next_item_width(-1.0)
    current = AXES.index(choices.initial_axis)
    changed, index = imgui.combo("##axis", current, [f"off the {axis} axis" for axis in AXES])
    tips.item_tip(tooltip("initial_axis"))
    if changed:
        edits.initial_axis = AXES[index]
    omega_body = quat_rotate(quat_conj(body.orientation), body.omega_parent)
    magnitude, angle, azimuth = omega_to_polar(omega_body, np.asarray(body.inertia_com), choices.initial_axis)
    shown = form.omega_polar_drag or (magnitude, math.degrees(angle), math.degrees(azimuth))
    values, released = list(shown), False
    for i, (label, speed, low, high, text, tip) in enumerate(
        (
            ("|ω| rad/s", 0.02, 0.0, 1e4, "%.3f", "omega_size"),
            ("angle °", 0.05, 0.0, 180.0, "%.3f°", "omega_angle"),
            ("azimuth °", 0.5, -180.0, 180.0, "%.1f°", "omega_azimuth"),
        )
    ):
        imgui.set_next_item_width(-96.0)
        moved, values[i] = imgui.drag_float(label, float(shown[i]), speed, low, high, text)
        tips.item_tip(tooltip(tip))
        released = released or imgui.is_item_deactivated_after_edit()
        if moved:
            edits.omega_polar_drag = (values[0], values[1], values[2])
    if released:
        edits.omega_polar = (values[0], math.radians(values[1]), math.radians(values[2]))
    note("Drag, or Ctrl+click to type; released, the run restarts from the new ω (every alike copy's too).")
