"""The ``[[camera]]`` tables of a scene file: camera keys, each read and checked (one
:class:`~sim.errors.InputError` naming ``camera[i].key`` and the value for the first mistake).

A key says where the cameras are at ``time``; between keys they are eased (scene/model/camera_path.py). A key gives
any of the orbit camera's values (render/camera.py: world z up, the eye at ``target + distance · (cos e cos a,
cos e sin a, sin e)``); a value a key leaves out holds the one before it, and before the first key that gives it
each view's own framing (the default camera).

    key         type                 meaning
    time        s, >= 0              required; after the previous key's time (keys are written in time order)
    azimuth     degrees              round world z from +x towards +y; eased as written, so 170 → 190 turns 20°
                                     and 0 → 720 two whole turns (write 190, not -170, for the short way round)
    elevation   degrees, [-89, 89]   above the xy plane
    distance    m, > 0               from the target to the eye
    target      a body's name, or    what the cameras aim at: a body (followed as it moves; side by side, each
                [x, y, z] m world    view's copy of it) or a fixed point
    fov         degrees, [5, 120]    the vertical field of view

Every view of a comparison takes the same keys (side by side, the compare preset's grid).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from spinlab.scene.files.limits import MAX_BODIES, check_count
from spinlab.scene.files.validation import TableReader, did_you_mean, fail

__all__ = ["CAMERA_KEYS", "CameraKey", "read_camera_keys", "ELEVATION_RANGE", "FOV_RANGE", "AZIMUTH_LIMIT"]

CAMERA_KEYS = ("time", "azimuth", "elevation", "distance", "target", "fov")
ELEVATION_RANGE = (-89.0, 89.0)  # the orbit camera's own limit (render/camera.py): never looking straight down
FOV_RANGE = (5.0, 120.0)  # narrower is a telescope, wider a fish-eye's distortion
AZIMUTH_LIMIT = 3600.0  # ten whole turns either way: an orbit's worth, and no float drift in the angle


@dataclass(frozen=True)
class CameraKey:
    """The cameras at ``time`` s: ``azimuth``, ``elevation`` and ``fov`` in degrees, ``distance`` m, ``target`` a
    body's name or an (x, y, z) point in metres, world; ``None``: the value before holds."""

    time: float
    azimuth: float | None = None
    elevation: float | None = None
    distance: float | None = None
    target: str | tuple[float, float, float] | None = None
    fov: float | None = None


def read_camera_keys(entries: object, where: str, bodies: Sequence) -> tuple[CameraKey, ...]:
    """The ``[[camera]]`` tables of a scene file, in file (and time) order, a target body checked against
    ``bodies`` (BodySpec): one :class:`~sim.errors.InputError` naming ``camera[i].key`` and the value for the
    first mistake."""
    if not isinstance(entries, list):
        fail(where, "camera", "must be an array of tables, written [[camera]]", entries)
    check_count(len(entries), MAX_BODIES, "camera keys", where=where, key="camera")
    names = {body.name for body in bodies}
    keys: list[CameraKey] = []
    for index, entry in enumerate(entries):
        keys.append(_read_key(entry, index, where, names, keys[-1].time if keys else None))
    return tuple(keys)


def _angle(table: TableReader, key: str, low: float, high: float, unit: str) -> float | None:
    if not table.has(key):
        return None
    value = table.number(key, 0.0)
    if not low <= value <= high:
        table.fail(key, f"must lie in [{low:g}, {high:g}] {unit}", table.table[key])
    return value


def _read_key(entry: object, index: int, where: str, names: set[str], previous: float | None) -> CameraKey:
    label = f"camera[{index}]"
    if not isinstance(entry, dict):
        fail(where, label, "must be a table, written [[camera]]", entry)
    key = TableReader(entry, where, label)
    key.check_keys(CAMERA_KEYS)
    if not key.has("time"):
        key.fail("time", "is required (s; the cameras are as this key says at that time)")
    time = key.number("time", 0.0)
    if time < 0.0:
        key.fail("time", "must be at least 0 s", entry["time"])
    if previous is not None and time <= previous:
        key.fail("time", f"must come after camera[{index - 1}].time ({previous:g} s): write the keys in time order",
                 entry["time"])  # fmt: skip
    azimuth = _angle(key, "azimuth", -AZIMUTH_LIMIT, AZIMUTH_LIMIT, "degrees")
    elevation = _angle(key, "elevation", *ELEVATION_RANGE, "degrees")
    fov = _angle(key, "fov", *FOV_RANGE, "degrees")
    distance = key.number("distance", 1.0, positive=True) if key.has("distance") else None
    return CameraKey(time, azimuth, elevation, distance, _target(key, names), fov)


def _target(key: TableReader, names: set[str]) -> str | tuple[float, float, float] | None:
    """A body's name (one of ``names``) or a point [x, y, z] m, world."""
    value = key.table.get("target")
    if value is None:
        return None
    if isinstance(value, str):
        if value not in names:
            shown = ", ".join(sorted(names)[:10]) + (", …" if len(names) > 10 else "")
            key.fail("target", f"unknown body (bodies: {shown}){did_you_mean(value, names)}", value)
        return value
    if not isinstance(value, list):
        key.fail("target", "must be a body's name or a point [x, y, z] (m, world)", value)
    x, y, z = key.vector("target", 3, None)  # type: ignore[misc]  # the key is there
    return (float(x), float(y), float(z))
