"""The exact ghost (render/ghost.py) on real GL (EGL, offscreen): a translucent copy where the integrator's body has
turned away from the closed form, nothing where it has not, nothing when switched off; the same in ``record``."""

import dataclasses

import numpy as np
import pytest

from spinlab.render.ghost import GHOST_ALPHA, Ghost, ghost_orientations, ghost_solids
from spinlab.render.offscreen import OffscreenTarget
from spinlab.render.renderer import RenderOptions
from spinlab.render.run_view import RunView
from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.model.run_model import Session, Setup

WIDTH, HEIGHT = 480, 360
BODY_AND_GHOST = RenderOptions(
    show_omega=False, show_momentum=False, show_axes=False, show_herpolhode=False, show_invariable_plane=False,
    show_floor=False,
)  # fmt: skip


@pytest.fixture(scope="module")
def drifted():
    """euler_body on the T-handle after 12 s: its orientation has left the closed form's by a large angle."""
    scene = load_scene("t_handle")
    session = Session(Setup(scene, ("euler_body",), h=scene.h))
    session.step(round(12.0 / scene.h))
    return session


def _image(ctx, session, options, ghost="session"):
    view = RunView(ctx, session, None, options=dataclasses.replace(options))
    target = OffscreenTarget(ctx, WIDTH, HEIGHT)
    try:
        view.feed(session)
        if ghost != "session":
            view.renderer.set_ghost(ghost)
        view.draw(target.framebuffer, target.size, (0, 0, WIDTH, HEIGHT), session, text_scale=1.0)
        return target.read().astype(float)
    finally:
        view.release()
        target.release()


def test_the_ghost_follows_the_closed_form(drifted):
    ghost = ghost_orientations(drifted)
    assert ghost.applies_to(drifted.t)
    np.testing.assert_array_equal(ghost.q, drifted.latest.sample.q_exact[-1])
    assert drifted.latest.sample.orientation_error[-1, 0] > 0.3


def test_ghost_blends_where_the_body_turned_away(gl_context, drifted):
    with_ghost = _image(gl_context, drifted, BODY_AND_GHOST)
    without = _image(gl_context, drifted, dataclasses.replace(BODY_AND_GHOST, show_ghost=False))
    changed = np.abs(with_ghost - without).sum(axis=2) > 6
    assert changed.sum() > 500  # the ghost's handle stands apart from the body
    # Translucent: a ghost pixel over the backdrop moves it part of the way to the ghost's colour, not all of it.
    body = np.abs(without - without[0, 0]).sum(axis=2) > 40  # the opaque body (the corner is backdrop)
    over_backdrop = changed & ~body
    assert over_backdrop.sum() > 300
    # Blended "over" with alpha GHOST_ALPHA, once per pixel: what = (1 − a)·backdrop + a·ghost, ghost in [0, 255].
    ghost_part = with_ghost[over_backdrop] - (1.0 - GHOST_ALPHA) * without[over_backdrop]
    assert ghost_part.min() > -2.0 and ghost_part.max() < GHOST_ALPHA * 255.0 + 2.0
    # and the ghost is pale: its own colour (ghost_part / a) is light, lighter than the backdrop.
    assert np.median(ghost_part.sum(axis=1) / GHOST_ALPHA) > 1.5 * np.median(without[over_backdrop].sum(axis=1))


def test_no_ghost_when_off_or_when_it_coincides(gl_context, drifted):
    off = _image(gl_context, drifted, dataclasses.replace(BODY_AND_GHOST, show_ghost=False))
    none = _image(gl_context, drifted, BODY_AND_GHOST, ghost=None)
    same = _image(gl_context, drifted, BODY_AND_GHOST, ghost=Ghost(drifted.t, drifted.snapshot.q))
    stale = _image(gl_context, drifted, BODY_AND_GHOST, ghost=Ghost(drifted.t - 1.0, drifted.latest.sample.q_exact[-1]))
    np.testing.assert_array_equal(none, off)
    np.testing.assert_array_equal(same, off)  # the exact integrator's ghost would only z-fight: not drawn
    np.testing.assert_array_equal(stale, off)  # a ghost of another time is not drawn over this snapshot


def test_a_frame_uploads_the_ghosts_rows_once(gl_context, drifted, monkeypatch):
    # The ghost is drawn twice (its depth, then its colour where it is nearest) from one upload of its rows.
    from spinlab.render import gpu

    uploaded = []
    original = gpu.write_growing
    monkeypatch.setattr(gpu, "write_growing", lambda buffer, data: uploaded.append(data) or original(buffer, data))
    with_ghost = _image(gl_context, drifted, BODY_AND_GHOST)
    ghost_uploads = len(uploaded)
    uploaded.clear()
    _image(gl_context, drifted, dataclasses.replace(BODY_AND_GHOST, show_ghost=False))
    assert ghost_uploads - len(uploaded) == 1  # the ghost's one level of one kind, once
    assert with_ghost.any()


def test_no_ghost_under_torque():
    scene = load_scene("heavy_top")
    session = Session(Setup(scene, ("implicit_midpoint",), h=scene.h))
    session.step(60)
    ghost = ghost_orientations(session)
    assert np.isnan(ghost.q).all()
    renderer_layout = pytest.importorskip("spinlab.render.body_layout").BodyLayout(session.scene)
    assert ghost_solids(renderer_layout, session.snapshot.position, session.snapshot.q, ghost.q) == {}


def test_record_draws_the_ghost_unless_told_not_to():
    from spinlab.render.record import render_frames

    scene = load_scene("t_handle")
    frames = {}
    for ghost in (True, False):
        video = render_frames(scene, duration=3.0, fps=1, size=(320, 240), integrator="euler", ghost=ghost)
        frames[ghost] = [image.astype(float) for image, _ in video]
    # The first frame (t = 0): body and ghost coincide; only the overlays' key, on its strip along the bottom of a
    # 4:3 view (render/legend.py's key_place), differs (it names the ghost). Later euler has turned away.
    above_the_key = slice(0, int(0.85 * frames[True][0].shape[0]))
    np.testing.assert_array_equal(frames[True][0][above_the_key], frames[False][0][above_the_key])
    assert (np.abs(frames[True][-1] - frames[False][-1]).sum(axis=2) > 6).sum() > 50
