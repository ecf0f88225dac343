"""The bodies read as arrays (scene/files/body_columns.py) are bit for bit the per-body reader's, and every mistake is
reported exactly as the per-body reader reports it."""

from __future__ import annotations

import numpy as np
import pytest

import spinlab.scene.files.scene_file as scene_file
from spinlab.scene.files.body_columns import read_columns
from spinlab.scene.files.scene_file import KNOWN_INTEGRATORS, PRESET_DIR, list_presets, load_scene
from spinlab.sim.errors import InputError

_ARRAYS = ("inertia_body", "inertia_com", "com_offset", "position", "orientation", "omega_parent", "pivot")
_VALUES = ("name", "shape", "sizes", "mass", "integrator", "parent", "color", "kinematic")


def _load_one_at_a_time(path, monkeypatch):
    """The scene as the per-body reader alone reads it."""
    with monkeypatch.context() as patch:
        patch.setattr(scene_file, "read_columns", lambda entries, integrators, first=0: read_columns([], integrators))
        return load_scene(path)


def _bits(value):
    """``value`` with every float as its bits, so -0.0 ≠ 0.0 and types count."""
    if isinstance(value, float):
        return ("float", value.hex())
    if isinstance(value, tuple | list):
        return (type(value).__name__, *map(_bits, value))
    if isinstance(value, dict):
        return tuple((key, _bits(entry)) for key, entry in value.items())
    return (type(value).__name__, value)


def _assert_same_bodies(fast, slow):
    assert len(fast.bodies) == len(slow.bodies)
    for index, (a, b) in enumerate(zip(fast.bodies, slow.bodies, strict=True)):
        for field in _VALUES:
            assert _bits(getattr(a, field)) == _bits(getattr(b, field)), (index, field)
        for field in _ARRAYS:
            x, y = getattr(a, field), getattr(b, field)
            assert (x is None) == (y is None), (index, field)
            if x is not None:
                assert (x.dtype, x.shape, x.tobytes()) == (y.dtype, y.shape, y.tobytes()), (index, field)
                assert not x.flags.writeable, (index, field)
    assert fast.gravity.tobytes() == slow.gravity.tobytes() and fast.h == slow.h


def _fast_rows(path):
    import tomllib

    with open(path, "rb") as file:
        return read_columns(tomllib.load(file)["body"], KNOWN_INTEGRATORS).rows


@pytest.mark.parametrize("preset", list_presets())
def test_every_preset_reads_the_same_as_arrays(preset, monkeypatch):
    _assert_same_bodies(load_scene(preset), _load_one_at_a_time(preset, monkeypatch))


def test_the_presets_mostly_take_the_array_reader():
    taken = sum(_fast_rows(PRESET_DIR / f"{preset}.toml").size for preset in list_presets())
    assert taken >= 12


def _number(rng, low=-3.0, high=3.0):
    """A number as a scene may write it: a float, an integer, a tiny or huge one, a negative zero."""
    kind = rng.integers(8)
    if kind == 0:
        return str(int(rng.integers(-5, 6)))
    if kind == 1:
        return "-0.0"
    if kind == 2:
        return repr(float(rng.uniform(low, high) * 10.0 ** rng.integers(-40, 40)))
    return repr(float(rng.uniform(low, high)))


def _vector(rng, length, low=-3.0, high=3.0):
    return "[" + ", ".join(_number(rng, low, high) for _ in range(length)) + "]"


def _generated_scene(tmp_path, count, seed):
    """``count`` bodies with every usual key in some, unusual ones (pivot, kinematic, 3×3 inertia) in a few."""
    rng = np.random.default_rng(seed)
    lines = ["[scene]", "gravity = [0.0, 0.0, -9.81]", ""]
    for index in range(count):
        body, subtable = [], []
        if index % 5:  # body 5k keeps its default name, "body5k"
            body.append(f'name = "b{index}"')
        shape = ("box", "sphere", "cylinder", "t_handle")[rng.integers(4)]
        body.append(f'shape = "{shape}"')
        if rng.random() < 0.5:
            body.append(f"mass = {rng.choice(['2', '0.75', repr(float(rng.uniform(0.1, 9)))])}")
        if shape == "box" and rng.random() < 0.5:
            body.append(f"size = [{float(rng.uniform(0.1, 2))!r}, 1, {float(rng.uniform(0.1, 2))!r}]")
        if shape in ("cylinder", "t_handle", "sphere") and rng.random() < 0.5:
            body.append(f"radius = {float(rng.uniform(0.05, 0.5))!r}")
        if shape in ("cylinder", "t_handle") and rng.random() < 0.5:
            body.append(f"length = {rng.choice(['1', repr(float(rng.uniform(0.2, 2)))])}")
        if rng.random() < 0.3:
            moments = sorted(rng.uniform(1.0, 2.0, 3).tolist())  # any three in [1, 2] make a rigid body
            body.append(f"inertia = [{moments[1]!r}, {moments[0]!r}, {moments[2]!r}]")
        elif rng.random() < 0.05:
            body.append("inertia = [[2.0, 0.1, 0.0], [0.1, 1.5, 0.0], [0.0, 0.0, 1.2]]")
        if rng.random() < 0.7:
            body.append(f"position = {_vector(rng, 3)}")
        if rng.random() < 0.5:
            body.append(f"orientation = {_vector(rng, 4)}")
        if rng.random() < 0.3:
            body.append(f"color = [{float(rng.random())!r}, 0, 1.0]")
        kind = rng.random()
        if kind < 0.04:
            subtable = ["[body.kinematic]", f"angular_velocity = {_vector(rng, 3)}"]
        else:
            body.append(f"{'body_angular_velocity' if kind < 0.5 else 'angular_velocity'} = {_vector(rng, 3)}")
            if rng.random() < 0.05:
                body.append(f"pivot = {[round(float(x), 3) for x in rng.uniform(-1, 1, 3)]}")
            if rng.random() < 0.3:
                body.append(f'integrator = "{KNOWN_INTEGRATORS[rng.integers(len(KNOWN_INTEGRATORS))]}"')
        if index > 5 and rng.random() < 0.1:
            body.append(f'parent = "b{int(rng.integers(index // 5)) * 5 + 1}"')
        lines += ["[[body]]", *body, *subtable, ""]
    path = tmp_path / f"generated_{seed}.toml"
    path.write_text("\n".join(lines))
    return path


