"""The maths behind the panel's kick and initial-state controls, pure and window-free.

* ``ω`` as (|ω|, angle off a principal axis, azimuth about it) and back: the "Initial state" drags.
* Which bodies of a comparison started alike: an edit of one's initial state applies to all of them.
* A live kick: the kicks (scene/running/kicks.py) a "Kick now" or a Ctrl+drag adds, on the base scene (saved, replayed
  on a reset) and on the running scene (every side-by-side copy).
* A drag on the 3D view turned into a world-frame angular impulse.

Frames: ``ω`` in the body frame (rad/s), inertia about the centre of mass in the body frame (kg·m²), impulses in
the world frame (N·m·s), angles in radians.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import numpy.typing as npt

from spinlab.scene.files.kick_table import KickSpec
from spinlab.scene.files.scene_file import SceneSpec
from spinlab.scene.model.run_model import Setup, run_layout, stand_ins
from spinlab.sim.quaternion import quat_conj, quat_rotate

__all__ = [
    "AXES",
    "principal_axes",
    "omega_to_polar",
    "omega_from_polar",
    "is_comparison",
    "alike_bodies",
    "live_kicks",
    "drag_impulse",
    "kick_scale",
    "drag_kick",
]

AXES = ("major", "intermediate", "minor")
"""The principal axes an angle is measured from, by moment: largest, middle, smallest."""
_COLUMN = {"minor": 0, "intermediate": 1, "major": 2}  # eigh sorts the moments ascending


def principal_axes(inertia: np.ndarray, axis: str) -> np.ndarray:
    """(3, 3) rows ``(e_a, e_b, e_c)``, a right-handed orthonormal body-frame basis: ``e_a`` the principal ``axis``
    of ``inertia`` (one of :data:`AXES`), ``e_b`` the next principal axis (cyclically by moment), ``e_c = e_a × e_b``.
    Each eigenvector's sign is fixed (its largest component positive), so a diagonal tensor gives coordinate axes."""
    _, vectors = np.linalg.eigh(np.asarray(inertia, dtype=float))
    vectors = vectors.T.copy()
    largest = np.argmax(np.abs(vectors), axis=1)
    vectors *= np.sign(vectors[np.arange(3), largest])[:, None]
    a = _COLUMN[axis]
    e_a, e_b = vectors[a], vectors[(a + 1) % 3]
    return np.array([e_a, e_b, np.cross(e_a, e_b)])


def omega_to_polar(omega_body: np.ndarray, inertia: np.ndarray, axis: str) -> tuple[float, float, float]:
    """``(|ω|, angle, azimuth)``: the magnitude (rad/s), the angle (rad, [0, π]) of ω off the principal ``axis``
    and its azimuth about it (rad, (−π, π], from the next principal axis). ω = 0 gives ``(0, 0, 0)``."""
    along = principal_axes(inertia, axis) @ np.asarray(omega_body, dtype=float)
    magnitude = float(np.linalg.norm(along))
    if magnitude == 0.0:
        return 0.0, 0.0, 0.0
    angle = float(np.arctan2(np.hypot(along[1], along[2]), along[0]))
    return magnitude, angle, float(np.arctan2(along[2], along[1]))


def omega_from_polar(magnitude: float, angle: float, azimuth: float, inertia: np.ndarray, axis: str) -> np.ndarray:
    """The body-frame ω (3,) rad/s of :func:`omega_to_polar`'s ``(|ω|, angle, azimuth)``."""
    along = magnitude * np.array([np.cos(angle), np.sin(angle) * np.cos(azimuth), np.sin(angle) * np.sin(azimuth)])
    return principal_axes(inertia, axis).T @ along


def is_comparison(setup: Setup) -> bool:
    """Whether ``setup`` runs a comparison: side by side, or every body a root and more than one integrator in use
    (the compare preset's per-integrator views, scene/model/run_model.py's ``run_layout``)."""
    if setup.side_by_side:
        return True
    used = {name for name in setup.integrators if name is not None}
    return len(used) > 1 and all(body.parent is None for body in setup.scene.bodies)


def _initial(body, field: str) -> np.ndarray:
    """The body's initial value that ``field`` (ui/edits.py's ``BODY_FIELDS``) edits: ω in the body frame, or the
    orientation."""
    if field == "orientation":
        return np.asarray(body.orientation)
    return quat_rotate(quat_conj(body.orientation), np.asarray(body.omega_parent))


def alike_bodies(setup: Setup, index: int, field: str) -> list[int]:
    """The bodies an edit of body ``index``'s ``field`` applies to: in a comparison (:func:`is_comparison`), every
    dynamic body of the same shape and inertia whose old value of the field equals body ``index``'s (the copies that
    started alike); side by side, the bodies copied once with it (scene/model/run_model.py's ``stand_ins``: they stay
    one body per view); otherwise ``[index]``. Only the initial state (``omega_body``, ``orientation``) is shared."""
    bodies = setup.scene.bodies
    if field not in ("omega_body", "orientation") or not is_comparison(setup):
        return [index]
    if setup.side_by_side:
        stand_in = stand_ins(setup.scene)
        return [i for i, other in enumerate(stand_in) if other == stand_in[index]]
    edited = bodies[index]
    value = _initial(edited, field)
    return [
        i
        for i, body in enumerate(bodies)
        if i == index
        or (
            not body.kinematic
            and body.shape == edited.shape
            and np.array_equal(body.inertia_com, edited.inertia_com)
            and np.array_equal(_initial(body, field), value)
        )
    ]


def live_kicks(setup: Setup, bodies: list[int], impulse: npt.ArrayLike, step_index: int, h: float):
    """A kick of angular ``impulse`` (3,) N·m·s world on ``bodies`` (indices into ``setup.scene``) at the next step
    boundary after step ``step_index`` of a run with step ``h``. Returns ``(scene, run_kicks)``: ``setup.scene``
    with the kicks added (what a reset replays and a save writes) and the kicks on the running scene's bodies
    (each side-by-side copy's), to schedule on the running simulation. Bodies that are kinematic get none."""
    time = (step_index + 1) * h  # kick_step(time, h) is step_index + 1: it lands on the next boundary
    names = [setup.scene.bodies[i].name for i in dict.fromkeys(bodies) if not setup.scene.bodies[i].kinematic]
    angular = np.array(impulse, dtype=float)
    angular.flags.writeable = False
    new = tuple(KickSpec(name, time, angular) for name in names)
    scene: SceneSpec = dataclasses.replace(setup.scene, kicks=setup.scene.kicks + new)
    run_scene, _ = run_layout(dataclasses.replace(setup, scene=dataclasses.replace(setup.scene, kicks=new)))
    return scene, run_scene.kicks


def drag_impulse(
    toward_viewer: np.ndarray, right: np.ndarray, up: np.ndarray, dx_px: float, dy_px: float, height_px: float,
    scale: float,
) -> np.ndarray:  # fmt: skip
    """The world angular impulse (N·m·s) of a mouse drag of ``(dx_px, dy_px)`` (y up) on a view ``height_px`` tall
    whose camera has the unit world vectors ``toward_viewer``, ``right`` and ``up``: about ``toward_viewer × drag``
    (the body's near face is pushed the way the mouse went), of magnitude ``scale`` times the drag's length over the
    view's height (a drag the height of the view strikes ``scale``)."""
    drag = dx_px * np.asarray(right, dtype=float) + dy_px * np.asarray(up, dtype=float)
    axis = np.cross(np.asarray(toward_viewer, dtype=float), drag)
    length = float(np.hypot(dx_px, dy_px))
    norm = float(np.linalg.norm(axis))
    if length == 0.0 or norm == 0.0 or height_px <= 0.0:
        return np.zeros(3)
    return axis / norm * scale * length / height_px


def kick_scale(L_world: np.ndarray, inertia_com: np.ndarray) -> float:
    """N·m·s: what a drag the view's height strikes: the body's |L| now, at least its largest moment × 1 rad/s (a
    body at rest can be struck too)."""
    largest = float(np.max(np.linalg.eigvalsh(np.asarray(inertia_com, dtype=float))))
    return max(float(np.linalg.norm(L_world)), largest)


def drag_kick(cameras, session, choices, dx_px: float, dy_px: float, height_px: float, index: int | None = None):
    """The ``PanelEdits.kick`` of a Ctrl+drag of ``(dx_px, dy_px)`` (y up) on a 3D view ``height_px`` tall: the
    scene's body ``index`` (default: the selected one) struck about the view axis × the drag (:func:`drag_impulse`,
    the first camera's axes; the views' cameras turn together), scaled by :func:`kick_scale`; ``None`` for no drag
    or no camera yet."""
    if not cameras:
        return None
    right, up, toward_viewer = cameras[0].view()[:3, :3]
    index = choices.selected_body if index is None else index
    # A body whose |L| is past a double's range makes a non-finite impulse: quietly here, refused beside the kick's
    # field by the controller (ui/edits.py's parse_impulse), as a typed one is.
    with np.errstate(all="ignore"):
        scale = kick_scale(session.snapshot.L_world[session.row(index)], choices.scene.bodies[index].inertia_com)
        impulse = drag_impulse(toward_viewer, right, up, dx_px, dy_px, height_px, scale)
    return (index, tuple(float(v) for v in impulse)) if impulse.any() else None
