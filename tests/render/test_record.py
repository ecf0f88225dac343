"""`record`: a real MP4, decoded back and counted, against the offscreen render of the same instants."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from spinlab.render.grid import GAP_PX
from spinlab.render.look import SEPARATOR_SRGB
from spinlab.render.record import parse_size, render_frames
from spinlab.render.video import decode_frames, read_video_info
from spinlab.render.video_file import record_scene
from spinlab.scene.files.scene_file import load_scene
from spinlab.sim.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
SIZE = (320, 180)
MIN_PSNR_DB = 30.0


def _psnr(a: np.ndarray, b: np.ndarray) -> float:
    mse = np.mean((a.astype(float) - b.astype(float)) ** 2)
    return float("inf") if mse == 0 else 10.0 * np.log10(255.0**2 / mse)


def test_recorded_video_has_exact_frames_and_matches_the_render(tmp_path):
    out = tmp_path / "t_handle.mp4"
    result = record_scene(load_scene("t_handle"), out, duration=1.5, fps=30, size=SIZE)
    assert result.frames == 45 and not result.interrupted
    assert read_video_info(out)[:3] == (45, *SIZE) and read_video_info(out)[3] == 30
    # Simulation time follows the scene's h = 1/60: frame k shows t = k/30 exactly.
    rendered = [image for image, _ in render_frames(load_scene("t_handle"), duration=1.5, fps=30, size=SIZE)]
    decoded = decode_frames(out, [0, 22, 44])
    for frame, index in zip(decoded, [0, 22, 44], strict=True):
        assert _psnr(frame, rendered[index]) > MIN_PSNR_DB
    # The handle turns: the first and last frames differ much more than the codec's error.
    assert _psnr(decoded[0], decoded[2]) < MIN_PSNR_DB - 5


def test_frame_times_follow_the_scene_step_not_the_frame_rate():
    times = [t for _, t in render_frames(load_scene("t_handle"), duration=0.5, fps=24, size=(64, 36))]
    h = load_scene("t_handle").h
    assert len(times) == 12
    for k, t in enumerate(times):
        assert abs(t - k / 24) <= 0.5 * h + 1e-12  # the step nearest the frame's time
        assert abs(round(t / h) * h - t) < 1e-12  # a whole number of steps


def test_compare_records_one_view_per_integrator(tmp_path):
    image, _ = next(render_frames(load_scene("compare"), duration=0.1, fps=10, size=(640, 360)))
    # The views are separated by gaps of the separator colour: whole pixel columns and rows of it.
    separator = np.round(255 * np.array(SEPARATOR_SRGB[:3]))
    is_separator = np.all(np.abs(image.astype(float) - separator) <= 2, axis=-1)
    gap_columns = np.flatnonzero(is_separator.all(axis=0))
    gap_rows = np.flatnonzero(is_separator.all(axis=1))
    columns, rows = len(gap_columns) // GAP_PX + 1, len(gap_rows) // GAP_PX + 1
    views = len(load_scene("compare").bodies)
    assert columns > 1 and rows > 1 and columns * rows >= views


def test_size_parsing():
    assert parse_size("1280x720") == (1280, 720)
    assert parse_size("641x361") == (640, 360)
    for bad in ("1280", "x720", "axb", "8x8", "100000x10"):
        with pytest.raises(InputError):
            parse_size(bad)


def _main(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "main.py"), *args], capture_output=True, text=True, cwd=ROOT)


def test_record_command_writes_a_playable_file_and_rejects_bad_input(tmp_path):
    out = tmp_path / "clip.mp4"
    result = _main("record", "t_handle", "--out", str(out), "--duration", "0.5", "--fps", "20", "--size", "160x90")
    assert result.returncode == 0, result.stderr
    assert read_video_info(out)[:3] == (10, 160, 90)
    for args in (
        ("record", "t_handle", "--out", str(tmp_path / "x.avi")),
        ("record", "t_handle", "--out", str(tmp_path / "no" / "dir.mp4")),
        ("record", "t_handle", "--out", str(out), "--size", "12x"),
        ("record", "no_such_scene", "--out", str(out)),
    ):
        bad = _main(*args)
        assert bad.returncode == 2, (args, bad.stderr)
        assert bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr
    assert not list(tmp_path.glob("*.tmp*"))


def test_pipelined_frames_are_the_frames_drawn_one_at_a_time():
    """render_frames reads frame k back only after simulating frame k + 1 and preparing its instances: each image
    must still be frame k's, pixel for pixel, as drawing and reading one frame at a time gives it."""
    from spinlab.render.offscreen import OffscreenTarget, create_offscreen_context
    from spinlab.render.record import VideoRun, video_setup
    from spinlab.render.text import TextOverlay

    scene, fps, size = load_scene("t_handle"), 30, (160, 90)
    pipelined = list(render_frames(scene, duration=0.2, fps=fps, size=size))
    ctx = create_offscreen_context()
    target, text = OffscreenTarget(ctx, *size, samples=0), TextOverlay(ctx)
    scenes = VideoRun(ctx, video_setup(scene, None, True), text=text)
    for frame, (image, t) in enumerate(pipelined):
        scenes.advance_to(frame / fps)
        scenes.draw(target.framebuffer, target.size)
        assert t == scenes.t
        assert np.array_equal(image, target.read()), f"frame {frame} differs"
    assert not np.array_equal(pipelined[0][0], pipelined[-1][0])
    scenes.release()
    target.release()
    ctx.release()


