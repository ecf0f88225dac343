"""What a run's plots, labels and trails read, per simulation step: :class:`Sample` and the references it is
measured against (:class:`References`), measured for a batch of steps in one call of array operations.

The measures are scene/model/measures.py's; here they are applied to the plotted (dynamic) bodies, K of them, over S
steps at once (the closed forms evaluate the S times in one call), and shown the way the plots want them: the
errors as magnitudes, an exact zero kept (the log plots draw it at :data:`ERROR_FLOOR`, the CSV export writes 0);
NaN where a measure does not apply.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from spinlab.scene.files.body_table import BodySpec, body_column
from spinlab.scene.files.scene_file import SceneSpec
from spinlab.scene.model.flips import FlipCounter
from spinlab.scene.model.measures import (
    energy_error,
    energy_scale,
    momentum_error,
    orientation_error,
    reference_solutions,
    torque_free,
)
from spinlab.scene.running.simulation import Snapshot
from spinlab.sim.inertia import principal_moments
from spinlab.sim.quaternion import quat_conj, quat_rotate

__all__ = [
    "ERROR_FLOOR",
    "ALL_MEASURED_MAX",
    "SAMPLED_ROWS",
    "Sample",
    "References",
    "concatenated",
    "measured_rows",
    "plane_axes",
    "plane_axes_of",
    "polhode_axes",
    "polhode_axes_of",
]

# Errors below this (exactly 0: a relative error of doubles that is not 0 is at least ~1e-16) are drawn at this value
# on the log plots, which have no 0; the samples, labels and the CSV export keep the 0.
ERROR_FLOOR = 1e-17
# A window's run (scene/model/run_model.py) measures every plotted body against its closed form up to this many, and
# past it SAMPLED_ROWS of them, the ones its plots can draw (ui/plot_series.py's MAX_LINES, evenly spread): the closed
# forms of 10^5 bodies took ~0.7 kB a body and ~1 kB a body-step of temporaries, for lines never drawn, and measuring
# a 1000-handle cloud every frame ~19 ms of the window's (the frame's update). The same size as the renderer's
# MANY_BODIES: past it the per-body overlays are off by default, the exact ghosts among them, and turned on they show
# the measured bodies' ghosts.
ALL_MEASURED_MAX = 100
SAMPLED_ROWS = 64


def _magnitude(error: np.ndarray) -> np.ndarray:
    """``|error|``, a NaN (a measure with nothing to compare: L₀ = 0) counted as no error."""
    magnitude = np.abs(error)
    return np.where(np.isnan(magnitude), 0.0, magnitude)


@dataclass(frozen=True)
class Sample:
    """Measurements of the K plotted bodies at S steps, oldest first (or at one instant: then without the S axis):
    ``t`` (S,) s; the relative energy error's magnitude (S, K) (scene/model/measures.py), |ΔL|/|L| (S, K) and the
    orientation error (S, K) rad against the closed form (0 where exact); ω in the invariable
    plane (S, K, 2) rad/s and the exact one, body ω along the polhode's axes (S, K, 2) rad/s and the exact one. NaN
    where a measure does not apply (a body under torque has no invariable plane; a body without a closed form, no
    orientation error). Never infinite: a measure that overflows is the largest double.

    Besides: ``q_exact`` (S, K, 4) the closed form's orientation, body → world (w, x, y, z), and ``omega_body_exact``
    (S, K, 3) rad/s its body ω, NaN without a closed form (ω NaN for a heavy top too); ``flips`` and
    ``flips_exact`` (S, K), the running flip counts of the body and of its closed form (scene/model/flips.py), NaN where
    there is none to count; ``energy_lost`` (S, K) bool, where the energy is below the initial one (the sign of the
    energy error, which the labels say: scene/model/failures.py's ``damping_text``). ``None`` in a sample made without
    them."""

    t: np.ndarray | float
    energy_error: np.ndarray
    momentum_error: np.ndarray
    orientation_error: np.ndarray
    herpolhode: np.ndarray
    herpolhode_exact: np.ndarray
    polhode: np.ndarray
    polhode_exact: np.ndarray
    q_exact: np.ndarray | None = None
    omega_body_exact: np.ndarray | None = None
    flips: np.ndarray | None = None
    flips_exact: np.ndarray | None = None
    energy_lost: np.ndarray | None = None

    def energy_change(self) -> np.ndarray | None:
        """The relative energy error with its sign, ``(E − E₀) / (|T₀| + |V₀|)`` (S, K) or (K,); ``None`` in a sample
        made without ``energy_lost``."""
        if self.energy_lost is None:
            return None
        return np.where(self.energy_lost, -self.energy_error, self.energy_error)

    def latest(self) -> Sample:
        """The newest step's sample (no S axis)."""
        if np.ndim(self.t) == 0:
            return self
        times = cast(np.ndarray, self.t)  # (S,): the S axis is there (above)
        latest: dict[str, Any] = {}
        for name in _FIELDS:
            value = getattr(self, name)
            latest[name] = None if value is None else value[-1]
        return Sample(float(times[-1]), **latest)


_FIELDS = ("energy_error", "momentum_error", "orientation_error", "herpolhode", "herpolhode_exact", "polhode",
           "polhode_exact", "q_exact", "omega_body_exact", "flips", "flips_exact", "energy_lost")  # fmt: skip


class References:
    """What the plotted bodies ``rows`` (K,) of ``scene`` are measured against, from the ``initial`` snapshot: the
    initial energy (J) and its scale and the initial L (K, 3) of every one, and for the ``measured`` rows (M,
    ascending indices into the K; default all) the invariable plane's and the polhode's axes (M, 3, 2) and the
    closed forms, one per distinct initial state with the rows it serves (``solutions`` torque-free, which give the
    exact curves too; ``tops`` heavy symmetric tops, orientation only). It counts the flips of the measured bodies
    and of their closed forms too (scene/model/flips.py): :meth:`measure` takes the steps in time order.

    A body not measured has the energy and momentum errors only (its other measures NaN, ``has_reference`` False):
    the window measures a sample of a large scene (:func:`measured_rows`), not every body at every step. Without
    ``curves`` (``run``'s table, which shows the errors alone) neither the axes nor the flip counters are made: the
    samples' curves are NaN and their flip counts ``None`` (10^5 bodies: ~0.15 s of a run)."""

    def __init__(
        self,
        scene: SceneSpec,
        initial: Snapshot,
        potential0: np.ndarray,
        rows: np.ndarray,
        t0: float = 0.0,
        measured: np.ndarray | None = None,
        *,
        curves: bool = True,
    ) -> None:
        self.rows = rows
        self.curves = curves
        self.t0 = float(t0)  # s: the time of ``initial``, where the closed forms start
        kinetic0, potential0 = initial.energy[rows], potential0[rows]
        self.energy0 = kinetic0 + potential0
        self.energy_scale = energy_scale(kinetic0, potential0)
        self.L0 = initial.L_world[rows]
        count = len(rows)
        self.measured = np.arange(count) if measured is None else np.asarray(measured, dtype=np.intp)
        self.every_row = len(self.measured) == count
        # Torque-free bodies conserve L and have an invariable plane.
        bodies = scene.bodies
        if scene.has_torque:
            free_rows = [torque_free(scene, bodies[i]) for i in np.asarray(rows).tolist()]
            self.torque_free = np.array(free_rows, dtype=bool).reshape(count)
        else:  # the plotted bodies are the dynamic ones
            self.torque_free = np.ones(count, dtype=bool)
        measured_bodies = np.asarray(rows, dtype=np.intp)[self.measured]
        q0s, omega0s = initial.q[measured_bodies], initial.omega_world[measured_bodies]
        inertia = body_column(bodies, "inertia_body", measured_bodies.tolist())
        self.plane_axes = plane_axes_of(initial.L_world[measured_bodies], omega0s) if curves else None
        self.polhode_axes = polhode_axes_of(inertia, q0s, omega0s) if curves else None
        # Bodies with equal initial states (and, for a heavy top, equal tops: the scene has one gravity) share one
        # closed form: the first of them represents the others. ``firsts``: positions among the measured.
        firsts, self.owner = _first_of_equals(inertia, q0s, omega0s, self._heavy_tops(bodies, measured_bodies))
        # The closed forms of the representatives, solved together (scene/model/measures.py, sim/exact_batch.py).
        represented = measured_bodies[firsts]
        free = self.torque_free[self.measured[firsts]]
        self.closed_forms = reference_solutions(
            scene, represented, initial.q[represented], initial.omega_world[represented], free, inertia[firsts]
        )
        self.has_reference = np.zeros(count, dtype=bool)
        self.has_reference[self.measured] = self.closed_forms.has_reference[self.owner]
        notes = np.full(count, None, dtype=object)
        notes[self.measured] = np.array(self.closed_forms.notes, dtype=object)[self.owner]
        self.notes: tuple[str | None, ...] = tuple(notes.tolist())
        """Each row's note where it has no closed form for a reason worth telling (scene/model/measures.py)."""
        self.exact_rows: list[int] = self.measured[firsts[self.closed_forms.has_reference & free]].tolist()
        self.flip_counters: tuple[FlipCounter, FlipCounter] | None = None
        if curves:
            speeds = np.linalg.norm(initial.omega_world[measured_bodies], axis=1).reshape(-1)
            self.flip_counters = FlipCounter.for_speeds(speeds), FlipCounter.for_speeds(speeds)

    def _heavy_tops(self, bodies: Sequence[BodySpec], measured: np.ndarray) -> np.ndarray:
        """(M, 4): each measured body's (``measured``, indices into ``bodies``) mass and pivot (3,) m when it is a
        heavy top (pivoted, under a torque), which its closed form depends on too; zeros for the others."""
        tops = np.zeros((len(measured), 4))
        pivots = body_column(bodies, "pivot", measured.tolist())
        pivoted = np.array([pivot is not None for pivot in pivots], dtype=bool).reshape(-1)
        for k in np.flatnonzero(pivoted & ~self.torque_free[self.measured]).tolist():
            tops[k] = (bodies[int(measured[k])].mass, *pivots[k])
        return tops

    def rebased(self, scene: SceneSpec, state: Snapshot, potential: np.ndarray) -> References:
        """References that start again from ``state`` (a run's state just after a kick, scene/running/kicks.py): a kick
        changes the energy and L a run conserves and starts a new motion, so the measures from then on are taken
        against the state after it (and each body's own closed form from there). The flip counts go on."""
        rebased = References(scene, state, potential, self.rows, t0=state.t, measured=self.measured, curves=self.curves)
        rebased.flip_counters = self.flip_counters
        return rebased

    def measure(self, t: np.ndarray, q: np.ndarray, omega_world: np.ndarray, L_world: np.ndarray, energy) -> Sample:
        """The :class:`Sample` of S steps: times ``t`` (S,) s and the plotted bodies' ``q`` (S, K, 4),
        ``omega_world`` and ``L_world`` (S, K, 3) and total ``energy`` (S, K) J (kinetic, plus potential where it
        counts). Without numpy's warnings: a state that overflowed is reported by the run, not warned about."""
        with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
            t = np.asarray(t, dtype=float)
            change = energy_error(energy, self.energy0, self.energy_scale)
            error, lost = _magnitude(change), change < 0.0
            # NaN (L₀ = 0) counts as no drift.
            momentum = np.where(self.torque_free, _magnitude(momentum_error(L_world, self.L0)), np.nan)
            if self.every_row:
                return self._measure(t, q, omega_world, error, momentum, lost)
            # Only the measured rows against the closed forms; NaN in the others' columns.
            rows = self.measured
            measured = self._measure(t, q[:, rows], omega_world[:, rows], error[:, rows], momentum[:, rows], None)
            return _widened(measured, rows, len(self.rows), error, momentum, lost)

    def _measure(self, t, q, omega_world, error, momentum, lost) -> Sample:
        steps, count = q.shape[:2]
        free = self.torque_free[self.measured]
        # The exact motion of each distinct initial state at the S times; NaN for the bodies under a torque. A heavy
        # symmetric top's gives its orientation only (its ω stays NaN: no exact curves under a torque).
        # One step's time as a 0-d array: the closed forms take that path at half the cost of a (1,) array.
        at = (t[0] if steps == 1 else t) - self.t0
        q_first, omega_first = self.closed_forms.orientation_and_omega_body(at)
        q_exact = q_first.reshape(steps, -1, 4)[:, self.owner]
        omega_body_exact = omega_first.reshape(steps, -1, 3)[:, self.owner]
        angle = orientation_error(q, q_exact)
        orientation = np.where(self.has_reference[self.measured], _magnitude(angle), np.nan)
        finite = _finite_or_nan
        if self.plane_axes is None or self.polhode_axes is None or self.flip_counters is None:
            nan = np.full((steps, count, 2), np.nan)  # no curves asked for
            return Sample(t, finite(error), finite(momentum), finite(orientation), nan, nan, nan, nan,
                          finite(q_exact), finite(omega_body_exact), None, None, lost)  # fmt: skip
        # One rotation for both: the bodies' ω to the body frame, the exact Ω to the world frame.
        rotated = quat_rotate(
            np.concatenate([quat_conj(q), q_exact], axis=1), np.concatenate([omega_world, omega_body_exact], axis=1)
        )
        herpolhode = _in_axes(self.plane_axes, omega_world)
        herpolhode_exact = _in_axes(self.plane_axes, rotated[:, count:])
        polhode = _in_axes(self.polhode_axes, rotated[:, :count])
        polhode_exact = _in_axes(self.polhode_axes, omega_body_exact)
        herpolhode = np.where(free[:, None], herpolhode, np.nan)
        counted, counted_exact = self.flip_counters
        flips = counted.update(polhode[..., 0]).astype(float)
        flips_exact = counted_exact.update(polhode_exact[..., 0]).astype(float)
        flips_exact[:, ~(self.has_reference[self.measured] & free)] = np.nan
        return Sample(t, finite(error), finite(momentum), finite(orientation), finite(herpolhode),
                      finite(herpolhode_exact), finite(polhode), finite(polhode_exact), finite(q_exact),
                      finite(omega_body_exact), flips, flips_exact, lost)  # fmt: skip


def _first_of_equals(*columns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows equal bit for bit across ``columns`` (each (M, ...) float64): the first row of each set of equals,
    ascending, and each row's set (an index into those firsts). Sorted by a hash of each row's bits (equal rows
    hash alike); a row that shares its hash with an earlier one is checked against it, and when two differ, the
    rows are sorted by their bytes instead."""
    count = len(columns[0])
    if count == 0:
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
    rows = [np.ascontiguousarray(column, dtype=float).reshape(count, -1).view(np.uint64) for column in columns]
    width = sum(words.shape[1] for words in rows)
    odd = np.arange(1, 2 * width, 2, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    key, start = np.zeros(count, dtype=np.uint64), 0
    for words in rows:
        mixed = words * np.uint64(0xBF58476D1CE4E5B9)  # each word's bits spread (splitmix64's), so that sign bits
        mixed ^= mixed >> np.uint64(31)  # flipped in two places do not cancel in the sum
        key += mixed @ odd[start : start + words.shape[1]]
        start += words.shape[1]
    _, firsts, inverse = np.unique(key, return_index=True, return_inverse=True)
    inverse = np.reshape(inverse, count)
    shared = np.flatnonzero(firsts[inverse] != np.arange(count))
    if not all(np.array_equal(words[shared], words[firsts[inverse[shared]]]) for words in rows):
        bits = np.concatenate(rows, axis=1)
        keys = bits.view(np.dtype((np.void, bits.shape[1] * bits.itemsize))).reshape(count)
        _, firsts, inverse = np.unique(keys, return_index=True, return_inverse=True)
        inverse = np.reshape(inverse, count)
    order = np.argsort(firsts)
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return firsts[order], rank[inverse]


def measured_rows(count: int) -> np.ndarray:
    """The rows of ``count`` plotted bodies a window's run measures against their closed forms (every one up to
    :data:`ALL_MEASURED_MAX`, else :data:`SAMPLED_ROWS` evenly spread from the first to the last, as the plots
    sample their lines: ui/plot_series.py's ``line_rows``), ascending."""
    if count <= ALL_MEASURED_MAX:
        return np.arange(count)
    return np.unique(np.round(np.linspace(0, count - 1, SAMPLED_ROWS)).astype(np.intp))


def _widened(sample: Sample, rows: np.ndarray, count: int, error: np.ndarray, momentum: np.ndarray, lost) -> Sample:
    """``sample`` of the measured ``rows`` as a sample of all ``count`` rows: the energy and momentum errors and
    the energy's sign (S, K) of every row, the other measures NaN outside ``rows``."""
    fields = {"energy_error": _finite_or_nan(error), "momentum_error": _finite_or_nan(momentum), "energy_lost": lost}
    for name in _FIELDS[2:-1]:  # the measures against the closed forms
        values = getattr(sample, name)
        if values is None:  # flip counts of references without curves
            fields[name] = None
            continue
        wide = np.full((values.shape[0], count, *values.shape[2:]), np.nan)
        wide[:, rows] = values
        fields[name] = wide
    return Sample(sample.t, **fields)


def concatenated(samples: list[Sample]) -> Sample:
    """The :class:`Sample` of consecutive batches ``samples`` (each with an S axis), oldest first."""
    if len(samples) == 1:
        return samples[0]
    fields: dict[str, Any] = {"t": np.concatenate([np.atleast_1d(sample.t) for sample in samples])}
    for name in _FIELDS:
        values = [getattr(sample, name) for sample in samples]
        fields[name] = None if any(value is None for value in values) else np.concatenate(values)
    return Sample(**fields)


def _finite_or_nan(values: np.ndarray) -> np.ndarray:
    """``values`` with infinities as ± the largest double; NaN (a measure that does not apply) is kept."""
    # Two ufuncs: np.clip's wrapper costs more than the work on a few values; NaN passes through both.
    return np.minimum(np.maximum(values, -_LARGEST), _LARGEST)


_LARGEST = np.finfo(float).max


def _in_axes(axes: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """(S, K, 2): each of ``vectors`` (S, K, 3) along its body's two ``axes`` (K, 3, 2)."""
    return np.einsum("kij,ski->skj", axes, vectors)


def plane_axes(L_world: np.ndarray, omega_world: np.ndarray) -> np.ndarray:
    """(3, 2): an orthonormal basis of the plane ⊥ ``L_world``, the first axis along ``omega_world``'s part in it
    (any perpendicular when ω ∥ L)."""
    return plane_axes_of(np.reshape(L_world, (1, 3)), np.reshape(omega_world, (1, 3)))[0]


def plane_axes_of(L_world: np.ndarray, omega_world: np.ndarray) -> np.ndarray:
    """(M, 3, 2): :func:`plane_axes` of each of M bodies, ``L_world`` and ``omega_world`` (M, 3), all at once (a
    1000-body scene took 0.2 s body by body, on the window's thread)."""
    norm = np.linalg.norm(L_world, axis=-1, keepdims=True)
    normal = np.where(norm > 0.0, L_world / np.where(norm > 0.0, norm, 1.0), np.array([0.0, 0.0, 1.0]))
    across = omega_world - np.sum(omega_world * normal, axis=-1, keepdims=True) * normal
    tiny = 1e-9 * np.maximum(np.linalg.norm(omega_world, axis=-1), 1e-300)
    parallel = np.linalg.norm(across, axis=-1) < tiny
    if parallel.any():
        away = np.where(np.abs(normal[parallel, :1]) < 0.9, np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0]))
        across[parallel] = np.cross(normal[parallel], away)
    first = across / np.linalg.norm(across, axis=-1, keepdims=True)
    return np.stack([first, np.cross(normal, first)], axis=-1)


def polhode_axes(inertia_body: np.ndarray, q0: np.ndarray, omega_world0: np.ndarray) -> np.ndarray:
    """(3, 2) body-frame axes to show the polhode on: the intermediate principal axis and the extreme axis it does
    not circle. The polhode circles the major axis when |L|² > 2E·I₂, else the minor one (Landau & Lifshitz §37);
    seen along the circled axis it is a closed loop."""
    return polhode_axes_of(
        np.reshape(inertia_body, (1, 3, 3)), np.reshape(q0, (1, 4)), np.reshape(omega_world0, (1, 3))
    )[0]


def polhode_axes_of(inertia_body: np.ndarray, q0: np.ndarray, omega_world0: np.ndarray) -> np.ndarray:
    """(M, 3, 2): :func:`polhode_axes` of each of M bodies (``inertia_body`` (M, 3, 3), ``q0`` (M, 4),
    ``omega_world0`` (M, 3)), all at once."""
    moments, axes = principal_moments(inertia_body)
    omega_body = quat_rotate(quat_conj(q0), omega_world0)
    L_body = np.einsum("mij,mj->mi", inertia_body, omega_body)
    circles_major = np.sum(L_body * L_body, axis=-1) > np.sum(omega_body * L_body, axis=-1) * moments[:, 1]
    other = np.where(circles_major, 0, 2)
    return np.stack([axes[:, :, 1], np.take_along_axis(axes, other[:, None, None], axis=2)[:, :, 0]], axis=-1)
