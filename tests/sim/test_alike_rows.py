"""A function of many rows taken once when every row is the same (sim/alike_rows.py): a generated scene's bodies
share one inertia tensor, whose principal and Euler frames (sim/exact_batch.py) and inverse (sim/world.py) are
worked out once, with the bits the whole batch gives."""

from __future__ import annotations

import numpy as np
import pytest

import spinlab.sim.exact_batch as exact_batch
from spinlab.sim.alike_rows import all_alike, once_if_alike
from spinlab.sim.euler_poinsot import principal_frame
from spinlab.sim.world import World


def _handles(count: int, seed: int = 3):
    """``count`` T-handles of one inertia (a general one: its axes off the body's), spun near their middle axis."""
    rng = np.random.default_rng(seed)
    rotation, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    inertia = np.tile(rotation @ np.diag([1.3, 1.4, 2.5]) @ rotation.T, (count, 1, 1))
    q0 = rng.normal(size=(count, 4))
    q0 /= np.linalg.norm(q0, axis=1, keepdims=True)
    omega = 5.0 * rotation[:, 1] + rng.normal(0.0, 0.3, (count, 3))
    return inertia, q0, omega


def test_rows_are_alike_by_their_bytes():
    rows = np.tile([[1.0, 0.0, 2.0]], (4, 1))
    assert all_alike(rows) and not all_alike(rows[:1]) and not all_alike(rows[:0])
    signed = rows.copy()
    signed[2, 1] = -0.0
    assert not all_alike(signed)
    taken = []

    def doubled(array):
        taken.append(len(array))
        return 2.0 * array, array[:, 0]

    twice, first = once_if_alike(doubled, rows)
    assert taken == [1] and twice.shape == (4, 3) and first.shape == (4,) and twice.flags.writeable
    np.testing.assert_array_equal(twice, 2.0 * rows)
    once_if_alike(doubled, signed)
    assert taken == [1, 4]


@pytest.mark.parametrize("alike", [True, False])
def test_a_batch_of_one_inertia_solves_its_frames_once_with_the_same_bits(monkeypatch, alike):
    inertia, q0, omega = _handles(300)
    if not alike:
        inertia[7] = np.diag([1.3, 1.4, 2.5])  # one other tensor: every frame solved
    with monkeypatch.context() as patch:
        patch.setattr(exact_batch, "all_alike", lambda array: False)
        patch.setattr("spinlab.sim.alike_rows.all_alike", lambda array: False)
        whole = exact_batch.TorqueFreeBatch.from_states(inertia, q0, omega)
    rows = []

    def counted(tensors):
        rows.append(len(tensors))
        return principal_frame(tensors)

    monkeypatch.setattr(exact_batch, "principal_frame", counted)
    batch = exact_batch.TorqueFreeBatch.from_states(inertia, q0, omega)
    assert rows == ([1] if alike else [300])
    assert batch.rows.size == 300
    for name in ("moments", "axes_body", "spin_axis", "chain", "start", "g0", "phase0"):
        assert getattr(batch, name).tobytes() == getattr(whole, name).tobytes(), name
    t = np.array([0.0, 0.25, 3.0])
    assert batch.orientation(t).tobytes() == whole.orientation(t).tobytes()


def test_a_world_inverts_one_inertia_once(monkeypatch):
    inertia, q0, omega = _handles(50)
    expected = np.linalg.inv(inertia)
    inverted = []
    inv = np.linalg.inv
    monkeypatch.setattr(np.linalg, "inv", lambda tensors: inverted.append(len(tensors)) or inv(tensors))
    world = World()
    count = len(inertia)
    world.add_bodies(q=q0, omega_world=omega, inertia_body=inertia, integrator=["implicit_midpoint"] * count,
                     mass=np.ones(count), position=np.zeros((count, 3)), pivot_body=np.zeros((count, 3)),
                     has_pivot=np.zeros(count, dtype=bool), pinned=np.zeros(count, dtype=bool))  # fmt: skip
    assert inverted == [1]
    assert world.values("inertia_body_inv").tobytes() == expected.tobytes()
    assert world.values("integrator").tolist() == [world.values("integrator")[0]] * count
