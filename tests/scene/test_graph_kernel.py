"""The compiled composition of the scene graph (scene/running/graph_kernel.py) gives, bit for bit, what seed 000's
composition gives level by level (tests/scene/graph_reference.py), on random forests of kinematic and dynamic
nodes, on the presets, and on a chain thousands deep, which it composes in one pass; and so does its own code run
without numba (the window's, until the kernel is loaded)."""

import contextlib
import dataclasses

import numpy as np
import pytest

from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.running.graph import SceneGraph
from spinlab.scene.running.simulation import Simulation
from spinlab.sim import compiled as compiled_kernels
from tests.scene.graph_reference import global_poses_by_level


def _bits(poses) -> list[np.ndarray]:
    """Every array of ``poses`` as raw 64-bit patterns: −0.0 and 0.0 differ, as do two NaNs' payloads."""
    return [np.ascontiguousarray(getattr(poses, field.name)).view(np.uint64) for field in dataclasses.fields(poses)]


def _unit(rng, n, width):
    values = rng.normal(size=(n, width))
    return values / np.linalg.norm(values, axis=1, keepdims=True)


@pytest.fixture(params=["compiled", "without numba"])
def composition(request):
    """The composition both ways: the compiled kernel, and its code run by Python (the kernel not ready)."""
    gate = compiled_kernels.gated() if request.param == "without numba" else contextlib.nullcontext()
    with gate:
        yield request.param


@pytest.mark.parametrize("seed", range(6))
def test_random_forests_compose_bit_for_bit_as_level_by_level(seed, composition):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 200))
    # Each node's parent is any earlier node or none; about a third kinematic.
    parent = np.array([-1] + [int(rng.integers(-1, i)) for i in range(1, n)], dtype=np.intp)
    if seed % 2:  # and a deep chain among them
        parent[1:] = np.arange(n - 1)
    kinematic = rng.uniform(size=n) < 0.35
    graph = SceneGraph(parent, kinematic, rng.normal(size=(n, 3)), _unit(rng, n, 4), rng.normal(size=(n, 3)))
    q, omega = _unit(rng, n, 4), rng.normal(scale=3.0, size=(n, 3))
    omega[rng.uniform(size=n) < 0.2] = 0.0  # zeros, whose signs the composition must also keep
    t = float(rng.uniform(0.0, 10.0))
    compiled, reference = graph.global_poses(t, q, omega), global_poses_by_level(graph, t, q, omega)
    for ours, theirs in zip(_bits(compiled), _bits(reference), strict=True):
        np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("preset", ["hierarchy", "compare", "heavy_top"])
def test_the_presets_compose_bit_for_bit_as_level_by_level(preset, composition):
    simulation = Simulation(load_scene(preset))
    for _ in range(30):
        simulation.step()
    graph, world = simulation.graph, simulation.world
    n = len(graph)
    q, omega = np.zeros((n, 4)), np.zeros((n, 3))
    q[simulation._dynamic], omega[simulation._dynamic] = world.values("q"), world.values("omega_world")
    compiled, reference = (
        graph.global_poses(simulation.t, q, omega),
        global_poses_by_level(graph, simulation.t, q, omega),
    )
    for ours, theirs in zip(_bits(compiled), _bits(reference), strict=True):
        np.testing.assert_array_equal(ours, theirs)


def test_a_chain_ten_thousand_deep_is_composed_in_one_pass():
    # Each link 1 m along its parent's x, turned 90° about z from it: the positions walk a square, four links a
    # lap, so every fourth node is back where the chain started (to rounding).
    n = 10_000
    turn = np.array([np.cos(np.pi / 4), 0.0, 0.0, np.sin(np.pi / 4)])
    graph = SceneGraph(
        np.arange(-1, n - 1), np.ones(n, dtype=bool), np.tile([1.0, 0.0, 0.0], (n, 1)), np.tile(turn, (n, 1)),
        np.zeros((n, 3)),
    )  # fmt: skip
    poses = graph.global_poses(0.0, np.zeros((n, 4)), np.zeros((n, 3)))
    np.testing.assert_allclose(
        poses.position[4::4], np.tile([1.0, 0.0, 0.0], (len(poses.position[4::4]), 1)), atol=1e-9
    )
    np.testing.assert_allclose(poses.position[1:5], [[1, 1, 0], [0, 1, 0], [0, 0, 0], [1, 0, 0]], atol=1e-12)
