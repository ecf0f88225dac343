"""What the window shows of each integrator live, without ImGui: its cost (µs per body-step of its kernel, Newton
iterations and sub-steps per body-step, the median over the last calls), its accuracy now (the largest |ΔE|/E and
orientation error of its bodies) and the views that failed (scene/model/failures.py). :class:`IntegratorTable`
reads the running :class:`~scene.model.run_model.Session` (its latest report's ``integrator_cost``, its samples, its
failures); ui/cost_plots.py draws it, and ui/plots.py draws the frozen rows' plot lines ending in a mark."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np

from spinlab.scene.model.palette import rgb_triple

__all__ = ["IntegratorTable", "IntegratorRow", "WINDOW", "failure_lines", "left_out_note"]

WINDOW = 15
"""Step calls (frames) each integrator's cost is the median over: steady, and blind to a call that compiled a
kernel or was preempted."""


@dataclass(frozen=True)
class IntegratorRow:
    """One integrator's line of the table and its point in the scatter: ``rgb`` (sRGB, of its first body),
    ``us`` µs per body-step, ``newton`` and ``substeps`` per body-step, ``energy_error`` the largest |ΔE|/E of
    its bodies now and ``orientation_error`` rad (NaN without a closed form), ``failed`` its view's failure line."""

    name: str
    rgb: tuple[float, float, float]
    us: float
    newton: float
    substeps: float
    energy_error: float
    orientation_error: float
    failed: str | None


class IntegratorTable:
    """Each integrator of ``session`` with its plotted rows and colour (``rgb`` per plotted row, sRGB: (K, 3))."""

    def __init__(self, session, rgb: np.ndarray) -> None:
        self.session = session
        names = [session.scene.bodies[i].integrator for i in session.plotted]
        self.rows = {name: np.flatnonzero(np.array(names, dtype=object) == name) for name in dict.fromkeys(names)}
        self.rgb = {name: rgb_triple(rgb[rows[0]]) for name, rows in self.rows.items()}
        self._recent: dict[str, deque] = {name: deque(maxlen=WINDOW) for name in self.rows}
        self._seen: tuple | None = None  # (the session's latest steps, its failure count) the table was made for
        self._table: list[IntegratorRow] = []

    @property
    def frozen_t(self) -> np.ndarray:
        """(K,) s: the time each plotted row froze at (``inf``: live)."""
        return self.session.watch.frozen_t

    def table(self) -> list[IntegratorRow]:
        """Every integrator's row, in the session's order, its cost folded in once per step call. Made once per
        step call (the panel's table and the scatter both read it, every frame)."""
        session = self.session
        key = (session.latest, len(session.failures))
        if self._seen is not None and self._seen[0] is key[0] and self._seen[1] == key[1]:
            return self._table
        if self._seen is None or self._seen[0] is not session.latest:
            for name, cost in session.integrator_cost.items():
                recent = self._recent.get(name)
                if recent is not None:
                    recent.append((cost.us_per_body_step, cost.newton_per_body_step, cost.substeps_per_body_step))
        self._seen = key
        self._table = self._rows()
        return self._table

    def _rows(self) -> list[IntegratorRow]:
        session = self.session
        sample = session.latest.sample
        energy, orientation = sample.energy_error[-1], sample.orientation_error[-1]
        failed = {}
        for number, failure in session.failures.items():
            for i in session.groups[number].bodies:
                failed[i] = failure.label()
        table = []
        for name, rows in self.rows.items():
            recent = self._recent[name]
            columns = zip(*recent, strict=True)  # µs, Newton iterations, sub-steps
            us, newton, substeps = (_median(column) for column in columns) if recent else (np.nan,) * 3
            failure = next((failed[int(session.plotted[k])] for k in rows if int(session.plotted[k]) in failed), None)
            table.append(
                IntegratorRow(
                    name, self.rgb[name], float(us), float(newton), float(substeps),
                    _largest(energy[rows]), _largest(orientation[rows]), failure,
                )
            )  # fmt: skip
        return table


def _median(values: tuple[float, ...]) -> float:
    """``np.median`` of a few numbers (NaN if one is), without its array machinery, dearer than the median itself:
    the table is remade every frame that stepped, for every integrator."""
    if any(value != value for value in values):
        return float("nan")
    ordered, middle = sorted(values), len(values) // 2
    return float(ordered[middle]) if len(values) % 2 else (ordered[middle - 1] + ordered[middle]) / 2.0


def _largest(values: np.ndarray) -> float:
    finite = values[np.isfinite(values)]
    return float(finite.max()) if finite.size else float("nan")


def failure_lines(session) -> list[str]:
    """The panel's list of frozen views: ``"euler_body: diverged at t = 7.85 s: …"``."""
    return [f"{session.groups[number].label}: {failure.label()}" for number, failure in session.failures.items()]


def left_out_note(scene, compared) -> str | None:
    """What side by side leaves out of ``compared`` in ``scene`` (an integrator that takes no torque, where the
    scene has one), as the panel's note; ``None`` when nothing is."""
    from spinlab.scene.model.run_model import integrators_for

    kept = integrators_for(scene, tuple(compared))
    left = [name for name in compared if name not in kept]
    if not left:
        return None
    return f"left out: {', '.join(left)} (it takes no torque, and this scene has one)"
