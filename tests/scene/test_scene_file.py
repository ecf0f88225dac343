"""Tests of scene/files/scene_file.py: the presets load, values resolve as design.md §Scene files says, and every
mistake gives one InputError naming the file, the key and the value."""

import dataclasses
import json
import os

import numpy as np
import pytest

from spinlab.scene.files.scene_file import (
    DEFAULT_DT,
    KNOWN_INTEGRATORS,
    PRESET_DIR,
    BodySpec,
    SceneSpec,
    list_presets,
    load_scene,
    order_parent_first,
)
from spinlab.scene.files.scene_toml import save_scene
from spinlab.sim.errors import MAX_QUOTED, InputError
from spinlab.sim.inertia import box, parallel_axis, t_handle
from spinlab.sim.quaternion import quat_conj, quat_rotate

ATOL = 1e-12
REQUIRED_PRESETS = {"t_handle", "compare", "stable_major", "stable_minor", "heavy_top", "hierarchy"}
# Seed 003's principal moments, listed along body x, y, z so that they match the T-handle's geometry.
SEED_003_INERTIA = np.diag([1.3, 1.4, 2.5])


def _write(tmp_path, text, name="scene.toml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_the_required_presets_exist():
    assert REQUIRED_PRESETS <= set(list_presets())


@pytest.mark.parametrize("name", list_presets())
def test_every_preset_loads_and_says_what_it_shows(name):
    scene = load_scene(name)
    assert scene.name == name and scene.bodies and scene.description
    assert (PRESET_DIR / f"{name}.toml").read_text(encoding="utf-8").startswith("# ")
    for body in scene.bodies:
        assert np.linalg.norm(body.orientation) == pytest.approx(1.0, abs=ATOL)
    assert len(order_parent_first(scene.bodies)) == len(scene.bodies)


def test_a_preset_loads_by_path_as_by_name():
    by_path = load_scene(PRESET_DIR / "t_handle.toml")
    by_text = load_scene(str(PRESET_DIR / "t_handle.toml"))
    by_name = load_scene("t_handle")
    for scene in (by_path, by_text):
        np.testing.assert_array_equal(scene.bodies[0].omega_parent, by_name.bodies[0].omega_parent)


def test_t_handle_spins_near_its_intermediate_axis():
    (handle,) = load_scene("t_handle").bodies
    np.testing.assert_array_equal(handle.inertia_body, SEED_003_INERTIA)
    np.testing.assert_allclose(handle.omega_parent, [0.05, 5.0, 0.05], atol=ATOL)
    np.testing.assert_allclose(handle.com_offset, t_handle().com_offset, atol=ATOL)


# rank of the spin axis's principal moment: 0 minor, 1 intermediate, 2 major
@pytest.mark.parametrize(("name", "rank"), [("stable_major", 2), ("t_handle", 1), ("stable_minor", 0)])
def test_spin_presets_spin_near_the_named_principal_axis(name, rank):
    (handle,) = load_scene(name).bodies
    omega_body = quat_rotate(quat_conj(handle.orientation), handle.omega_parent)
    spin_axis = np.argmax(np.abs(omega_body))
    assert np.abs(omega_body[spin_axis]) > 50.0 * np.linalg.norm(np.delete(omega_body, spin_axis))
    assert np.argsort(np.diag(handle.inertia_body))[rank] == spin_axis


def test_compare_has_one_identical_handle_per_integrator_it_shows():
    bodies = load_scene("compare").bodies
    integrators = [body.integrator for body in bodies]
    seed_methods = {"euler", "magnus", "implicit_midpoint", "trapezoidal", "object_trapezoidal"}
    assert len(set(integrators)) == len(integrators) and seed_methods | {"exact"} <= set(integrators)
    assert set(integrators) <= set(KNOWN_INTEGRATORS)
    first = bodies[0]
    for body in bodies:
        np.testing.assert_array_equal(body.inertia_body, SEED_003_INERTIA)
        np.testing.assert_array_equal(body.orientation, first.orientation)
        np.testing.assert_array_equal(body.omega_parent, first.omega_parent)
        np.testing.assert_array_equal(body.position[1:], [0.0, 0.0])
    assert len({float(body.position[0]) for body in bodies}) == len(bodies)


def test_heavy_top_turns_about_a_pivot_at_the_origin():
    scene = load_scene("heavy_top")
    (top,) = scene.bodies
    assert scene.gravity[2] < 0.0 and scene.h < DEFAULT_DT
    np.testing.assert_allclose(top.inertia_body, parallel_axis(top.inertia_com, top.mass, top.pivot), atol=ATOL)
    np.testing.assert_allclose(top.position + quat_rotate(top.orientation, top.pivot), 0.0, atol=ATOL)
    # A symmetric top: equal moments about the two axes across the symmetry axis.
    assert top.inertia_body[0, 0] == pytest.approx(top.inertia_body[1, 1])


def test_hierarchy_has_a_moving_kinematic_parent_and_parents_come_first():
    bodies = load_scene("hierarchy").bodies
    roots = [body for body in bodies if body.parent is None]
    assert [body.kinematic for body in roots] == [True] and np.linalg.norm(roots[0].omega_parent) > 0.0
    assert any(not body.kinematic for body in bodies)
    for order in (bodies, bodies[::-1]):
        names = [body.name for body in order_parent_first(order)]
        assert sorted(names) == sorted(body.name for body in bodies)
        for body in order:
            if body.parent is not None:
                assert names.index(body.parent) < names.index(body.name)


def test_order_parent_first_keeps_file_order_otherwise_and_rejects_cycles():
    bodies = load_scene("hierarchy").bodies
    assert order_parent_first(bodies) == bodies
    looped = (dataclasses.replace(bodies[0], parent=bodies[-1].name), *bodies[1:])
    with pytest.raises(ValueError, match="cycle"):
        order_parent_first(looped)


def test_defaults_and_shape_inertia(tmp_path):
    scene = load_scene(_write(tmp_path, '[[body]]\nshape = "box"\nsize = [1.0, 2.0, 3.0]\nmass = 2\n'))
    assert scene.h == DEFAULT_DT
    np.testing.assert_array_equal(scene.gravity, np.zeros(3))
    (body,) = scene.bodies
    assert (body.name, body.mass, body.integrator, body.parent) == ("body0", 2.0, None, None)
    assert body.color is None and body.pivot is None and not body.kinematic
    np.testing.assert_allclose(body.inertia_body, box(2.0, (1.0, 2.0, 3.0)).inertia, atol=ATOL)
    np.testing.assert_array_equal(body.position, np.zeros(3))
    np.testing.assert_array_equal(body.orientation, [1.0, 0.0, 0.0, 0.0])
    np.testing.assert_array_equal(body.omega_parent, np.zeros(3))
    assert not body.omega_parent.flags.writeable


def test_body_angular_velocity_is_turned_to_the_world_by_the_orientation(tmp_path):
    # 90° about z, written unnormalised: body x maps to world y.
    text = '[scene]\ndt = 0.01\n[[body]]\nshape = "sphere"\norientation = [2.0, 0.0, 0.0, 2.0]\n'
    scene = load_scene(_write(tmp_path, text + "body_angular_velocity = [3.0, 0.0, 0.0]\n"))
    (body,) = scene.bodies
    assert scene.h == 0.01
    np.testing.assert_allclose(body.orientation, [np.sqrt(0.5), 0.0, 0.0, np.sqrt(0.5)], atol=ATOL)
    np.testing.assert_allclose(body.omega_parent, [0.0, 3.0, 0.0], atol=ATOL)
    world = load_scene(_write(tmp_path, text + "angular_velocity = [3.0, 0.0, 0.0]\n", "world.toml"))
    np.testing.assert_allclose(world.bodies[0].omega_parent, [3.0, 0.0, 0.0], atol=ATOL)


def test_a_full_tensor_and_principal_moments_are_accepted(tmp_path):
    tensor = "[[2.0, 0.5, 0.0], [0.5, 2.0, 0.0], [0.0, 0.0, 3.0]]"
    text = f'[[body]]\nname = "a"\nshape = "box"\ninertia = {tensor}\n[[body]]\nname = "b"\nshape = "box"\n'
    scene = load_scene(_write(tmp_path, text + "inertia = [1, 2, 2.5]\n"))
    np.testing.assert_array_equal(scene.body("a").inertia_body, [[2.0, 0.5, 0.0], [0.5, 2.0, 0.0], [0, 0, 3.0]])
    np.testing.assert_array_equal(scene.body("b").inertia_body, np.diag([1.0, 2.0, 2.5]))


BODY = '[[body]]\nname = "b"\nshape = "box"\n'
SPHERE = '[[body]]\nname = "s"\nshape = "sphere"\n'
HUGE_INT = "9" * 400
# (case, file text, key as named in the message, the value as the message shows it after "got" (None: no value),
# a fragment of the reason)
BAD_FILES = [
    ("syntax", BODY + "mass = \n", None, "'mass = '", "syntax error: Invalid value (at line 4"),
    ("top_key", "bodies = 1\n" + BODY, "bodies", "1", "did you mean 'body'"),
    ("top_table", "[scenery]\ngravity = [0, 0, 0]\n" + BODY, "scenery", "{'gravity': [0, 0, 0]}",
     "did you mean 'scene'"),
    ("scene_key", "[scene]\ngravty = [0, 0, -9.8]\n" + BODY, "scene.gravty", "[0, 0, -9.8]", "did you mean 'gravity'"),
    ("scene_not_table", "scene = 3\n" + BODY, "scene", "3", "must be a table"),
    ("body_key", BODY + "mas = 2\n", 'body "b".mas', "2", "did you mean 'mass'"),
    ("size_of_other_shape", BODY + "radius = 1.0\n", 'body "b".radius', "1.0", "does not apply to shape 'box'"),
    ("kinematic_key", BODY + "[body.kinematic]\nomega = [0, 0, 1]\n", 'body "b".kinematic.omega', "[0, 0, 1]",
     "unknown key"),
    ("string_for_number", BODY + 'mass = "heavy"\n', 'body "b".mass', "'heavy'", "must be a number"),
    ("bool_for_number", BODY + "mass = true\n", 'body "b".mass', "True", "must be a number, not a boolean"),
    ("string_for_vector", BODY + 'position = "origin"\n', 'body "b".position', "'origin'", "array of 3 numbers"),
    ("string_in_vector", BODY + 'position = [0, "1", 2]\n', 'body "b".position', "[0, '1', 2]", "must be a number"),
    ("string_for_dt", '[scene]\ndt = "fast"\n' + BODY, "scene.dt", "'fast'", "must be a number"),
    ("name_not_string", '[[body]]\nname = 3\nshape = "box"\n', "body[0].name", "3", "must be a string"),
    ("body_not_table", "body = [1, 2]\n", "body[0]", "1", "must be a table"),
    ("vector_length", BODY + "position = [1, 2]\n", 'body "b".position', "[1, 2]", "must have 3 numbers"),
    ("quaternion_length", BODY + "orientation = [1, 0, 0]\n", 'body "b".orientation', "[1, 0, 0]", "4 numbers"),
    ("nan", BODY + "mass = nan\n", 'body "b".mass', "nan", "finite"),
    ("inf_in_vector", BODY + "angular_velocity = [0, inf, 0]\n", 'body "b".angular_velocity', "[0, inf, 0]",
     "finite"),
    ("inf_gravity", "[scene]\ngravity = [0, 0, -inf]\n" + BODY, "scene.gravity", "[0, 0, -inf]", "finite"),
    ("huge_integer", BODY + f"mass = {HUGE_INT}\n", 'body "b".mass', HUGE_INT, "finite"),
    ("zero_quaternion", BODY + "orientation = [0, 0, 0, 0]\n", 'body "b".orientation', "[0, 0, 0, 0]", "zero"),
    ("tiny_quaternion", BODY + "orientation = [1e-9, 0, 0, 0]\n", 'body "b".orientation', "[1e-09, 0, 0, 0]",
     "zero"),
    ("zero_mass", BODY + "mass = 0\n", 'body "b".mass', "0", "greater than zero"),
    ("negative_mass", BODY + "mass = -1.5\n", 'body "b".mass', "-1.5", "greater than zero"),
    ("zero_radius", SPHERE + "radius = 0\n", 'body "s".radius', "0", "greater than zero"),
    ("negative_size", BODY + "size = [1, -1, 1]\n", 'body "b".size', "[1, -1, 1]", "greater than zero"),
    ("asymmetric", BODY + "inertia = [[1, 0.5, 0], [0, 1, 0], [0, 0, 1]]\n", 'body "b".inertia',
     "[[1, 0.5, 0], [0, 1, 0], [0, 0, 1]]", "not symmetric"),
    ("indefinite", BODY + "inertia = [1, -1, 1]\n", 'body "b".inertia', "[1, -1, 1]", "not positive definite"),
    ("triangle", BODY + "inertia = [1, 1, 3]\n", 'body "b".inertia', "[1, 1, 3]", "triangle inequality"),
    ("inertia_length", BODY + "inertia = [1, 2]\n", 'body "b".inertia', "[1, 2]", "must have 3 numbers"),
    ("inertia_row", BODY + "inertia = [[1, 0], [0, 1], [0, 0]]\n", 'body "b".inertia', "[[1, 0], [0, 1], [0, 0]]",
     "3 numbers"),
    ("both_angular_velocities", BODY + "angular_velocity = [1, 0, 0]\nbody_angular_velocity = [0, 1, 0]\n",
     'body "b".body_angular_velocity', "[0, 1, 0]", "not both"),
    ("missing_shape", '[[body]]\nname = "b"\n', 'body "b".shape', None, "is required"),
    ("unknown_shape", '[[body]]\nname = "b"\nshape = "cube"\n', 'body "b".shape', "'cube'",
     "box, sphere, cylinder, t_handle"),
    ("unknown_integrator", BODY + 'integrator = "rk4"\n', 'body "b".integrator', "'rk4'", "must be one of euler"),
    ("integrator_typo", BODY + 'integrator = "implicit-midpoint"\n', 'body "b".integrator', "'implicit-midpoint'",
     "did you mean 'implicit_midpoint'"),
    ("unknown_parent", BODY + 'parent = "platfrom"\n[[body]]\nname = "platform"\nshape = "box"\n',
     'body "b".parent', "'platfrom'", "did you mean 'platform'"),
    ("cycle", BODY + 'parent = "c"\n[[body]]\nname = "c"\nshape = "box"\nparent = "b"\n', 'body "b".parent', "'c'",
     "cycle: b → c → b"),
    ("self_parent", BODY + 'parent = "b"\n', 'body "b".parent', "'b'", "cycle: b → b"),
    ("duplicate_name", BODY + BODY, "body[1].name", "'b'", "duplicate body name (body[0]"),
    ("no_bodies", "[scene]\ngravity = [0, 0, 0]\n", "body", None, "no bodies"),
    ("empty_body_array", "body = []\n", "body", None, "no bodies"),
    ("zero_dt", "[scene]\ndt = 0\n" + BODY, "scene.dt", "0", "greater than zero"),
    ("color_range", BODY + "color = [2, 0, 0]\n", 'body "b".color', "[2, 0, 0]", "[0, 1]"),
    ("kinematic_integrator", BODY + 'integrator = "euler"\n[body.kinematic]\nangular_velocity = [0, 0, 1]\n',
     'body "b".integrator', "'euler'", "kinematic"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "text", "key", "shown", "reason"), BAD_FILES, ids=[case[0] for case in BAD_FILES])
def test_each_mistake_gives_one_message_naming_file_key_and_value(tmp_path, case, text, key, shown, reason):
    path = _write(tmp_path, text, f"{case}.toml")
    with pytest.raises(InputError) as caught:
        load_scene(path)
    error = caught.value
    message = str(error)
    assert message.startswith(f"{path}: ") and reason in message, message
    assert (key is None and "key '" not in message) or f"key '{key}': " in message, message
    # A value is quoted in at most MAX_QUOTED characters, a longer one cut with an ellipsis.
    if shown is not None and len(shown) > MAX_QUOTED:
        shown = shown[: MAX_QUOTED - 1] + "…"
    assert (shown is None and "(got" not in message) or message.endswith(f"(got {shown})"), message
    assert "\n" not in message and "Traceback" not in message and ".py" not in message


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(InputError, match="nope.toml: no such file"):
        load_scene(tmp_path / "nope.toml")


def test_a_directory_is_not_a_scene(tmp_path):
    with pytest.raises(InputError, match="is a directory"):
        load_scene(tmp_path)


def test_a_file_that_is_not_utf8_is_named(tmp_path):
    path = tmp_path / "binary.toml"
    path.write_bytes(b"\xff\xfe[[body]]\n")
    with pytest.raises(InputError, match="binary.toml: is not UTF-8"):
        load_scene(path)


def test_an_unknown_preset_lists_the_presets():
    with pytest.raises(InputError) as caught:
        load_scene("t_handel")
    message = str(caught.value)
    assert "t_handel" in message and "did you mean 't_handle'" in message
    assert all(name in message for name in list_presets())


# -- the writer beside the reader (scene/files/scene_toml.py): what is written reads back to an equal scene ------------

BODY_FIELDS = [field.name for field in dataclasses.fields(BodySpec)]
ORIENTATION_ATOL = 4.5e-16  # two ulps of a unit quaternion's entries
EVERY_FIELD = """
[scene]
gravity = [0.1, -0.3, -9.80665]
dt = 0.0013
description = "every field: \\"quoted\\", ünïcode, a tab\\t"

[[body]]
name = "base"
shape = "cylinder"
radius = 0.7
length = 0.2
mass = 3.0
color = [0.1, 0.2, 0.30000000000000004]
[body.kinematic]
angular_velocity = [0.0, 0.1, 0.7]

[[body]]
name = "child"
parent = "base"
shape = "box"
size = [0.3, 0.2, 0.1]
mass = 1.1
inertia = [[1.0, 0.1, 0.0], [0.1, 2.0, 0.05], [0.0, 0.05, 2.5]]
position = [0.1, 1e-40, -3.3]
orientation = [0.5, 0.5, 0.5, 0.5]
body_angular_velocity = [1e-7, 12.5, -0.1]
integrator = "magnus"

[[body]]
name = "top"
shape = "sphere"
radius = 0.25
mass = 0.7
position = [1.0, 0.0, 0.0]
orientation = [0.9, 0.1, 0.3, 0.1]
angular_velocity = [0.3, 0.2, 40.0]
pivot = [0.0, 0.0, -0.2]
integrator = "trapezoidal"
"""


def assert_same_scene(read: SceneSpec, original: SceneSpec) -> None:
    """Every field of ``read`` equals ``original``'s exactly (arrays bit for bit), the file's path aside."""
    assert (read.h, read.description, len(read.bodies)) == (original.h, original.description, len(original.bodies))
    assert np.array_equal(read.gravity, original.gravity)
    for copy, body in zip(read.bodies, original.bodies, strict=True):
        for field in BODY_FIELDS:
            value, expected = getattr(copy, field), getattr(body, field)
            if isinstance(expected, np.ndarray):
                assert value.dtype == expected.dtype and np.array_equal(value, expected), (body.name, field)
            else:
                assert value == expected, (body.name, field, value, expected)


def written_and_read(scene: SceneSpec, tmp_path, name: str = "copy.toml") -> SceneSpec:
    integrators = tuple(body.integrator for body in scene.bodies)  # None: left out, as the scene has it
    return load_scene(save_scene(tmp_path / name, scene, integrators, scene.h))


@pytest.mark.parametrize("name", list_presets())
def test_every_preset_written_and_read_back_is_the_same_scene(tmp_path, name):
    scene = load_scene(name)
    assert_same_scene(written_and_read(scene, tmp_path), scene)


def test_a_scene_with_every_field_written_and_read_back_is_the_same_scene(tmp_path):
    scene = load_scene(_write(tmp_path, EVERY_FIELD, "every.toml"))
    assert scene.bodies[0].kinematic and scene.bodies[1].parent == "base" and scene.bodies[2].pivot is not None
    assert np.count_nonzero(scene.bodies[1].inertia_com - np.diag(np.diag(scene.bodies[1].inertia_com)))
    assert_same_scene(written_and_read(scene, tmp_path), scene)


def test_edited_bodies_written_and_read_back_are_the_same(tmp_path):
    """Values the panel makes (ui/edits.py): an arbitrary unit quaternion, ω rotated into the parent's frame, any
    position; each float written as the shortest text that reads back to it. Only the orientation may move, by
    rounding: the reader normalises every quaternion again (scaled by its largest entry, then by its norm), which
    is not idempotent for about a third of unit quaternions (a second pass moves an entry by an ulp)."""
    scene = load_scene(_write(tmp_path, EVERY_FIELD, "every.toml"))
    rng = np.random.default_rng(14)
    bodies = []
    for body in scene.bodies:
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        changes = {"orientation": q, "position": rng.normal(size=3) * 1e3}
        if not body.kinematic:
            changes["omega_parent"] = rng.normal(size=3) * np.array([1e-9, 1.0, 1e9])
        bodies.append(dataclasses.replace(body, **changes))
    edited = dataclasses.replace(scene, bodies=tuple(bodies))
    read = written_and_read(edited, tmp_path)
    for copy, body in zip(read.bodies, edited.bodies, strict=True):
        np.testing.assert_allclose(copy.orientation, body.orientation, rtol=0, atol=ORIENTATION_ATOL)
    pairs = zip(read.bodies, edited.bodies, strict=True)
    unrounded = tuple(dataclasses.replace(copy, orientation=body.orientation) for copy, body in pairs)
    assert_same_scene(dataclasses.replace(read, bodies=unrounded), edited)


def test_a_scene_file_that_would_not_load_is_never_written(tmp_path):
    scene = load_scene("t_handle")
    (handle,) = scene.bodies
    broken = dataclasses.replace(scene, bodies=(dataclasses.replace(handle, mass=-1.0),))
    with pytest.raises(InputError, match="mass") as raised:
        save_scene(tmp_path / "broken.toml", broken, ("magnus",), scene.h)
    assert "broken.toml" in str(raised.value) and "tmp" not in str(raised.value).replace(str(tmp_path), "")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["fifo.toml", "nul\0.toml", "x" * 300 + ".toml"])
