"""Which body a click lands on (ui/picking.py): rays against the parts as drawn, checked against the unit meshes'
triangles and on the hierarchy preset's far wheel; where the rings go; the body selected by default."""

import numpy as np
import pytest

from spinlab.render import meshes
from spinlab.render.body_layout import BodyLayout
from spinlab.render.camera import OrbitCamera, project
from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.running.simulation import Simulation
from spinlab.ui.picking import _UNIT_HITS, body_at, body_circles, default_body, pixel_ray

VIEWPORT = (0.0, 0.0, 940.0, 460.0)  # the window's single view at 1280 × 720
POSITIONS = np.array([[0.0, 0.0, 0.0], [0.6, 0.0, 0.0], [0.0, 0.0, 0.0], [0.6, 0.0, 0.0]])  # m; two per view
RADII = np.array([0.2, 0.2, 0.2, 0.2])  # m
ROWS = [(0, 1), (2, 3)]  # each view a copy of a two-body scene
TWO_VIEWPORTS = [(0.0, 0.0, 400.0, 300.0), (400.0, 0.0, 400.0, 300.0)]


def _framed(scene_name: str, viewport=VIEWPORT):
    """The scene's first snapshot, its layout, and a camera framing it as the view's default camera does."""
    scene = load_scene(scene_name)
    snapshot, layout = Simulation(scene).snapshot(), BodyLayout(scene)
    camera = OrbitCamera()
    every = np.arange(len(scene.bodies))
    camera.fit_spheres(*layout.enclosing_spheres(snapshot.position, snapshot.L_world, every), viewport[2] / viewport[3])
    return scene, snapshot, layout, camera


def _drawn_at(camera, viewport, point_world):
    return project(camera.view_projection(viewport[2] / viewport[3]), point_world, viewport)[0]


def test_the_far_wheel_is_picked_where_it_is_drawn_not_the_turntable_behind_it():
    """The far wheel stands on the turntable: the turntable's centre is nearer the eye and its bounding circle holds
    the wheel's pixel, but the ray through that pixel meets the wheel first."""
    scene, snapshot, layout, camera = _framed("hierarchy")
    names = [body.name for body in scene.bodies]
    rows = [range(len(names))]
    eye = camera.eye()
    wheels = [i for i, name in enumerate(names) if name.startswith("wheel") and name != "wheel_arm"]
    far = max(wheels, key=lambda i: np.linalg.norm(snapshot.position[i] - eye))
    x, y = _drawn_at(camera, VIEWPORT, snapshot.position[far])
    assert body_at(x, y, [VIEWPORT], [camera], rows, layout, snapshot) == (far, far)
    turntable = names.index("turntable")
    x, y = _drawn_at(camera, VIEWPORT, snapshot.position[turntable])
    assert body_at(x, y, [VIEWPORT], [camera], rows, layout, snapshot) == (turntable, turntable)


def test_a_click_beside_a_thin_body_inside_its_bounding_circle_selects_nothing():
    """The arm is a 1.4 m bar 0.1 m thick: a click 0.3 m off it is within its bounding sphere but on nothing."""
    scene, snapshot, layout, camera = _framed("hierarchy")
    arm = [body.name for body in scene.bodies].index("arm")
    up = camera.view()[1, :3]
    beside = snapshot.position[arm] + 0.3 * up
    assert np.linalg.norm(beside - snapshot.position[arm]) < layout.radius[arm]
    x, y = _drawn_at(camera, VIEWPORT, beside)
    hit = body_at(x, y, [VIEWPORT], [camera], [[arm]], layout, snapshot)
    assert hit is None


def test_a_click_in_the_second_view_maps_to_the_scene_body_of_that_copy():
    """The compare preset side by side: one copy of the T-handle per view, each view aimed at its own."""
    scene = load_scene("compare")
    snapshot, layout = Simulation(scene).snapshot(), BodyLayout(scene)
    cameras = [OrbitCamera(distance=3.0, target=snapshot.position[k]) for k in (0, 1)]
    rows = [[0], [1]]
    x, y = _drawn_at(cameras[1], TWO_VIEWPORTS[1], snapshot.position[1])
    assert body_at(x, y, TWO_VIEWPORTS, cameras, rows, layout, snapshot) == (1, 0)
    assert body_at(x + 150, y + 140, TWO_VIEWPORTS, cameras, rows, layout, snapshot) is None


def test_the_ray_runs_through_the_pixel_from_the_near_to_the_far_plane():
    camera = OrbitCamera(distance=4.0, target=np.array([0.3, -0.2, 0.1]))
    origin, direction = pixel_ray(VIEWPORT, camera, 600.0, 100.0)
    for t in (0.0, 0.3, 1.0):
        np.testing.assert_allclose(_drawn_at(camera, VIEWPORT, origin + t * direction), (600.0, 100.0), atol=1e-6)
    assert np.linalg.norm(origin - camera.eye()) < 0.1 * camera.distance


