"""The panel's part of comparisons that survive: the colour of the frozen views' line (ui/panel.py), the divergence
threshold a person can drag, the note saying what side by side leaves out, and each integrator's cost now
(ui/panel.py calls these)."""

from __future__ import annotations

import math

from imgui_bundle import imgui

from spinlab.ui import tips
from spinlab.ui.controller_state import Choices, Form, PanelEdits
from spinlab.ui.cost_plots import cost_table
from spinlab.ui.help_texts import tooltip
from spinlab.ui.integrator_table import left_out_note

__all__ = ["draw_comparison", "DIVERGENCE_RANGE", "FROZEN_RGBA"]

DIVERGENCE_RANGE = (1e-4, 10.0)  # |ΔE|/E; the slider is logarithmic
FROZEN_RGBA = imgui.ImVec4(1.0, 0.68, 0.35, 1.0)
NOTE_RGBA = imgui.ImVec4(0.62, 0.66, 0.72, 1.0)


def draw_comparison(choices: Choices, form: Form, edits: PanelEdits) -> None:
    """What side by side leaves out of the scene, the divergence threshold (log slider) and the cost table."""
    if choices.side_by_side:
        note = left_out_note(choices.scene, choices.compared)
        if note:
            imgui.push_style_color(imgui.Col_.text, NOTE_RGBA)
            imgui.text_wrapped(note)
            imgui.pop_style_color()
    low, high = DIVERGENCE_RANGE
    threshold = choices.divergence if form.in_force is None else form.in_force.divergence  # the run's at the step shown
    value = min(max(threshold, low), high) if math.isfinite(threshold) else high
    imgui.set_next_item_width(-1.0)
    changed, value = imgui.slider_float(
        "##divergence", value, low, high, "freeze past a gain ΔE/E = %.3g", imgui.SliderFlags_.logarithmic
    )
    tips.item_tip(tooltip("divergence"))
    if changed:
        edits.divergence = float(value)
    if form.integrator_table is not None:
        cost_table(form.integrator_table.table())
