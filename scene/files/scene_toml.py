"""Write a scene back as a TOML scene file (design.md §Scene files): the writer beside its reader,
scene/files/scene_file.py. The window's "Save" uses it, and so does the check of a body edited in the panel.

The text uses the contract's keys plus scene_file.py's extensions (``dt``, ``description``, ``color``, ``pivot``,
``[body.kinematic]``, ``[[kick]]``, ``[[change]]``, ``[[camera]]`` and ``[[caption]]`` tables: docs/scene_files.md).
Floats are written as the shortest text that reads back to the same double, so a saved scene loads to exactly the
state that was shown. Before the file is replaced, the text is loaded and validated by
:func:`scene.files.scene_file.load_scene` from a temporary copy: a file that would not load is never written.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import os
import tempfile
from pathlib import Path

import numpy as np

from spinlab.scene.files.atomic_file import check_output_place, write_atomically
from spinlab.scene.files.camera_table import CameraKey
from spinlab.scene.files.caption_table import PLACES, CaptionSpec
from spinlab.scene.files.change_table import ChangeSpec
from spinlab.scene.files.kick_table import KickSpec
from spinlab.scene.files.scene_file import DEFAULT_DT, BodySpec, SceneSpec, load_scene
from spinlab.sim.errors import InputError

__all__ = ["scene_to_toml", "save_scene", "check_body"]


def _number(value: float) -> str:
    return repr(float(value))


def _vector(values) -> str:
    return "[" + ", ".join(_number(v) for v in np.asarray(values, dtype=float).ravel()) + "]"


def _string(text: str) -> str:
    # JSON's string escapes are a subset of TOML basic strings'. TOML also forbids DEL (U+007F) written as is, which
    # JSON leaves: a name holding one loaded (written \u007F) and was saved raw, which the reader refused.
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def _inertia(inertia: np.ndarray) -> str:
    """Principal moments when the tensor is diagonal, else the full 3×3 tensor."""
    if np.count_nonzero(inertia - np.diag(np.diag(inertia))) == 0:
        return _vector(np.diag(inertia))
    return "[" + ", ".join(_vector(row) for row in inertia) + "]"


def _body(body: BodySpec, integrator: str | None) -> list[str]:
    lines = ["[[body]]", f"name = {_string(body.name)}", f"shape = {_string(body.shape)}"]
    for key, value in body.sizes.items():
        lines.append(f"{key} = {_vector(value) if isinstance(value, tuple) else _number(value)}")
    lines += [
        f"mass = {_number(body.mass)}",
        f"inertia = {_inertia(np.asarray(body.inertia_com))}",
        f"position = {_vector(body.position)}",
        f"orientation = {_vector(body.orientation)}",
    ]
    if body.parent is not None:
        lines.append(f"parent = {_string(body.parent)}")
    if body.color is not None:
        lines.append(f"color = {_vector(body.color)}")
    if body.kinematic:
        lines += ["", "[body.kinematic]", f"angular_velocity = {_vector(body.omega_parent)}"]
        return lines
    lines.append(f"angular_velocity = {_vector(body.omega_parent)}")
    if integrator is not None:
        lines.append(f"integrator = {_string(integrator)}")
    if body.pivot is not None:
        lines.append(f"pivot = {_vector(body.pivot)}")
    return lines


def _kick(kick: KickSpec) -> list[str]:
    """A ``[[kick]]`` table (scene/files/kick_table.py): only the keys the kick gives beyond their defaults."""
    lines = ["[[kick]]", f"body = {_string(kick.body)}", f"time = {_number(kick.time)}"]
    if kick.impulse is None or np.any(kick.angular_impulse != 0.0):
        lines.append(f"angular_impulse = {_vector(kick.angular_impulse)}")
    if kick.impulse is not None:
        lines.append(f"impulse = {_vector(kick.impulse)}")
    if kick.point is not None:
        lines.append(f"point = {_vector(kick.point)}")
    if kick.counteract_children:
        lines.append("counteract_children = true")
    return lines + _caption_line(kick.caption)


def _change(change: ChangeSpec) -> list[str]:
    """A ``[[change]]`` table (scene/files/change_table.py)."""
    switch = f"gyroscopic = {'true' if change.gyroscopic else 'false'}"
    body = [] if change.body is None else [f"body = {_string(change.body)}"]
    return ["[[change]]", f"time = {_number(change.time)}", switch, *body, *_caption_line(change.caption)]


def _camera(key: CameraKey) -> list[str]:
    """A ``[[camera]]`` table (scene/files/camera_table.py): only the values the key gives."""
    lines = ["[[camera]]", f"time = {_number(key.time)}"]
    for name in ("azimuth", "elevation", "distance", "fov"):
        value = getattr(key, name)
        if value is not None:
            lines.append(f"{name} = {_number(value)}")
    if key.target is not None:
        lines.append(f"target = {_string(key.target) if isinstance(key.target, str) else _vector(key.target)}")
    return lines


def _caption_line(caption: str | None) -> list[str]:
    """A kick's or change's ``caption`` key, when it has one."""
    return [] if caption is None else [f"caption = {_string(caption)}"]


def _caption(caption: CaptionSpec) -> list[str]:
    """A ``[[caption]]`` table (scene/files/caption_table.py), its position left out where it is the default."""
    lines = ["[[caption]]", f"time = {_number(caption.time)}", f"duration = {_number(caption.duration)}"]
    lines.append(f"text = {_string(caption.text)}")
    return lines + ([] if caption.position == PLACES[0] else [f"position = {_string(caption.position)}"])


def scene_to_toml(scene: SceneSpec, integrators: tuple[str | None, ...], h: float) -> str:
    """The text of a scene file for ``scene`` with one integrator per body (``None``: leave it out) and time step
    ``h`` s. Angular velocities are written in the parent's frame (``angular_velocity``), as the scene holds them."""
    stamp = datetime.datetime.now().isoformat(timespec="seconds")
    lines = [
        f"# Saved by spinlab on {stamp} from {scene.path.name}.",
        "",
        "[scene]",
        f"gravity = {_vector(scene.gravity)}",
        f"dt = {_number(h)}",
    ]
    if scene.description:
        lines.append(f"description = {_string(scene.description)}")
    if scene.duration is not None:
        lines.append(f"duration = {_number(scene.duration)}")
    for body, integrator in zip(scene.bodies, integrators, strict=True):
        lines += ["", *_body(body, integrator)]
    for kick in scene.kicks:
        lines += ["", *_kick(kick)]
    for change in scene.changes:
        lines += ["", *_change(change)]
    for key in scene.camera:
        lines += ["", *_camera(key)]
    for caption in scene.captions:
        lines += ["", *_caption(caption)]
    return "\n".join(lines) + "\n"


