"""Bodies read from a scene file's text without a TOML document (scene/files/body_text.py) are bit for bit the
per-body reader's, a file of any other form is parsed as before, and a mistake in one body of a large plain file is
reported exactly as the per-body reader reports it."""

from __future__ import annotations

import numpy as np
import pytest

import spinlab.scene.files.body_text as body_text
import spinlab.scene.files.scene_file as scene_file
from spinlab.scene.files.scene_file import KNOWN_INTEGRATORS, load_scene
from spinlab.sim.errors import InputError
from tests.scene.test_body_columns import MISTAKES, _assert_same_bodies, _load_one_at_a_time, _number


def _plain_number(rng):
    """A number every key takes: an integer, a negative zero, a float, a tiny or large one (well inside the range
    of scene/files/limits.py)."""
    kind = rng.integers(6)
    if kind == 0:
        return str(int(rng.integers(-5, 6)))
    if kind == 1:
        return "-0.0"
    if kind == 2:
        return repr(float(rng.uniform(-3.0, 3.0) * 10.0 ** rng.integers(-8, 8)))
    return repr(float(rng.uniform(-3.0, 3.0)))


def _vector(rng, length):
    return "[" + ", ".join(_plain_number(rng) for _ in range(length)) + "]"


def _plain_scene(tmp_path, count, seed, *, shape=None, head="[scene]\ngravity = [0.0, 0.0, -9.81]\n\n", name="p"):
    """``count`` bodies of one layout (which keys, drawn once from ``seed``), their values varied: integers, -0.0,
    tiny and huge numbers, every shape unless ``shape`` is given."""
    rng = np.random.default_rng(seed)
    keys = [key for key in ("mass", "inertia", "position", "orientation", "color", "integrator") if rng.random() < 0.6]
    spin = ("angular_velocity", "body_angular_velocity")[rng.integers(2)]
    lines = [head]
    for index in range(count):
        body_shape = shape or ("box", "sphere", "cylinder", "t_handle")[rng.integers(4)]
        body = [f'name = "b{index}"', f'shape = "{body_shape}"']
        for key in keys:
            if key == "mass":
                body.append(f"mass = {rng.choice(['2', '0.75', repr(float(rng.uniform(0.1, 9)))])}")
            elif key == "inertia":
                moments = sorted(rng.uniform(1.0, 2.0, 3).tolist())
                body.append(f"inertia = [{moments[1]!r}, {moments[0]!r}, {moments[2]!r}]")
            elif key == "color":
                body.append(f"color = [{float(rng.random())!r}, 0, 1.0]")
            elif key == "integrator":
                body.append(f'integrator = "{KNOWN_INTEGRATORS[rng.integers(len(KNOWN_INTEGRATORS))]}"')
            elif key == "orientation":
                body.append(f"orientation = [{rng.choice(['1', '0.5', '-2.0'])}, {_vector(rng, 3)[1:]}")
            else:
                body.append(f"{key} = {_vector(rng, 3)}")
        body.append(f"{spin} = {_vector(rng, 3)}")
        lines += ["[[body]]", *body, "" if index % 3 else "\n"]
    path = tmp_path / f"{name}_{seed}.toml"
    path.write_text("\n".join(lines))
    return path


def _read_plain(path, monkeypatch):
    """The scene as :func:`load_scene` reads it with the text reader on for a file of any size, and whether the
    text reader gave it."""
    given = []

    def spied(text):
        given.append(plain_bodies(text))
        return given[-1]

    plain_bodies = body_text.plain_bodies
    with monkeypatch.context() as patch:
        patch.setattr(scene_file, "PLAIN_BYTES", 0)
        patch.setattr(scene_file, "plain_bodies", spied)
        scene = load_scene(path)
    return scene, bool(given) and given[-1] is not None


@pytest.mark.parametrize("seed", range(8))
def test_plain_scenes_read_from_the_text_as_the_per_body_reader_reads_them(tmp_path, seed, monkeypatch):
    path = _plain_scene(tmp_path, 200, seed)
    scene, from_text = _read_plain(path, monkeypatch)
    assert from_text
    _assert_same_bodies(scene, _load_one_at_a_time(path, monkeypatch))
    assert scene.description == "" and scene.kicks == ()


def test_the_numbers_read_are_the_parsers_to_the_bit(tmp_path, monkeypatch):
    rng = np.random.default_rng(7)
    numbers = [_number(rng) for _ in range(600)] + ["0", "-0.0", "1e-05", "7E+2", "123456789012345", "1e-50"]
    lines = []
    for index in range(0, len(numbers), 3):
        lines += ["[[body]]", 'shape = "sphere"', f"position = [{', '.join(numbers[index : index + 3])}]", ""]
    path = tmp_path / "numbers.toml"
    path.write_text("\n".join(lines))
    scene, from_text = _read_plain(path, monkeypatch)
    assert from_text
    _assert_same_bodies(scene, _load_one_at_a_time(path, monkeypatch))


