"""Where bodies are drawn and which one a click lands on (ui/picking.py), against render/camera.py's projection."""

import numpy as np

from spinlab.render.camera import OrbitCamera, project
from spinlab.ui.picking import body_circles, body_under

VIEWPORTS = [(0.0, 0.0, 400.0, 300.0), (400.0, 0.0, 400.0, 300.0)]
POSITIONS = np.array([[0.0, 0.0, 0.0], [0.6, 0.0, 0.0], [0.0, 0.0, 0.0], [0.6, 0.0, 0.0]])  # m; two per view
RADII = np.array([0.2, 0.2, 0.2, 0.2])  # m
ROWS = [(0, 1), (2, 3)]  # each view a copy of a two-body scene


def _cameras():
    return [OrbitCamera(distance=4.0), OrbitCamera(distance=4.0)]


def test_a_circle_is_the_bounding_sphere_as_projected():
    cameras = _cameras()
    circles = body_circles(VIEWPORTS, cameras, ROWS, POSITIONS, RADII)
    assert [(circles[k].row, circles[k].view, circles[k].index) for k in range(len(circles))] == [
        (0, 0, 0), (1, 0, 1), (2, 1, 0), (3, 1, 1)
    ]  # fmt: skip
    for circle in (circles[k] for k in range(len(circles))):
        viewport = VIEWPORTS[circle.view]
        centre = project(cameras[circle.view].view_projection(4 / 3), POSITIONS[circle.row], viewport)[0]
        np.testing.assert_allclose((circle.x, circle.y), centre, atol=1e-9)
        # The sphere's edge, seen across the line of sight: a point radius away along the camera's up axis.
        up = cameras[circle.view].view()[1, :3]
        edge = project(cameras[circle.view].view_projection(4 / 3), POSITIONS[circle.row] + RADII[circle.row] * up,
                       viewport)[0]  # fmt: skip
        assert abs(np.hypot(*(edge - centre)) - circle.radius) < 0.05 * circle.radius  # equal to first order


def test_a_click_lands_on_the_body_under_it_and_maps_to_the_scene():
    circles = body_circles(VIEWPORTS, _cameras(), ROWS, POSITIONS, RADII)
    second_copy = circles[3]
    hit = body_under(second_copy.x, second_copy.y, circles)
    assert hit.row == 3 and hit.index == 1  # the scene's second body, in the second view
    only = body_circles(VIEWPORTS, _cameras(), ROWS, POSITIONS, RADII, only_index=1)
    assert list(only.row) == [1, 3]
    assert body_under(second_copy.x + 3 * second_copy.radius, second_copy.y + 3 * second_copy.radius, circles) is None


def test_of_two_bodies_under_the_mouse_the_nearer_is_picked():
    positions = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    camera = OrbitCamera(distance=4.0)
    positions[1] = 0.5 * camera.eye() / np.linalg.norm(camera.eye())  # nearer the eye, in front of body 0
    circles = body_circles(VIEWPORTS[:1], [camera], [(0, 1)], positions, np.array([0.2, 0.2]))
    assert body_under(circles[0].x, circles[0].y, circles).row == 1


def test_a_body_behind_the_eye_is_not_drawn():
    camera = OrbitCamera(distance=4.0)
    behind = 2.0 * camera.eye()  # beyond the eye, looking away from it
    assert len(body_circles(VIEWPORTS[:1], [camera], [(0,)], behind[None], np.array([0.2]))) == 0