def test_the_next_frame_is_stepped_beside_the_flush_on_a_thread_of_its_own(monkeypatch):
    """On llvmpipe glFlush returns once the frame is rasterised, without the GIL: the next frame's steps run on
    another thread meanwhile; the GL calls (draws, flush, read-back) stay on the caller's."""
    import threading

    from spinlab.render import record

    caller, stepped_on, flushed_on = threading.get_ident(), [], []
    advance = record.VideoRun.advance_to
    monkeypatch.setattr(record.VideoRun, "advance_to", lambda self, *at: (stepped_on.append(threading.get_ident()),
                                                                          advance(self, *at))[1])  # fmt: skip
    flush = record.flush
    monkeypatch.setattr(record, "flush", lambda: (flushed_on.append(threading.get_ident()), flush())[1])
    frames = list(render_frames(load_scene("t_handle"), duration=0.2, fps=30, size=(64, 36)))
    assert len(frames) == 6 and len(stepped_on) == 6 and set(flushed_on) == {caller}
    assert stepped_on[0] == caller and caller not in stepped_on[1:]  # the first frame's own, then beside each flush


def test_a_followed_body_keeps_its_place_in_every_view():
    # heavy_top side by side: each view's camera moves with its copy of the top (record --follow top), so the top's
    # position relative to the camera's target stays what the first frame framed.
    from spinlab.render.offscreen import OffscreenTarget, create_offscreen_context
    from spinlab.render.record import VideoRun, video_setup
    from spinlab.render.text import TextOverlay

    scene = load_scene("heavy_top")
    ctx = create_offscreen_context()
    target, text = OffscreenTarget(ctx, 320, 180, samples=0), TextOverlay(ctx)
    scenes = VideoRun(ctx, video_setup(scene, "all", True), follow=0, text=text)
    scenes.advance_to(0.0)
    scenes.draw(target.framebuffer, target.size)  # frames the cameras
    scenes.advance_to(0.0)
    tops = [group.bodies[0] for group in scenes.view.groups]

    def offsets():
        position = scenes.session.drawable().position
        return [position[top] - camera.target for top, camera in zip(tops, scenes.view.cameras, strict=True)]

    first = offsets()
    scenes.advance_to(3.0)
    moved = np.linalg.norm(scenes.session.drawable().position[tops] - scenes.session.initial.position[tops], axis=1)
    assert moved.max() > 0.05, "the tops' centres of mass travel"
    np.testing.assert_allclose(offsets(), first, atol=1e-12)
    scenes.release()
    target.release()
    text.release()
    ctx.release()


def test_a_read_back_waits_for_the_rasteriser_in_gl_finish_not_in_moderngl(monkeypatch, gl_context):
    """moderngl's read waits for the queued drawing holding the GIL (no other thread's Python runs meanwhile); a
    ctypes glFinish first lets go of it, so the read itself only copies."""
    import ctypes

    from spinlab.render import offscreen

    assert isinstance(offscreen.gl_function("glFinish"), ctypes._CFuncPtr), "the GL library should be found here"
    calls = []
    monkeypatch.setattr(offscreen, "finish", lambda: calls.append("finish"))
    target = offscreen.OffscreenTarget(gl_context, 32, 18, samples=0)
    read_into = type(target.resolved).read_into

    def read_counted(self, *args, **kwargs):
        calls.append("read")
        return read_into(self, *args, **kwargs)

    monkeypatch.setattr(type(target.resolved), "read_into", read_counted)
    try:
        target.framebuffer.clear(0.25, 0.5, 0.75, 1.0)
        pixels = target.read_rgba()
    finally:
        target.release()
    assert calls == ["finish", "read"]
    assert tuple(pixels[0, 0]) == (64, 128, 191, 255)


def test_the_views_rows_are_made_beside_the_flush_and_the_draw_takes_them(monkeypatch):
    """The numpy of a frame's draw (its views' rows: render/view_rows.py) is made once a frame, on the thread that
    steps the next frame while the last is rasterised, from the second frame on; the draw, on the GL thread, only
    uploads and draws."""
    import threading

    from spinlab.render import renderer

    caller, made_on = threading.get_ident(), []
    view_rows = renderer.view_rows
    monkeypatch.setattr(renderer, "view_rows", lambda *a, **k: (made_on.append(threading.get_ident()),
                                                                view_rows(*a, **k))[1])  # fmt: skip
    frames = list(render_frames(load_scene("flip_story"), duration=0.2, fps=30, size=(64, 36)))
    assert len(frames) == 6
    assert len(made_on) == 6 and made_on[0] == caller and caller not in made_on[1:], made_on


def test_a_recording_leaves_the_callers_context_current_between_frames_and_after(gl_context):
    """moderngl makes each context it creates current and never gives the caller's back: a recording made beside a
    context of the caller's own (a notebook's) must make its own current only while it draws a frame."""
    from spinlab.render.offscreen import EglCurrent, OffscreenTarget

    with gl_context:
        mine = EglCurrent().state
        assert mine is not None
        for _ in render_frames(load_scene("t_handle"), duration=0.1, fps=30, size=(64, 36)):
            assert EglCurrent().state == mine
        assert EglCurrent().state == mine
        target = OffscreenTarget(gl_context, 8, 8, samples=0)  # the caller's context still makes and draws
        try:
            target.framebuffer.clear(1.0, 0.0, 0.0, 1.0)
            assert tuple(target.read()[0, 0]) == (255, 0, 0)
        finally:
            target.release()
