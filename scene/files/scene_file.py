"""Scene files (TOML, design.md §Scene files): load, validate and resolve them into a :class:`SceneSpec`.

A scene is a preset name (a file stem in ``assets/scenes/``) or a path to a ``.toml`` file. Every mistake in it
raises one :class:`~sim.errors.InputError` naming the file, the key (``scene.dt``, ``body "handle".inertia``,
``body[2].mass``; bodies are counted from 0) and the value. Quaternions are ``(w, x, y, z)``, unit, body → world
(for a body with a ``parent``: body → parent). Units are SI.

Keys (design.md's contract, then this module's extensions, marked +):

    key                              type          default        meaning
    scene.gravity                    [3] m/s²      [0, 0, 0]      world gravity
  + scene.dt                         s, > 0        1/60           the fixed time step h
  + scene.description                string        ""             one line saying what the scene shows
  + scene.duration                   s, > 0        none           how long the scene's story runs: what `run` and
                                                                  `record` take when not given --duration or --to
    body.name                        string        "body<i>"      unique; what `parent` and traces refer to
    body.shape                       string        required       box | sphere | cylinder | t_handle
    body.size / radius / length /    m, > 0        sim.inertia    the shape's size keys (design.md)
      bar_length                                   SIZE_DEFAULTS
    body.mass                        kg, > 0       1              mass
    body.inertia                     [3] or [3][3] from shape     about the COM, body frame: principal moments
                                     kg·m²                        or a symmetric tensor
    body.position                    [3] m         [0, 0, 0]      COM position, in the parent's frame
    body.orientation                 [4]           [1, 0, 0, 0]   body → parent; normalised, must not be ~0
    body.angular_velocity            [3] rad/s     [0, 0, 0]      relative to the parent, in its frame (world
                                                                  for a root)
    body.body_angular_velocity       [3] rad/s     —              the same in the body frame (not with the above)
    body.integrator                  string        none           the command line's --integrator overrides it
    body.parent                      string        none           the body this one's transform is relative to
  + body.color                       [3] in [0,1]  none           linear RGB; none lets the renderer choose
  + body.pivot                       [3] m         none           a point fixed in the body frame (relative to
                                                                  the COM) and in space, about which the body
                                                                  turns under gravity (a heavy top)
  + body.kinematic.angular_velocity  [3] rad/s     [0, 0, 0]      given as a [body.kinematic] table: the body is
                                                                  not integrated but turns at this constant rate
                                                                  relative to its parent, in the parent's frame

A kinematic body takes none of angular_velocity, body_angular_velocity, integrator or pivot.

+ ``[[kick]]`` tables strike dynamic bodies at given times (scene/files/kick_table.py, docs/scene_files.md).
+ ``[[change]]`` tables switch the gyroscopic term at given times (scene/files/change_table.py, docs/scene_files.md).
+ ``[[camera]]`` tables are camera keys, eased between (scene/files/camera_table.py, docs/scene_files.md).
+ ``[[caption]]`` tables show text over the views for a while (scene/files/caption_table.py, docs/scene_files.md).
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from spinlab.assets import asset_dir
from spinlab.scene.files.body_columns import QUAT_MIN_NORM, frozen, read_columns
from spinlab.scene.files.body_table import BodySpec, BodyTable, body_column
from spinlab.scene.files.body_text import PLAIN_BYTES, plain_bodies
from spinlab.scene.files.camera_table import CameraKey, read_camera_keys
from spinlab.scene.files.caption_table import CaptionSpec, read_captions
from spinlab.scene.files.change_table import ChangeSpec, read_changes
from spinlab.scene.files.kick_table import KickSpec, read_kicks
from spinlab.scene.files.limits import MAX_BODIES, check_count
from spinlab.scene.files.toml_file import FAST_PARSE_BYTES, body_pieces, parse_toml, read_text
from spinlab.scene.files.validation import (
    RANGE_TEXT,
    TableReader,
    body_label,
    check_names_and_parents,
    did_you_mean,
    fail,
    in_range,
)
from spinlab.scene.process.collector import collector_paused
from spinlab.sim.errors import InputError
from spinlab.sim.inertia import SHAPES, SIZE_DEFAULTS, check_inertia, parallel_axis
from spinlab.sim.integrators import INTEGRATORS
from spinlab.sim.quaternion import quat_rotate

__all__ = [
    "BodySpec",
    "SceneSpec",
    "load_scene",
    "scene_from_document",
    "resolve_scene_path",
    "list_presets",
    "order_parent_first",
    "PRESET_DIR",
    "DEFAULT_DT",
    "KNOWN_INTEGRATORS",
]

PRESET_DIR = asset_dir("scenes")
DEFAULT_DT = 1.0 / 60.0
KNOWN_INTEGRATORS = tuple(INTEGRATORS)

SCENE_KEYS = ("gravity", "dt", "description", "duration")
BODY_KEYS = (
    "name", "shape", "mass", "inertia", "position", "orientation", "angular_velocity", "body_angular_velocity",
    "integrator", "parent", "color", "pivot", "kinematic",
)  # fmt: skip
KINEMATIC_KEYS = ("angular_velocity",)
_NOT_KINEMATIC = ("angular_velocity", "body_angular_velocity", "integrator", "pivot")


@dataclass(frozen=True, eq=False)
class SceneSpec:
    """A validated scene: ``gravity`` (3,) m/s² world frame, time step ``h`` s, bodies in file order, and the
    ``kicks`` struck on them (scene/files/kick_table.py), the ``changes`` of the gyroscopic term
    (scene/files/change_table.py), the ``camera`` keys (scene/files/camera_table.py) and the ``captions``
    (scene/files/caption_table.py), each in file order."""

    path: Path
    gravity: np.ndarray
    h: float
    bodies: Sequence[BodySpec]
    description: str = ""
    kicks: tuple[KickSpec, ...] = ()
    changes: tuple[ChangeSpec, ...] = ()
    camera: tuple[CameraKey, ...] = ()
    captions: tuple[CaptionSpec, ...] = ()
    duration: float | None = None
    """How long the scene's story runs, s (``[scene] duration``): ``run``'s and ``record``'s length when not given
    one; ``None``: theirs (10 s)."""

    @property
    def name(self) -> str:
        """The file stem, which is the preset name for a preset."""
        return self.path.stem

    def under_torque(self, body: BodySpec) -> bool:
        """Whether ``body`` feels a torque: a dynamic body turning about a pivot under gravity. (Gravity exerts no
        torque about a free body's centre of mass.) The one definition of "torque-free" is its negation."""
        return not body.kinematic and body.pivot is not None and bool(np.any(self.gravity != 0.0))

    @cached_property
    def has_torque(self) -> bool:
        """Whether any body of the scene feels a torque (then the closed-form ``exact`` step does not apply). Found
        once: the panel asks every frame, and a cloud has thousands of bodies."""
        return bool(np.any(self.gravity != 0.0)) and any(self.under_torque(body) for body in self.bodies)

    def body(self, name: str) -> BodySpec:
        """The body called ``name`` (``KeyError`` when there is none)."""
        for body in self.bodies:
            if body.name == name:
                return body
        raise KeyError(name)


def list_presets() -> list[str]:
    """The preset names, sorted: the stems of ``assets/scenes/*.toml``."""
    return sorted(path.stem for path in PRESET_DIR.glob("*.toml"))


def resolve_scene_path(scene: str | os.PathLike[str]) -> Path:
    """The file of ``scene``: a path (a ``PathLike``, or text ending in .toml or holding a slash) or a preset."""
    text = os.fspath(scene)
    if isinstance(scene, os.PathLike) or text.endswith(".toml") or "/" in text or os.sep in text:
        return Path(text)
    preset = PRESET_DIR / f"{text}.toml"
    try:
        if preset.is_file():
            return preset
    except (OSError, ValueError):  # a name too long for a file, a NUL byte: not a preset
        pass
    presets = list_presets()
    fail(
        f"scene '{text}'",
        None,
        f"no such preset (presets: {', '.join(presets)}) and not a path to a .toml file{did_you_mean(text, presets)}",
    )


def load_scene(scene: str | os.PathLike[str]) -> SceneSpec:
    """Load, validate and resolve a scene: a preset name (e.g. ``"t_handle"``) or a path to a .toml file."""
    with collector_paused():  # ~10⁶ objects for 10⁵ bodies, no cycles among them (scene/process/collector.py)
        return _load_scene(scene)


def scene_from_document(document: dict[str, Any], where: str, path: Path) -> SceneSpec:
    """The scene a parsed scene document describes (the tables a scene file holds, as Python values: ``scene``,
    ``body``, ``kick``, ``change``, ``camera``, ``caption``), validated as a file is: an :class:`InputError` naming
    ``where``, the key and the value for the first mistake. ``path`` is the scene's (its stem is its name). The
    Python API's scenes built in code come through here (spinlab/scenes.py)."""
    with collector_paused():
        return _scene_from(path, where, document)


def _load_scene(scene: str | os.PathLike[str]) -> SceneSpec:
    path = resolve_scene_path(scene)
    where = str(path)
    text = read_text(path, where)
    if len(text) > PLAIN_BYTES:
        plain = _plain_scene(path, where, text)
        if plain is not None:
            return plain
    if len(text) > FAST_PARSE_BYTES:
        pieces = body_pieces(text)
        if pieces is not None:
            try:
                return _scene_in_pieces(path, where, pieces)
            except InputError:
                pass  # a mistake, or pieces that do not read as the whole: the whole file reports it
    document, parser = parse_toml(text, where)
    try:
        return _scene_from(path, where, document)
    except InputError:
        if parser is tomllib:
            raise
    # Every mistake is reported from tomllib's reading, as it always was (values quoted the same).
    return _scene_from(path, where, parse_toml(text, where, fast=False)[0])


def _scene_in_pieces(path: Path, where: str, pieces: list[str]) -> SceneSpec:
    """The scene of a large file cut by :func:`~scene.files.toml_file.body_pieces`, each piece parsed, read into bodies
    and freed before the next, so that the whole file's document is never held. Raises :class:`InputError` on any
    mistake and when the pieces' documents are not the whole file's (keys other than the ``body``, ``kick``,
    ``change``, ``camera`` and ``caption`` arrays in a later piece); the caller then reads the whole file, which
    reports the file's first mistake."""
    document: dict[str, Any] = {}
    bodies: list[BodySpec] = []
    arrays: dict[str, list[object]] = {"kick": [], "change": [], "camera": [], "caption": []}
    for number in range(len(pieces)):
        piece, pieces[number] = pieces[number], ""
        part = parse_toml(piece, where)[0]
        del piece
        if number and not part.keys() <= {"body", *arrays}:
            fail(where, None, "a root key past the first [[body]] table")
        if not all(isinstance(part.get(key, []), list) for key in ("body", *arrays)):
            fail(where, None, "body, kick, change, camera or caption is not an array of tables")
        for key, entries in arrays.items():
            entries += part.pop(key, [])
        bodies += _read_bodies(part.pop("body", []), where, first=len(bodies))
        check_count(len(bodies), MAX_BODIES, "bodies", where=where, key="body")
        if not number:
            document = part
    document.update((key, entries) for key, entries in arrays.items() if entries)
    return _scene_from(path, where, document, tuple(bodies))


def _scene_from(
    path: Path, where: str, document: dict[str, Any], bodies: Sequence[BodySpec] | None = None
) -> SceneSpec:
    """The scene ``document`` describes; its bodies ``bodies`` when they have been read already (then the document
    holds none)."""
    top = TableReader(document, where, "")
    top.check_keys(("scene", "body", "kick", "change", "camera", "caption"))
    settings = top.subtable("scene") or TableReader({}, where, "scene")
    settings.check_keys(SCENE_KEYS)
    gravity = settings.vector("gravity", 3, (0.0, 0.0, 0.0))
    h = settings.number("dt", DEFAULT_DT, positive=True)
    description = settings.string("description", "")
    duration = settings.number("duration", 1.0, positive=True) if settings.has("duration") else None
    entries = document.get("body", [])
    if not isinstance(entries, list):
        fail(where, "body", "must be an array of tables, written [[body]]", entries)
    if not entries and not bodies:
        fail(where, "body", "the scene has no bodies; add at least one [[body]] table")
    if bodies is None:
        check_count(len(entries), MAX_BODIES, "bodies", where=where, key="body")
        bodies = _read_bodies(entries, where)
    names, parents = body_column(bodies, "name"), body_column(bodies, "parent")
    if parents.count(None) < len(parents) or len(set(names)) < len(names):  # else every name one root's: nothing to say
        check_names_and_parents(list(zip(names, parents, strict=True)), where)
    kicks = read_kicks(document["kick"], where, bodies) if "kick" in document else ()
    changes = read_changes(document["change"], where, bodies) if "change" in document else ()
    camera = read_camera_keys(document["camera"], where, bodies) if "camera" in document else ()
    captions = read_captions(document["caption"], where, bodies) if "caption" in document else ()
    return SceneSpec(path, frozen(gravity), h, bodies, description, kicks, changes, camera, captions, duration)


def order_parent_first(bodies: Sequence[BodySpec]) -> Sequence[BodySpec]:
    """``bodies`` in an order where every parent comes before its children, otherwise in the given order (``bodies``
    itself when every body is a root).

    Raises ``ValueError`` on an unknown parent or a cycle, which :func:`load_scene` never returns.
    """
    parents = body_column(bodies, "parent")
    if parents.count(None) == len(parents):
        return bodies
    by_name = {body.name: body for body in bodies}
    placed: set[str] = set()
    order: list[BodySpec] = []
    for body in bodies:
        # Climb to the first placed ancestor (or the root), then place the chain top-down.
        chain: list[BodySpec] = []
        in_chain: set[str] = set()
        current: BodySpec | None = body
        while current is not None and current.name not in placed:
            if current.name in in_chain:
                raise ValueError(f"parents form a cycle through '{current.name}'")
            chain.append(current)
            in_chain.add(current.name)
            if current.parent is not None and current.parent not in by_name:
                raise ValueError(f"unknown parent '{current.parent}' of '{current.name}'")
            current = by_name.get(current.parent) if current.parent is not None else None
        for node in reversed(chain):
            placed.add(node.name)
            order.append(node)
    return tuple(order)


def _read_bodies(entries: list[object], where: str, first: int = 0) -> Sequence[BodySpec]:
    """The bodies of the file (``entries``, from its body ``first`` on): the usual ones read as arrays
    (scene.files.body_columns), the rest one at a time by :func:`_read_body`, which raises on the first mistake in file
    order (the array reader takes no body with one)."""
    columns = read_columns(entries, KNOWN_INTEGRATORS, first)
    if columns.rows.size == len(entries):  # every body (the rows are all of them, in order)
        return BodyTable(columns)
    bodies: list[BodySpec | None] = [None] * len(entries)
    for index, spec in zip(columns.rows.tolist(), BodyTable(columns), strict=True):
        bodies[index] = spec
    for index, body in enumerate(bodies):
        if body is None:
            bodies[index] = _read_body(entries[index], first + index, where)
    return tuple(bodies)  # type: ignore[arg-type]


def _plain_scene(path: Path, where: str, text: str) -> SceneSpec | None:
    """The scene of ``text`` when its bodies are all of the plain form scene/files/body_text.py reads without a TOML
    document and all valid and usual (the array reader takes every one), else ``None``: the file is then parsed,
    and any mistake reported from that, as always. The text before the first ``[[body]]`` line is parsed as TOML."""
    start = 0 if text.startswith("[[body]]\n") else text.find("\n[[body]]\n") + 1
    if not start and not text.startswith("[[body]]\n") or '"""' in text or "'''" in text:
        return None  # no such line, or one that could be inside a multi-line string
    source = plain_bodies(text[start:])
    if source is None:
        return None
    try:
        document = parse_toml(text[:start], where)[0]
        if "body" in document:
            return None
        check_count(source.count, MAX_BODIES, "bodies", where=where, key="body")
        columns = read_columns(source, KNOWN_INTEGRATORS)
        if columns.rows.size < source.count:
            return None
        return _scene_from(path, where, document, BodyTable(columns))
    except InputError:
        return None


def _read_body(entry: object, index: int, where: str) -> BodySpec:
    if not isinstance(entry, dict):
        fail(where, f"body[{index}]", "must be a table, written [[body]]", entry)
    name_value = entry.get("name")
    label = body_label(name_value) if isinstance(name_value, str) and name_value else f"body[{index}]"
    body = TableReader(entry, where, label)
    name = body.string("name", f"body{index}")
    if not name:
        body.fail("name", "must not be empty", name)
    shape = body.string("shape", choices=tuple(SHAPES))
    size_defaults = SIZE_DEFAULTS[shape]
    foreign_sizes = {
        key: f"does not apply to shape '{shape}' (its size keys: {', '.join(size_defaults)})"
        for defaults in SIZE_DEFAULTS.values()
        for key in defaults
        if key not in size_defaults
    }
    body.check_keys(BODY_KEYS + tuple(size_defaults), explain=foreign_sizes)

    sizes = {key: _read_size(body, key, default) for key, default in size_defaults.items()}
    mass = body.number("mass", 1.0, positive=True)
    shape_properties = SHAPES[shape](mass, **sizes)
    if body.has("inertia"):
        inertia_com = _read_inertia(body)
    else:
        inertia_com = shape_properties.inertia
        _check_derived_inertia(body, inertia_com, ("mass", *size_defaults), f"of this {shape} and mass")
        if not np.all(in_range(inertia_com)):
            moments = _shown(np.diag(inertia_com))
            key = next((key for key in (*size_defaults, "mass") if body.has(key)), "mass")
            body.fail(key, f"gives moments of inertia {moments} kg·m², outside what a scene holds ({RANGE_TEXT}): "
                      "make the body larger or heavier, or give inertia", body.table.get(key))  # fmt: skip
    position = body.vector("position", 3, (0.0, 0.0, 0.0))
    orientation = body.vector("orientation", 4, (1.0, 0.0, 0.0, 0.0), any_magnitude=True)
    # Scaled by its largest entry before the norm, so that no square overflows or underflows.
    largest = float(np.max(np.abs(orientation)))
    if largest * 2.0 < QUAT_MIN_NORM:
        body.fail("orientation", "is (nearly) zero; give a unit quaternion (w, x, y, z)", body.table["orientation"])
    orientation = orientation / largest
    orientation = orientation / np.linalg.norm(orientation)
    color = body.vector("color", 3, None, bounds=(0.0, 1.0))

    kinematic = body.subtable("kinematic")
    pivot = None
    if kinematic is not None:
        kinematic.check_keys(KINEMATIC_KEYS)
        for key in _NOT_KINEMATIC:
            if body.has(key):
                message = "does not apply to a kinematic body (its motion is its [body.kinematic] table)"
                body.fail(key, message, body.table[key])
        omega_parent = kinematic.vector("angular_velocity", 3, (0.0, 0.0, 0.0))
    else:
        omega_parent = _read_angular_velocity(body, orientation)
        pivot = body.vector("pivot", 3, None)
    inertia_body = inertia_com
    if pivot is not None:
        inertia_body = parallel_axis(inertia_com, mass, pivot)
        _check_derived_inertia(body, inertia_body, ("pivot",), "about this pivot")

    return BodySpec(
        name=name,
        shape=shape,
        sizes=sizes,
        mass=mass,
        inertia_body=frozen(inertia_body),
        inertia_com=frozen(np.array(inertia_com)),
        com_offset=frozen(shape_properties.com_offset),
        position=frozen(position),
        orientation=frozen(orientation),
        omega_parent=frozen(omega_parent),
        integrator=body.string("integrator", None, choices=KNOWN_INTEGRATORS),
        parent=body.string("parent", None),
        color=None if color is None else (float(color[0]), float(color[1]), float(color[2])),
        pivot=None if pivot is None else frozen(pivot),
        kinematic=kinematic is not None,
    )


def _read_size(body: TableReader, key: str, default: float | tuple[float, ...]) -> float | tuple[float, ...]:
    if isinstance(default, tuple):
        return tuple(float(v) for v in body.vector(key, len(default), default, positive=True))
    return body.number(key, default, positive=True)


def _read_inertia(body: TableReader) -> np.ndarray:
    """Principal moments ``[a, b, c]`` (a diagonal tensor) or a 3×3 tensor, checked by ``check_inertia``."""
    value = body.table["inertia"]
    if isinstance(value, list) and any(isinstance(row, list) for row in value):
        inertia = body.matrix3("inertia")
    else:
        moments = body.vector("inertia", 3, None)
        assert moments is not None, "the key is there (read above)"
        inertia = np.diag(moments)
    reason = check_inertia(inertia)
    if reason is not None:
        body.fail("inertia", reason, value)
    return inertia


def _check_derived_inertia(body: TableReader, inertia: np.ndarray, keys: tuple[str, ...], about: str) -> None:
    """Put an inertia derived from other keys (a shape's size and mass, a pivot) through the checks a given one
    passes; a failure names the first of ``keys`` the file gives (else the first) and its value."""
    reason = check_inertia(inertia)
    if reason is None:
        return
    key = next((key for key in keys if body.has(key)), keys[0])
    body.fail(key, f"gives an inertia tensor {about} that {reason}", body.table.get(key))


def _read_angular_velocity(body: TableReader, orientation: np.ndarray) -> np.ndarray:
    if body.has("angular_velocity") and body.has("body_angular_velocity"):
        body.fail(
            "body_angular_velocity",
            "give angular_velocity (parent frame) or body_angular_velocity (body frame), not both",
            body.table["body_angular_velocity"],
        )
    omega_body = body.vector("body_angular_velocity", 3, None)
    if omega_body is None:
        return body.vector("angular_velocity", 3, (0.0, 0.0, 0.0))
    omega = quat_rotate(orientation, omega_body)
    if not np.all(in_range(omega)):
        body.fail(
            "body_angular_velocity",
            f"is {_shown(omega)} rad/s in the parent's frame, where the scene holds it, and an entry there is outside "
            f"{RANGE_TEXT}: give angular_velocity (parent frame) instead",
            body.table["body_angular_velocity"],
        )
    return omega


def _shown(values: np.ndarray) -> str:
    """A few numbers as a message shows them: ``[1.7e-51, 0, 2.2e-50]``."""
    return "[" + ", ".join(f"{value:.3g}" for value in np.ravel(values)) + "]"
