"""spinlab from Python: the command line's runs as numpy arrays, for a lesson, homework or an engine's test.

``import spinlab`` and then::

    run = spinlab.simulate("t_handle", integrator="rkmk4", duration=5.0)
    run.errors.orientation[-1]        # rad, against the exact solution, per body
    comparison = spinlab.compare("t_handle", ["implicit_midpoint", "euler"], duration=5.0)
    comparison.plot()                 # matplotlib: energy, |ΔL|/|L|, orientation error, herpolhode

The runs are the command line's (``run``, ``record``) and the window's: the same run model
(scene/model/run_model.py), the same measures, the same integrators. :func:`simulate` on a scene file gives the numbers
``run --trace`` writes, byte for byte (:meth:`Run.trace`); :func:`compare` runs the integrators in lock step as the
window's comparison does. A mistake in what is passed raises :class:`InputError` with the message the command line
prints (what, the key, the value).

>>> run = simulate("t_handle", integrator="rkmk4", h=0.01, duration=0.5)
>>> run.q.shape, run.names
((51, 1, 4), ('handle',))
>>> bool(run.errors.orientation[-1, 0] < 1e-6)
True
>>> simulate("t_handle", integrator="leapfrog")
Traceback (most recent call last):
    ...
spinlab.sim.errors.InputError: integrator: unknown integrator 'leapfrog' (choose from ...)
"""

from __future__ import annotations

__docformat__ = "restructuredtext"  # pdoc: the ``literals`` and :class:`roles` of the docstrings

import argparse
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from spinlab.runs import Comparison, Errors, Exact, Failure, Run, RunSettings, runs_of
from spinlab.scenes import Body, Change, Kick, Scene, SceneLike, scene_spec
from spinlab.sim.errors import InputError
from spinlab.videos import Video

if TYPE_CHECKING:
    from spinlab.scene.model.run_model import Session

__all__ = [
    "simulate",
    "compare",
    "integrators",
    "IntegratorInfo",
    "Scene",
    "Body",
    "Kick",
    "Change",
    "Run",
    "Comparison",
    "Errors",
    "Exact",
    "Failure",
    "RunSettings",
    "Video",
    "InputError",
    "DEFAULT_INTEGRATOR",
]

DEFAULT_INTEGRATOR = "implicit_midpoint"
"""The integrator :func:`simulate` uses unless told (the simulation's default for a body that names none)."""


def simulate(
    scene: SceneLike,
    integrator: str | None = DEFAULT_INTEGRATOR,
    h: float | None = None,
    duration: float = 10.0,
    gyroscopic: bool = True,
    kicks: Sequence[Kick | Mapping[str, Any]] = (),
    changes: Sequence[Change | Mapping[str, Any]] = (),
) -> Run:
    """Step ``scene`` for ``duration`` s in steps of ``h`` s (the scene's ``dt`` by default) with ``integrator``
    for every dynamic body (``None``: each body's own), as ``run SCENE --integrator NAME --dt H --duration T``
    does, and return every step (:class:`Run`).

    ``scene``: a preset's name (``"t_handle"``), a path to a ``.toml`` scene file or a :class:`Scene`;
    ``gyroscopic`` False drops the ω × L term (``--no-gyroscopic``); ``kicks`` and ``changes`` are added to the
    scene's own (:class:`Kick`, :class:`Change`, or their scene-file tables as dicts). A numerical failure does not
    raise: the run ends at the last good step and says why in ``run.failure``.

    >>> run = simulate("t_handle", duration=1.0, gyroscopic=False)
    >>> int(run.flips[-1, 0])
    0
    """
    from spinlab.scene.model.run_model import Session, Setup, scene_integrators

    name = None if integrator is None else _integrator(integrator, families=False)
    spec = scene_spec(scene, kicks, changes)
    step, steps = _steps(spec.h if h is None else h, duration)
    settings = RunSettings(spec, name, step, duration, bool(gyroscopic))
    session = Session(Setup(spec, scene_integrators(spec, name), h=step, gyroscopic=bool(gyroscopic)))
    return _stepped(session, steps, settings, side_by_side=False)[0]


def compare(
    scene: SceneLike,
    integrators: Sequence[str] | str = "all",
    h: float | None = None,
    duration: float = 10.0,
    gyroscopic: bool = True,
    kicks: Sequence[Kick | Mapping[str, Any]] = (),
    changes: Sequence[Change | Mapping[str, Any]] = (),
) -> Comparison:
    """Run ``scene`` once per integrator of ``integrators``, side by side and in lock step, as the window's
    comparison and ``run --integrator all`` do: a list of names, ``"all"`` (the maths' methods), ``"engines"`` (the
    game and robotics engines' steps, docs/engines.md) or ``"axes"``. An integrator that refuses the scene's torque
    is left out (:attr:`Comparison.left_out`); one that fails or diverges is frozen at its last good step and named
    (:attr:`Comparison.failures`), the others go on exactly as without it. The other arguments are
    :func:`simulate`'s.

    >>> comparison = compare("t_handle", ["rkmk4", "euler"], h=0.01, duration=1.0)
    >>> list(comparison), comparison.failures
    (['rkmk4', 'euler'], {})
    """
    from spinlab.scene.model.run_model import Session, Setup, compared_integrators, default_integrators
    from spinlab.sim.integrators import FAMILIES

    if isinstance(integrators, str):
        names = FAMILIES.get(_integrator(integrators, families=True)) or (integrators,)
    else:
        names = tuple(dict.fromkeys(_integrator(name, families=False) for name in integrators))
        if not names:
            raise InputError("name at least one integrator", where="integrators", value=list(integrators))
    spec = scene_spec(scene, kicks, changes)
    step, steps = _steps(spec.h if h is None else h, duration)
    setup = Setup(spec, default_integrators(spec), True, tuple(names), step, bool(gyroscopic))
    compared = compared_integrators(setup)
    settings = RunSettings(spec, None, step, duration, bool(gyroscopic))
    runs = _stepped(Session(setup), steps, settings, side_by_side=True)
    return Comparison({run.integrator: run for run in runs}, tuple(n for n in names if n not in compared))


