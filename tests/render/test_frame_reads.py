"""A frame drawn through RunView (the window's and the video's path) reads nothing back from the GPU: a read, a
query's result or a finish makes the CPU wait for the rasteriser, which on llvmpipe is the whole frame's drawing."""

import dataclasses

import moderngl
import pytest

from spinlab.render.offscreen import OffscreenTarget
from spinlab.render.renderer import RenderOptions
from spinlab.render.run_view import RunView
from spinlab.render.text import TextOverlay
from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.model.run_model import Session, Setup, default_integrators

# What waits for the GPU: moderngl's reads of framebuffers, buffers and textures, query results, and finish.
WAITS = [
    (moderngl.Framebuffer, "read"),
    (moderngl.Framebuffer, "read_into"),
    (moderngl.Buffer, "read"),
    (moderngl.Buffer, "read_into"),
    (moderngl.Texture, "read"),
    (moderngl.Texture, "read_into"),
    (moderngl.Context, "finish"),
    (moderngl.Query, "samples"),
    (moderngl.Query, "primitives"),
    (moderngl.Query, "elapsed"),
]


@pytest.mark.parametrize("side_by_side", [False, True])
def test_a_frame_waits_for_no_gpu_result(gl_context, monkeypatch, side_by_side):
    scene = load_scene("compare" if not side_by_side else "t_handle")
    session = Session(Setup(scene, default_integrators(scene), h=scene.h, side_by_side=side_by_side))
    text = TextOverlay(gl_context)
    target = OffscreenTarget(gl_context, 480, 270, samples=0)
    view = RunView(gl_context, session, text, options=dataclasses.replace(RenderOptions(), show_poinsot=True))
    view.feed(session)
    session.step(20)
    view.feed(session)
    waits = []
    for owner, name in WAITS:
        original = getattr(owner, name)
        if isinstance(original, property):
            replaced = property(lambda self, name=name, original=original: waits.append(name) or original.fget(self))
        else:

            def replaced(self, *args, name=name, original=original, **kwargs):
                waits.append(name)
                return original(self, *args, **kwargs)

        monkeypatch.setattr(owner, name, replaced)
    for _ in range(4):  # shaded, into the caches, from the caches, and a step later
        view.prepare(session.drawable())
        view.draw(target.framebuffer, target.size, (0, 0, *target.size), session, text_scale=0.4)
        session.step(1)
        view.feed(session)
    monkeypatch.undo()
    assert waits == []
    assert target.read().any()  # something was drawn
    view.release()
    text.release()
    target.release()
