"""What the Python API's runs hold (spinlab/api.py): a :class:`Run`, every step of one integrator's run as numpy
arrays, and a :class:`Comparison`, several integrators' runs in lock step. Both are read from the run model the
window, ``run`` and ``record`` share (scene/model/run_model.py's ``Session``) and its measures
(scene/model/measures.py, scene/model/samples.py); nothing here computes a measure of its own.

Shapes: ``n`` steps (the initial state included), ``bodies`` in the scene's order (one integrator's copies in a
comparison). World frame, SI units; quaternions ``(w, x, y, z)`` body → world.
"""

from __future__ import annotations

__docformat__ = "restructuredtext"  # pdoc: the ``literals`` and :class:`roles` of the docstrings

import dataclasses
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from spinlab.scene.files.scene_file import SceneSpec
    from spinlab.scene.model.run_model import Session
    from spinlab.scene.model.samples import Sample
    from spinlab.scene.running.simulation import Snapshot
    from spinlab.videos import Video

__all__ = ["Run", "Exact", "Errors", "Failure", "Comparison", "RunSettings"]


@dataclass(frozen=True)
class Failure:
    """What stopped a run, or froze an integrator's copies in a comparison: at ``t`` s (the last good state, which
    the run keeps), ``reason`` in the integrator's words, ``diverged`` when it was the comparison's |ΔE|/E threshold
    rather than a numerical failure."""

    t: float
    reason: str
    diverged: bool = False

    def __str__(self) -> str:
        return f"{'diverged' if self.diverged else 'failed'} at t = {self.t:.6g} s: {self.reason}"


@dataclass(frozen=True)
class Exact:
    """The closed-form reference (scene/model/measures.py: the torque-free motion, or a heavy symmetric top's) at
    the run's steps: ``q`` (n, bodies, 4), ``omega_body`` (n, bodies, 3) rad/s (NaN for a heavy top),
    ``omega_world`` (n, bodies, 3) rad/s, ``herpolhode`` (n, bodies, 2) rad/s (ω in the invariable plane) and
    ``flips`` (n, bodies), the closed form's running flip count. NaN for a body without one."""

    q: np.ndarray
    omega_body: np.ndarray
    omega_world: np.ndarray
    herpolhode: np.ndarray
    flips: np.ndarray


@dataclass(frozen=True)
class Errors:
    """The measures of scene/model/measures.py at every step, (n, bodies), as magnitudes: ``energy`` the relative
    energy error |ΔE|/E (potential energy counted for a top under gravity), ``momentum`` |ΔL|/|L| (torque-free
    bodies), ``orientation`` the angle in rad from the reference's orientation to the body's. NaN where a measure
    does not apply (and after a comparison's copy was frozen). After a kick, they are measured from the state just
    after it."""

    energy: np.ndarray
    momentum: np.ndarray
    orientation: np.ndarray


@dataclass(frozen=True)
class RunSettings:
    """What a run was asked for: its scene (validated), ``integrator`` (``None``: each body's own), ``h`` s,
    ``duration`` s, ``gyroscopic``."""

    scene: SceneSpec
    integrator: str | None
    h: float
    duration: float
    gyroscopic: bool


