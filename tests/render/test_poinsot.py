"""The Poinsot construction (render/poinsot.py): its geometry checked along the exact torque-free motion without GL
(contact on the ellipsoid and on the plane, normal ∥ L, the contact point at rest: rolling without slipping), its
traces, and a render of the view on real GL (EGL, offscreen)."""

import numpy as np
import pytest

from spinlab.render.camera import OrbitCamera
from spinlab.render.poinsot import PoinsotTraces, poinsot_body, poinsot_geometry
from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.model.run_model import Session, Setup
from spinlab.sim.exact import TorqueFreeSolution
from spinlab.sim.quaternion import quat_to_matrix

# A body with its principal axes off the body frame, spun near its intermediate axis (it flips).
INERTIA = np.array([[2.0, 0.3, 0.1], [0.3, 1.5, -0.2], [0.1, -0.2, 1.1]])
Q0 = np.array([0.9, 0.1, -0.3, 0.2]) / np.linalg.norm([0.9, 0.1, -0.3, 0.2])
OMEGA0 = np.array([0.4, 3.0, -0.5])
TIMES = np.linspace(0.0, 12.0, 41)


@pytest.fixture(scope="module")
def motion():
    solution = TorqueFreeSolution.from_state(INERTIA, Q0, OMEGA0)
    return solution, solution.orientation(TIMES), solution.omega_world(TIMES)


def test_contact_is_on_the_ellipsoid_and_the_plane_with_normal_along_L(motion):
    solution, q, omega = motion
    L0 = solution.L_world
    for q_t, omega_t in zip(q, omega, strict=True):
        g = poinsot_geometry(INERTIA, q_t, omega_t)
        inertia_world = g.inertia_world()
        np.testing.assert_allclose(inertia_world, quat_to_matrix(q_t) @ INERTIA @ quat_to_matrix(q_t).T, atol=1e-12)
        assert g.contact @ inertia_world @ g.contact == pytest.approx(2.0 * g.energy, rel=1e-12)  # on the ellipsoid
        assert g.contact @ g.normal == pytest.approx(g.distance, rel=1e-12)  # on the plane
        gradient = inertia_world @ g.contact
        np.testing.assert_allclose(np.cross(gradient, g.normal), 0.0, atol=1e-9 * np.linalg.norm(gradient))
        assert gradient @ g.normal > 0.0
        # Torque-free: the plane is the same at every instant.
        np.testing.assert_allclose(g.normal, L0 / np.linalg.norm(L0), atol=1e-9)
        assert g.distance == pytest.approx(2.0 * solution.energy / np.linalg.norm(L0), rel=1e-9)


def test_the_ellipsoid_lies_on_one_side_of_the_plane(motion):
    _, q, omega = motion
    g = poinsot_geometry(INERTIA, q[7], omega[7])
    rng = np.random.default_rng(3)
    directions = rng.normal(size=(20000, 3))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    surface = (g.axes @ (g.semi_axes[:, None] * directions.T)).T  # points of x·I_w x = 2E
    np.testing.assert_allclose(np.einsum("ki,ij,kj->k", surface, g.inertia_world(), surface), 2 * g.energy, rtol=1e-12)
    heights = surface @ g.normal
    assert heights.max() <= g.distance * (1.0 + 1e-12)
    assert heights.max() > g.distance * (1.0 - 1e-3)  # and touches it


def test_the_contact_point_does_not_slip(motion):
    """The body point at the contact has zero velocity: finite differences of the exact motion."""
    solution, _, _ = motion
    dt = 1e-5
    for t in (0.0, 1.7, 5.3, 9.9):
        q_before, q_at, q_after = solution.orientation(np.array([t - dt, t, t + dt]))
        omega = solution.omega_world(np.array([t]))[0]
        contact = poinsot_geometry(INERTIA, q_at, omega).contact
        point_body = quat_to_matrix(q_at).T @ contact  # the material point at the contact, body frame
        velocity = (quat_to_matrix(q_after) - quat_to_matrix(q_before)) @ point_body / (2 * dt)
        speed_scale = np.linalg.norm(omega) ** 2  # |ω × x| for a point at |x| = |ω|
        assert np.linalg.norm(velocity) < 1e-7 * speed_scale
        # A point beside it (the contact rotated a little in the body) does move: the test can tell.
        beside = point_body + 0.1 * np.cross(point_body, [0.0, 0.0, 1.0])
        moving = (quat_to_matrix(q_after) - quat_to_matrix(q_before)) @ beside / (2 * dt)
        assert np.linalg.norm(moving) > 1e-3 * speed_scale


def test_traces_hold_the_polhode_and_herpolhode():
    scene = load_scene("t_handle")
    session = Session(Setup(scene, ("im6",), h=scene.h))
    assert poinsot_body(session) == (0, 0)
    traces = PoinsotTraces.of(session)
    session.step(90)
    traces.push(session.latest)
    assert traces.count == 91
    for which in ("integrator", "exact"):
        body, world = traces.history(which)
        assert body.shape == world.shape == (91, 3)
        # The body ω keeps the energy: on the ellipsoid at every step.
        energy = 0.5 * np.einsum("ti,ij,tj->t", body, scene.bodies[0].inertia_body, body)
        np.testing.assert_allclose(energy, energy[0], rtol=1e-6)
        np.testing.assert_allclose(world[-1], traces.latest[which][1], rtol=1e-12)
    np.testing.assert_allclose(traces.history("integrator")[1], traces.history("exact")[1], atol=1e-3)
    assert len(traces.history("exact", stride=10)[0]) == 10


