"""What the window shows of each integrator live, without ImGui: its cost (µs per body-step of its step, on the path
that steps it now, Newton iterations and sub-steps per body-step, the median over the last calls on that path), its
accuracy now (the largest |ΔE|/E and orientation error of its bodies) and the views that failed
(scene/model/failures.py). :class:`IntegratorTable` reads the running :class:`~scene.model.run_model.Session` (its
latest report's ``integrator_cost``, its samples, its failures); ui/cost_plots.py draws it, and ui/plots.py draws the
frozen rows' plot lines ending in a mark."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from spinlab.scene.model.palette import rgb_triple
from spinlab.sim.compiled import COMPILED_KERNEL

__all__ = ["IntegratorTable", "IntegratorRow", "WINDOW", "COST_CAPTION", "cost_text", "failure_lines", "left_out_note"]

WINDOW = 15
"""Step calls (frames) each integrator's cost is the median over: steady, and blind to a call that compiled a
kernel or was preempted."""

COST_CAPTION = (
    "µs per body-step: each integrator's step alone on warm caches, as bench --only latency times its step "
    "column; * not a compiled kernel (still compiling, or numpy alone): hover a figure"
)
"""What the cost column's figures time, said under it (one text whatever the figures: nothing below it moves)."""


@dataclass(frozen=True)
class IntegratorRow:
    """One integrator's line of the table and its point in the scatter: ``rgb`` (sRGB, of its first body),
    ``us`` µs per body-step, ``newton`` and ``substeps`` per body-step, ``energy_error`` the largest |ΔE|/E of
    its bodies now and ``orientation_error`` rad (NaN without a closed form), ``failed`` its view's failure line;
    ``path`` what the cost was timed on (sim/compiled.py's ``step_path``) and ``bodies`` the bodies a call steps."""

    name: str
    rgb: tuple[float, float, float]
    us: float
    newton: float
    substeps: float
    energy_error: float
    orientation_error: float
    failed: str | None
    path: str = COMPILED_KERNEL
    bodies: int = 1


class IntegratorTable:
    """Each integrator of ``session`` with its plotted rows and colour (``rgb`` per plotted row, sRGB: (K, 3))."""

    def __init__(self, session, rgb: np.ndarray) -> None:
        self.session = session
        names = [session.scene.bodies[i].integrator for i in session.plotted]
        self.rows = {name: np.flatnonzero(np.array(names, dtype=object) == name) for name in dict.fromkeys(names)}
        self.rgb = {name: rgb_triple(rgb[rows[0]]) for name, rows in self.rows.items()}
        # Each integrator's last WINDOW calls' (µs, Newton iterations, sub-steps), a ring per integrator, and how
        # many it holds: the medians of every integrator are a few array operations, not sorts in Python.
        self._index = {name: i for i, name in enumerate(self.rows)}
        self._recent = np.zeros((len(self.rows), WINDOW, 3))
        self._held = np.zeros(len(self.rows), dtype=np.intp)
        self._path: dict[str, tuple[str, int]] = {}  # each integrator's path and bodies a call, as last stepped
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
                i = self._index.get(name)
                if i is not None:
                    if self._path.get(name, (cost.path,))[0] != cost.path:
                        self._held[i] = 0  # a stand-in's figures are not the compiled kernel's
                    self._path[name] = (cost.path, cost.bodies)
                    # The oldest slot once full, as a deque of WINDOW drops its oldest (a median takes no order).
                    slot = self._held[i] % WINDOW
                    self._recent[i, slot] = (
                        cost.us_per_body_step,
                        cost.newton_per_body_step,
                        cost.substeps_per_body_step,
                    )
                    self._held[i] += 1
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
        medians = _medians(self._recent, np.minimum(self._held, WINDOW)).tolist()
        for (name, rows), (us, newton, substeps) in zip(self.rows.items(), medians, strict=True):
            # Its bodies looked up only when a view froze (a cloud's integrator has thousands).
            failure = next((failed[i] for i in session.plotted[rows].tolist() if i in failed), None) if failed else None
            table.append(
                IntegratorRow(
                    name, self.rgb[name], float(us), float(newton), float(substeps),
                    _largest(energy[rows]), _largest(orientation[rows]), failure,
                    *self._path.get(name, (COMPILED_KERNEL, len(rows))),
                )
            )  # fmt: skip
        return table


def cost_text(row: IntegratorRow) -> tuple[str, str]:
    """The cost column's cell for ``row`` (``"5.2"``; ``"130*"`` when not timed on a compiled kernel) and its
    tooltip, saying what was timed: ``"5.2 µs per body-step of euler's step, compiled kernel, 1 body a call"``."""
    if not np.isfinite(row.us):
        return "–", f"{row.name} has not stepped yet"
    figure = f"{row.us:.3g}"
    bodies = f"{row.bodies} body a call" if row.bodies == 1 else f"{row.bodies} bodies a call"
    tip = f"{figure} µs per body-step of {row.name}'s step, {row.path}, {bodies}"
    return (figure if row.path == COMPILED_KERNEL else figure + "*"), tip


def _medians(recent: np.ndarray, held: np.ndarray) -> np.ndarray:
    """(I, 3): the median of the first ``held`` (I,) of each row's ``recent`` (I, W, 3) values, as ``np.median``
    takes it (the middle one, or the mean of the middle two; NaN if one is NaN, or none is held), for every row at
    once: the table is remade every frame that stepped."""
    slots = np.arange(recent.shape[1])
    values = np.where((slots[None, :] < held[:, None])[..., None], recent, np.inf)  # the slots not held last
    ordered = np.sort(values, axis=1)
    rows = np.arange(len(held))
    low, high = ordered[rows, np.maximum(held - 1, 0) // 2], ordered[rows, np.minimum(held, len(slots) - 1) // 2]
    medians = np.where((held % 2 == 1)[:, None], low, (low + high) / 2.0)
    medians[np.isnan(values).any(axis=1) | (held == 0)[:, None]] = np.nan
    return medians


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
