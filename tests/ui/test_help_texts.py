"""The window explains itself: every control the panel draws has a tooltip (ui/help_texts.py), every plot one,
each integrator a one-line description from its claims; the key-help overlay toggles through the controller (F1,
?, the panel's button) and the PAUSED / STOPPED badge says what the run is doing. ImGui without a window."""

import dataclasses

import pytest
from imgui_bundle import imgui

from spinlab.render.legend import legend_box, legend_entries
from spinlab.render.renderer import RenderOptions
from spinlab.scene.files.scene_file import load_scene
from spinlab.sim.integrators import CLAIMS, INTEGRATORS
from spinlab.ui import help_texts
from spinlab.ui import tips as ui_tips
from spinlab.ui.controller import KEY_HELP_KEYS, KEYS
from spinlab.ui.controller_state import PanelEdits
from spinlab.ui.key_help import badge_text, draw_key_help, draw_state_badge
from spinlab.ui.panel import RENDER_LABELS, draw_panel
from spinlab.ui.plots import PLOT_TITLES
from spinlab.ui.view3d import Rect
from tests.ui.headless_host import headless_controller
from tests.ui.test_panel import SECTIONS, STATES, base_state

# The ImGui calls that draw a control a person can use; ui/tips.py's item_tip is what explains the last one.
CONTROLS = ("button", "small_button", "checkbox", "radio_button", "slider_int", "begin_combo", "combo",
            "input_text_with_hint")  # fmt: skip


@pytest.fixture
def drawn(imgui_window, monkeypatch):
    """The controls and tooltips the panel draws, in order: ``("control", label)`` and ``("tip", text)``."""
    for section in SECTIONS:
        imgui.get_state_storage().set_int(imgui.get_id(section), 1)  # the header open
    log = []
    for name in CONTROLS:
        original = getattr(imgui, name)

        def control(label, *args, _original=original, **kwargs):
            log.append(("control", label))
            return _original(label, *args, **kwargs)

        monkeypatch.setattr(imgui, name, control)
    tip = ui_tips.item_tip
    monkeypatch.setattr(ui_tips, "item_tip", lambda text: (log.append(("tip", text)), tip(text))[1])
    return log


@pytest.mark.parametrize("name", STATES)
def test_every_control_the_panel_draws_has_a_tooltip(drawn, name):
    choices, form = base_state()
    choice_fields, form_fields = STATES[name]
    draw_panel(dataclasses.replace(choices, **choice_fields), dataclasses.replace(form, **form_fields))
    controls = [k for k, (kind, _) in enumerate(drawn) if kind == "control"]
    assert len(controls) > 15
    for k in controls:
        following = drawn[k + 1] if k + 1 < len(drawn) else ("end", "")
        assert following[0] == "tip" and following[1].strip(), f"no tooltip after {drawn[k][1]!r}"


def test_side_by_side_checkboxes_describe_each_integrator(drawn):
    choices, form = base_state()
    draw_panel(dataclasses.replace(choices, side_by_side=True), form)
    tips = [text for kind, text in drawn if kind == "tip"]
    for name in INTEGRATORS:
        assert any(help_texts.integrator_line(name) in text for text in tips), name


def test_the_integrators_lines_are_made_once_not_every_frame(imgui_window, monkeypatch):
    """The side-by-side panel lists every integrator with its line as a tooltip, every frame: each line is made
    from the integrator's claims once, whatever the frames."""
    made = []
    monkeypatch.setattr(help_texts, "describe", lambda claims, under_torque: made.append(claims) or claims.method)
    forget = getattr(help_texts.integrator_line, "cache_clear", lambda: None)  # lines made before, by other tests
    forget()
    choices, form = base_state()
    side_by_side = dataclasses.replace(choices, side_by_side=True)
    for _ in range(3):
        draw_panel(side_by_side, form)
    forget()  # the real lines again for the other tests
    assert 0 < len(made) <= len(INTEGRATORS) and len(made) == len({id(claims) for claims in made})


def test_every_render_option_plot_and_integrator_is_explained():
    assert set(RENDER_LABELS) <= set(help_texts.TOOLTIPS)
    assert set(PLOT_TITLES) == set(help_texts.PLOT_TOOLTIPS)
    for name, claims in CLAIMS.items():
        line = help_texts.integrator_line(name)
        assert line.startswith(claims.method) and ("explicit" in line) != claims.implicit


def test_the_key_help_lists_every_key_the_controller_handles():
    listed = {key.lower() for key, _ in help_texts.KEY_HELP}
    # "+ / −" stands for the keys that type them (= is + unshifted, and the keypad's).
    signs = {"plus": "+ / −", "equal": "+ / −", "num_add": "+ / −", "minus": "+ / −", "num_subtract": "+ / −"}
    assert {signs.get(name, name) for name in KEYS} <= listed
    assert "f1 or ?" in listed
    assert {"drag", "right-drag", "wheel"} <= {key for key, _ in help_texts.KEY_HELP}


