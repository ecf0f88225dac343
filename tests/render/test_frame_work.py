"""What a frame's rows cost in numpy calls (render/frame_instances.py, render/view_rows.py, render/views.py): the
work done per mesh kind, per arrow or per view each frame is a fixed handful of calls, and the rows are the same
bits as the plainer formulations they replace (a recording's video is pinned byte for byte); no GL."""

import numpy as np

from spinlab.render import overlays
from spinlab.render.body_layout import BodyLayout
from spinlab.render.frame_instances import MOMENTUM_THICKNESS, frame_instances
from spinlab.render.gpu_resources import PLANE_SEGMENTS, ROUND_SEGMENTS
from spinlab.render.instances import instance_rows
from spinlab.render.look import MOMENTUM_LINEAR, OMEGA_LINEAR
from spinlab.render.views import levels_of_detail
from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.running.simulation import Simulation


def test_levels_of_detail_measure_the_columns_without_a_norm_per_column(monkeypatch):
    # Rows of any scale, float32 as the renderer makes them, in three views; a sphere's three round columns.
    rng = np.random.default_rng(7)
    rows = (rng.normal(size=(500, 21)) * np.geomspace(1e-3, 1e2, 500)[:, None]).astype(np.float32)
    rows[:, 20] = rng.integers(0, 3, 500)
    depth_rows = rng.normal(size=(3, 4)) + [0.0, 0.0, 0.0, 5.0]
    pixels_per_metre = np.array([400.0, 900.0, 1500.0])
    # The same levels as the norms of the columns, each the largest of the columns', would give (bit for bit: the
    # levels choose the meshes a video shows).
    radius = np.max([np.linalg.norm(rows[:, 4 * c : 4 * c + 3], axis=1) for c in range(3)], 0)
    view = rows[:, 20].astype(np.intp)
    depth = np.einsum("ki,ki->k", rows[:, 12:15], depth_rows[view, :3]) + depth_rows[view, 3]
    radius_px = np.where(depth > 0.0, radius * pixels_per_metre[view] / np.maximum(depth, 1e-9), 0.0)
    for segments in (ROUND_SEGMENTS, PLANE_SEGMENTS):
        limits = 0.25 / (1.0 - np.cos(np.pi / np.array(segments[1:], dtype=float)))
        expected = np.sum(radius_px[:, None] <= limits[None, :], axis=1)
        norms: list[int] = []
        monkeypatch.setattr(np.linalg, "norm", lambda *a, norms=norms, **k: norms.append(1) or np.sqrt(0.0))
        levels = levels_of_detail(rows, depth_rows, pixels_per_metre, segments, round_columns=3)
        monkeypatch.undo()
        assert norms == []  # one pass over the columns, not a norm (five numpy calls) per column
        assert np.array_equal(levels, expected)
        assert len(set(levels.tolist())) >= min(3, len(segments))  # the rows span several levels


def test_a_frame_makes_its_omega_and_momentum_arrows_in_one_batch(monkeypatch):
    scene = load_scene("compare")
    layout = BodyLayout(scene)
    simulation = Simulation(scene)
    for _ in range(30):
        simulation.step()
    snapshot = simulation.snapshot()
    calls = []
    original = overlays.arrow_matrices
    monkeypatch.setattr(overlays, "arrow_matrices", lambda *a: calls.append(1) or original(*a))
    frame = frame_instances(layout, snapshot, (), show_omega=True, show_momentum=True, floor_z=None)
    assert len(calls) == 1  # ω's and L's together, not an arrow_matrices (frames, norms, products) each
    # The rows as each arrow made on its own: ω's then L's, after the bodies' parts.
    shaft_radius, head_length, head_radius = layout.arrow_sizes
    count = len(scene.bodies)
    for kind, part in (("cylinder", 0), ("cone", 1)):
        rows, owner = frame.solids[kind]
        expected = []
        for vectors, color, thickness in (
            (snapshot.omega_world * layout.omega_scale, OMEGA_LINEAR, 1.0),
            (snapshot.L_world * layout.momentum_scale, MOMENTUM_LINEAR, MOMENTUM_THICKNESS),
        ):
            sizes = (thickness * shaft_radius, head_length, thickness * head_radius)
            matrices = original(snapshot.position, vectors, sizes)[part]
            expected.append(instance_rows(matrices, np.tile([*color, 1.0], (count, 1))))
        assert np.array_equal(rows[-2 * count :], np.concatenate(expected))
        assert np.array_equal(owner[-2 * count :], np.tile(np.arange(count), 2))


