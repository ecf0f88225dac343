"""Mass properties of the scene shapes, and the checks a body-frame inertia tensor must pass.

Every shape is a uniform solid. A shape function returns :class:`MassProperties`: the inertia tensor
``(3, 3)`` float64 in kg·m², body frame, about the centre of mass (COM), and the COM's offset ``(3,)`` in
metres in the shape's modelling frame (the frame its mesh is drawn in). Body axes are parallel to the modelling
axes; the body origin is the COM, so a renderer draws the mesh translated by ``−com_offset``.

Sizes are full lengths in metres; the defaults give about 1 m overall (design.md §Scene files).

Closed forms (uniform solids, about the COM):

    box (a, b, c):              I = m/12 · diag(b² + c², a² + c², a² + b²)
    sphere (r):                 I = 2/5 m r² · 1
    cylinder (r, l) along z:    I = diag(m (3r² + l²)/12, m (3r² + l²)/12, m r²/2)

The parallel-axis theorem moves a tensor from the COM to a point displaced by ``d``:
``I_d = I_com + m (|d|² 1 − d dᵀ)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from spinlab.sim.vector import Mat3, Vec3

__all__ = [
    "MassProperties",
    "box",
    "sphere",
    "cylinder",
    "t_handle",
    "SHAPES",
    "SIZE_DEFAULTS",
    "parallel_axis",
    "principal_moments",
    "check_inertia",
]


# Relative tolerances of check_inertia, against the largest principal moment.
SYMMETRY_RTOL = 1e-12
# Thin rods and flat discs meet the triangle inequality with equality; rounding must not reject them.
TRIANGLE_RTOL = 1e-9
# A smaller moment than this (relative) makes I⁻¹ meaningless in float64.
DEFINITE_RTOL = 1e-12

BOX_SIZE_M = (1.0, 1.0, 1.0)
SPHERE_RADIUS_M = 0.5
CYLINDER_RADIUS_M = 0.25
CYLINDER_LENGTH_M = 1.0
# These give principal moments in the ratio 1.30 : 1.40 : 2.50 about body x, y, z: seed 003's body
# (2.5, 1.4, 1.3) with x and z swapped, the intermediate axis along the bar (body y). Overall 0.87 m × 1 m.
T_HANDLE_RADIUS_M = 0.134
T_HANDLE_LENGTH_M = 0.6
T_HANDLE_BAR_LENGTH_M = 1.0


class MassProperties(NamedTuple):
    """``inertia``: (3, 3) kg·m², body frame, about the COM. ``com_offset``: (3,) m, modelling frame."""

    inertia: Mat3
    com_offset: Vec3


def _cylinder_about_com(mass: float, radius: float, length: float, axis: int) -> Mat3:
    """A solid cylinder's tensor about its own centre, its axis along body ``axis`` (0, 1 or 2)."""
    moments = np.full(3, mass * (3.0 * radius**2 + length**2) / 12.0)
    moments[axis] = 0.5 * mass * radius**2
    return np.diag(moments)


def box(mass: float = 1.0, size: Sequence[float] = BOX_SIZE_M) -> MassProperties:
    """A solid box of full extents ``size = (x, y, z)`` m, centred on the modelling origin."""
    x2, y2, z2 = np.asarray(size, dtype=float) ** 2
    inertia = mass / 12.0 * np.diag([y2 + z2, x2 + z2, x2 + y2])
    return MassProperties(inertia, np.zeros(3))


def sphere(mass: float = 1.0, radius: float = SPHERE_RADIUS_M) -> MassProperties:
    """A solid sphere of ``radius`` m, centred on the modelling origin."""
    return MassProperties(0.4 * mass * radius**2 * np.eye(3), np.zeros(3))


def cylinder(mass: float = 1.0, radius: float = CYLINDER_RADIUS_M, length: float = CYLINDER_LENGTH_M) -> MassProperties:
    """A solid cylinder, axis along body z, of ``radius`` and ``length`` m, centred on the modelling origin."""
    return MassProperties(_cylinder_about_com(mass, radius, length, axis=2), np.zeros(3))


def t_handle(
    mass: float = 1.0,
    radius: float = T_HANDLE_RADIUS_M,
    length: float = T_HANDLE_LENGTH_M,
    bar_length: float = T_HANDLE_BAR_LENGTH_M,
) -> MassProperties:
    """A T: two solid cylinders of the same ``radius``, the handle along x and the cross bar along y.

    Modelling frame: the handle fills ``0 ≤ x ≤ length`` around the x axis; the bar's axis is the line
    ``x = length + radius, z = 0``, ``|y| ≤ bar_length / 2``, so the bar touches the handle's end face along a
    line and the two solids do not overlap. Their masses split by volume (equal radii: by length). Both lie on
    the x axis and the T is symmetric under y → −y and z → −z, so the tensor about the COM is diagonal and the
    COM is ``(x_c, 0, 0)`` with ``x_c = (m_h length/2 + m_b (length + radius)) / m``.
    """
    handle_mass = mass * length / (length + bar_length)
    bar_mass = mass - handle_mass
    handle_x = 0.5 * length
    bar_x = length + radius
    com_x = (handle_mass * handle_x + bar_mass * bar_x) / mass
    inertia = parallel_axis(
        _cylinder_about_com(handle_mass, radius, length, axis=0), handle_mass, np.array([handle_x - com_x, 0, 0])
    ) + parallel_axis(
        _cylinder_about_com(bar_mass, radius, bar_length, axis=1), bar_mass, np.array([bar_x - com_x, 0, 0])
    )
    return MassProperties(inertia, np.array([com_x, 0.0, 0.0]))


