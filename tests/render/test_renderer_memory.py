"""What the renderer holds per body: the trails of every body together hold at most
render/trail.py's MAX_TRAIL_SAMPLES (they took 14 kB a body whether drawn or not), the layout and a frame's
instance rows a few hundred bytes. Measured with tracemalloc over two cloud sizes (what does not grow with the
bodies cancels out), through EGL; the plots' share is tests/ui/test_window_memory.py's."""

import tracemalloc

import numpy as np
import pytest

from spinlab.benchmarks.cloud import cloud_toml
from spinlab.render.offscreen import OffscreenTarget
from spinlab.render.renderer import Renderer
from spinlab.render.trail import MAX_TRAIL_SAMPLES
from spinlab.render.trail_lines import TRAIL_CAPACITY
from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.running.simulation import Simulation

BODIES = (300, 1500)
# Measured ~760 B: the layout's part matrices and axes, a frame's instance rows and their float32 copy.
RENDERER_BYTES_PER_BODY = 2_000
SIZE = (160, 90)
# Past render/frame_instances.py's CHUNK_ROWS part rows (a T-handle has two parts), so that the chunks show.
LARGE_BODIES = (1000, 6000)
# Held after two frames, per body: 362 B measured (the layout's colours, offsets and indices; a frame's rows of the
# two parts and the shadow, 84 B each; the trail); 765 B when the layout held a (4, 4) per part and body and every
# frame its axes' rows and the shadows' bytes twice over as the backdrop's key.
HELD_BYTES_PER_BODY = 500
# A frame's peak above what was held before it, per body: 661 B measured (the new frame's rows while the last
# frame's are held, and a chunk's temporaries); 1,089 B when the rows' float64 matrices were made for every body at
# once and copied for the view and the level of detail.
FRAME_PEAK_BYTES_PER_BODY = 800


def scene_specs(scene) -> None:
    """Make the scene's bodies' specs, which a scene read as columns makes when one is first asked for
    (scene/files/body_table.py): they are the scene's (tests/ui/test_window_memory.py), not the renderer's."""
    assert len(tuple(scene.bodies)) == len(scene.bodies)


def renderer_traced(ctx, scene) -> int:
    """Bytes a renderer of ``scene`` holds after ten trail samples and a frame drawn."""
    snapshot = Simulation(scene).snapshot()
    target = OffscreenTarget(ctx, *SIZE, samples=0)
    scene_specs(scene)
    tracemalloc.start()
    try:
        renderer = Renderer(ctx, scene)
        for _ in range(10):
            renderer.push_trail(snapshot)
        camera = renderer.default_camera(snapshot, None, SIZE[0] / SIZE[1])
        renderer.draw(target.framebuffer, (0, 0, *SIZE), camera, snapshot)
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    renderer.release()
    target.release()
    return held


def test_the_renderer_holds_a_few_hundred_bytes_a_body(gl_context, tmp_path):
    held = []
    for count in BODIES:
        path = tmp_path / f"cloud{count}.toml"
        path.write_text(cloud_toml(count))
        held.append(renderer_traced(gl_context, load_scene(path)))
    per_body = (held[1] - held[0]) / (BODIES[1] - BODIES[0])
    assert per_body < RENDERER_BYTES_PER_BODY, f"{per_body:.0f} B a body"


@pytest.mark.parametrize(
    ("bodies", "capacity"),
    [(1, TRAIL_CAPACITY), (266, TRAIL_CAPACITY), (1000, 160), (10**5, 2), (10**6, 2)],
)
def test_the_trails_hold_every_sample_of_a_few_bodies_and_a_bounded_total(bodies, capacity):
    from spinlab.render.trail import HerpolhodeTrail

    trail = HerpolhodeTrail(bodies, TRAIL_CAPACITY)
    assert trail.capacity == capacity
    assert trail.capacity * bodies <= max(MAX_TRAIL_SAMPLES, 2 * bodies)


def renderer_frames_traced(ctx, scene) -> tuple[int, int]:
    """(held, peak) bytes of a renderer of ``scene`` after a frame and then another of a new snapshot: held at the
    end, and the second frame's peak above what was held before it."""
    simulation = Simulation(scene)
    first = simulation.snapshot()
    simulation.step()
    second = simulation.snapshot()
    target = OffscreenTarget(ctx, *SIZE, samples=0)
    scene_specs(scene)
    tracemalloc.start()
    try:
        renderer = Renderer(ctx, scene)
        camera = renderer.default_camera(first, None, SIZE[0] / SIZE[1])
        renderer.draw(target.framebuffer, (0, 0, *SIZE), camera, first)
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        renderer.draw(target.framebuffer, (0, 0, *SIZE), camera, second)
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    renderer.release()
    target.release()
    return held, peak - before


def test_a_large_clouds_frames_hold_and_peak_at_a_few_hundred_bytes_a_body(gl_context, tmp_path):
    measured = []
    for count in LARGE_BODIES:
        path = tmp_path / f"cloud{count}.toml"
        path.write_text(cloud_toml(count))
        measured.append(np.array(renderer_frames_traced(gl_context, load_scene(path)), dtype=float))
    held, peak = (measured[1] - measured[0]) / (LARGE_BODIES[1] - LARGE_BODIES[0])
    assert held < HELD_BYTES_PER_BODY, f"{held:.0f} B a body held"
    assert peak < FRAME_PEAK_BYTES_PER_BODY, f"{peak:.0f} B a body at a frame's peak"
