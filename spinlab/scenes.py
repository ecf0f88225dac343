"""Scenes for the Python API (spinlab/api.py): a preset's name, a scene file's path, or a :class:`Scene` built in
code, each resolved into the run model's ``SceneSpec`` by the scene files' own reader (scene/files/scene_file.py), so
a scene built in code is checked exactly as a file is and a mistake is the same :class:`~spinlab.api.InputError`.

The fields are a scene file's keys (docs/scene_files.md): SI units, vectors as sequences of floats, quaternions
``(w, x, y, z)`` body → world.
"""

from __future__ import annotations

__docformat__ = "restructuredtext"  # pdoc: the ``literals`` and :class:`roles` of the docstrings

import dataclasses
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from spinlab.scene.files.scene_file import SceneSpec

__all__ = ["Scene", "Body", "Kick", "Change", "SceneLike", "scene_spec"]

Vector = Sequence[float]


@dataclass(frozen=True)
class Body:
    """One body, as a scene file's ``[[body]]`` table: ``shape`` (``"t_handle"``, ``"box"``, …), ``mass`` kg,
    ``inertia`` kg·m² (the principal moments (3,) or the tensor (3, 3), body frame; by default the shape's),
    ``position`` m, ``orientation`` (w, x, y, z), ``angular_velocity`` rad/s world frame or
    ``body_angular_velocity`` rad/s body frame, ``integrator`` (the body's own), ``parent`` (a body's name),
    ``color`` (linear RGB in [0, 1]), ``pivot`` m body frame (a top under gravity), ``kinematic`` (a constant
    angular velocity, rad/s: the body is driven, not integrated), ``sizes`` (the shape's size keys, m). ``None``
    leaves a key out: the file's default."""

    shape: str = "box"
    name: str | None = None
    mass: float | None = None
    inertia: Vector | Sequence[Vector] | None = None
    position: Vector | None = None
    orientation: Vector | None = None
    angular_velocity: Vector | None = None
    body_angular_velocity: Vector | None = None
    integrator: str | None = None
    parent: str | None = None
    color: Vector | None = None
    pivot: Vector | None = None
    kinematic: Vector | None = None
    sizes: Mapping[str, float | Vector] = field(default_factory=dict)

    def table(self) -> dict[str, Any]:
        """The ``[[body]]`` table this body is."""
        entry = {key: _plain(value) for key, value in _fields(self) if key not in ("sizes", "kinematic")}
        if self.kinematic is not None:
            entry["kinematic"] = {"angular_velocity": _plain(self.kinematic)}
        entry.update((key, _plain(value)) for key, value in self.sizes.items())
        return entry


@dataclass(frozen=True)
class Kick:
    """A kick, as a ``[[kick]]`` table: at ``time`` s, on ``body`` (its name), an ``angular_impulse`` N·m·s world
    frame, or an ``impulse`` N·s world frame at ``point`` m (body frame, from the centre of mass)."""

    body: str
    time: float
    angular_impulse: Vector | None = None
    impulse: Vector | None = None
    point: Vector | None = None
    counteract_children: bool | None = None

    def table(self) -> dict[str, Any]:
        """The ``[[kick]]`` table this kick is."""
        return {key: _plain(value) for key, value in _fields(self)}


@dataclass(frozen=True)
class Change:
    """A scripted change, as a ``[[change]]`` table: the gyroscopic term switched on or off at ``time`` s, for every
    body or for the body named ``body`` alone."""

    time: float
    gyroscopic: bool
    body: str | None = None

    def table(self) -> dict[str, Any]:
        """The ``[[change]]`` table this change is."""
        table: dict[str, Any] = {"time": self.time, "gyroscopic": self.gyroscopic}
        return table if self.body is None else {**table, "body": self.body}


@dataclass(frozen=True)
class Scene:
    """A scene built in code: its ``bodies``, ``gravity`` m/s² world frame, time step ``dt`` s (by default a
    file's, 1/60 s), ``kicks`` and ``changes``; ``name`` labels it (a file's name is its stem)."""

    bodies: Sequence[Body]
    gravity: Vector | None = None
    dt: float | None = None
    kicks: Sequence[Kick] = ()
    changes: Sequence[Change] = ()
    name: str = "scene"
    description: str | None = None

    def document(self) -> dict[str, Any]:
        """The scene file's tables this scene is (what a TOML reader gives for the same file)."""
        settings = {key: _plain(value) for key, value in (("gravity", self.gravity), ("dt", self.dt),
                    ("description", self.description)) if value is not None}  # fmt: skip
        document: dict[str, Any] = {"scene": settings, "body": [_table(body) for body in self.bodies]}
        if self.kicks:
            document["kick"] = [_table(kick) for kick in self.kicks]
        if self.changes:
            document["change"] = [_table(change) for change in self.changes]
        return document


SceneLike = str | os.PathLike[str] | Scene
"""What the API takes as a scene: a preset's name (``"t_handle"``), a path to a ``.toml`` file, or a :class:`Scene`."""


def scene_spec(
    scene: SceneLike, kicks: Sequence[Kick | Mapping[str, Any]] = (), changes: Sequence[Change | Mapping[str, Any]] = ()
) -> SceneSpec:
    """``scene`` loaded and validated (scene/files/scene_file.py), with ``kicks`` and ``changes`` added after its
    own. Raises :class:`~spinlab.sim.errors.InputError` naming the file (``Scene`` for one built in code), the key
    and the value, as the command line does."""
    from spinlab.scene.files.change_table import read_changes
    from spinlab.scene.files.kick_table import read_kicks
    from spinlab.scene.files.scene_file import load_scene, scene_from_document
    from spinlab.sim.errors import InputError

    if isinstance(scene, Scene):
        spec = scene_from_document(scene.document(), "Scene", Path(scene.name))
    elif isinstance(scene, str | os.PathLike):
        spec = load_scene(scene)
    else:
        raise InputError("must be a preset's name, a path to a .toml file or a spinlab.Scene", where="scene",
                         value=scene)  # fmt: skip
    added_kicks = read_kicks([_table(kick) for kick in kicks], "kicks", spec.bodies) if kicks else ()
    added_changes = read_changes([_table(change) for change in changes], "changes", spec.bodies) if changes else ()
    if not added_kicks and not added_changes:
        return spec
    return dataclasses.replace(spec, kicks=spec.kicks + added_kicks, changes=spec.changes + added_changes)


def _table(item: object) -> object:
    """A :class:`Body`, :class:`Kick` or :class:`Change` as its table; a mapping as a plain dict; anything else as
    it is (the reader names what is wrong with it)."""
    if isinstance(item, Body | Kick | Change):
        return item.table()
    if isinstance(item, Mapping):
        return {key: _plain(value) for key, value in item.items()}
    return item


def _fields(item: Body | Kick) -> list[tuple[str, Any]]:
    """The fields of ``item`` that are set (not ``None``)."""
    return [(f.name, getattr(item, f.name)) for f in dataclasses.fields(item) if getattr(item, f.name) is not None]


def _plain(value: Any) -> Any:
    """``value`` as a TOML reader gives it: numpy arrays and tuples as lists, numpy scalars as Python numbers."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, tuple | list):
        return [_plain(item) for item in value]
    return value
