"""The ``flip_story`` preset, the explainer video a teacher would show: its physics tells the story its captions
tell (the left handle flips on, the right one, its gyroscopic term switched off at 6.5 s, never flips again), and a
1920×1080, 60 fps recording (decoded back with PyAV) shows each caption at its time and the cameras at each key.

The video's frames are recorded a frame at a time with ``start`` (``record --from``): the same images, bit for bit,
as the whole video's before encoding (render/record.py), at a fraction of the cost of 18 s of 1080p."""

import numpy as np
import pytest

from spinlab.render.offscreen import OffscreenTarget
from spinlab.render.record import MSAA_SAMPLES, VideoRun, video_setup
from spinlab.render.text import TextOverlay
from spinlab.render.video_file import record_scene
from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.model.camera_path import CameraState
from spinlab.scene.running.simulation import Simulation
from spinlab.sim.quaternion import quat_rotate
from tests.render.test_camera_keys import apart, decoded, predicted

SIZE = (1920, 1080)
FPS = 60.0
STORY_S = 18.0
SWITCH_S = 6.5  # the right handle's term switched off (the preset's [[change]])


@pytest.fixture(scope="module")
def story():
    return load_scene("flip_story")


def _crossings(scene, seconds: float) -> list[list[float]]:
    """Per body, the times its middle axis (body y) crosses the plane normal to its angular momentum: the middle of
    each flip."""
    simulation = Simulation(scene)
    middle = np.array([0.0, 1.0, 0.0])
    times: list[list[float]] = [[] for _ in scene.bodies]
    previous = None
    for _ in range(round(seconds / scene.h)):
        simulation.step()
        snapshot = simulation.snapshot()
        side = np.einsum("ij,ij->i", quat_rotate(snapshot.q, middle), snapshot.L_world)
        if previous is not None:
            for body in np.flatnonzero(np.sign(side) != np.sign(previous)):
                times[body].append(simulation.t)
        previous = side
    return times


def test_the_story_flips_as_its_captions_say(story):
    left, right = _crossings(story, STORY_S)
    assert len(left) == 3, left  # flips at ~3.2, 9.3 and 15.4 s, where the camera keys move in
    assert left[0] < SWITCH_S < left[1] and left[2] < STORY_S
    assert right == left[:1], right  # with the left one before the switch, never after it
    assert [key.time for key in story.camera if key.target == "left"] == [pytest.approx(left[0], abs=0.1)]


def _frame_at(scene, t: float, tmp_path, **options) -> np.ndarray:
    """The 1080p60 video's frame at ``t`` s, recorded on its own and decoded."""
    out = tmp_path / f"at_{t:g}.mp4"
    record_scene(scene, out, duration=t + 1.0 / FPS, fps=FPS, size=SIZE, start=t, **options)
    [frame] = decoded(out)
    assert frame.shape == (SIZE[1], SIZE[0], 3)
    return frame


def _frames(ctx, scene, frames: list[int]) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """The video's frames at indices ``frames`` before encoding, with and without captions, as :func:`render_frames`
    makes them (the run advanced a frame at a time, the first frame drawn to frame the cameras), the others not
    drawn."""
    target = OffscreenTarget(ctx, *SIZE, samples=MSAA_SAMPLES)
    text = TextOverlay(ctx)
    run = VideoRun(ctx, video_setup(scene, None, True), text=text)
    options = run.view.renderer.options
    images = {}
    try:
        run.advance_to(0.0)
        for frame in range(max(frames) + 1):
            if frame in frames or frame == 0:
                run.draw(target.framebuffer, SIZE)
                shown = target.read()
                options.show_captions = False
                run.draw(target.framebuffer, SIZE)
                images[frame] = (shown, target.read())
                options.show_captions = True
            run.advance_to((frame + 1) / FPS)
        return images
    finally:
        run.release()
        text.release()
        target.release()


