"""What a person types into the panel, parsed and checked: numbers, the time step, a body's initial state.

Every function raises :class:`EditError` (a ``ValueError`` and an :class:`~sim.errors.InputError`) with a message
meant for the panel (shown in red beside the field); a value that fails is never applied. Numbers have the range a
scene file's have (scene/files/limits.py). Edits of a body return a new :class:`BodySpec` (scene specs are immutable);
the controller then puts the edited body through the scene files' own checks
(:func:`scene.files.scene_toml.check_body`), so a value the panel accepts is one a scene file could hold.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from spinlab.scene.files.limits import MAX_MAGNITUDE, MIN_POSITIVE
from spinlab.scene.files.scene_file import QUAT_MIN_NORM, BodySpec
from spinlab.sim.errors import InputError, quoted
from spinlab.sim.inertia import check_inertia, parallel_axis
from spinlab.sim.quaternion import quat_conj, quat_rotate

__all__ = [
    "EditError",
    "parse_vector",
    "parse_impulse",
    "parse_time_step",
    "body_texts",
    "edited_body",
    "BODY_FIELDS",
    "MAX_STEP_S",
]

MAX_STEP_S = 1.0
# The fields of a body the panel edits: label, number of values, what they are.
BODY_FIELDS = {
    "omega_body": ("ω, body frame (rad/s)", 3),
    "moments": ("inertia diagonal (kg·m²)", 3),
    "orientation": ("orientation (w, x, y, z)", 4),
}
_SEPARATORS = re.compile(r"[,\s;]+")


class EditError(InputError, ValueError):
    """A value typed into the panel that cannot be used; the message says why, for the field it was typed in."""


def _number(text: str) -> float:
    """A float, or a fraction such as ``1/120``."""
    shown = quoted(text)
    try:
        value = float(Fraction(text)) if "/" in text else float(text)
    except (ValueError, ZeroDivisionError):
        raise EditError(f"{shown} is not a number") from None
    except OverflowError:  # a fraction beyond a double
        raise EditError(f"{shown} is too large") from None
    if not math.isfinite(value):
        raise EditError(f"{shown} is not a finite number")
    return value


def parse_vector(text: str, count: int, *, any_magnitude: bool = False) -> np.ndarray:
    """``count`` numbers separated by commas or spaces (brackets allowed) → (count,) float64, each 0 or of a
    magnitude a scene file accepts (``MIN_POSITIVE`` to ``MAX_MAGNITUDE``) unless ``any_magnitude``."""
    stripped = text.strip().strip("[]()").strip()
    parts = [part for part in _SEPARATORS.split(stripped) if part]
    if len(parts) != count:
        raise EditError(f"give {count} numbers separated by commas (got {len(parts)})")
    values = np.array([_number(part) for part in parts])
    return values if any_magnitude else _in_range(values)


def _in_range(values: np.ndarray) -> np.ndarray:
    """``values``, each 0 or of a magnitude a scene file accepts; else :class:`EditError`."""
    magnitudes = np.abs(values)
    if np.any(magnitudes > MAX_MAGNITUDE):
        raise EditError(f"numbers here are at most {MAX_MAGNITUDE:g} in magnitude")
    if np.any((magnitudes > 0.0) & (magnitudes < MIN_POSITIVE)):
        raise EditError(f"a number here is 0 or at least {MIN_POSITIVE:g} in magnitude")
    return values


def parse_impulse(value: str | Sequence[float]) -> tuple[float, float, float]:
    """A kick's angular impulse (N·m·s, world frame), typed (three numbers, as :func:`parse_vector` reads them) or
    given as numbers (a Ctrl+drag's): each finite and 0 or of a magnitude a scene file's ``[[kick]]`` accepts.
    Whichever way it came, a value that fails is refused here, beside the kick's field, before any arithmetic
    (where a NaN or an overflow would reach numpy's warnings and the run)."""
    if isinstance(value, str):
        values = parse_vector(value, 3)
    else:
        values = np.array(value, dtype=float).ravel()
        if values.shape != (3,):
            raise EditError(f"give 3 numbers separated by commas (got {values.size})")
        if not np.all(np.isfinite(values)):
            raise EditError(f"the impulse ({', '.join(f'{v:g}' for v in values)}) is not finite")
        _in_range(values)
    x, y, z = (float(v) for v in values)
    return x, y, z


def parse_time_step(text: str) -> float:
    """A time step in seconds: a number or a fraction (``1/120``), from ``MIN_POSITIVE`` (a scene file's smallest
    positive number) to ``MAX_STEP_S``."""
    value = _number(text.strip())
    if not MIN_POSITIVE <= value <= MAX_STEP_S:
        raise EditError(f"h must be from {MIN_POSITIVE:g} to {MAX_STEP_S:g} s")
    return value


def _show(values: np.ndarray) -> str:
    return ", ".join(f"{float(v):.10g}" for v in values)


def body_texts(body: BodySpec) -> dict[str, str]:
    """The panel's text for each of :data:`BODY_FIELDS` of ``body``."""
    omega_body = quat_rotate(quat_conj(body.orientation), body.omega_parent)
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
    values = parse_vector(text, count, any_magnitude=field == "orientation")
    omega_body = quat_rotate(quat_conj(body.orientation), body.omega_parent)
    if field == "omega_body":
        return dataclasses.replace(body, omega_parent=_frozen(quat_rotate(body.orientation, values)))
    if field == "moments":
        inertia = np.array(body.inertia_com, dtype=float)
        inertia[np.diag_indices(3)] = values
        reason = check_inertia(inertia)
        if reason is not None:
            raise EditError(f"the inertia {reason}")
        about = inertia if body.pivot is None else parallel_axis(inertia, body.mass, body.pivot)
        return dataclasses.replace(body, inertia_com=_frozen(inertia), inertia_body=_frozen(about))
    # Scaled by its largest entry before the norm, as a scene file's is: no square overflows or underflows.
    largest = float(np.max(np.abs(values)))
    if largest * 2.0 < QUAT_MIN_NORM:
        raise EditError("the quaternion is (nearly) zero; give a unit quaternion (w, x, y, z)")
    scaled = values / largest
    orientation = scaled / np.linalg.norm(scaled)
    return dataclasses.replace(
        body, orientation=_frozen(orientation), omega_parent=_frozen(quat_rotate(orientation, omega_body))
    )


def _frozen(array: np.ndarray) -> np.ndarray:
    array = np.array(array, dtype=float)
    array.flags.writeable = False
    return array