SHAPES: dict[str, Callable[..., MassProperties]] = {
    "box": box,
    "sphere": sphere,
    "cylinder": cylinder,
    "t_handle": t_handle,
}
# Each shape's size keys and defaults, in metres: a tuple is a 3-vector, a float a length.
SIZE_DEFAULTS: dict[str, dict[str, float | tuple[float, float, float]]] = {
    "box": {"size": BOX_SIZE_M},
    "sphere": {"radius": SPHERE_RADIUS_M},
    "cylinder": {"radius": CYLINDER_RADIUS_M, "length": CYLINDER_LENGTH_M},
    "t_handle": {"radius": T_HANDLE_RADIUS_M, "length": T_HANDLE_LENGTH_M, "bar_length": T_HANDLE_BAR_LENGTH_M},
}


def parallel_axis(inertia_com: Mat3, mass: float, offset: Vec3) -> Mat3:
    """The tensor about the point ``offset`` (3,) m from the COM: ``I_com + m (|d|² 1 − d dᵀ)``.

    ``inertia_com``: (3, 3) kg·m² about the COM; the result is in the same frame as ``offset``.
    """
    d = np.asarray(offset, dtype=float)
    return inertia_com + mass * (np.dot(d, d) * np.eye(3) - np.outer(d, d))


def principal_moments(inertia: Mat3) -> tuple[Vec3, Mat3]:
    """Principal moments, ascending, and the rotation whose columns are the principal axes.

    Returns ``(moments (3,), R (3, 3))`` with ``inertia = R diag(moments) Rᵀ`` and ``det R = +1`` (a proper
    rotation, principal frame → body frame). The symmetric part of ``inertia`` is used. A stack of tensors
    (..., 3, 3) gives stacks of both, each as it would alone.
    """
    inertia = np.asarray(inertia, dtype=float)
    moments, axes = np.linalg.eigh(0.5 * (inertia + np.swapaxes(inertia, -1, -2)))
    improper = np.linalg.det(axes) < 0.0
    axes[..., 2] = np.where(improper[..., None], -axes[..., 2], axes[..., 2])
    return moments, axes


def check_inertia(inertia: Mat3) -> str | None:
    """Why ``inertia`` (3, 3) cannot be a rigid body's tensor, or ``None`` when it can.

    A rigid body's tensor is finite, symmetric, positive definite, and its principal moments satisfy the
    triangle inequality ``I₁ ≤ I₂ + I₃`` (``I₂ + I₃ − I₁ = 2 ∫ x₁² dm ≥ 0``), each up to a small tolerance
    relative to the largest moment, so that thin rods and flat discs (equality) pass.
    """
    inertia = np.asarray(inertia, dtype=float)
    if inertia.shape != (3, 3):
        return f"must be 3 principal moments or a 3×3 tensor, not shape {inertia.shape}"
    if not np.all(np.isfinite(inertia)):
        return "has a non-finite entry"
    with np.errstate(over="ignore", invalid="ignore"):  # entries near 1e308 overflow a sum of two: refused
        return _check_finite_inertia(inertia)


def _check_finite_inertia(inertia: Mat3) -> str | None:
    scale = np.max(np.abs(inertia))
    if scale == 0.0:
        return "is zero; a body needs positive principal moments"
    asymmetry = np.max(np.abs(inertia - inertia.T))
    if asymmetry > SYMMETRY_RTOL * scale:
        return f"is not symmetric (largest |I - Iᵀ| entry is {asymmetry:.3g})"
    # Diagonalised divided by a power of two near its size (exact), so that no square of an entry overflows.
    exponent = int(np.frexp(scale)[1])
    moments = np.ldexp(principal_moments(np.ldexp(inertia, -exponent))[0], exponent)
    largest = moments[2]
    if moments[0] <= 0.0:
        return f"is not positive definite (principal moments {_show(moments)})"
    if moments[0] <= DEFINITE_RTOL * largest:
        return (
            f"is too ill-conditioned to invert (principal moments {_show(moments)}: the smallest must be more than "
            f"{DEFINITE_RTOL:g} of the largest)"
        )
    slack = moments[0] + moments[1] - moments[2]
    if slack < -TRIANGLE_RTOL * largest:
        return (
            f"breaks the triangle inequality: principal moments {_show(moments)}, "
            f"the largest exceeds the sum of the other two"
        )
    return None


def _show(values: np.ndarray) -> str:
    return "(" + ", ".join(f"{float(v):.6g}" for v in values) + ")"
