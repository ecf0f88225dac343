"""The closed forms of many torque-free bodies solved from their start states, as :class:`TorqueFreeRows`: bit for bit
the rows of one :meth:`sim.exact.TorqueFreeSolution.from_body_state` per body, for the exact stepper's fresh starts
(sim/integrators/exact.py).

The case analysis stays per body (:func:`sim.euler_poinsot.principal_frame`, :meth:`EulerPoinsot.solve` and the
principal axes' quaternion: their 3-vector products go through BLAS, whose order a batch would not
keep); what a solution computes on its first evaluation is taken for all the bodies at once, in the same operations
(sim/torque_free_rows.py): the quarter period ``K = R_F(0, m₁, 1)``, the characteristic ``n``, the complete ``G``
(or ``Π``), ``G(u₀)``, the precession's coefficient, the Euler angles at ``t = 0`` and from them the chain
``q_world_invariable ⊗ e_k ⊗ q_body_euler*``. tests/sim/test_torque_free_rows.py compares every constant with
:func:`~sim.torque_free_rows.constants_of` of each body's own solution.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from spinlab.sim.carlson import complete_k_from_complement
from spinlab.sim.euler_poinsot import TRANSFORMED_CHARACTERISTIC, EulerPoinsot, principal_frame
from spinlab.sim.exact import quat_from_zxz_euler
from spinlab.sim.jacobi_elliptic import carlson_rj_near_saddle, legendre_pi_by_conjugate
from spinlab.sim.quaternion import quat_conj, quat_from_matrix, quat_mul
from spinlab.sim.torque_free_rows import (
    CONSTANT,
    CONSTANT_FIELDS,
    PERIODIC,
    SEPARATRIX,
    TorqueFreeRows,
    euler_angles,
    motion_constants,
    precession_g,
)

__all__ = ["solve_rows"]


def _start(inertia_body: np.ndarray, q0: np.ndarray, omega_body0: np.ndarray) -> tuple:
    """One body's case analysis, as TorqueFreeSolution.from_body_state makes it: its solved motion, and the
    quaternion of its Euler frame (the principal axes relabelled). Raises what EulerPoinsot.solve raises."""
    inertia_body = np.array(inertia_body, dtype=float)
    moments, axes_body = principal_frame(inertia_body)
    motion = EulerPoinsot.solve(moments, axes_body.T @ np.array(omega_body0, dtype=float))
    if motion.kind == "constant":  # no Euler frame: Ω is fixed in the body
        return motion, np.full(4, np.nan)
    return motion, quat_from_matrix(axes_body[:, list(motion.euler_axes)])


def solve_rows(
    inertia_body: np.ndarray, q0: np.ndarray, omega_body0: np.ndarray
) -> tuple[np.ndarray, TorqueFreeRows | None]:
    """The closed forms of F bodies from inertia (F, 3, 3) kg m², orientations ``q0`` (F, 4) and body rates
    ``omega_body0`` (F, 3) rad/s: the indices of the bodies solved (a state too extreme for the case analysis is
    left out), and their rows in that order (None if none). Call under ``np.errstate`` as suits."""
    solved, constants, q_body_euler = [], [], []
    for k in range(len(inertia_body)):
        try:
            motion, euler_frame = _start(inertia_body[k], q0[k], omega_body0[k])
        except (ArithmeticError, ValueError):  # overflow in the case analysis: no closed form for this state
            continue
        solved.append(k)
        q_body_euler.append(euler_frame)
        constants.append(motion_constants(motion, np.array(q0[k], dtype=float), np.array(omega_body0[k], dtype=float)))
    chosen = np.array(solved, dtype=np.int64)
    if not solved:
        return chosen, None
    # K = R_F(0, m₁, 1) first: an elliptic body with K = inf is on the separatrix, and takes no descending chain.
    kind = np.array([values["kind"] for values in constants])
    elliptic = kind == PERIODIC
    m_complement = np.array([values["m_complement"] for values in constants], dtype=float)
    quarter = np.where(elliptic, complete_k_from_complement(np.where(elliptic, m_complement, 1.0)), np.nan)
    for values, kind_now, k_now in zip(constants, np.where(elliptic & ~np.isfinite(quarter), SEPARATRIX, kind),
                                       quarter, strict=True):  # fmt: skip
        values.update(kind=kind_now, quarter_period=k_now)
    rows = TorqueFreeRows.from_constants([tuple(values[name] for name in CONSTANT_FIELDS) for values in constants])
    return chosen, _moving(rows, np.array(q_body_euler), elliptic)


def _moving(rows: TorqueFreeRows, q_body_euler: np.ndarray, elliptic: np.ndarray) -> TorqueFreeRows:
    """The rows with what each solution computes lazily filled in (see the module's docstring)."""
    each = np.arange(len(rows))
    spin = np.where(elliptic, rows.spin_axis, 0)
    i_c, i2, i_e = rows.moments[each, spin], rows.moments[:, 1], rows.moments[each, 2 - spin]
    # EulerPoinsot._characteristic, _transformed, _complete_g (finite K only) and _precession_constants.
    n = np.where(elliptic, -i_c * np.abs(i2 - i_e) / (i_e * np.abs(i_c - i2)), np.nan)
    transformed = elliptic & (n < TRANSFORMED_CHARACTERISTIC)
    conjugate = rows.m / n
    periodic = rows.kind == PERIODIC
    complete_g = np.full(len(rows), np.nan)
    plain = np.flatnonzero(periodic & ~transformed)
    whole = np.flatnonzero(periodic & transformed)
    if plain.size:
        complete_g[plain] = carlson_rj_near_saddle(0.0, 1.0, rows.m_complement[plain], 1.0 - n[plain])
    if whole.size:
        complete_g[whole] = legendre_pi_by_conjugate(1.0, 0.0, rows.m_complement[whole], n[whole], conjugate[whole])
    coefficient = np.where(
        transformed,
        rows.L_norm * (i_c - i_e) / (i_c * i_e * rows.rate),
        rows.L_norm * (i_c - i_e) * n / (3.0 * i_c * i_e * rows.rate),
    )
    rows = replace(rows, characteristic=n, transformed=transformed,
                   conjugate=np.where(elliptic, conjugate, np.nan), complete_g=complete_g,
                   coefficient=np.where(elliptic, coefficient, np.nan),
                   linear_moment=np.where(elliptic, np.where(transformed, i_c, i_e), np.nan))  # fmt: skip
    g0 = np.full(len(rows), np.nan)
    ellipses = np.flatnonzero(elliptic)
    if ellipses.size:
        g0[ellipses] = precession_g(rows.take(ellipses), rows.phase0[ellipses])
    rows = replace(rows, g0=g0)
    # TorqueFreeSolution.from_body_state: q_world_invariable = q0 ⊗ q_body_euler ⊗ r(0)⁻¹, then its chain.
    chain = np.full((len(rows), 4, 4), np.nan)
    moving = np.flatnonzero(rows.kind != CONSTANT)
    if moving.size:
        part = rows.take(moving)
        r0 = quat_from_zxz_euler(*euler_angles(part, np.zeros(moving.size)))
        q_world_invariable = quat_mul(quat_mul(part.q0, q_body_euler[moving]), quat_conj(r0))
        chain[moving] = quat_mul(quat_mul(q_world_invariable[:, None, :], np.eye(4)),
                                 quat_conj(q_body_euler[moving])[:, None, :])  # fmt: skip
    return replace(rows, chain=chain)
