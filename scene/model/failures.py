"""Comparisons that survive: which views of a run have failed, and what each integrator costs, live.

A run with several views (side by side, or the compare preset) goes on when one view's bodies fail: a
:class:`~sim.errors.NumericalError` naming them (a non-finite state, Newton not converging) or a divergence
(:func:`diverged`: a body's energy not finite, or gained beyond ``Setup.divergence`` of it; a loss, however large,
is damping and shown as such, :func:`damping_text`). :class:`Watch` says which views
fail, records each :class:`Failure` (the time of the state kept and why), and masks the frozen views' samples
after that time with NaN, so their plot lines end there. The run model (scene/model/run_model.py) freezes their bodies
(:meth:`scene.running.simulation.Simulation.freeze`) and retries the step; the others go on bit for bit.

:class:`CostMeter` sums, per integrator, the wall time of its step calls (sim/world.py's ``group_seconds``), the
body-steps it took, its Newton iterations and its sub-steps, into an :class:`IntegratorCost` per step call, with the
path that stepped it (compiled kernel, or its stand-in while that compiles: sim/compiled.py's ``step_path``).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from spinlab.scene.model.samples import Sample
from spinlab.sim import compiled
from spinlab.sim.errors import NumericalError

__all__ = [
    "DEFAULT_DIVERGENCE",
    "diverged",
    "damping_text",
    "gained_text",
    "Failure",
    "Watch",
    "IntegratorCost",
    "CostMeter",
    "failure_reason",
]

DEFAULT_DIVERGENCE = 0.5
"""The energy gain, as a fraction of ``|T₀| + |V₀|``, beyond which a view of a comparison is frozen as diverged
(:func:`diverged`). Half the energy again is no longer a model of the same motion, yet far above anything a working
integrator reaches at the presets' steps (their errors stay below ~1e-2 over minutes); an unstable one
(``euler_body``, the engines' explicit steps) grows geometrically and passes 0.5 a few steps before it overflows,
so the view stops on a state still worth looking at, with its label saying why."""


def diverged(energy, energy0, scale, threshold: float) -> np.ndarray:
    """The one rule for "diverged", elementwise: whether a body's total energy ``energy`` (J; kinetic, plus the
    potential where it counts, scene/model/measures.py) has blown up from ``energy0`` (J), ``scale`` = ``|T₀| + |V₀|``
    (J) its denominator. The views the window, ``record`` and ``run`` freeze as diverged all come from it, through
    :class:`Watch` in the run model's ``Session``; ``run``'s damping notes and the labels' from :func:`damping_text`.

    A body has diverged when ``energy`` is not finite, or when it has **gained** more than ``threshold`` of its
    scale: ``(E − E₀) / (|T₀| + |V₀|) > threshold``. A loss never diverges, however large: ``T ≥ 0`` and
    ``V = −m g·x`` is bounded below on a pivot's sphere (0 for a free body, where ``ΔE/E ≥ −1``), so a step that
    loses energy stays bounded and finite; it is a damping step (Bullet's implicit steps, MuJoCo's implicitfast,
    Catto's, docs/engines.md) and its label says so (:func:`damping_text`). A gain has no bound: an explicit step
    pumps energy in geometrically until it overflows. A body with no relative error (scale 0) diverges only when
    its energy is not finite. Compared without the division (no overflow)."""
    energy, energy0, scale = (np.asarray(value, dtype=float) for value in (energy, energy0, scale))
    with np.errstate(over="ignore", invalid="ignore"):
        gained = ((energy - energy0) > threshold * scale) & (scale > 0.0)
        return gained | ~np.isfinite(energy)


def gained_text(threshold: float) -> str:
    """Why a view diverged past the ``threshold`` (:func:`diverged`), with the sign: ``"ΔE/E passed +0.5 (energy
    gained)"`` (a non-finite energy passes it too)."""
    return f"ΔE/E passed +{threshold:g} (energy gained)"


