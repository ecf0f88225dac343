"""The timeline's row under the 3D views: the steps the run kept as a slider, a step back and on, and "now".

The run keeps every step it took (scene/model/step_record.py); the slider spans the steps held, from the oldest (0 until
the record's budget forgets some) to the run now, a tick on it at each switch of the gyroscopic term
(scene/model/run_changes.py) and a bar along the bottom of it over each caption's steps (scene/model/captions.py).
Dragging it, or ← and → (a step), Home and End, shows the run as it was then, paused; Run (Space) plays the recorded
steps on from there as they were first drawn, then goes on live; a change made there (the gyroscopic term, a kick, the
divergence threshold) goes on from that step as a branch beside the run as it was, whose later steps are kept ("end
branch…", "keep the original" takes it back; ui/controller.py). The row is always the same size, so nothing under the
mouse moves as the run goes on.
"""

from __future__ import annotations

from collections.abc import Sequence

from imgui_bundle import imgui

from spinlab.render.leader_lines import POINTER_RGBA
from spinlab.scene.model.run_changes import Change
from spinlab.ui import tips
from spinlab.ui.controller_state import PanelEdits

__all__ = ["draw_timeline", "TIMELINE_HELP", "tick_fractions", "span_fractions", "CHANGE_RGBA", "CAPTION_RGBA"]

TIMELINE_HELP = (
    "The run's history: drag to see the run as it was (Left and Right: a step; Home, End).\n"
    "Run (Space) plays the recorded steps on; a change made there (the gyroscopic term, a kick,\n"
    "the divergence threshold) goes on from that step as a branch, the run as it was beside it.\n"
    "Ticks: the gyroscopic term switched (scripted in the scene, or in the panel).\n"
    "Bars along the bottom: the scene's captions, each while it is shown."
)
CHANGE_RGBA = (0.45, 0.85, 1.0, 0.95)  # a switch of the gyroscopic term: the timeline's tick, the plots' line
CAPTION_RGBA = POINTER_RGBA  # a caption's steps: the timeline's bar, in the colour of a caption's leader line
CAPTION_BAR = 0.18  # the bar's height, of the slider's
GRAB_PADDING_PX = 2.0  # ImGui's slider keeps its grab this far inside its frame (imgui_widgets.cpp)
END_LABEL = "end branch…"
END_POPUP = "end the branch"
KEEP_BRANCH = "keep the branch (B): the original is forgotten"
KEEP_ORIGINAL = "keep the original: the branch is undone"
BRANCH_HELP = (
    "Branch (B): keep the run as it is and go on from the step shown as a second run beside it,\n"
    "the original on the left; a change now (the gyroscopic term, a kick) applies to the branch,\n"
    "and its labels say how far it has turned from the original."
)


def draw_timeline(
    edits: PanelEdits, first: int, shown: int, last: int, h: float, branched: bool = False,
    changes: Sequence[Change] = (), captions: Sequence[tuple[int, int]] = (),
) -> None:  # fmt: skip
    """One row at the cursor: step back, step on, the slider over steps ``first``…``last`` (of ``h`` s) showing step
    ``shown`` with a tick at each of ``changes`` and a bar along each of ``captions`` (steps first ≤ k < end), "now" and
    "branch" ("end branch…" when ``branched``, which asks which run to keep); what is clicked goes into ``edits``
    (``step_back``, ``step``, ``seek``, ``to_present``, ``branch``, ``back_to_original``)."""
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
    buttons = imgui.calc_text_size("now").x + imgui.calc_text_size(END_LABEL).x + 4.0 * padding + 2.0 * spacing
    imgui.set_next_item_width(max(imgui.get_content_region_avail().x - buttons, 40.0))
    t_first, t_last = first * h, max(last, first + 1) * h
    text = f"t = %.2f s of {last * h:.2f} s" if looking_back else "t = %.2f s"
    changed, t = imgui.slider_float("##timeline", shown * h, t_first, t_last, text)
    if changed:
        edits.seek = min(max(round(t / h), first), last)
    _ticks(tick_fractions([change.step for change in changes], first, max(last, first + 1)))
    _bars(span_fractions(captions, first, max(last, first + 1)))
    _tooltip(TIMELINE_HELP)
    imgui.same_line()
    imgui.begin_disabled(not looking_back)
    if imgui.button("now###now"):
        edits.to_present = True
    imgui.end_disabled()
    _tooltip("back to the run now (End)")
    imgui.same_line()
    width = imgui.calc_text_size(END_LABEL).x + 2.0 * padding
    if imgui.button(f"{END_LABEL}###branch" if branched else "branch###branch", imgui.ImVec2(width, 0.0)):
        if branched:
            imgui.open_popup(END_POPUP)
        else:
            edits.branch = True
    _tooltip(BRANCH_HELP if not branched else "end the branch: keep the branch's run (B) or the original's")
    _end_branch_popup(edits)