def test_f1_and_question_mark_and_the_panel_button_toggle_the_key_help(tmp_path):
    controller = headless_controller("t_handle", str(tmp_path))[0]
    choices = controller.choices
    assert choices.show_key_help is False
    for symbol in KEY_HELP_KEYS:
        assert controller.key(symbol) and choices.show_key_help is True
        assert controller.key(symbol) and choices.show_key_help is False
    controller.apply(PanelEdits(toggle_key_help=True))
    assert choices.show_key_help is True
    controller.apply(controller.take_pending())  # nothing pending: it stays
    assert choices.show_key_help is True


def test_the_key_help_window_draws_every_key_and_closes(imgui_window, monkeypatch):
    texts = []
    monkeypatch.setattr(imgui, "text", lambda text: texts.append(text))
    assert draw_key_help(Rect(340.0, 0.0, 940.0, 460.0)) is True
    assert [key for key, _ in help_texts.KEY_HELP] == texts


def test_the_badge_says_paused_or_stopped_and_nothing_while_running(imgui_window):
    assert badge_text(False, None) is None
    assert badge_text(True, None) == "PAUSED"
    assert badge_text(True, "NaN at t = 7.85 s").startswith("STOPPED")
    for paused, error in ((True, None), (True, "x"), (False, None)):
        draw_state_badge(Rect(340.0, 0.0, 940.0, 460.0), paused, error)  # draws (or not) without failing


def test_the_legend_names_each_overlay_shown_and_a_ghost_when_the_option_exists():
    options = RenderOptions()
    lines = [line for line, _ in legend_entries(options)]
    assert any("ω" in line for line in lines) and any("L " in line for line in lines)
    assert any("herpolhode" in line for line in lines) and any("plane" in line for line in lines)
    assert sum("axis" in line for line in lines) == 3
    assert sum("ghost" in line for line in lines) == 1  # on by default (render/ghost.py)
    no_ghost = [line for line, _ in legend_entries(RenderOptions(show_ghost=False))]
    assert no_ghost == [line for line in lines if "ghost" not in line]
    without_planes = [line for line, _ in legend_entries(options, planes=False)]  # a heavy top has no plane
    assert without_planes == [line for line in lines if "plane" not in line] and len(without_planes) == len(lines) - 1
    ghost = type("Options", (), {"show_ghost": True})()
    assert [line for line, _ in legend_entries(ghost)] == ["exact solution (ghost)"]
    off = RenderOptions(**{name: False for name in RENDER_LABELS if hasattr(options, name)})
    assert legend_box(off, 0.0, 0.0, "top_left").lines == ()
    box = legend_box(options, 10.0, 20.0, "bottom_right")
    assert len(box.accents) == len(box.lines) and all(accent is not None for accent in box.accents)


def test_under_gravity_the_panel_gives_the_order_a_method_keeps_there(drawn):
    """The world holds an orientation-dependent torque at each step's midpoint for a method that does not take it
    as a function (sim/world.py; tests/sim/test_torque_splitting.py measures im4 second order so): the panel of a
    heavy top says so, and keeps the orders of the methods that take it."""
    choices, form = base_state()
    top = load_scene("heavy_top")
    assert top.has_torque
    draw_panel(dataclasses.replace(choices, scene=top, integrators=["im6"], side_by_side=True), form)
    tips = "\n".join(text for kind, text in drawn if kind == "tip")
    assert "order 6 torque-free, 2 here" in help_texts.integrator_line("im6", under_torque=True)
    assert help_texts.integrator_line("im6", under_torque=True) in tips
    assert help_texts.integrator_line("split6", under_torque=True) == help_texts.integrator_line("split6")
    assert help_texts.integrator_line("implicit_midpoint", under_torque=True).startswith(
        "implicit midpoint rule · order 2 ·"
    )
    assert "2 here" not in help_texts.integrator_line("im6")  # torque-free, its own order


def test_gui_help_lists_every_key_and_gesture_the_window_shows(capsys):
    # `gui --help` named four keys of the fifteen, from a sentence of its own.
    from spinlab.commands.cli import main

    with pytest.raises(SystemExit):
        main(["gui", "--help"])
    lines = [line.strip() for line in capsys.readouterr().out.splitlines()]
    for key, action in help_texts.KEY_HELP:
        assert any(line.startswith(key) and line.endswith(action) for line in lines), (key, action)


def test_the_gyroscopic_term_is_explained_for_any_body():
    # The panel said "the T-handle never flips" on every scene, the heavy top's among them.
    from spinlab.ui.panel import GYROSCOPIC_NOTE

    for text in (GYROSCOPIC_NOTE, help_texts.tooltip("gyroscopic")):
        assert "handle" not in text.lower() and "top" in text, text