def test_saving_to_an_odd_place_is_one_line_naming_it(tmp_path, name):
    # A FIFO named *.toml froze the window (the write waited for a reader); a NUL byte or a long name showed
    # Python's own exception text in the panel.
    scene = load_scene("t_handle")
    if name == "fifo.toml":
        os.mkfifo(tmp_path / name)
    with pytest.raises(InputError) as raised:
        save_scene(tmp_path / name, scene, (None,), scene.h)
    message = str(raised.value)
    assert message.startswith(str(tmp_path)) and "\n" not in message and "Error" not in message, message
    assert [p.name for p in tmp_path.iterdir()] == (["fifo.toml"] if name == "fifo.toml" else [])


def test_a_name_with_any_character_toml_allows_escaped_is_written_and_read_back(tmp_path):
    # DEL (U+007F) loaded written as \u007F and was saved as is, which TOML (and so the reader) refuses.
    name = "".join(chr(c) for c in range(1, 0x20)) + "\x7f\x80\x85\u2028\u202e\ufeff\U0001f600\"\\'"
    written = json.dumps(name, ensure_ascii=False).replace("\x7f", "\\u007f")
    scene = load_scene(_write(tmp_path, f'[[body]]\nname = {written}\nshape = "box"\n'))
    assert written_and_read(scene, tmp_path).bodies[0].name == name


