"""Captions through the window-free controller (tests/ui/headless_host.py): the caption shown is the one of the step
shown, running and looking back; a change's caption comes with the change; the panel's box turns them off; and the
window's Save writes every caption back, the run's switches beside its scripted change's caption."""

from spinlab.render.renderer import RenderOptions
from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.model.captions import captions_at
from spinlab.ui.controller_state import PanelEdits
from tests.scene.test_run_changes import changed_scene
from tests.ui.test_controller_changes import controller_on

SCENE = """
[[caption]]
time = 0.5
duration = 0.5
text = "Watch the handle"
position = "handle"

[[change]]
time = 1.0
gyroscopic = false
caption = "The gyroscopic term is off"
"""


def _shown(controller) -> list[str]:
    return [caption.lines[0] for caption in captions_at(controller.timeline.shown)]


def test_the_caption_shown_is_the_step_shown_s(tmp_path):
    controller, _ = controller_on(changed_scene(tmp_path, SCENE), tmp_path)
    assert _shown(controller) == []
    controller.step(29)
    assert _shown(controller) == []
    controller.step(1)  # t = 0.5 s
    assert _shown(controller) == ["Watch the handle"]
    controller.step(30)  # t = 1 s: the caption has ended, the change has landed with its own
    assert _shown(controller) == ["The gyroscopic term is off"]
    assert controller.form.in_force.gyroscopic is False
    controller.step(200)
    assert _shown(controller) == []  # 3 s after the change
    for step, shown in ((45, ["Watch the handle"]), (59, ["Watch the handle"]), (60, ["The gyroscopic term is off"])):
        controller.apply(PanelEdits(seek=step))
        assert controller.timeline.shown_step == step and _shown(controller) == shown, step


def test_the_panels_box_turns_captions_off(tmp_path):
    controller, host = controller_on(changed_scene(tmp_path, SCENE), tmp_path)
    assert controller.choices.render is None or controller.choices.render.show_captions
    controller.apply(PanelEdits(render=RenderOptions(show_captions=False)))
    assert controller.choices.render.show_captions is False
    assert host.render_options[-1].show_captions is False


def test_save_writes_the_captions_back(tmp_path):
    controller, _ = controller_on(changed_scene(tmp_path, SCENE), tmp_path)
    controller.step(90)
    controller.apply(PanelEdits(gyroscopic=True))  # a switch made in the window: no caption
    controller.form.save_text = "saved.toml"
    controller.apply(PanelEdits(save_scene=True))
    saved = load_scene(tmp_path / "saved.toml")
    assert saved.captions == controller.choices.scene.captions and len(saved.captions) == 1
    assert [(change.time, change.gyroscopic, change.caption) for change in saved.changes] == [
        (1.0, False, "The gyroscopic term is off"), (1.5, True, None)
    ]  # fmt: skip