_KICK = '[[kick]]\nbody = "b1"\ntime = 1.0\nangular_impulse = [1.0, 0.0, 0.0]\n'


@pytest.mark.parametrize(
    "change",
    [
        ('shape = "box"\n', 'shape = "box"\n# a comment\n'),
        ('shape = "box"\n', 'shape = "box"  \n'),  # a space after a value
        ("position = [", "position = [ "),
        ("orientation = [1.0, 0.0, 0.0, 0.0]\nbody", "body"),  # another layout
        ("mass = 1.5\n", "mass = 2.\n"),  # not TOML: the parser says so
        ("mass = 1.5\n", "mass = +2\n"),
        ("mass = 1.5\n", "mass = 1_000\n"),
        ("mass = 1.5\n", "mass = -0\n"),  # TOML's integer 0, +0.0, where float("-0") is -0.0
        ("mass = 1.5\n", "mass = 90071992547409930\n"),
        ('name = "b7"', 'name = "b\\u0037"'),  # an escape
        ('name = "b7"', "name = 'b7'"),
        ("[[body]]\nname = \"b7\"", "[[body]]\nname = \"b7\"\n[body.kinematic]"),
        ("[[body]]\nname = \"b9\"", f"{_KICK}\n[[body]]\nname = \"b9\""),
    ],
)  # fmt: skip
def test_any_other_form_is_parsed_as_before(tmp_path, change, monkeypatch):
    path = _big_scene_with(tmp_path, 30, None, 0)
    text = path.read_text()
    old, new = change
    if isinstance(new, int):
        text = text.replace("[[body]]", old, new)
    else:
        assert old in text
        text = text.replace(old, new, 1)
    path.write_text(text)
    try:
        slow = _load_one_at_a_time(path, monkeypatch)
    except InputError as error:
        with pytest.raises(InputError) as fast_error:
            _read_plain(path, monkeypatch)
        assert str(fast_error.value) == str(error)
        return
    scene, from_text = _read_plain(path, monkeypatch)
    assert not from_text
    _assert_same_bodies(scene, slow)
    assert len(scene.kicks) == ("[[kick]]" in text)


def _big_scene_with(tmp_path, count, mistake: str | None, at: int):
    """``count`` plain boxes, body ``at`` given ``mistake`` in place of its line of the same key (same layout)."""
    keys = ["name", "shape", "mass", "position", "orientation", "body_angular_velocity"]
    lines = []
    for index in range(count):
        body = [f'name = "b{index}"', 'shape = "box"', "mass = 1.5", f"position = [{index}.0, 0.0, -1.0]",
                "orientation = [1.0, 0.0, 0.0, 0.0]", "body_angular_velocity = [0.1, 2.0, 0.0]"]  # fmt: skip
        if index == at and mistake is not None:
            key = mistake.split(" =")[0]
            if key in keys:
                body[keys.index(key)] = mistake
            else:
                body.append(mistake)
        lines += ["[[body]]", *body, ""]
    path = tmp_path / "big.toml"
    path.write_text("\n".join(lines))
    return path


@pytest.mark.parametrize("mistake", MISTAKES)
def test_a_mistake_in_a_large_plain_file_is_reported_as_the_per_body_reader_reports_it(tmp_path, mistake, monkeypatch):
    path = _big_scene_with(tmp_path, 500, mistake, 345)
    assert path.stat().st_size > body_text.PLAIN_BYTES
    try:
        slow = _load_one_at_a_time(path, monkeypatch)
    except InputError as error:
        with pytest.raises(InputError) as fast_error:
            load_scene(path)
        assert str(fast_error.value) == str(error) and "\n" not in str(error)
        assert (fast_error.value.key, repr(fast_error.value.value)) == (error.key, repr(error.value))
    else:  # the unusual but valid, read alike
        _assert_same_bodies(load_scene(path), slow)


def test_a_large_plain_file_takes_the_text_reader(tmp_path, monkeypatch):
    path = _big_scene_with(tmp_path, 500, None, 0)
    assert path.stat().st_size > body_text.PLAIN_BYTES
    calls = []
    read_columns = scene_file.read_columns
    monkeypatch.setattr(
        scene_file, "read_columns", lambda source, *args: calls.append(source) or read_columns(source, *args)
    )
    scene = load_scene(path)
    assert len(calls) == 1 and not isinstance(calls[0], list)  # one source for all, no parsed tables
    monkeypatch.undo()
    _assert_same_bodies(scene, _load_one_at_a_time(path, monkeypatch))
