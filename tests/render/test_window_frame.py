"""The window's frame off screen (render/window_frame.py) on real GL (EGL): its BGRA-stored texture reads and writes
as RGBA, and a run drawn into it is the run drawn into an RGBA target, with the backdrop's cache stored as the
target it is copied into."""

import numpy as np
import pytest

from spinlab.render.gpu import bgra_texture, stored_bgra
from spinlab.render.offscreen import OffscreenTarget
from spinlab.render.record import VideoRun, video_setup
from spinlab.render.text import TextOverlay
from spinlab.render.window_frame import WindowFrame
from spinlab.scene.files.scene_file import load_scene

SIZE = (640, 360)


def test_a_bgra_texture_reads_and_writes_as_rgba(gl_context):
    texture = bgra_texture(gl_context, (37, 11))
    pixels = np.random.default_rng(7).integers(0, 256, (11, 37, 4), dtype=np.uint8)
    texture.write(pixels.tobytes())
    framebuffer = gl_context.framebuffer(color_attachments=[texture])
    read = np.frombuffer(framebuffer.read(components=4, alignment=1), dtype=np.uint8).reshape(11, 37, 4)
    try:
        assert stored_bgra(texture) and stored_bgra(framebuffer)
        np.testing.assert_array_equal(read, pixels)
    finally:
        framebuffer.release()
        texture.release()


def test_a_frame_drawn_into_the_window_frame_is_the_one_drawn_into_rgba(gl_context):
    """Three frames of a paused run (shaded, shaded into the cache and copied, copied) into each target: the same
    pixels to a level. llvmpipe shades some tiles along a fixed-point path (a target without depth: the backdrop's
    cache and sky) and others in floats, rounding a level apart (at up to 12 % of the values, measured)."""
    frame, rgba = WindowFrame(gl_context, SIZE), OffscreenTarget(gl_context, *SIZE, samples=0)
    text = TextOverlay(gl_context)  # the labels too, whose panels the cache holds
    run = VideoRun(gl_context, video_setup(load_scene("t_handle"), None, True), None, True, False, None, text)
    run.advance_to(0.5)
    area = (0, 0, *SIZE)
    images = {}
    try:
        for name, target in (("bgra", frame.framebuffer), ("rgba", rgba.framebuffer)):
            run.view.renderer.backdrop.forget()
            drawn = []
            for _ in range(3):
                run.view.draw(target, SIZE, area, run.session, text_scale=1.0)
                drawn.append(np.frombuffer(target.read(components=3, alignment=1), dtype=np.uint8).astype(int))
            assert run.view.renderer.backdrop.whole_key is not None, "the last frame should come from the cache"
            assert stored_bgra(run.view.renderer.backdrop.framebuffer) == (name == "bgra")
            images[name] = drawn
    finally:
        run.release()
        text.release()
        frame.release()
        rgba.release()
    for bgra, plain in zip(images["bgra"], images["rgba"], strict=True):
        assert np.ptp(plain) > 100, "the frame is blank"
        apart = np.abs(bgra - plain)
        assert apart.max() <= 1 and apart.mean() < 0.25


@pytest.mark.parametrize("size", [(640, 360), (641, 361)])
def test_a_window_frame_is_made_again_only_at_another_size(gl_context, size):
    frame = WindowFrame(gl_context, (640, 360))
    again = frame.resize(size)
    try:
        assert (again is frame) == (size == (640, 360))
        assert again.texture.size == size and again.framebuffer.size == size
        assert again.framebuffer.depth_attachment is not None
    finally:
        again.release()
