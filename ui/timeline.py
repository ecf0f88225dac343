"""The timeline's row under the 3D views: the steps the run kept as a slider, a step back and on, and "now".

The run keeps every step it took (scene/model/step_record.py); the slider spans the steps held, from the oldest (0
until the record's budget forgets some) to the run now. Dragging it, or ← and → (a step), Home and End, shows the
run as it was then, paused; Run (Space) plays the recorded steps on from there as they were first drawn, then goes
on live; a change made there (the gyroscopic term, a kick, the divergence threshold) takes the run back to that step
and goes on from it as a new run (scene/model/timeline.py's ``go_on_from_shown``). The row is always the same size,
so nothing under the mouse moves as the run goes on.
"""

from __future__ import annotations

from imgui_bundle import imgui

from spinlab.ui.controller_state import PanelEdits

__all__ = ["draw_timeline", "TIMELINE_HELP"]

TIMELINE_HELP = (
    "The run's history: drag to see the run as it was (Left and Right: a step; Home, End).\n"
    "Run (Space) plays the recorded steps on; a change made there (the gyroscopic term, a kick,\n"
    "the divergence threshold) goes on from that step as a new run."
)
BRANCH_HELP = (
    "Branch (B): keep the run as it is and go on from the step shown as a second run beside it,\n"
    "the original on the left; a change now (the gyroscopic term, a kick) applies to the branch,\n"
    "and its labels say how far it has turned from the original."
)


def draw_timeline(edits: PanelEdits, first: int, shown: int, last: int, h: float, branched: bool = False) -> None:
    """One row at the cursor: step back, step on, the slider over steps ``first``…``last`` (of ``h`` s) showing step
    ``shown``, "now" and "branch" ("end branch" when ``branched``); what is clicked goes into ``edits``
    (``step_back``, ``step``, ``seek``, ``to_present``, ``branch``)."""
    looking_back = shown < last
    if imgui.arrow_button("##step back", imgui.Dir.left):
        edits.step_back = True
    _tooltip("a step back (Left)")
    imgui.same_line()
    if imgui.arrow_button("##step on", imgui.Dir.right):
        edits.step = True
    _tooltip("a step on (Right): the recorded one when looking back")
    imgui.same_line()
    padding, spacing = imgui.get_style().frame_padding.x, imgui.get_style().item_spacing.x
    # Both buttons as wide as their widest label: the slider keeps its width whatever they say.
    buttons = imgui.calc_text_size("now").x + imgui.calc_text_size("end branch").x + 4.0 * padding + 2.0 * spacing
    imgui.set_next_item_width(max(imgui.get_content_region_avail().x - buttons, 40.0))
    t_first, t_last = first * h, max(last, first + 1) * h
    text = f"t = %.2f s of {last * h:.2f} s" if looking_back else "t = %.2f s"
    changed, t = imgui.slider_float("##timeline", shown * h, t_first, t_last, text)
    if changed:
        edits.seek = min(max(round(t / h), first), last)
    _tooltip(TIMELINE_HELP)
    imgui.same_line()
    imgui.begin_disabled(not looking_back)
    if imgui.button("now###now"):
        edits.to_present = True
    imgui.end_disabled()
    _tooltip("back to the run now (End)")
    imgui.same_line()
    width = imgui.calc_text_size("end branch").x + 2.0 * padding
    if imgui.button("end branch###branch" if branched else "branch###branch", imgui.ImVec2(width, 0.0)):
        edits.branch = True
    _tooltip(BRANCH_HELP if not branched else "end the branch: go on with the branch's run alone (B)")


def _tooltip(text: str) -> None:
    if imgui.is_item_hovered(imgui.HoveredFlags_.allow_when_disabled):
        imgui.set_tooltip(text)