def damping_text(change: float, threshold: float) -> str:
    """A bounded loss past the divergence ``threshold``, in words: ``"ΔE −51 % (damping)"`` for a signed relative
    energy error ``change`` = ΔE/E below ``−threshold`` (:func:`diverged`: a loss is not a divergence); ``""``
    otherwise (within the threshold, a gain, or NaN: nothing to say beyond the error itself)."""
    if not change < -threshold:
        return ""
    return f"ΔE \N{MINUS SIGN}{abs(100.0 * change):.0f} % (damping)"


@dataclass(frozen=True)
class Failure:
    """A view that stopped: at ``t`` s (the state it keeps), ``reason`` (one line), ``diverged`` when it was the
    threshold rather than a numerical failure."""

    t: float
    reason: str
    diverged: bool = False

    def label(self) -> str:
        """One line, e.g. ``"diverged at t = 7.85 s: Newton did not converge"``."""
        return ": ".join(self.label_lines())

    def label_lines(self) -> tuple[str, str]:
        """The view's label lines under its name: when, then why (a view's label is narrow)."""
        return f"diverged at t = {self.t:.2f} s", self.reason


def failure_reason(error: NumericalError) -> str:
    """The integrator's own words for ``error``, without the time and body the simulation prefixes (the view's
    label says those): the innermost :class:`NumericalError` of its causes, first line."""
    inner = error
    while isinstance(inner.__cause__, NumericalError):
        inner = inner.__cause__
    return str(inner).splitlines()[0] if str(inner) else str(error)


class Watch:
    """The failures of a run's views. ``groups``: each view's body indices (snapshot order); ``rows``: a body's row
    among the K plotted ones; ``threshold``: the energy gain ΔE/E past which a view diverges (:func:`diverged`;
    ``inf``: only a non-finite energy does). A run of one view is never
    frozen: it stops on a failure as before."""

    def __init__(self, groups, rows: dict[int, int], plotted: int, threshold: float) -> None:
        self.groups = tuple(tuple(group.bodies) for group in groups)
        self.threshold = float(threshold)
        self.failures: dict[int, Failure] = {}
        # The views that can fail: those with a plotted (dynamic) body.
        self._row_group = np.full(plotted, -1, dtype=np.intp)
        for number, bodies in enumerate(self.groups):
            mine = [rows[i] for i in bodies if i in rows]
            self._row_group[mine] = number
        self.live = {number for number in range(len(self.groups)) if np.any(self._row_group == number)}
        self.enabled = len(self.live) > 1
        self.frozen_t = np.full(plotted, np.inf)  # per plotted row: the time of the state it keeps

    def failed_groups(self, bodies) -> list[int]:
        """The live views holding the snapshot indices ``bodies`` (in order)."""
        named = {int(i) for i in np.asarray(bodies).ravel()}
        return [number for number in sorted(self.live) if named.intersection(self.groups[number])]

    def diverged_groups(self, energy: np.ndarray, energy0: np.ndarray, scale: np.ndarray) -> list[int]:
        """The live views with a body whose total ``energy`` (K,) J has :func:`diverged`."""
        beyond = diverged(energy, energy0, scale, self.threshold)
        if not beyond.any():
            return []
        return sorted({int(g) for g in self._row_group[beyond] if int(g) in self.live})

    def bodies_of(self, numbers: list[int]) -> list[int]:
        return [i for number in numbers for i in self.groups[number]]

    def freeze(self, numbers: list[int], failure: Failure) -> None:
        """Record ``failure`` for views ``numbers`` and mark their rows frozen at its time."""
        for number in numbers:
            self.failures[number] = failure
            self.live.discard(number)
            self.frozen_t[self._row_group == number] = failure.t

    def masked(self, sample: Sample) -> Sample:
        """``sample`` (S steps) with NaN for the frozen rows after the time each froze at (plot lines end there)."""
        if not self.failures:
            return sample
        after = np.asarray(sample.t, dtype=float)[:, None] > self.frozen_t[None, :]  # (S, K)
        if not after.any():
            return sample
        fields = {}
        for name in ("energy_error", "momentum_error", "orientation_error", "herpolhode", "herpolhode_exact",
                     "polhode", "polhode_exact"):  # fmt: skip
            values = np.array(getattr(sample, name), dtype=float)
            values[after] = np.nan
            fields[name] = values
        return dataclasses.replace(sample, **fields)  # the exact ones and the flip counts go on