def test_frames_along_writes_its_columns_into_one_array(monkeypatch):
    # Directions of every scale, zero and straight down among them: the same bits as the three stacked columns.
    from spinlab.render.instances import frames_along

    rng = np.random.default_rng(3)
    directions = rng.normal(size=(200, 3)) * 10.0 ** rng.uniform(-30, 30, size=(200, 1))
    directions[:3] = [0.0, 0.0, 0.0], [0.0, 0.0, -1.0], [1e-300, 0.0, 0.0]
    norms = np.linalg.norm(directions, axis=1, keepdims=True)
    n = np.where(norms > 0.0, directions / np.where(norms > 0.0, norms, 1.0), [0.0, 0.0, 1.0])
    sign = np.where(n[:, 2] >= 0.0, 1.0, -1.0)
    a = -1.0 / (sign + n[:, 2])
    b = n[:, 0] * n[:, 1] * a
    tangent = np.stack([1.0 + sign * n[:, 0] ** 2 * a, sign * b, -sign * n[:, 0]], axis=1)
    bitangent = np.stack([b, sign + n[:, 1] ** 2 * a, -n[:, 1]], axis=1)
    expected = np.stack([tangent, bitangent, n], axis=2)
    stacks: list[int] = []
    original = np.stack
    monkeypatch.setattr(np, "stack", lambda *a, stacks=stacks, **k: stacks.append(1) or original(*a, **k))
    frames = frames_along(directions)
    monkeypatch.undo()
    assert stacks == []
    assert np.array_equal(frames, expected)


def test_a_frame_of_eight_views_draws_each_vertex_array_at_most_three_times(gl_context, monkeypatch):
    # compare's eight views in one frame (RunView, as record and the window draw it): one instanced draw per mesh
    # kind and level of detail for all the views together, never a draw per view: a solid's mesh at most three times
    # (the bodies, then the ghosts' depth and colour). The labels' text is ImGui's, a draw per texture and clip
    # rectangle.
    import collections

    import moderngl

    from spinlab.render.offscreen import OffscreenTarget
    from spinlab.render.run_view import RunView
    from spinlab.render.text import TextOverlay
    from spinlab.scene.model.run_model import Session, Setup, default_integrators

    scene = load_scene("compare")
    session = Session(Setup(scene, default_integrators(scene), h=scene.h))
    text = TextOverlay(gl_context)
    view = RunView(gl_context, session, text)
    target = OffscreenTarget(gl_context, 640, 360, samples=0)
    session.step(round(2.0 / scene.h))  # the ghosts apart from the bodies
    view.feed(session)
    draws: collections.Counter = collections.Counter()
    original = moderngl.VertexArray.render

    def counted(vao, *args, **kwargs):
        if vao is not text._draw._vao:
            draws[vao.glo] += 1
        return original(vao, *args, **kwargs)

    monkeypatch.setattr(moderngl.VertexArray, "render", counted)
    for _ in range(3):  # shaded, into the caches, from the caches
        draws.clear()
        view.draw(target.framebuffer, target.size, (0, 0, *target.size), session, text_scale=0.5)
    monkeypatch.undo()
    assert len(view.viewports) == 8
    assert sum(draws.values()) <= 30 and max(draws.values()) <= 3, draws
    view.release()
    text.release()
    target.release()
