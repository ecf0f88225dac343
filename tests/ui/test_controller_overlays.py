"""The overlays drawn per body follow the scene's size when a scene is loaded (ui/controller.py's ``load``): the
cloud of 1000 handles loaded from the panel starts without a thousand arrows, axes, trails and ghosts (several times
a frame's budget), a T-handle loaded after it shows them again, and between scenes of one size the person's choices
stay."""

import dataclasses

from spinlab.render.renderer import MANY_BODIES, RenderOptions
from spinlab.scene.files.scene_file import load_scene
from spinlab.ui.controller_state import PanelEdits
from tests.ui.test_controller_changes import controller_on

PER_BODY = ("show_omega", "show_momentum", "show_axes", "show_herpolhode", "show_invariable_plane", "show_ghost")


def _overlays(options: RenderOptions) -> tuple[bool, ...]:
    return tuple(getattr(options, name) for name in PER_BODY)


def test_loading_a_scene_of_another_size_sets_its_overlays_and_keeps_the_rest(tmp_path):
    controller, _ = controller_on(load_scene("t_handle"), tmp_path)
    # The window's options, as ui/app.py sets them, with choices of the person's: captions off, the Poinsot view on.
    controller.choices.render = dataclasses.replace(RenderOptions(), show_captions=False, show_poinsot=True)
    cloud = load_scene("cloud")
    assert len(cloud.bodies) > MANY_BODIES
    controller.apply(PanelEdits(scene="cloud"))
    options = controller.choices.render
    assert _overlays(options) == (False,) * len(PER_BODY)
    assert (options.show_captions, options.show_poinsot) == (False, True)  # the person's, kept
    controller.apply(PanelEdits(scene="t_handle"))
    assert _overlays(controller.choices.render) == (True,) * len(PER_BODY)


def test_between_scenes_of_one_size_the_persons_overlays_stay(tmp_path):
    controller, _ = controller_on(load_scene("t_handle"), tmp_path)
    controller.choices.render = dataclasses.replace(RenderOptions(), show_omega=False, show_ghost=False)
    controller.apply(PanelEdits(scene="compare"))
    assert (controller.choices.render.show_omega, controller.choices.render.show_ghost) == (False, False)