def _end_branch_popup(edits: PanelEdits) -> None:
    """The two ways to end a branch: go on with the branch's run alone, or with the original's (the branch
    undone)."""
    if not imgui.begin_popup(END_POPUP):
        return
    if imgui.selectable(KEEP_BRANCH, False)[0]:
        edits.branch = True
    if imgui.selectable(KEEP_ORIGINAL, False)[0]:
        edits.back_to_original = True
    imgui.end_popup()


def tick_fractions(steps: Sequence[int], first: int, last: int) -> list[float]:
    """Where each of ``steps`` falls along a slider over steps ``first``…``last``, from 0 to 1 (those outside it
    left out)."""
    return [(step - first) / (last - first) for step in steps if first <= step <= last and last > first]


def span_fractions(spans: Sequence[tuple[int, int]], first: int, last: int) -> list[tuple[float, float]]:
    """The part of each of ``spans`` (steps ``start`` ≤ k < ``end``) along a slider over steps ``first``…``last``, as
    fractions from 0 to 1 (those outside it left out)."""
    if last <= first:
        return []
    return [
        ((max(start, first) - first) / (last - first), (min(end - 1, last) - first) / (last - first))
        for start, end in spans
        if start <= last and end - 1 >= first
    ]


def _slider_span() -> tuple[float, float, imgui.ImVec2, imgui.ImVec2]:
    """Where fraction 0 of the last item (the slider) is and how far 1 is from it, pixels, and its corners."""
    low, high = imgui.get_item_rect_min(), imgui.get_item_rect_max()
    grab = imgui.get_style().grab_min_size
    return low.x + GRAB_PADDING_PX + 0.5 * grab, max(high.x - low.x - 2.0 * GRAB_PADDING_PX - grab, 1.0), low, high


def _bars(spans: list[tuple[float, float]]) -> None:
    """A thin bar along the bottom of the last item (the slider) over each of ``spans``, at least a tick wide."""
    if not spans:
        return
    left, span, low, high = _slider_span()
    color = imgui.get_color_u32(imgui.ImVec4(*CAPTION_RGBA))
    draw_list, top = imgui.get_window_draw_list(), high.y - CAPTION_BAR * (high.y - low.y)
    for start, end in spans:
        x0, x1 = left + start * span, left + end * span
        draw_list.add_rect_filled(imgui.ImVec2(x0 - 1.0, top), imgui.ImVec2(max(x1, x0) + 1.0, high.y), color)


def _ticks(fractions: list[float]) -> None:
    """A short tick above and below the last item (the slider) at each of ``fractions`` along its grab's range."""
    if not fractions:
        return
    left, span, low, high = _slider_span()
    color = imgui.get_color_u32(imgui.ImVec4(*CHANGE_RGBA))
    draw_list, length = imgui.get_window_draw_list(), 0.3 * (high.y - low.y)
    for fraction in fractions:
        x = round(left + fraction * span) + 0.5
        draw_list.add_line(imgui.ImVec2(x, low.y), imgui.ImVec2(x, low.y + length), color, 2.0)
        draw_list.add_line(imgui.ImVec2(x, high.y - length), imgui.ImVec2(x, high.y), color, 2.0)


def _tooltip(text: str) -> None:
    if imgui.is_item_hovered(imgui.HoveredFlags_.allow_when_disabled):
        tips.tip(text)
