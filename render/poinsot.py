"""The Poinsot construction of a torque-free body: its energy ellipsoid rolling without slipping on the invariable
plane, the polhode traced on the ellipsoid and the herpolhode on the plane (Landau & Lifshitz §37; math.md's
accuracy measures). Geometry and per-step traces, numpy only; render/poinsot_view.py draws them.

**The construction** (world frame; a body's centre at the origin; lengths in rad/s, drawn at some metres per rad/s):
with ``I_w = R I Rᵀ`` the inertia tensor in the world (``R`` body → world, ``I`` body frame, kg·m²), ``L = I_w ω``
and ``E = ½ ω·L``,

- the **ellipsoid** ``x · I_w x = 2E`` is fixed in the body, centred at its centre, semi-axes ``√(2E / Iᵢ)`` along
  the principal axes (moments ``Iᵢ``). (The textbook's inertia ellipsoid ``x·I x = 1`` is this one scaled by
  ``1/√(2E)``: its contact point is ``ω/√(2E)`` and its plane is ``√(2E)/|L|`` from the centre.)
- ω lies on it (``ω · I_w ω = ω · L = 2E``) and is the **contact point**; the ellipsoid's normal there,
  ``∇(x·I_w x) = 2 I_w ω = 2L``, is parallel to L;
- so the tangent plane there is the **invariable plane** ``x · L̂ = 2E/|L|``: ⊥ L at distance ``2E/|L|`` from the
  centre. Without torque L and E are constant, so the plane is fixed in the world, and the whole ellipsoid lies on
  one side of it (its support in the direction L̂ is ``√(L̂·I_w⁻¹L̂ · 2E) = 2E/|L|``).
- The body point at the contact moves at ``ω × ω = 0``: the ellipsoid **rolls without slipping**. The contact
  point's path in the body (on the ellipsoid) is the polhode ``Ω(t) = Rᵀ ω``; in the world (on the plane) the
  herpolhode ``ω(t)``.

For an integrator's body the same construction uses its own current E and L: an energy drift changes the
ellipsoid's size, a drift of L tilts and moves the plane, and the traces leave them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from spinlab.render.trail import invariable_plane
from spinlab.sim.inertia import principal_moments
from spinlab.sim.integrators.state import rotational_energy
from spinlab.sim.quaternion import quat_conj, quat_rotate, quat_to_matrix

__all__ = ["PoinsotGeometry", "poinsot_geometry", "PoinsotTraces", "poinsot_body", "TRACE_CAPACITY"]

TRACE_CAPACITY = 4096  # steps of polhode and herpolhode kept (~68 s at h = 1/60 s)


@dataclass(frozen=True)
class PoinsotGeometry:
    """One instant of the construction (module docstring), world frame, lengths in rad/s: ``semi_axes`` (3,) and
    ``axes`` (3, 3) (columns: the principal axes in the world, ascending moments) of the ellipsoid; ``contact``
    (3,) = ω; ``normal`` (3,) = L̂; ``distance`` = 2E/|L| of the plane from the centre; ``energy`` E (J) and
    ``momentum`` L (3,) kg·m²/s."""

    semi_axes: np.ndarray
    axes: np.ndarray
    contact: np.ndarray
    normal: np.ndarray
    distance: float
    energy: float
    momentum: np.ndarray

    def inertia_world(self) -> np.ndarray:
        """(3, 3) I_w = 2E · A diag(1/aᵢ²) Aᵀ, the quadratic form of the ellipsoid ``x·I_w x = 2E``."""
        return 2.0 * self.energy * (self.axes / self.semi_axes**2) @ self.axes.T

    def herpolhode_reach(self) -> float:
        """rad/s: how far from the foot of L on the plane the herpolhode runs at most, over the whole torque-free
        motion with this E and L (the herpolhode lies in an annulus about it): ``√(max |ω|² − d²)``.

        In the principal frame ``xᵢ = Ωᵢ²`` meet two linear conditions, ``Σ Iᵢ xᵢ = 2E`` and ``Σ Iᵢ² xᵢ = |L|²``:
        a segment of x ≥ 0, along which the polhode runs from end to end (it crosses both principal planes it
        winds between). ``|ω|² = Σ xᵢ`` is linear, so its largest value is at an end, where one ``xᵢ`` is 0."""
        moments = 2.0 * self.energy / self.semi_axes**2
        largest = float(self.contact @ self.contact)
        for zero in range(3):
            i, j = (k for k in range(3) if k != zero)
            system = np.array([[moments[i], moments[j]], [moments[i] ** 2, moments[j] ** 2]])
            if abs(np.linalg.det(system)) <= 1e-12 * float(np.abs(system).max()) ** 2:
                continue  # two equal moments: the end is where the other is
            squares = np.linalg.solve(system, [2.0 * self.energy, float(self.momentum @ self.momentum)])
            if squares.min() >= -1e-9 * largest:
                largest = max(largest, float(squares.sum()))
        return float(np.sqrt(max(largest - self.distance**2, 0.0)))


def poinsot_geometry(inertia_body: np.ndarray, q: np.ndarray, omega_world: np.ndarray) -> PoinsotGeometry:
    """The construction of a body of inertia ``inertia_body`` (3, 3) kg·m² (body frame) at orientation ``q`` (4,)
    (body → world, (w, x, y, z)) turning at ``omega_world`` (3,) rad/s."""
    moments, axes_body = principal_moments(np.asarray(inertia_body, dtype=float))
    rotation = quat_to_matrix(np.asarray(q, dtype=float))
    omega = np.asarray(omega_world, dtype=float)
    momentum = rotation @ (inertia_body @ (rotation.T @ omega))
    energy = float(rotational_energy(omega, momentum))
    (normal,), (distance,) = invariable_plane(momentum[None], np.array([energy]))
    return PoinsotGeometry(
        semi_axes=np.sqrt(2.0 * energy / moments),
        axes=rotation @ axes_body,
        contact=omega,
        normal=normal,
        distance=float(distance),
        energy=energy,
        momentum=momentum,
    )


def poinsot_body(session, preferred: int | None = None) -> tuple[int, int] | None:
    """``(body index, plotted row)`` of the body ``session``'s (scene/model/run_model.py) Poinsot view shows: the body
    ``preferred`` (an index into the session's scene: the one selected in the window) when it is torque-free with
    a closed form, else the first view's first such body; ``None`` when there is none."""
    references = session.references

    def shown(body: int) -> tuple[int, int] | None:
        row = session.rows.get(int(body))
        if row is not None and references.torque_free[row] and references.has_reference[row]:
            return int(body), row
        return None

    if preferred is not None and (chosen := shown(preferred)) is not None:
        return chosen
    return next((chosen for group in session.groups for body in group.bodies if (chosen := shown(body))), None)


class PoinsotTraces:
    """The last ``capacity`` steps of one body's polhode and herpolhode, and its closed form's: body ω and world ω
    (rad/s) of each, pushed per step (:meth:`push`). ``body`` is its index in the scene, ``row`` among the plotted
    bodies; ``inertia_body`` (3, 3) kg·m². ``latest`` holds the newest step's orientations (body → world) and ω
    (world) of both: ``{"integrator": (q, ω), "exact": (q, ω)}``."""

    def __init__(self, body: int, row: int, inertia_body: np.ndarray, capacity: int = TRACE_CAPACITY) -> None:
        self.body, self.row, self.capacity = body, row, capacity
        self.inertia_body = np.asarray(inertia_body, dtype=float)
        # Rows: integrator body ω, integrator world ω, exact body ω, exact world ω; each (capacity, 3).
        self._buffer = np.full((4, capacity, 3), np.nan)
        self.count = 0  # samples pushed in all (the newest is at (count - 1) % capacity)
        self.latest: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    @classmethod
    def of(cls, session, preferred: int | None = None) -> PoinsotTraces | None:
        """The traces of ``session``'s Poinsot body (:func:`poinsot_body`, ``preferred`` if it can be), holding
        its latest steps; ``None`` when it has none."""
        chosen = poinsot_body(session, preferred)
        if chosen is None:
            return None
        body, row = chosen
        traces = cls(body, row, session.scene.bodies[body].inertia_body)
        traces.push(session.latest)
        return traces

    def push(self, steps) -> None:
        """Append the S steps of ``steps`` (scene/model/run_model.py's :class:`Steps`), oldest first."""
        q = np.array([snapshot.q[self.body] for snapshot in steps.snapshots])
        omega = np.array([snapshot.omega_world[self.body] for snapshot in steps.snapshots])
        sample = steps.sample
        q_exact = np.asarray(sample.q_exact).reshape(len(q), -1, 4)[:, self.row]
        omega_body_exact = np.asarray(sample.omega_body_exact).reshape(len(q), -1, 3)[:, self.row]
        values = np.stack(
            [quat_rotate(quat_conj(q), omega), omega, omega_body_exact, quat_rotate(q_exact, omega_body_exact)]
        )[:, -self.capacity :]
        slots = (self.count + np.arange(values.shape[1])) % self.capacity
        self._buffer[:, slots] = values
        self.count += len(q)
        self.latest = {"integrator": (q[-1], omega[-1]), "exact": (q_exact[-1], values[3, -1])}

    def history(self, which: str, stride: int = 1) -> tuple[np.ndarray, np.ndarray]:
        """``(body ω (T, 3), world ω (T, 3))`` rad/s of ``which`` ("integrator" or "exact"), oldest first, every
        ``stride``-th sample counted back from the newest."""
        kept = min(self.count, self.capacity)
        order = (self.count - kept + np.arange(kept)) % self.capacity
        order = order[::-1][::stride][::-1]
        first = 0 if which == "integrator" else 2
        return self._buffer[first, order], self._buffer[first + 1, order]