@pytest.mark.parametrize(
    "body, key, why",
    [
        ('shape = "box"\nsize = [1e-20, 1e-20, 1e-20]\nmass = 1e-10', "size", "moments of inertia"),
        ('shape = "sphere"\nradius = 1e-50', "radius", "moments of inertia"),
        ('shape = "box"\nmass = 1e-55', "mass", "too small"),
        ('shape = "box"\nsize = [1e30, 1e30, 1e30]\nmass = 1e40', "size", "moments of inertia"),
        ('shape = "box"\norientation = [0.9, 0.1, 0.3, 0.2]\nbody_angular_velocity = [1e-50, 2e-50, 1e-50]',
         "body_angular_velocity", "parent's frame"),
    ],
)  # fmt: skip
def test_a_value_the_scene_would_hold_out_of_range_is_refused_at_load(tmp_path, body, key, why):
    # The writer writes what the scene holds: a shape's moments and ω turned into the parent's frame. Held outside
    # the range a file's numbers have, they loaded and then could not be saved (the reader refused the writer's file).
    path = _write(tmp_path, f'[[body]]\nname = "b"\n{body}\n')
    with pytest.raises(InputError, match=why) as raised:
        load_scene(path)
    assert f"key 'body \"b\".{key}'" in str(raised.value)


def test_every_body_that_loads_is_saved_and_read_back(tmp_path):
    # Borderline bodies the two readers (scene/files/body_columns.py's arrays, scene_file.py's per body) both take.
    rng = np.random.default_rng(26)
    lines = []
    for index in range(200):
        size = 10.0 ** rng.uniform(-26, 24, size=3)
        mass = 10.0 ** rng.uniform(-49, 49)
        omega = rng.choice([0.0, 1.0], size=3) * 10.0 ** rng.uniform(-49.8, 49.8, size=3)
        q = rng.normal(size=4)
        lines.append(f'[[body]]\nname = "b{index}"\nshape = "box"\nsize = {size.tolist()}\nmass = {float(mass)!r}\n'
                     f"orientation = {q.tolist()}\nbody_angular_velocity = {omega.tolist()}\n")  # fmt: skip
    loaded = 0
    for index, text in enumerate(lines):
        try:
            scene = load_scene(_write(tmp_path, text, f"in{index}.toml"))
        except InputError:
            continue
        loaded += 1
        written_and_read(scene, tmp_path, f"out{index}.toml")
    assert loaded > 20, loaded