@dataclass(frozen=True, eq=False)
class Run:
    """One integrator's run, every step: ``t`` (n,) s; ``names`` (bodies,); ``q`` (n, bodies, 4); ``omega_body``
    and ``omega_world`` (n, bodies, 3) rad/s; ``energy`` (n, bodies) J, the rotational kinetic energy ½ ω·L (the
    trace's column); ``momentum`` (n, bodies, 3) kg m²/s, world angular momentum (about the pivot for a pivoted
    body); ``errors`` (:class:`Errors`); ``exact`` (:class:`Exact`, ``None`` when no body has a closed form);
    ``flips`` (n, bodies) the running flip count (NaN where there is none to count); ``herpolhode`` (n, bodies, 2)
    rad/s; ``failure`` ``None``, or what stopped it (the arrays end at the last good step)."""

    integrator: str
    t: np.ndarray
    names: tuple[str, ...]
    q: np.ndarray
    omega_body: np.ndarray
    omega_world: np.ndarray
    energy: np.ndarray
    momentum: np.ndarray
    errors: Errors
    exact: Exact | None
    flips: np.ndarray
    herpolhode: np.ndarray
    failure: Failure | None
    settings: RunSettings

    def __repr__(self) -> str:
        end = "" if self.failure is None else f", {self.failure}"
        return (
            f"<Run {self.settings.scene.name} ({self.integrator}): {len(self.t)} steps, {len(self.names)} bodies{end}>"
        )

    def trace(self, path: str | os.PathLike[str]) -> Path:
        """Write the run as a trace file (design.md §Trace files), the CSV ``run --trace`` writes, byte for byte for
        the same scene, integrator, ``h``, duration and gyroscopic term: one row per body per step, written
        atomically. Raises :class:`~spinlab.api.InputError` for a path that cannot be written."""
        from spinlab.commands.arguments import check_writable
        from spinlab.scene.files.atomic_file import refuse_overwriting
        from spinlab.scene.files.trace import TraceWriter

        target = Path(path)
        check_writable(target, "path")
        refuse_overwriting(target, self.settings.scene.path, "path")
        with TraceWriter(target) as writer:
            for k, t in enumerate(self.t.tolist()):
                writer.write(t, self.names, self.q[k], self.omega_world[k], self.momentum[k], self.energy[k])
        return target

    def to_pandas(self) -> Any:
        """A ``pandas.DataFrame``, one row per body per step (the trace's columns, then the body frame ω, the
        errors and the flip count); needs pandas (``pip install 'spinlab[notebook]'``)."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("Run.to_pandas needs pandas: pip install 'spinlab[notebook]'") from None
        n, count = len(self.t), len(self.names)
        columns: dict[str, Any] = {
            "t": np.repeat(self.t, count),
            "body": np.tile(np.array(self.names, dtype=object), n),
        }
        for prefix, values in (("q", self.q), ("w", self.omega_world), ("L", self.momentum)):
            axes = "wxyz" if prefix == "q" else "xyz"
            columns.update((prefix + axis, values[..., i].reshape(-1)) for i, axis in enumerate(axes))
        columns["energy"] = self.energy.reshape(-1)
        columns.update((f"w_body_{axis}", self.omega_body[..., i].reshape(-1)) for i, axis in enumerate("xyz"))
        columns["energy_error"] = self.errors.energy.reshape(-1)
        columns["momentum_error"] = self.errors.momentum.reshape(-1)
        columns["orientation_error"] = self.errors.orientation.reshape(-1)
        columns["flips"] = self.flips.reshape(-1)
        return pd.DataFrame(columns)

    def plot(self, what: Sequence[str] | None = None, *, body: int | str = 0) -> Figure:
        """A matplotlib figure of ``body``'s energy error, |ΔL|/|L|, orientation error and herpolhode (``what``:
        some of ``"energy"``, ``"momentum"``, ``"orientation"``, ``"herpolhode"``), the window's plots and
        palette; needs matplotlib (spinlab/figures.py)."""
        from spinlab.figures import plot_runs

        return plot_runs({self.integrator: self}, what, body=body)

    def video(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        size: tuple[int, int] = (640, 360),
        fps: float = 30.0,
        ghost: bool = True,
        poinsot: bool = False,
    ) -> Video:
        """The run rendered as ``record`` renders it (render/video_file.py, offscreen) to ``path`` (MP4; by default a
        temporary file): ``size`` pixels, ``fps``, the exact ghost unless ``ghost`` is False, the Poinsot view with
        ``poinsot``. In Jupyter the returned :class:`~spinlab.videos.Video` plays inline."""
        from spinlab.videos import record_video

        settings = self.settings
        return record_video(settings, path, size=size, fps=fps, ghost=ghost, poinsot=poinsot)


class Comparison(Mapping[str, Run]):
    """Several integrators' runs of one scene in lock step, as the window's comparison runs them (one copy of the
    scene per integrator, the same kicks at the same steps): a mapping of integrator name to :class:`Run`. A copy
    that fails or diverges is frozen at its last good step (its errors NaN from then) and named in
    :attr:`failures`; the others go on exactly as without it."""

    def __init__(self, runs: dict[str, Run], left_out: tuple[str, ...] = ()) -> None:
        self._runs = runs
        self.left_out = left_out
        """The integrators asked for but not run: those that refuse the scene's torque."""

    def __getitem__(self, name: str) -> Run:
        return self._runs[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._runs)

    def __len__(self) -> int:
        return len(self._runs)

    def __repr__(self) -> str:
        return f"<Comparison of {', '.join(self._runs)}>"

    @property
    def failures(self) -> dict[str, Failure]:
        """The integrators whose copies were frozen, and why."""
        return {name: run.failure for name, run in self._runs.items() if run.failure is not None}

    def plot(self, what: Sequence[str] | None = None, *, body: int | str = 0) -> Figure:
        """:meth:`Run.plot` with one line per integrator, each in its colour (the window's palette)."""
        from spinlab.figures import plot_runs

        return plot_runs(dict(self._runs), what, body=body)


