"""render/camera.py: projection conventions, orbit/pan/zoom, fitting; no GL."""

import numpy as np
import pytest

from spinlab.render.camera import ELEVATION_LIMIT_DEG, FIT_FILL, CameraFollower, OrbitCamera, project

VIEWPORT = (10, 20, 640, 360)
ATOL_PX = 1e-6


def test_the_target_projects_to_the_viewport_centre_and_up_is_up():
    camera = OrbitCamera(azimuth_deg=30.0, elevation_deg=20.0, distance=5.0, target=np.array([1.0, 2.0, 0.5]))
    pixels = project(camera.view_projection(16 / 9), [camera.target, camera.target + [0, 0, 0.1]], VIEWPORT)
    assert np.allclose(pixels[0], [10 + 320, 20 + 180], atol=ATOL_PX)
    assert pixels[1, 1] > pixels[0, 1]
    assert np.isclose(np.linalg.norm(camera.eye() - camera.target), 5.0)


def test_a_point_behind_the_eye_projects_to_nan():
    camera = OrbitCamera()
    behind = camera.eye() + (camera.eye() - camera.target)
    assert np.all(np.isnan(project(camera.view_projection(1.0), [behind], VIEWPORT)))


def test_orbit_wraps_the_azimuth_and_clamps_the_elevation():
    camera = OrbitCamera(azimuth_deg=170.0, elevation_deg=80.0)
    camera.orbit(20.0, 30.0)
    assert camera.azimuth_deg == pytest.approx(-170.0)
    assert camera.elevation_deg == ELEVATION_LIMIT_DEG


def test_pan_moves_the_point_under_the_cursor_with_the_drag():
    camera = OrbitCamera(azimuth_deg=-40.0, elevation_deg=25.0, distance=3.0)
    anchor = np.array(camera.target, dtype=float)
    before = project(camera.view_projection(640 / 360), [anchor], VIEWPORT)[0]
    camera.pan(12.0, -7.0, viewport_height_px=360)
    after = project(camera.view_projection(640 / 360), [anchor], VIEWPORT)[0]
    assert np.allclose(after - before, [12.0, -7.0], atol=1e-6)


def test_zoom_moves_towards_the_target_and_back():
    camera = OrbitCamera(distance=4.0)
    camera.zoom(3)
    assert camera.distance == pytest.approx(4.0 * 0.9**3)
    camera.zoom(-3)
    assert camera.distance == pytest.approx(4.0)


@pytest.mark.parametrize("aspect", [16 / 9, 1.0, 0.5])
def test_fit_keeps_the_whole_bounding_sphere_in_view(aspect):
    camera = OrbitCamera(azimuth_deg=75.0, elevation_deg=-10.0)
    bounds = np.array([[-1.0, 2.0, 0.0], [3.0, 2.5, 1.0]])
    camera.fit(bounds, aspect)
    center, radius = bounds.mean(axis=0), 0.5 * np.linalg.norm(bounds[1] - bounds[0])
    directions = np.random.default_rng(3).normal(size=(500, 3))
    surface = center + radius * directions / np.linalg.norm(directions, axis=1, keepdims=True)
    height = 400
    pixels = project(camera.view_projection(aspect), surface, (0, 0, round(aspect * height), height))
    assert np.all((pixels >= 0) & (pixels <= [round(aspect * height), height]))


def test_view_in_closed_form_is_pyrrs_look_at():
    from pyrr import matrix44

    rng = np.random.default_rng(11)
    for _ in range(200):
        camera = OrbitCamera(
            azimuth_deg=rng.uniform(-180.0, 180.0),
            elevation_deg=rng.uniform(-89.0, 89.0),
            distance=rng.uniform(0.01, 100.0),
            target=rng.normal(size=3),
        )
        expected = matrix44.create_look_at(camera.eye(), camera.target, np.array([0.0, 0.0, 1.0])).T
        np.testing.assert_allclose(camera.view(), expected, rtol=0, atol=1e-12 * max(1.0, camera.distance))
        # A rotation and the eye at the origin of the camera frame.
        np.testing.assert_allclose(camera.view()[:3, :3] @ camera.view()[:3, :3].T, np.eye(3), atol=1e-14)
        np.testing.assert_allclose(camera.view() @ [*camera.eye(), 1.0], [0.0, 0.0, 0.0, 1.0], atol=1e-12 * 100)


def test_view_projection_follows_every_change_of_the_camera():
    camera = OrbitCamera()
    first = camera.view_projection(1.5)
    assert np.array_equal(camera.view_projection(1.5), first)
    changes = [
        lambda c: c.orbit(3.0, 0.0),
        lambda c: c.orbit(0.0, 2.0),
        lambda c: c.zoom(1.0),
        lambda c: c.pan(5.0, 0.0, 100.0),
        lambda c: setattr(c, "fov_y_deg", 40.0),
    ]
    previous = first
    for change in changes:
        change(camera)
        now = camera.view_projection(1.5)
        assert not np.allclose(now, previous)
        assert np.array_equal(now, camera.projection(1.5) @ camera.view())
        previous = now
    assert not np.allclose(camera.view_projection(2.0), previous)
    camera.target[0] += 1.0  # the target changed in place
    assert np.array_equal(camera.view_projection(1.5), camera.projection(1.5) @ camera.view())