def test_no_poinsot_body_under_torque():
    scene = load_scene("heavy_top")
    assert poinsot_body(Session(Setup(scene, ("implicit_midpoint",), h=scene.h))) is None


def test_the_view_draws_both_constructions_inside_its_viewport(gl_context):
    from spinlab.render.offscreen import OffscreenTarget
    from spinlab.render.poinsot_view import BACKGROUND_SRGB, PoinsotView, poinsot_camera

    scene = load_scene("t_handle")
    session = Session(Setup(scene, ("euler",), h=scene.h))
    traces = PoinsotTraces.of(session)
    session.step(300)
    traces.push(session.latest)
    target = OffscreenTarget(gl_context, 400, 300)
    view = PoinsotView(gl_context, np.array([0.9, 0.2, 0.1]))
    try:
        target.framebuffer.use()
        target.framebuffer.clear(0.0, 1.0, 0.0, 1.0)  # green: what the view must leave alone
        viewport = (100, 0, 300, 200)
        view.draw(target.framebuffer, viewport, poinsot_camera(1.5), traces)
        image = target.read().astype(int)  # rows top-down
    finally:
        view.release()
        target.release()
    outside = np.concatenate([image[:, :100].reshape(-1, 3), image[:100, 100:].reshape(-1, 3)])
    assert np.all(outside == [0, 255, 0])
    inside = image[100:, 100:]
    background = np.round(np.array(BACKGROUND_SRGB) * 255)
    drawn = np.abs(inside - background).sum(axis=2) > 30
    left, right = drawn[:, :150], drawn[:, 150:]
    assert left.mean() > 0.05 and right.mean() > 0.05  # the integrator's and the exact construction
    # The integrator's ellipsoid is the body's red; the exact one is pale (closer to grey).
    reddish = lambda part, mask: (part[..., 0] - part[..., 2])[mask].mean()  # noqa: E731
    assert reddish(inside[:, :150], left) > reddish(inside[:, 150:], right) + 10


def test_a_tall_view_stacks_the_two_constructions_and_draws_them_larger():
    from spinlab.render.camera import project
    from spinlab.render.poinsot_view import REACH, poinsot_camera, poinsot_centres, poinsot_label

    assert poinsot_label("euler", 0.7)[0].endswith("(top), exact (bottom)")
    assert poinsot_label("euler", 1.5)[0].endswith("(left), exact (right)")
    viewport = (0, 0, 320, 460)  # the window's Poinsot view beside a grid at 1280 × 720
    aspect = viewport[2] / viewport[3]
    heights = {}
    for name, centres in (("stacked", poinsot_centres(aspect)), ("side by side", poinsot_centres(1.5))):
        camera = OrbitCamera(azimuth_deg=-90.0, elevation_deg=28.0)
        camera.fit_spheres(centres, np.full(2, REACH), aspect)
        reach = np.concatenate([centres + [0.0, 0.0, REACH], centres - [0.0, 0.0, REACH]])
        pixels = project(camera.view_projection(aspect), reach, viewport)
        assert np.all((pixels >= 0) & (pixels <= viewport[2:])), name  # both constructions in the view
        heights[name] = np.abs(pixels[:2, 1] - pixels[2:, 1]).mean()  # a construction's height on screen
    assert heights["stacked"] > 1.3 * heights["side by side"]
    camera = poinsot_camera(aspect, top_clear=0.2)
    pixels = project(camera.view_projection(aspect), poinsot_centres(aspect) + [0.0, 0.0, REACH], viewport)
    assert np.all(pixels[:, 1] < 0.8 * viewport[3])  # below the label's band (y up)


def test_record_adds_the_poinsot_view_when_asked():
    from spinlab.render.grid import split_side_view
    from spinlab.render.record import render_frames

    scene = load_scene("t_handle")
    size = (480, 270)
    frames = {}
    for poinsot in (False, True):
        video = render_frames(scene, duration=2.0, fps=1, size=size, integrator="im4", poinsot=poinsot)
        frames[poinsot] = [image.astype(int) for image, _ in video]
    x, _, width, _ = split_side_view((0, 0, *size), 1)[1]
    side_with, side_without = frames[True][-1][:, x : x + width], frames[False][-1][:, x : x + width]
    assert (np.abs(side_with - side_without).sum(axis=2) > 30).mean() > 0.3
    assert side_with.std() > 10.0


@pytest.mark.parametrize("omega0", [OMEGA0, [2.5, 0.3, 0.2], [0.1, 0.2, 3.0], [1.0, 1.0, 1.0]])
def test_the_herpolhode_stays_within_its_reach_and_comes_to_it(omega0):
    """The closed form's herpolhode, sampled over several of its periods, against the reach known at t = 0."""
    solution = TorqueFreeSolution.from_state(INERTIA, Q0, np.asarray(omega0, dtype=float))
    times = np.linspace(0.0, 60.0, 6001)
    omega = solution.omega_world(times)
    first = poinsot_geometry(INERTIA, Q0, omega[0])
    across = omega - np.outer(omega @ first.normal, first.normal)
    reach = first.herpolhode_reach()
    assert np.linalg.norm(across, axis=1).max() <= reach * (1.0 + 1e-9)
    assert np.linalg.norm(across, axis=1).max() >= reach * (1.0 - 1e-3)