def _load_text(text: str, name: str, *, named: bool = True) -> SceneSpec:
    """Load ``text`` as the scene file ``name`` from a temporary folder: the scene files' every check. An error
    names the file ``name`` (``named``) or no file at all, never the temporary one."""
    with tempfile.TemporaryDirectory() as directory:
        check = Path(directory) / name
        check.write_text(text, encoding="utf-8")
        try:
            return load_scene(check)
        except InputError as error:
            temporary, shown = (f"{check}", name) if named else (f"{check}: ", "")
            raise InputError(str(error).replace(temporary, shown, 1)) from None


def check_body(body: BodySpec, integrator: str | None) -> None:
    """Put ``body`` (as the panel edited it) through the checks a scene file's body passes: ranges of every
    number, the inertia's (about its pivot too), the quaternion's. Raises :class:`InputError` naming the key.
    Only the body is written and read back (as a root), so an edit costs the same in a scene of any size."""
    alone = SceneSpec(Path("edited.toml"), np.zeros(3), DEFAULT_DT, (dataclasses.replace(body, parent=None),))
    _load_text(scene_to_toml(alone, (integrator,), DEFAULT_DT), "edited.toml", named=False)


def save_scene(path: str | os.PathLike[str], scene: SceneSpec, integrators: tuple[str | None, ...], h: float) -> Path:
    """Write ``scene`` (see :func:`scene_to_toml`) to ``path``, which must end in .toml, atomically and only if
    the text loads back as a valid scene. Raises :class:`InputError` naming the path otherwise."""
    path = Path(path)
    if path.suffix != ".toml":
        raise InputError("a scene file name must end in .toml", where=str(path), value=path.suffix or "no extension")
    check_output_place(path)  # an odd name, a FIFO: one line naming it, before any work
    text = scene_to_toml(scene, integrators, h)
    _load_text(text, path.name)
    return write_atomically(path, text.encode("utf-8"))