@dataclass(frozen=True)
class IntegratorCost:
    """One integrator's cost over a step call: wall µs per body-step of its step, Newton iterations and sub-steps
    per body-step, and the ``body_steps`` they are averaged over; ``path``, what stepped it (sim/compiled.py's
    ``step_path``), and ``bodies``, how many one call steps (the call's fixed cost is spread over them)."""

    us_per_body_step: float
    newton_per_body_step: float
    substeps_per_body_step: float
    body_steps: int
    path: str = compiled.COMPILED_KERNEL
    bodies: int = 1


class CostMeter:
    """Sums each integrator's cost over the steps of one call. ``integrators``: the integrator (or ``None``) of
    each body, file order, as the world's cost arrays are.

    The wall time per body-step is the one :meth:`retime` measured last on the path that steps it now (each
    integrator's step alone on warm caches, as ``bench --only latency`` times its ``step`` column), else the call's
    own: a step timed inside a frame pays for the caches the frame's drawing emptied, unevenly across the
    integrators. A figure timed on a stand-in is never shown for the compiled kernel that replaced it."""

    def __init__(self, integrators) -> None:
        names = np.array([name or "" for name in integrators], dtype=object)
        self._members = {name: np.flatnonzero(names == name) for name in dict.fromkeys(names) if name}
        self._size = len(names)
        self._warm_us: dict[str, tuple[str, float]] = {}  # name: (the path timed, µs per body-step)
        self.reset()

    def path(self, name: str) -> str:
        """What steps ``name``'s bodies now (sim/compiled.py's ``step_path``)."""
        return compiled.step_path(name, len(self._members[name]))

    def retime(self, world, h: float) -> None:
        """Time each integrator's step of ``world`` (sim/world.py) by ``h`` alone (``World.time_groups``)."""
        timed = world.time_groups(h)  # NaN: stepped, yet not timed (it failed there); the call's own then
        tried = {name: math.nan for name in self._seconds if compiled.is_ready(name)}
        self._warm_us.update({name: (self.path(name), 1e6 * us) for name, us in {**tried, **timed}.items()})

    def untimed(self) -> bool:
        """Whether an integrator stepped by the last call runs on a path :meth:`retime` has not tried (its kernel
        just loaded)."""
        return any(
            self._warm_us.get(name, ("", 0.0))[0] != self.path(name)
            for name in self._seconds
            if compiled.is_ready(name)
        )

    def reset(self) -> None:
        self._seconds: dict[str, float] = {}
        # Per body, summed over the steps (one array operation a step, reduced per integrator when asked).
        self._body_steps = np.zeros(self._size, dtype=np.int64)
        self._newton = np.zeros(self._size, dtype=np.int64)
        self._substeps = np.zeros(self._size, dtype=np.int64)

    def add(self, group_seconds: dict[str, float], cost) -> None:
        """One step's ``group_seconds`` (sim/world.py) and :class:`StepCost` (file order; 0 sub-steps: frozen)."""
        seconds = self._seconds
        for name, spent in group_seconds.items():
            seconds[name] = seconds.get(name, 0.0) + spent
        self._body_steps += cost.substeps > 0
        self._newton += cost.newton_iterations
        self._substeps += cost.substeps

    def costs(self) -> dict[str, IntegratorCost]:
        """The sums so far as per-body-step averages, for every integrator that took a step."""
        costs = {}
        for name, members in self._members.items():
            n = int(self._body_steps[members].sum())
            if n and name in self._seconds:
                newton, substeps = self._newton[members].sum(), self._substeps[members].sum()
                path = self.path(name)
                timed_path, us = self._warm_us.get(name, (path, 1e6 * self._seconds[name] / n))
                if timed_path != path or math.isnan(us):
                    us = 1e6 * self._seconds[name] / n
                costs[name] = IntegratorCost(us, newton / n, substeps / n, n, path, len(members))
        return costs
