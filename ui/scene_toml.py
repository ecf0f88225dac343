"""Write a scene back as a TOML scene file (design.md §Scene files), as the window's "Save scene" does.

The text uses the contract's keys plus scene_file.py's extensions (``dt``, ``description``, ``color``, ``pivot``,
``[body.kinematic]``). Floats are written as the shortest text that reads back to the same double, so a saved scene
loads to exactly the state that was shown. Before the file is replaced, the text is loaded and validated by
:func:`scene.scene_file.load_scene` from a temporary copy: a file that would not load is never written.
"""

from __future__ import annotations

import datetime
import json
import os
import tempfile
from pathlib import Path

import numpy as np

from scene.scene_file import BodySpec, SceneSpec, load_scene
from sim.errors import InputError
from ui.files import write_atomically

__all__ = ["scene_to_toml", "save_scene"]


def _number(value: float) -> str:
    return repr(float(value))


def _vector(values) -> str:
    return "[" + ", ".join(_number(v) for v in np.asarray(values, dtype=float).ravel()) + "]"


def _string(text: str) -> str:
    # JSON's string escapes are a subset of TOML basic strings'.
    return json.dumps(text, ensure_ascii=False)


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
        lines += ["", "[body.kinematic]", f"angular_velocity = {_vector(body.omega_world)}"]
        return lines
    lines.append(f"angular_velocity = {_vector(body.omega_world)}")
    if integrator is not None:
        lines.append(f"integrator = {_string(integrator)}")
    if body.pivot is not None:
        lines.append(f"pivot = {_vector(body.pivot)}")
    return lines


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
    for body, integrator in zip(scene.bodies, integrators, strict=True):
        lines += ["", *_body(body, integrator)]
    return "\n".join(lines) + "\n"


def save_scene(path: str | os.PathLike[str], scene: SceneSpec, integrators: tuple[str | None, ...], h: float) -> Path:
    """Write ``scene`` (see :func:`scene_to_toml`) to ``path``, which must end in .toml, atomically and only if
    the text loads back as a valid scene. Raises :class:`InputError` naming the path otherwise."""
    path = Path(path)
    if path.suffix != ".toml":
        raise InputError("a scene file name must end in .toml", where=str(path), value=path.suffix or "no extension")
    text = scene_to_toml(scene, integrators, h)
    with tempfile.TemporaryDirectory() as directory:
        check = Path(directory) / path.name
        check.write_text(text, encoding="utf-8")
        load_scene(check)
    return write_atomically(path, text.encode("utf-8"))
