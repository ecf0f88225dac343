"""Tooltips stay inside the window: a long tooltip wraps instead of running past the window's edge, and every
tooltip of the window is drawn by ui/tips.py (no module calls ImGui's unwrapped ones)."""

import re
from pathlib import Path

import pytest
from imgui_bundle import imgui

from spinlab.ui.help_texts import tooltip
from spinlab.ui.panel import integrator_line
from spinlab.ui.tips import item_tip

DISPLAY_W, DISPLAY_H = 800.0, 600.0


@pytest.fixture
def context():
    made = imgui.create_context()
    io = imgui.get_io()
    io.set_ini_filename("")
    io.display_size = imgui.ImVec2(DISPLAY_W, DISPLAY_H)
    io.backend_flags |= imgui.BackendFlags_.renderer_has_textures
    yield io
    imgui.destroy_context(made)


def _tooltip_window(io, text: str):
    """The tooltip ImGui drew for a button at the window's right edge hovered for a second, with ``text``."""
    for _ in range(12):  # hovered long enough for the tooltip's delay: 12 frames of 0.1 s
        io.delta_time = 0.1
        io.add_mouse_pos_event(DISPLAY_W - 185.0, 32.0)
        imgui.new_frame()
        imgui.set_next_window_pos(imgui.ImVec2(DISPLAY_W - 200.0, 0.0))
        imgui.set_next_window_size(imgui.ImVec2(200.0, DISPLAY_H))
        imgui.begin("panel")
        imgui.button("hover me")
        item_tip(text)
        imgui.end()
        imgui.render()
    shown = [window for window in imgui.get_current_context().windows if window.name.startswith("##Tooltip")]
    assert shown, "no tooltip was drawn"
    return shown[-1]


@pytest.mark.parametrize(
    "text",
    [
        tooltip("compare") + "\n" + integrator_line("implicit_midpoint", False),
        "one long line without a break " * 12,
    ],
)
def test_a_long_tooltip_wraps_inside_the_window(context, text):
    window = _tooltip_window(context, text)
    padding = imgui.get_style().window_padding.x
    assert window.pos.x >= 0.0 and window.pos.x + window.size.x <= DISPLAY_W
    # Its text fits its box: the content is no wider than the box less its padding (the old tooltips' text ran on,
    # 4,200 px of it in a 794 px box here).
    assert window.content_size.x <= window.size.x - 2.0 * padding + 1.0


def test_no_module_draws_an_unwrapped_tooltip():
    root = Path(__file__).resolve().parents[2]
    raw = re.compile(r"imgui\.(set_item_tooltip|set_tooltip|begin_item_tooltip|begin_tooltip)\(")
    offenders = [
        str(path.relative_to(root))
        for folder in ("ui", "render")
        for path in sorted((root / folder).glob("*.py"))
        if path.name != "tips.py" and raw.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []
