"""What a person types into the panel, parsed and checked: numbers, the time step, a body's initial state.

Every function raises ``ValueError`` with a message meant for the panel (shown in red beside the field); a value
that fails is never applied. Edits of a body return a new :class:`BodySpec` (scene specs are immutable).
"""

from __future__ import annotations

import dataclasses
import math
import re
from fractions import Fraction

import numpy as np

from scene.scene_file import QUAT_MIN_NORM, BodySpec
from sim.inertia import check_inertia, parallel_axis
from sim.quaternion import quat_conj, quat_rotate

__all__ = ["parse_vector", "parse_time_step", "body_texts", "edited_body", "BODY_FIELDS", "MAX_STEP_S"]

MAX_STEP_S = 1.0
# The fields of a body the panel edits: label, number of values, what they are.
BODY_FIELDS = {
    "omega_body": ("ω, body frame (rad/s)", 3),
    "moments": ("inertia diagonal (kg·m²)", 3),
    "orientation": ("orientation (w, x, y, z)", 4),
}
_SEPARATORS = re.compile(r"[,\s;]+")


def _number(text: str) -> float:
    """A float, or a fraction such as ``1/120``."""
    try:
        value = float(Fraction(text)) if "/" in text else float(text)
    except (ValueError, ZeroDivisionError):
        raise ValueError(f"'{text}' is not a number") from None
    if not math.isfinite(value):
        raise ValueError(f"'{text}' is not a finite number")
    return value


def parse_vector(text: str, count: int) -> np.ndarray:
    """``count`` numbers separated by commas or spaces (brackets allowed) → (count,) float64."""
    stripped = text.strip().strip("[]()").strip()
    parts = [part for part in _SEPARATORS.split(stripped) if part]
    if len(parts) != count:
        raise ValueError(f"give {count} numbers separated by commas (got {len(parts)})")
    return np.array([_number(part) for part in parts])


def parse_time_step(text: str) -> float:
    """A time step in seconds: a number or a fraction (``1/120``), > 0 and at most ``MAX_STEP_S``."""
    value = _number(text.strip())
    if not 0.0 < value <= MAX_STEP_S:
        raise ValueError(f"h must be > 0 and at most {MAX_STEP_S:g} s")
    return value


def _show(values: np.ndarray) -> str:
    return ", ".join(f"{float(v):.10g}" for v in values)


def body_texts(body: BodySpec) -> dict[str, str]:
    """The panel's text for each of :data:`BODY_FIELDS` of ``body``."""
    omega_body = quat_rotate(quat_conj(body.orientation), body.omega_world)
    return {
        "omega_body": _show(omega_body),
        "moments": _show(np.diag(body.inertia_com)),
        "orientation": _show(body.orientation),
    }


def edited_body(body: BodySpec, field: str, text: str) -> BodySpec:
    """``body`` with ``field`` (a key of :data:`BODY_FIELDS`) set from ``text``.

    ``omega_body``: the initial angular velocity in the body frame (stored in the parent's frame, as the scene
    holds it). ``moments``: the diagonal of the inertia tensor about the centre of mass (off-diagonal terms kept),
    checked like a scene file's (symmetric, positive definite, triangle inequality). ``orientation``: a quaternion
    (w, x, y, z), normalised; the body-frame angular velocity is kept, so the body spins about the same body axis.
    """
    _, count = BODY_FIELDS[field]
    values = parse_vector(text, count)
    omega_body = quat_rotate(quat_conj(body.orientation), body.omega_world)
    if field == "omega_body":
        with np.errstate(over="ignore", invalid="ignore"):
            energy = 0.5 * values @ body.inertia_body @ values
        if not np.isfinite(energy):
            raise ValueError("too fast: the kinetic energy overflows a double")
        return dataclasses.replace(body, omega_world=_frozen(quat_rotate(body.orientation, values)))
    if field == "moments":
        inertia = np.array(body.inertia_com, dtype=float)
        inertia[np.diag_indices(3)] = values
        reason = check_inertia(inertia)
        if reason is not None:
            raise ValueError(f"the inertia {reason}")
        about = inertia if body.pivot is None else parallel_axis(inertia, body.mass, body.pivot)
        return dataclasses.replace(body, inertia_com=_frozen(inertia), inertia_body=_frozen(about))
    norm = float(np.linalg.norm(values))
    if norm < QUAT_MIN_NORM:
        raise ValueError("the quaternion is (nearly) zero; give a unit quaternion (w, x, y, z)")
    orientation = values / norm
    return dataclasses.replace(
        body, orientation=_frozen(orientation), omega_world=_frozen(quat_rotate(orientation, omega_body))
    )


def _frozen(array: np.ndarray) -> np.ndarray:
    array = np.array(array, dtype=float)
    array.flags.writeable = False
    return array