def runs_of(
    session: Session,
    initial: Sample,
    snapshots: list[Snapshot],
    settings: RunSettings,
    error: str | None,
    side_by_side: bool,
) -> list[Run]:
    """The runs of ``session``: one per integrator's copy ``side_by_side``, else one of every body. ``snapshots``
    are the initial state and every step's, taken as it was stepped; ``initial`` the initial state's sample,
    followed by the session's latest (``Session.step`` without ``last_only``). ``error``: the message that stopped
    the run, if any."""
    from spinlab.scene.model.samples import concatenated
    from spinlab.sim.quaternion import quat_conj, quat_rotate

    sample = concatenated([initial, session.latest.sample]) if len(snapshots) > 1 else initial
    t = np.array([s.t for s in snapshots])
    q = np.stack([s.q for s in snapshots])
    omega_world = np.stack([s.omega_world for s in snapshots])
    momentum = np.stack([s.L_world for s in snapshots])
    energy = np.stack([s.energy for s in snapshots])
    count = q.shape[1]

    def wide(values: np.ndarray | None, shape: tuple[int, ...] = ()) -> np.ndarray:
        """(n, bodies, ...) of a sample's (n, K, ...) field, NaN for the bodies not plotted (kinematic ones)."""
        out = np.full((len(t), count, *shape), np.nan)
        if values is not None:
            out[:, session.plotted] = values
        return out

    q_exact, omega_exact = wide(sample.q_exact, (4,)), wide(sample.omega_body_exact, (3,))
    with np.errstate(over="ignore", invalid="ignore"):
        omega_body = quat_rotate(quat_conj(q), omega_world)
        exact_world = quat_rotate(q_exact, omega_exact)
    fields = {
        "q": q, "omega_body": omega_body, "omega_world": omega_world, "energy": energy, "momentum": momentum,
        "energy_error": wide(sample.energy_error), "momentum_error": wide(sample.momentum_error),
        "orientation_error": wide(sample.orientation_error), "flips": wide(sample.flips),
        "herpolhode": wide(sample.herpolhode, (2,)), "q_exact": q_exact, "omega_body_exact": omega_exact,
        "omega_world_exact": exact_world, "herpolhode_exact": wide(sample.herpolhode_exact, (2,)),
        "flips_exact": wide(sample.flips_exact),
    }  # fmt: skip
    names = session.simulation.names
    if side_by_side:
        groups = [(group.label, group.bodies, session.failures.get(number)) for number, group in
                  enumerate(session.groups)]  # fmt: skip
    else:
        groups = [(settings.integrator or "scene integrators", tuple(range(count)), None)]
    runs = []
    for label, members, frozen in groups:
        bodies = np.array(members, dtype=np.intp)
        mine = {key: values[:, bodies] for key, values in fields.items()}
        failure = None if frozen is None else Failure(frozen.t, frozen.reason, frozen.diverged)
        if error is not None and failure is None:
            failure = Failure(float(t[-1]), error)
        exact = Exact(mine["q_exact"], mine["omega_body_exact"], mine["omega_world_exact"], mine["herpolhode_exact"],
                      mine["flips_exact"])  # fmt: skip
        errors = Errors(mine["energy_error"], mine["momentum_error"], mine["orientation_error"])
        suffix = f" [{label}]" if side_by_side else ""
        run_settings = dataclasses.replace(settings, integrator=label) if side_by_side else settings
        run_names = tuple(names[i].removesuffix(suffix) for i in members)
        runs.append(
            Run(
                label,
                t,
                run_names,
                mine["q"],
                mine["omega_body"],
                mine["omega_world"],
                mine["energy"],
                mine["momentum"],
                errors,
                exact if np.isfinite(exact.q).any() else None,
                mine["flips"],
                mine["herpolhode"],
                failure,
                run_settings,
            )
        )
    return runs