def test_each_caption_is_in_the_frames_of_its_time(story, tmp_path, gl_context):
    # A whole frame inside each caption's time, and one between captions: after "Watch it turn over" (2.2 + 3.0 s),
    # before the change's caption (6.5 s).
    middles = [round((caption.time + 0.5 * caption.duration) * FPS) for caption in story.captions]
    gap = round(6.0 * FPS)
    drawn = _frames(gl_context, story, [*middles, gap])
    shown, bare = ({frame: images[side] for frame, images in drawn.items()} for side in (0, 1))
    for caption, frame in zip(story.captions, middles, strict=True):
        differs = np.abs(shown[frame].astype(int) - bare[frame].astype(int)).max(axis=2) > 40
        rows, _ = np.nonzero(differs)
        assert rows.size > 2000, (caption.text, rows.size)  # its panel and text
        if caption.position == "top":
            assert np.median(rows) < 0.3 * SIZE[1], caption.text
        elif caption.position == "bottom":
            assert np.median(rows) > 0.7 * SIZE[1], caption.text
        # The text is light on its dark panel: bright pixels the frame without captions lacks.
        bright = (shown[frame].min(axis=2) > 150) & ~(bare[frame].min(axis=2) > 150)
        assert bright.sum() > 200, caption.text
    # Between captions, none: the same frame but for a few pixels of the labels' glyphs (the text atlas holds the
    # captions' glyphs too, so a label's may sit at other texels: ~10 pixels, where a caption is thousands).
    between = np.abs(shown[gap].astype(int) - bare[gap].astype(int)).max(axis=2) > 40
    assert between.sum() < 100, between.sum()
    # And the video holds them: a frame recorded and decoded is the one drawn, to the codec's loss.
    first = story.captions[0]
    decoded_frame = _frame_at(story, middles[0] / FPS, tmp_path)
    assert apart(decoded_frame, shown[middles[0]]) < 0.006, first.text
    assert apart(decoded_frame, bare[middles[0]]) > 0.005, first.text


def _predicted(ctx, target, scene, t: float, values: dict) -> np.ndarray:
    """The frame at ``t`` of the story without camera keys, its camera set to ``values`` (the field of view its
    framing's where they give none)."""

    def state(framed: CameraState) -> CameraState:
        return CameraState(values["azimuth"], values["elevation"], values["distance"],
                           np.array(values["target"], dtype=float), values.get("fov", framed.fov))  # fmt: skip

    return predicted(ctx, target, t, state, scene, SIZE)


def test_the_cameras_are_at_each_key(story, tmp_path, gl_context):
    """Each key's camera, every value held from the keys before it: the recorded frame at the key's time is the one
    an offscreen render of that camera predicts (to the codec's loss), and not the one of the key before; at the key
    aiming at a body, the camera looks at that body from the key's angles."""
    target = OffscreenTarget(gl_context, *SIZE, samples=0)
    try:
        values: dict = {}
        previous = None
        for key in story.camera:
            given = {name: getattr(key, name) for name in ("azimuth", "elevation", "distance", "target", "fov")}
            values.update((name, value) for name, value in given.items() if value is not None)
            if given["target"] is None or isinstance(values["target"], str):
                continue  # a key that holds the target, or aims at a body: where it is (below)
            frame = _frame_at(story, key.time, tmp_path)
            wrong = apart(frame, _predicted(gl_context, target, story, key.time, values))
            assert wrong < 0.006, (key.time, wrong)
            if previous is not None:
                assert apart(frame, _predicted(gl_context, target, story, key.time, previous)) > 0.01, key.time
            previous = dict(values)
        assert previous is not None
        [key] = [key for key in story.camera if key.target == "left"]
        run = VideoRun(gl_context, video_setup(story, None, True))
        try:
            run.advance_to(key.time)
            run.draw(target.framebuffer, SIZE)
            state = run.view.cameras[0].state()
            assert (state.azimuth, state.elevation, state.distance) == pytest.approx(
                (key.azimuth, key.elevation, key.distance)
            )
            np.testing.assert_allclose(state.target, run.session.drawable().position[0], atol=1e-9)
        finally:
            run.release()
    finally:
        target.release()