def _ndc_of_surfaces(camera, centers, radii, aspect):
    """Each sphere's surface, sampled, in normalised device coordinates (x, y in [−1, 1] inside the view)."""
    directions = np.random.default_rng(5).normal(size=(400, 3))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    surface = (centers[:, None, :] + radii[:, None, None] * directions).reshape(-1, 3)
    height = 1000
    width = round(aspect * height)
    pixels = project(camera.view_projection(aspect), surface, (0, 0, width, height))
    return 2.0 * pixels / [width, height] - 1.0


@pytest.mark.parametrize("aspect", [16 / 9, 1.0, 0.5])
@pytest.mark.parametrize("angles", [(-60.0, 22.0), (75.0, -10.0), (10.0, 80.0)])
def test_fit_spheres_holds_every_sphere_in_view_and_one_of_them_touches_the_margin(aspect, angles):
    rng = np.random.default_rng(8)
    centers, radii = rng.normal(scale=3.0, size=(40, 3)), rng.uniform(0.1, 1.0, 40)
    camera = OrbitCamera(azimuth_deg=angles[0], elevation_deg=angles[1])
    camera.fit_spheres(centers, radii, aspect)
    ndc = _ndc_of_surfaces(camera, centers, radii, aspect)
    assert np.isfinite(ndc).all()  # nothing behind the eye
    reach = np.abs(ndc).max()
    assert reach <= FIT_FILL + 1e-9 and reach > FIT_FILL - 0.02  # tight: sampled points just short of the tangent


def test_a_grid_seen_obliquely_is_framed_closer_than_its_bounding_sphere_allows():
    # The cloud preset's kind of layout: a flat grid of small bodies, 40 m × 25 m, in the xz plane.
    x, z = np.meshgrid(np.linspace(-20, 20, 41), np.linspace(-12.5, 12.5, 26))
    centers = np.stack([x.ravel(), np.zeros(x.size), z.ravel()], axis=1)
    radii = np.full(x.size, 0.4)
    tight, loose = OrbitCamera(), OrbitCamera()
    tight.fit_spheres(centers, radii, 16 / 9)
    loose.fit_sphere(centers.mean(axis=0), float(np.linalg.norm(centers, axis=1).max() + 0.4), 16 / 9)
    assert tight.distance < 0.8 * loose.distance
    assert np.abs(_ndc_of_surfaces(tight, centers, radii, 16 / 9)).max() <= FIT_FILL + 1e-9


def test_fit_spheres_of_one_sphere_is_about_fit_sphere():
    one, other = OrbitCamera(), OrbitCamera()
    one.fit_spheres(np.array([[1.0, 2.0, 3.0]]), np.array([0.7]), 16 / 9)
    other.fit_sphere(np.array([1.0, 2.0, 3.0]), 0.7, 16 / 9)
    assert np.allclose(one.target, other.target) and one.distance == pytest.approx(other.distance, rel=0.1)


@pytest.mark.parametrize("top_clear", [0.0, 0.15, 0.3])
def test_fit_spheres_keeps_a_band_at_the_top_clear_and_centres_the_spheres_below_it(top_clear):
    rng = np.random.default_rng(9)
    centers, radii = rng.normal(scale=2.0, size=(30, 3)), rng.uniform(0.1, 0.5, 30)
    camera = OrbitCamera(azimuth_deg=-60.0, elevation_deg=22.0)
    camera.fit_spheres(centers, radii, 16 / 9, top_clear=top_clear)
    ndc = _ndc_of_surfaces(camera, centers, radii, 16 / 9)
    top = 1.0 - 2.0 * top_clear - (1.0 - FIT_FILL)
    assert ndc[:, 1].max() <= top + 1e-9 and ndc[:, 1].min() >= -FIT_FILL - 1e-9
    assert np.abs(ndc[:, 0]).max() <= FIT_FILL + 1e-9
    # One sphere: it sits in the middle of the room left, touching neither side's margin more than the other.
    one = OrbitCamera()
    one.fit_spheres(np.zeros((1, 3)), np.array([1.0]), 16 / 9, top_clear=top_clear)
    y = _ndc_of_surfaces(one, np.zeros((1, 3)), np.array([1.0]), 16 / 9)[:, 1]
    assert y.max() == pytest.approx(top, abs=0.02) and y.min() == pytest.approx(-FIT_FILL, abs=0.02)


def test_a_follower_moves_each_camera_by_its_bodys_displacement():
    cameras = [OrbitCamera(), OrbitCamera(target=np.array([1.0, 2.0, 3.0]))]
    follower = CameraFollower()
    follower.follow(cameras, np.array([[0.0, 0.0, 0.0], [5.0, 5.0, 5.0]]))  # notes where they are: nothing moves
    assert np.array_equal(cameras[0].target, [0.0, 0.0, 0.0]) and np.array_equal(cameras[1].target, [1.0, 2.0, 3.0])
    cameras[1].distance = 9.0  # the person's framing (zoom, orbit, pan) is kept
    follower.follow(cameras, np.array([[0.5, 0.0, -1.0], [np.nan, np.nan, np.nan]]))
    np.testing.assert_array_equal(cameras[0].target, [0.5, 0.0, -1.0])
    np.testing.assert_array_equal(cameras[1].target, [1.0, 2.0, 3.0])  # no body there: it stays
    assert cameras[1].distance == 9.0
    follower.reset()
    follower.follow(cameras, np.array([[9.0, 9.0, 9.0], [0.0, 0.0, 0.0]]))
    np.testing.assert_array_equal(cameras[0].target, [0.5, 0.0, -1.0])
