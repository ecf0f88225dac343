"""What a run is measured by, each defined once: ``run``'s table, the window's plots and labels, the video's
labels and the benchmarks all use these.

- :func:`energy_error`: ``(E − E₀) / (|T₀| + |V₀|)``, signed, with ``E = T + V``: ``T`` the rotational kinetic
  energy ½ ω·L (J) and ``V = −m g·x`` (J) only for a body turning about a pivot under gravity
  (:func:`potential_counts`), whose total is the conserved one. Why this denominator: for a torque-free body it is
  E₀ itself (the usual relative error), and for a heavy top it does not depend on where the potential's zero is
  (``|E₀|`` alone can be ~0 when T₀ and V₀ cancel, and blow a tiny drift up to a huge figure). The sign is kept
  (energy gained or lost); tables, plots and labels show its magnitude.
- :func:`momentum_error`: ``|L − L₀| / |L₀|`` of world angular momentum, for :func:`torque_free` bodies only (under
  a torque L is not conserved).
- :func:`orientation_error`: the angle (rad, in [0, π]) of the rotation from the reference orientation to the
  body's: the closed-form motion of :func:`reference_solution`.
- :func:`torque_free`: a dynamic body that feels no torque (the negation of the scene's ``under_torque``).
- :func:`reference_solution`: the closed form a body is measured against: the torque-free motion
  (sim/exact.py), the heavy symmetric top's about a fixed pivot (sim/lagrange_top.py), or none, with a note when
  the torque-free closed form overflows for the body's state.

No OpenGL, no render/ or ui/: pure numpy on arrays whose last axes are bodies (K) and vectors.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from spinlab.scene.files.body_table import BodySpec, body_column
from spinlab.scene.files.scene_file import SceneSpec
from spinlab.sim.alike_rows import all_alike
from spinlab.sim.cores import on_cores
from spinlab.sim.exact import TorqueFreeSolution
from spinlab.sim.exact_batch import TorqueFreeBatch
from spinlab.sim.quaternion import quat_conj, quat_mul

if TYPE_CHECKING:  # the heavy top's closed form is imported where a heavy top is measured (~2 ms of any run else)
    from spinlab.sim.lagrange_top import LagrangeTopSolution

__all__ = [
    "NO_CLOSED_FORM_NOTE",
    "energy_error",
    "energy_scale",
    "potential_counts",
    "momentum_error",
    "orientation_error",
    "torque_free",
    "reference_solution",
    "ClosedForms",
    "reference_solutions",
]

NO_CLOSED_FORM_NOTE = "no exact reference: the closed form overflows for this state"


def torque_free(scene: SceneSpec, body: BodySpec) -> bool:
    """Whether ``body`` is dynamic and feels no torque (gravity exerts none about a free body's centre of mass; a
    body turning about a pivot under gravity does): the one definition the measures, the plots, ``run`` and
    ``record`` use."""
    return not body.kinematic and not scene.under_torque(body)


def potential_counts(scene: SceneSpec) -> np.ndarray:
    """(N,) bool, file order: the bodies whose potential energy ``−m g·x`` is part of the conserved energy (those
    turning about a pivot; a free body's centre of mass does not move, nor does its potential energy)."""
    pivoted = np.array([pivot is not None for pivot in body_column(scene.bodies, "pivot")], dtype=bool)
    return pivoted.reshape(-1) & ~body_column(scene.bodies, "kinematic")


def energy_scale(kinetic0: npt.ArrayLike, potential0: npt.ArrayLike) -> np.ndarray:
    """``|T₀| + |V₀|`` (J), the denominator of :func:`energy_error`; 0 for a body at rest at the potential's zero
    (which has no relative error)."""
    return np.abs(kinetic0) + np.abs(potential0)


def energy_error(energy: np.ndarray, energy0: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """``(E − E₀) / (|T₀| + |V₀|)``, signed, elementwise (``energy`` (..., K), ``energy0`` and ``scale`` (K,),
    from :func:`energy_scale`); NaN where the scale is 0. Computed without overflow warnings: a state that
    overflowed gives ±inf or NaN, which the caller reports."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        return np.where(scale > 0.0, (np.asarray(energy) - energy0) / np.where(scale > 0.0, scale, 1.0), np.nan)


def momentum_error(L_world: np.ndarray, L0_world: np.ndarray) -> np.ndarray:
    """``|L − L₀| / |L₀|`` (world frame) of ``L_world`` (..., K, 3) against ``L0_world`` (K, 3); NaN where L₀ = 0
    (a body at rest has no relative error). Each row is scaled by L₀'s largest component first, so that huge
    momenta do not overflow in the squares."""
    L_world, L0_world = np.asarray(L_world, dtype=float), np.asarray(L0_world, dtype=float)
    scale = np.max(np.abs(L0_world), axis=-1, keepdims=True)
    safe = np.where(scale > 0.0, scale, 1.0)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        change = np.linalg.norm((L_world - L0_world) / safe, axis=-1) / np.linalg.norm(L0_world / safe, axis=-1)
    return np.where(scale[..., 0] > 0.0, change, np.nan)


def orientation_error(q: np.ndarray, q_reference: np.ndarray) -> np.ndarray:
    """Angle (rad) of the rotation between two (..., 4) orientations (body → world), in [0, π]."""
    difference = quat_mul(quat_conj(q_reference), q)
    return 2.0 * np.arctan2(np.linalg.norm(difference[..., 1:], axis=-1), np.abs(difference[..., 0]))


def reference_solution(
    scene: SceneSpec, index: int, q0: np.ndarray, omega_world0: np.ndarray
) -> tuple[TorqueFreeSolution | LagrangeTopSolution | None, str | None]:
    """The closed-form motion body ``index`` of ``scene`` is measured against, from its initial orientation ``q0``
    and world angular velocity ``omega_world0`` (rad/s), and a note when there is none for a reason worth telling.

    A :func:`torque_free` body moving: its exact solution (sim/exact.py), or ``None`` with
    :data:`NO_CLOSED_FORM_NOTE` when the closed form's case analysis overflows for this state. A root body under a
    torque: the heavy symmetric top's (sim/lagrange_top.py; ``None`` when it is not one). Otherwise (kinematic, at
    rest, a pinned child under a torque) ``None``. A body integrated with the gyroscopic term off is still
    compared with the true motion: that is the point.
    """
    body = scene.bodies[index]
    if body.kinematic:
        return None, None
    if scene.under_torque(body):
        if body.parent is not None:  # a pinned child follows its parent: no fixed pivot
            return None, None
        # body.pivot is the pivot from the centre of mass (body frame); inertia_body is already about the pivot.
        assert body.pivot is not None, "a body under a torque turns about a pivot (SceneSpec.under_torque)"
        from spinlab.sim.lagrange_top import lagrange_top_from_body

        with np.errstate(all="ignore"):
            top = lagrange_top_from_body(body.inertia_body, body.mass, -body.pivot, scene.gravity, q0, omega_world0)
        return top, None
    if np.allclose(omega_world0, 0.0):
        return None, None
    try:
        with np.errstate(all="raise"):
            solution = TorqueFreeSolution.from_state(body.inertia_body, q0, omega_world0)
            if not np.all(np.isfinite(solution.orientation(np.zeros(1)))):
                raise FloatingPointError("non-finite orientation")
    except (ArithmeticError, ValueError):
        return None, NO_CLOSED_FORM_NOTE
    return solution, None


# A torque-free body whose inertia and ω lie in this range (or are zero) is solved in the batch; the others, one by
# one under reference_solution's floating-point checks, which decide whether the closed form overflows.
_BATCH_RANGE = (1e-40, 1e40)


# More torque-free bodies than this are solved, and their references evaluated, in parts of about this many on
# every core (sim/cores.py): their time is numpy's on arrays of the bodies, which lets go of the GIL; each body's
# arithmetic is its own, so a part's bodies get the bits they get together.
PART_BODIES = 32768


@dataclass(frozen=True, eq=False)
class ClosedForms:
    """The references of K bodies (:func:`reference_solution`'s, solved together): ``parts`` the torque-free ones
    solved as arrays, each a batch, its bodies (indices into the K) and the batch's row of each (one row for bodies
    that all start alike, as compare's do: a closed form of one row costs half of one of eight), ``singles``
    ``(row, solution)`` the others (heavy tops, bodies outside the batches' range), ``has_reference`` (K,) and
    ``notes`` per body."""

    count: int
    parts: tuple[tuple[TorqueFreeBatch, np.ndarray, np.ndarray], ...]
    singles: tuple[tuple[int, TorqueFreeSolution | LagrangeTopSolution], ...]
    has_reference: np.ndarray
    notes: tuple[str | None, ...]

    def orientation_and_omega_body(self, t) -> tuple[np.ndarray, np.ndarray]:
        """Orientation (..., K, 4) and body ω (..., K, 3) of the references at times ``t`` (scalar or (S,)); NaN
        for a body without a reference, and ω NaN for a heavy top (its orientation only)."""
        t = np.asarray(t, dtype=float)
        q, omega = np.full(t.shape + (self.count, 4), np.nan), np.full(t.shape + (self.count, 3), np.nan)
        evaluated = on_cores(TorqueFreeBatch.orientation_and_omega_body, [(batch, t) for batch, _, _ in self.parts])
        for (_, rows, which), (q_part, omega_part) in zip(self.parts, evaluated, strict=True):
            q[..., rows, :], omega[..., rows, :] = q_part[..., which, :], omega_part[..., which, :]
        if self.singles:
            from spinlab.sim.lagrange_top import LagrangeTopSolution
        for row, solution in self.singles:
            if isinstance(solution, LagrangeTopSolution):
                q[..., row, :] = solution.orientation(t)
            else:
                q[..., row, :], omega[..., row, :] = solution.orientation_and_omega_body(t)
        return q, omega


def reference_solutions(
    scene: SceneSpec, rows: np.ndarray, q0: np.ndarray, omega_world0: np.ndarray, free: np.ndarray, inertia: np.ndarray
) -> ClosedForms:
    """:func:`reference_solution` of the bodies ``rows`` (K,) of ``scene`` from their initial ``q0`` (K, 4) and
    ``omega_world0`` (K, 3), the torque-free ones solved together (sim/exact_batch.py: the same closed form, to
    rounding). ``free`` (K,) is :func:`torque_free` of each and ``inertia`` (K, 3, 3) their ``inertia_body``, as the
    caller has them already (10^5 bodies: ~0.1 s to gather again)."""
    rows = np.asarray(rows, dtype=np.intp)
    count = rows.size
    inertia = np.reshape(inertia, (count, 3, 3))
    q0, omega_world0 = np.asarray(q0, dtype=float), np.asarray(omega_world0, dtype=float)
    moving = ~np.all(np.abs(omega_world0) <= 1e-8, axis=-1)  # np.allclose(ω, 0) of reference_solution
    inputs = np.abs(np.concatenate([inertia.reshape(count, 9), omega_world0], axis=-1))
    in_range = np.all((inputs == 0.0) | ((inputs >= _BATCH_RANGE[0]) & (inputs <= _BATCH_RANGE[1])), axis=-1)
    batched = np.flatnonzero(free & moving & in_range)
    chunks = np.array_split(batched, max(1, -(-len(batched) // PART_BODIES)))
    parts = tuple(on_cores(_solved_part, [(inertia, q0, omega_world0, chunk) for chunk in chunks]))
    has_reference = np.zeros(count, dtype=bool)
    for _, solved, _ in parts:
        has_reference[solved] = True
    notes: list[str | None] = [None] * count
    singles = []
    for k in np.flatnonzero(~has_reference & ~(free & ~moving)):
        if scene.bodies[rows[k]].kinematic:
            continue
        solution, notes[k] = reference_solution(scene, int(rows[k]), q0[k], omega_world0[k])
        if solution is not None:
            singles.append((int(k), solution))
            has_reference[k] = True
    return ClosedForms(count, parts, tuple(singles), has_reference, tuple(notes))


def _solved_part(
    inertia: np.ndarray, q0: np.ndarray, omega_world0: np.ndarray, rows: np.ndarray
) -> tuple[TorqueFreeBatch, np.ndarray, np.ndarray]:
    """The torque-free bodies ``rows`` solved together, those of them it holds (not a body whose closed form
    overflows at t = 0: the single path says so) and the batch's row of each: the first body's alone when all start
    alike (sim/alike_rows.py)."""

    def starts(of: np.ndarray) -> np.ndarray:
        return np.concatenate([inertia[of].reshape(len(of), 9), q0[of], omega_world0[of]], axis=-1)

    alike = all_alike(starts(rows[:2])) and all_alike(starts(rows))  # spread states: two rows looked at
    solved = rows[:1] if alike else rows
    batch = TorqueFreeBatch.from_states(inertia[solved], q0[solved], omega_world0[solved])
    finite = np.all(np.isfinite(batch.start_orientation()), axis=-1)
    if not finite.all():
        solved = solved[finite]
        rows = rows[:0] if alike else solved  # alike: the one row overflows, and so does every body's
        batch = TorqueFreeBatch.from_states(inertia[solved], q0[solved], omega_world0[solved])
    which = np.zeros(len(rows), dtype=np.intp) if alike else np.arange(len(rows))
    return batch, rows, which
