"""Camera keys eased over time (scene/model/camera_path.py): every value exact at its key, continuous and at rest
across keys, monotone between them, held where a key leaves it out, a body target followed as the body moves; and
a person's hand on the cameras holding them until the next key."""

import math

import numpy as np
import pytest

from spinlab.scene.files.camera_table import CameraKey
from spinlab.scene.model.camera_path import CameraDirector, CameraPath, CameraState, ease

START = CameraState(-60.0, 22.0, 4.0, np.array([0.0, 0.0, 0.5]), 35.0)
KEYS = (
    CameraKey(0.0, azimuth=10.0, elevation=5.0, distance=2.0, target=(1.0, 0.0, 0.0), fov=40.0),
    CameraKey(1.5, azimuth=200.0, distance=8.0),  # elevation, target and fov held
    CameraKey(2.0, elevation=-30.0, target=(0.0, 2.0, 0.0), fov=20.0),
    CameraKey(4.0, azimuth=-90.0, elevation=60.0, distance=1.0, fov=90.0),
)
NAMES = ("azimuth", "elevation", "distance", "fov")


def nowhere(name):
    raise AssertionError(f"no body target here, asked for {name}")


def values(state):
    return np.array([*(getattr(state, name) for name in NAMES), *state.target])


def test_each_key_is_met_exactly_and_a_value_left_out_holds_the_one_before():
    path = CameraPath(KEYS)
    expected = [
        (10.0, 5.0, 2.0, 40.0, (1.0, 0.0, 0.0)),
        (200.0, 5.0, 8.0, 40.0, (1.0, 0.0, 0.0)),
        (200.0, -30.0, 8.0, 20.0, (0.0, 2.0, 0.0)),
        (-90.0, 60.0, 1.0, 90.0, (0.0, 2.0, 0.0)),
    ]
    for key, (azimuth, elevation, distance, fov, target) in zip(KEYS, expected, strict=True):
        state = path.at(key.time, START, nowhere)
        assert (state.azimuth, state.elevation, state.distance, state.fov) == (azimuth, elevation, distance, fov)
        assert tuple(state.target) == target
    # After the last key the cameras stay; between two keys a held value does not move.
    assert values(path.at(100.0, START, nowhere)).tolist() == values(path.at(4.0, START, nowhere)).tolist()
    assert {path.at(t, START, nowhere).fov for t in np.linspace(0.0, 1.5, 31)} == {40.0}


def test_before_the_first_key_the_cameras_move_from_the_views_own_framing():
    path = CameraPath((CameraKey(2.0, azimuth=30.0),))
    at = [path.at(t, START, nowhere) for t in (-1.0, 0.0, 1.0, 2.0)]
    assert [state.azimuth for state in at] == [-60.0, -60.0, -60.0 + 90.0 * ease(0.5), 30.0]
    assert all(state.distance == 4.0 and state.elevation == 22.0 for state in at)  # never given: the framing's
    np.testing.assert_array_equal(at[-1].target, START.target)


def test_the_ease_is_monotone_between_keys_and_at_rest_across_them():
    path = CameraPath(KEYS)
    times = np.linspace(0.0, 4.5, 4501)
    track = np.array([values(path.at(float(t), START, nowhere)) for t in times])  # (T, 7)
    for t0, t1 in zip(KEYS[:-1], KEYS[1:], strict=True):
        inside = (times >= t0.time) & (times <= t1.time)
        steps = np.diff(track[inside], axis=0)
        # Each value moves one way only within a segment (or stays).
        assert np.all((steps >= -1e-12).all(axis=0) | (steps <= 1e-12).all(axis=0)), (t0.time, t1.time)
    # Continuous: no step between samples larger than the steepest ease allows (1.5 × the change over the shortest
    # segment, 0.5 s; the geometric zoom from 2 to 8 m up to ln 4 · 4/3 times steeper); and at rest at each key: the
    # change over a millisecond either side is second order in the time.
    dt = times[1] - times[0]
    span = np.ptp(track, axis=0) + 1e-12
    assert np.all(np.abs(np.diff(track, axis=0)) <= 2.0 * 1.5 * span * dt / 0.5)
    for key in KEYS[1:]:
        here = values(path.at(key.time, START, nowhere))
        for side in (-1e-3, 1e-3):
            assert np.all(np.abs(values(path.at(key.time + side, START, nowhere)) - here) <= 1e-4 * span), key.time


def test_the_distance_zooms_at_an_even_pace_and_the_azimuth_turns_as_written():
    path = CameraPath((CameraKey(0.0, azimuth=0.0, distance=1.0), CameraKey(1.0, azimuth=720.0, distance=100.0)))
    middle = path.at(0.5, START, nowhere)
    assert middle.distance == pytest.approx(10.0, rel=1e-12)  # the geometric middle of 1 and 100
    assert middle.azimuth == pytest.approx(360.0)  # two whole turns, the first done by the middle


def test_a_body_target_follows_the_body_as_it_moves():
    keys = (CameraKey(0.0, target="handle"), CameraKey(2.0, azimuth=10.0), CameraKey(3.0, target=(0.0, 0.0, 10.0)))
    path = CameraPath(keys)

    def moving(name):
        assert name == "handle"
        return np.array([float(now), 0.0, 0.0])  # the body moves along x at 1 m/s

    for now in (0.0, 0.25, 0.5, 1.0, 2.0):  # held on the body: exactly where it is
        np.testing.assert_array_equal(path.at(now, START, moving).target, [now, 0.0, 0.0])
    now = 2.5  # half way to the point, from where the body is now
    np.testing.assert_allclose(path.at(now, START, moving).target, [1.25, 0.0, 5.0], rtol=0, atol=1e-12)
    # A view with no copy of the body aims where its own framing did.
    np.testing.assert_array_equal(path.at(0.0, START, lambda name: None).target, START.target)


def test_a_person_holds_the_cameras_until_the_next_key_and_looking_back_lets_go():
    director = CameraDirector(KEYS)
    assert director.steers(1.0)
    director.grab(1.0)  # between the keys at 0 and 1.5 s
    assert not director.steers(1.0) and not director.steers(1.49)
    assert director.steers(1.5)  # the next key takes them again, and the hold is gone
    assert director.steers(1.2)
    director.grab(5.0)  # after the last key: held for good, unless the person looks back
    assert not director.steers(50.0)
    assert director.steers(3.0) and director.steers(50.0)
    director.playing = False
    assert not director.steers(1.0)
    assert not CameraDirector(()).steers(0.0)  # no keys: nothing to play
    director.load(KEYS[:1])
    assert director.path.keys == KEYS[:1] and math.isinf(director.path.key_after(0.0))