@pytest.mark.parametrize("seed", range(6))
def test_generated_scenes_read_the_same_as_arrays(tmp_path, seed, monkeypatch):
    path = _generated_scene(tmp_path, 300, seed)
    _assert_same_bodies(load_scene(path), _load_one_at_a_time(path, monkeypatch))
    assert 0 < _fast_rows(path).size < 300


def test_a_borderline_inertia_is_left_to_the_per_body_check(tmp_path, monkeypatch):
    # Within check_inertia's tolerance of the triangle inequality but outside the array reader's margin.
    path = tmp_path / "flat.toml"
    body = '[[body]]\nshape = "box"\ninertia = [1.0, 1.0, {}]\n'
    path.write_text(body.format("2.0000000015") + body.format("2.0"))
    assert _fast_rows(path).tolist() == [1]  # a flat disc (equality) is certainly accepted
    _assert_same_bodies(load_scene(path), _load_one_at_a_time(path, monkeypatch))


MISTAKES = [
    "mass = 0",
    "mass = true",
    'mass = "1"',
    "mass = 1e60",
    "mass = 1e-60",
    "mass = -2",
    "mass = 9007199254740993",
    "mass = 170000000000000000000000000000000000000000000000000000000000",
    "position = [1.0, 2.0]",
    "position = [1.0, nan, 2.0]",
    "position = [1.0, inf, 2.0]",
    'position = [1.0, "2", 3.0]',
    "position = 3.0",
    "position = [1.0, [2.0], 3.0]",
    "orientation = [0.0, 0.0, 0.0, 0.0]",
    "orientation = [1e300, 1e300, 0.0, 0.0]",
    "orientation = [1e-300, 0.0, 0.0, 0.0]",
    "inertia = [1.0, 1.0, 5.0]",
    "inertia = [0.0, 1.0, 1.0]",
    "inertia = [-1.0, 1.0, 1.0]",
    "inertia = [1e-20, 1.0, 1.0]",
    "inertia = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 5.0]]",
    "color = [2.0, 0.0, 0.0]",
    "color = [-0.5, 0.0, 0.0]",
    'integrator = "nope"',
    "integrator = 3",
    'shape = "cube"',
    "shape = 3",
    'name = ""',
    "name = 7",
    'name = "b3"',
    'parent = "nobody"',
    "parent = 1",
    "radius = 0.5",
    "size = [0.0, 1.0, 1.0]",
    "bar_length = 0.5",
    "wobble = 1",
    "angular_velocity = [1.0, 0.0, 0.0]",
    "pivot = [0.0, 0.0, 1.0]",
    "body_angular_velocity = [1e60, 0.0, 0.0]",
]


def _scene_with(tmp_path, mistakes: dict[int, str]) -> object:
    """40 valid boxes, body ``i`` given the line ``mistakes[i]`` in place of any line of the same key."""
    lines = []
    for index in range(40):
        body = [f'name = "b{index}"', 'shape = "box"', "body_angular_velocity = [0.1, 2.0, 0.0]"]
        if index in mistakes:
            key = mistakes[index].split(" =")[0]
            body = [line for line in body if not line.startswith(f"{key} =")] + [mistakes[index]]
        lines += ["[[body]]", *body, ""]
    path = tmp_path / "mistake.toml"
    path.write_text("\n".join(lines))
    return path


@pytest.mark.parametrize("mistake", MISTAKES)
def test_every_mistake_is_reported_as_the_per_body_reader_reports_it(tmp_path, mistake, monkeypatch):
    path = _scene_with(tmp_path, {17: mistake})
    try:
        slow = _load_one_at_a_time(path, monkeypatch)
    except InputError as error:
        with pytest.raises(InputError) as fast_error:
            load_scene(path)
        assert str(fast_error.value) == str(error)
        assert (fast_error.value.key, repr(fast_error.value.value)) == (error.key, repr(error.value))
    else:  # the unusual but valid (a pivot, an exact big integer, a huge orientation), read alike
        _assert_same_bodies(load_scene(path), slow)


def test_the_first_mistake_in_file_order_is_the_one_reported(tmp_path, monkeypatch):
    path = _scene_with(tmp_path, {9: "inertia = [1.0, 1.0, 5.0]", 30: "mass = 0"})
    with pytest.raises(InputError) as error:
        load_scene(path)
    assert error.value.key == 'body "b9".inertia'
    path = _scene_with(tmp_path, {9: "mass = -1", 30: 'shape = "cube"'})
    with pytest.raises(InputError) as error:
        load_scene(path)
    assert error.value.key == 'body "b9".mass'