def _mesh_hits(mesh, origin, direction):
    """Möller–Trumbore: the nearest t ≥ 0 at which each ray (K, 3) meets the triangles of ``mesh``; inf if none."""
    v0, v1, v2 = (mesh.positions[mesh.indices[:, k]].astype(float) for k in range(3))
    e1, e2 = v1 - v0, v2 - v0
    p = np.cross(direction[:, None], e2[None])
    det = np.einsum("kti,ti->kt", p, e1)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = origin[:, None] - v0[None]
        u = np.einsum("kti,kti->kt", s, p) / det
        q = np.cross(s, e1[None])
        v = np.einsum("ki,kti->kt", direction, q) / det
        t = np.einsum("kti,ti->kt", q, e2) / det
    hit = (np.abs(det) > 1e-12) & (u >= 0) & (v >= 0) & (u + v <= 1) & (t >= 0)
    return np.where(hit, t, np.inf).min(axis=1)


@pytest.mark.parametrize("kind", sorted(_UNIT_HITS))
def test_the_unit_shapes_are_met_where_their_meshes_are(kind):
    rng = np.random.default_rng(5)
    origin = rng.normal(size=(200, 3))
    origin = 3.0 * origin / np.linalg.norm(origin, axis=1, keepdims=True)
    direction = rng.uniform(-0.9, 0.9, size=(200, 3)) - origin  # towards a point near the shape
    analytic = _UNIT_HITS[kind](origin, direction)
    mesh = _mesh_hits(meshes.unit_mesh(kind, 64), origin, direction)
    # The mesh is inscribed in the round shapes: a ray meets it no sooner, and as soon but for rays grazing the
    # silhouette.
    both = np.isfinite(analytic) & np.isfinite(mesh)
    assert np.mean(np.isfinite(analytic) == np.isfinite(mesh)) > 0.97 and both.sum() > 50
    assert np.all(mesh[both] >= analytic[both] - 1e-9)
    assert np.mean(mesh[both] - analytic[both] < 2e-3 * np.linalg.norm(direction[both], axis=1)) > 0.97


def test_a_circle_is_the_bounding_sphere_as_projected():
    cameras = [OrbitCamera(distance=4.0), OrbitCamera(distance=4.0)]
    circles = body_circles(TWO_VIEWPORTS, cameras, ROWS, POSITIONS, RADII)
    assert list(zip(circles.row, circles.view, circles.index, strict=True)) == [(0, 0, 0), (1, 0, 1), (2, 1, 0),
                                                                                 (3, 1, 1)]  # fmt: skip
    for k in range(len(circles)):
        view, row = circles.view[k], circles.row[k]
        centre = _drawn_at(cameras[view], TWO_VIEWPORTS[view], POSITIONS[row])
        np.testing.assert_allclose((circles.x[k], circles.y[k]), centre, atol=1e-9)
        up = cameras[view].view()[1, :3]
        edge = _drawn_at(cameras[view], TWO_VIEWPORTS[view], POSITIONS[row] + RADII[row] * up)
        assert abs(np.hypot(*(edge - centre)) - circles.radius[k]) < 0.05 * circles.radius[k]
    only = body_circles(TWO_VIEWPORTS, cameras, ROWS, POSITIONS, RADII, only_index=1)
    assert list(only.row) == [1, 3]
    behind = 2.0 * cameras[0].eye()  # beyond the eye, looking away from it
    assert len(body_circles(TWO_VIEWPORTS[:1], cameras[:1], [(0,)], behind[None], np.array([0.2]))) == 0


@pytest.mark.parametrize("preset", ["hierarchy", "t_handle", "heavy_top"])
def test_the_body_selected_by_default_is_the_first_dynamic_one(preset):
    scene = load_scene(preset)
    index = default_body(scene)
    assert not scene.bodies[index].kinematic
    assert all(body.kinematic for body in scene.bodies[:index])


def test_the_window_selects_a_dynamic_body_when_a_scene_loads(tmp_path):
    """The hierarchy preset's first body is its kinematic turntable: the window's controller selects the first
    wheel instead, at start and when the scene is loaded again."""
    from tests.ui.headless_host import headless_controller

    controller = headless_controller("hierarchy", str(tmp_path))[0]
    bodies = controller.choices.scene.bodies
    assert bodies[0].kinematic and bodies[controller.choices.selected_body].name == "wheel_east"
    controller.select_body(0)
    controller.load(controller.choices.scene)
    assert not bodies[controller.choices.selected_body].kinematic


def test_in_the_window_a_click_on_the_far_wheel_selects_it(app):
    """In a real window (Xvfb): the hierarchy preset opens with a wheel selected, and a click where the far wheel is
    drawn (projected through the view's own camera) selects that wheel, not the turntable behind it."""
    from pyglet.window import mouse

    from tests.ui.test_app import fresh, run_frames

    fresh(app, "hierarchy")
    app.state.paused = True
    run_frames(app, 3)
    bodies = app.state.scene.bodies
    assert not bodies[app.state.selected_body].kinematic
    camera, viewport = app.view.cameras[0], app.view.viewports[0]
    position = app.timeline.shown.snapshot.position
    far = max((i for i, body in enumerate(bodies) if body.name in ("wheel_east", "wheel_west")),
              key=lambda i: np.linalg.norm(position[i] - camera.eye()))  # fmt: skip
    ratio = app.window.get_framebuffer_size()[0] / app.window.width
    x, y = _drawn_at(camera, viewport, position[far]) / ratio
    app.window.dispatch_event("on_mouse_press", round(x), round(y), mouse.LEFT, 0)
    app.window.dispatch_event("on_mouse_release", round(x), round(y), mouse.LEFT, 0)
    run_frames(app, 1)
    assert app.state.selected_body == far
