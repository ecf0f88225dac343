"""The Poinsot view as drawn (render/poinsot_view.py), on real GL (EGL, offscreen) through a video's run: the wheel
magnifies each construction about its herpolhode, which stays in view, as far as it fits; and without the wheel the
constructions are drawn where the closed form puts them."""

import numpy as np
import pytest

from spinlab.render.camera import project
from spinlab.render.instances import frames_along
from spinlab.render.offscreen import OffscreenTarget
from spinlab.render.poinsot import poinsot_geometry
from spinlab.render.poinsot_view import MAX_SCALE, PoinsotCamera, constructions, poinsot_centres, zoom_limit
from spinlab.render.record import VideoRun, video_setup
from spinlab.render.run_view import POINSOT_LABEL_WIDTH_PX
from spinlab.render.text import TextOverlay
from spinlab.render.viewports import label_clearance
from spinlab.scene.files.scene_file import load_scene

SIZE = (1280, 720)


@pytest.fixture(scope="module")
def video(gl_context):
    """A 1280 × 720 video's run of the T-handle with the Poinsot view, 20 s in, drawn; and a draw of it."""
    text, target = TextOverlay(gl_context), OffscreenTarget(gl_context, *SIZE)
    run = VideoRun(gl_context, video_setup(load_scene("t_handle"), None, True), None, True, True, None, text)
    run.advance_to(0.0)
    for _ in range(2):  # the Poinsot view is placed from the second frame
        run.draw(target.framebuffer, SIZE)
    run.advance_to(20.0)
    run.draw(target.framebuffer, SIZE)
    yield run, lambda: run.draw(target.framebuffer, SIZE)
    run.release()
    text.release()
    target.release()


def _herpolhodes_drawn(run) -> np.ndarray:
    """(T, 2) framebuffer pixels of both herpolhodes' points as the Poinsot view draws them now."""
    camera, (x, y, width, height) = run.view.poinsot_camera, run.view.poinsot_viewport
    made = constructions(run.renderer.poinsot_traces, width / height, camera.scale).values()
    points = np.concatenate([construction.herpolhode for construction in made])
    points = points[np.all(np.isfinite(points), axis=1)]
    return project(camera.view_projection(width / height), points, (x, y, width, height))


def _in_view(run, pixels: np.ndarray) -> bool:
    """Inside the Poinsot view and below its label."""
    x, y, width, height = run.view.poinsot_viewport
    scale = min(1.0, width / POINSOT_LABEL_WIDTH_PX)
    top = y + height * (1.0 - label_clearance(3, scale, height))
    return bool(np.all((pixels[:, 0] >= x) & (pixels[:, 0] < x + width) & (pixels[:, 1] >= y) & (pixels[:, 1] < top)))


def test_unmagnified_the_constructions_are_the_closed_forms_at_their_centres(video):
    run, _ = video
    traces = run.renderer.poinsot_traces
    exact = poinsot_geometry(traces.inertia_body, *traces.latest["exact"])
    to_display = frames_along(-exact.normal[None])[0].T / exact.semi_axes.max()  # the exact L̂ → −z, 1 m semi-axis
    made = constructions(traces, 2.0, 1.0)
    for which, centre in zip(("integrator", "exact"), poinsot_centres(2.0), strict=True):
        world_omega = traces.history(which)[1]
        np.testing.assert_allclose(made[which].herpolhode, centre + world_omega @ to_display.T, atol=1e-12)
        np.testing.assert_allclose(made[which].centre, centre, atol=1e-12)
    np.testing.assert_allclose(made["exact"].normal, [0.0, 0.0, -1.0], atol=1e-12)  # the plane is a floor


def test_a_video_frames_the_herpolhodes_from_its_first_frame(video):
    """``record --poinsot`` has no wheel: from its first frame its view is magnified (from the herpolhodes' reach in
    closed form: at t = 0 they are a point each) so that, small beside their ellipsoids, they are drawn large enough
    to read, a tenth of the view's width at least (6 % unmagnified), and in view below the label."""
    run, _ = video
    width = run.view.poinsot_viewport[2]
    assert run.view.poinsot_camera.scale > 1.0
    drawn = _herpolhodes_drawn(run)
    assert _in_view(run, drawn)
    halves = drawn[: len(drawn) // 2], drawn[len(drawn) // 2 :]  # the integrator's and the exact one
    assert min(np.ptp(half[:, 0]) for half in halves) > 0.1 * width


def test_the_wheel_magnifies_about_the_herpolhodes_and_keeps_them_in_view(video):
    run, draw = video
    x, y, width, height = run.view.poinsot_viewport
    assert isinstance(run.view.poinsot_camera, PoinsotCamera)
    run.view.poinsot_camera.scale = 1.0  # the whole ellipsoids in view
    draw()
    before = _herpolhodes_drawn(run)
    assert _in_view(run, before)
    distance = run.view.poinsot_camera.distance
    for _ in range(8):  # a wheel turned 16 clicks over the Poinsot view, drawn after every two
        run.view.zoom(2.0, (x + 0.5 * width, y + 0.5 * height))
        draw()
        assert _in_view(run, _herpolhodes_drawn(run))
    after = _herpolhodes_drawn(run)
    assert run.view.poinsot_camera.distance == distance  # the eye stays: each construction is magnified instead
    assert np.ptp(after[:, 0]) > 3.0 * np.ptp(before[:, 0])  # and the herpolhodes with it
    # As far as they fit: the wheel stops there.
    limit = zoom_limit(run.renderer.poinsot_traces, width / height)
    assert 1.0 < run.view.poinsot_camera.scale <= limit < MAX_SCALE
    run.view.zoom(-40.0, (x + 0.5 * width, y + 0.5 * height))
    draw()
    assert _in_view(run, _herpolhodes_drawn(run)) and run.view.poinsot_camera.scale < 1.0