@dataclass(frozen=True)
class IntegratorInfo:
    """One integrator and what it claims (sim/integrators/claims.py, each claim measured by the tests): ``order``
    of convergence (``None``: exact to rounding), ``conserves_momentum`` (L kept to rounding, torque-free),
    ``accepts_torque``, ``implicit`` (Newton), ``relative_cost`` (× euler's), ``family`` (``"methods"``,
    ``"engines"``, …) and ``description``, the one line ``--help`` and the window's panel show."""

    name: str
    order: int | None
    conserves_momentum: bool
    accepts_torque: bool
    implicit: bool
    relative_cost: float | None
    family: str
    description: str


def integrators() -> list[IntegratorInfo]:
    """Every integrator, in the command line's order, with its claims.

    >>> [info.name for info in integrators()][:3]
    ['euler', 'euler_body', 'magnus']
    >>> next(info for info in integrators() if info.name == "rkmk4").order
    4
    """
    from spinlab.sim.integrators import CLAIMS, FAMILIES
    from spinlab.sim.integrators.claims import describe

    families = {name: family for family, names in FAMILIES.items() if family != "all" for name in names}
    methods = set(FAMILIES["all"])
    return [
        IntegratorInfo(
            name,
            c.order,
            c.conserves_momentum,
            c.accepts_torque,
            c.implicit,
            c.relative_cost,
            "methods" if name in methods else families.get(name, ""),
            describe(c),
        )
        for name, c in CLAIMS.items()
    ]


def _stepped(session: Session, steps: int, settings: RunSettings, *, side_by_side: bool) -> list[Run]:
    """Take ``steps`` steps of ``session`` on the kernels ``run`` takes them on (scene/model/runner.py), keeping
    every step's state, and read its runs. A run keeps as many rows as ``run --trace`` writes, and is refused past
    the same limit (scene/files/limits.py), before any work."""
    from spinlab.scene.files.limits import MAX_TRACE_ROWS, check_count
    from spinlab.scene.model.runner import check_finite, run_kernels
    from spinlab.sim.errors import NumericalError

    simulation = session.simulation
    rows = (steps + 1) * len(simulation.names)
    check_count(rows, MAX_TRACE_ROWS, "states kept, (steps + 1) × bodies", where="duration")
    initial = session.latest.sample  # the initial state measured first: the flip counts take the steps in order
    snapshots = [session.snapshot]
    with run_kernels(session, steps):
        report = session.step(steps, each=lambda _: snapshots.append(simulation.snapshot()))
    error = report.error
    if error is None and not side_by_side:
        try:
            check_finite(simulation, snapshots[-1])
        except NumericalError as failure:  # overflowed: reported as run reports it, the state kept as it is
            error = str(failure)
    return runs_of(session, initial, snapshots, settings, error, side_by_side)


def _integrator(name: object, *, families: bool) -> str:
    """``name`` checked as ``--integrator`` checks it (commands/arguments.py), or :class:`InputError` with its
    message; a family (``"all"``, ``"engines"``) only where ``families``."""
    from spinlab.commands.arguments import integrator_name
    from spinlab.sim.integrators import FAMILIES

    where = "integrators" if families else "integrator"
    if not isinstance(name, str):
        raise InputError("must be an integrator's name", where=where, value=name)
    _checked(integrator_name, name, where)
    if name in FAMILIES and not families:
        raise InputError(f"'{name}' names several integrators: use spinlab.compare", where="integrator", value=name)
    return name


def _steps(h: object, duration: object) -> tuple[float, int]:
    """``h`` and ``duration`` checked as ``--dt`` and ``--duration`` are, and the steps of ``h`` in ``duration``
    (scene/model/runner.py's ``step_count``: too many is refused before any work)."""
    from spinlab.commands.arguments import positive_float
    from spinlab.scene.model.runner import step_count

    step = _checked(positive_float, h, "h")
    length = _checked(positive_float, duration, "duration")
    return step, step_count(length, step, where="duration")


def _checked(check: Callable[[str], Any], value: object, where: str) -> Any:
    """``check`` (an argparse type of commands/arguments.py) applied to ``value`` as the command line types it, its
    refusal an :class:`InputError` naming ``where`` with the command line's message."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise InputError("must be a number", where=where, value=value)
    try:
        return check(value if isinstance(value, str) else repr(value))
    except argparse.ArgumentTypeError as error:
        raise InputError(str(error), where=where) from None
