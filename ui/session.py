"""A run in the window: the setup a person chose, the simulation it makes, its views, and what the plots measure.

A :class:`Setup` is everything that fixes a run (scene with edited initial states, an integrator per body, side
by side or not, ``h``, the gyroscopic term). A :class:`Session` is one run of it: it owns the
:class:`~scene.simulation.Simulation`, steps it in fixed steps when the window asks (the accumulator lives in the
app), and measures each frame's sample for the plots against the initial state and each body's closed-form motion
(:func:`reference_solution`: the torque-free one, or the heavy symmetric top's).

"All side by side" copies every body once per integrator into one scene, so all integrators step in lock step
from the same initial state, batched by the world in one call per integrator; each copy gets its own view.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

import numpy as np

from render.look import PALETTE_LINEAR
from scene.runner import orientation_error
from scene.scene_file import SceneSpec
from scene.simulation import DEFAULT_INTEGRATOR, Simulation, Snapshot
from sim.errors import NumericalError
from sim.exact import TorqueFreeSolution
from sim.inertia import principal_moments
from sim.integrators import INTEGRATORS
from sim.lagrange_top import LagrangeTopSolution, lagrange_top_from_body
from sim.quaternion import quat_conj, quat_rotate

__all__ = [
    "ERROR_FLOOR",
    "Setup",
    "Group",
    "Session",
    "StepReport",
    "Sample",
    "Reference",
    "reference_solution",
    "run_layout",
    "default_integrators",
    "check_scene_runs",
]

# Side by side, each integrator's copy has its colour in the compare preset (linear RGB), others the palette's.
INTEGRATOR_COLORS = {
    "euler": (0.85, 0.3, 0.25),
    "euler_body": (0.75, 0.25, 0.55),
    "magnus": (0.9, 0.65, 0.2),
    "implicit_midpoint": (0.35, 0.7, 0.35),
    "trapezoidal": (0.3, 0.55, 0.85),
    "object_trapezoidal": (0.6, 0.4, 0.8),
}
# The 3D view draws ω and L at most this many times longer than the longest initial ones.
DRAW_LIMIT = 100.0
# Relative errors below this are drawn at this value on the log plots (0 has no logarithm).
ERROR_FLOOR = 1e-17


@dataclass(frozen=True)
class Setup:
    """What fixes a run. ``integrators`` has one name per body of ``scene`` (``None`` for a kinematic body);
    ``side_by_side`` runs a copy of the scene per integrator of ``compared`` instead; ``h`` s; ``gyroscopic``
    the ω × L term."""

    scene: SceneSpec
    integrators: tuple[str | None, ...]
    side_by_side: bool = False
    compared: tuple[str, ...] = tuple(INTEGRATORS)
    h: float = 1.0 / 60.0
    gyroscopic: bool = True


@dataclass(frozen=True)
class Group:
    """The bodies one view shows: ``label`` (an integrator, or the scene's name) and indices into a snapshot."""

    label: str
    bodies: tuple[int, ...]


@dataclass(frozen=True)
class StepReport:
    """What a call to :meth:`Session.step` did: ``steps`` taken, the mean Newton iterations per step of each
    body (N,), wall milliseconds per step, and the error that stopped it, if any."""

    steps: int
    newton_per_step: np.ndarray
    ms_per_step: float
    error: str | None = None


@dataclass(frozen=True)
class Sample:
    """One frame's measurements of the plotted (dynamic) bodies, K of them: relative energy error (K,),
    |ΔL|/|L| (K,), the orientation error (K,) rad (the angle to the closed-form orientation of
    :func:`reference_solution`), ω in the invariable plane (K, 2) rad/s and the exact one, body ω in principal axes
    (K, 2) rad/s and the exact one. NaN where a measure does not apply (a body under torque has no invariable plane;
    a body without a closed form, no orientation error)."""

    t: float
    energy_error: np.ndarray
    momentum_error: np.ndarray
    orientation_error: np.ndarray
    herpolhode: np.ndarray
    herpolhode_exact: np.ndarray
    polhode: np.ndarray
    polhode_exact: np.ndarray


def default_integrators(scene: SceneSpec) -> tuple[str | None, ...]:
    """Each body's integrator as the scene gives it (the simulation's default when it names none)."""
    return tuple(None if body.kinematic else (body.integrator or DEFAULT_INTEGRATOR) for body in scene.bodies)


def check_scene_runs(scene: SceneSpec) -> None:
    """Start ``scene`` as the window would and take one step, on a throwaway session: a scene that loads but cannot
    start or fails on its first step raises here (:class:`NumericalError`), before a window opens or the panel
    replaces the running scene with it."""
    session = Session(Setup(scene, default_integrators(scene), h=scene.h))
    report = session.step(1)
    if report.error is not None:
        raise NumericalError(f"{scene.path}: cannot run this scene: {report.error}")
    session.sample()


def compared_integrators(setup: Setup) -> tuple[str, ...]:
    """The integrators a side-by-side run steps: ``setup.compared`` less ``exact`` where the scene has torque (the
    closed form refuses it, which would stop every copy at t = 0)."""
    if not setup.scene.has_torque:
        return setup.compared
    return tuple(name for name in setup.compared if name != "exact") or setup.compared


def run_layout(setup: Setup) -> tuple[SceneSpec, tuple[Group, ...]]:
    """The scene the simulation runs and the views it is shown in.

    Side by side: one copy of every body per integrator (renamed ``"name [integrator]"``, parents renamed alike),
    one view per copy. Otherwise the scene itself, with one view per integrator when every body is a root and
    they use more than one (the compare preset), else a single view.
    """
    scene = setup.scene
    if setup.side_by_side:
        bodies, groups = [], []
        for number, integrator in enumerate(compared_integrators(setup)):
            first = len(bodies)
            color = INTEGRATOR_COLORS.get(integrator, tuple(PALETTE_LINEAR[number % len(PALETTE_LINEAR)]))
            for body in scene.bodies:
                bodies.append(
                    dataclasses.replace(
                        body,
                        name=f"{body.name} [{integrator}]",
                        parent=None if body.parent is None else f"{body.parent} [{integrator}]",
                        integrator=None if body.kinematic else integrator,
                        color=color,
                    )
                )
            groups.append(Group(integrator, tuple(range(first, len(bodies)))))
        return dataclasses.replace(scene, bodies=tuple(bodies)), tuple(groups)
    bodies = tuple(
        dataclasses.replace(body, integrator=name) for body, name in zip(scene.bodies, setup.integrators, strict=True)
    )
    run_scene = dataclasses.replace(scene, bodies=bodies)
    used = list(dict.fromkeys(name for name in setup.integrators if name is not None))
    if len(used) > 1 and all(body.parent is None for body in bodies):
        labels = [name or "kinematic" for name in setup.integrators]
        groups = tuple(
            Group(label, tuple(i for i, other in enumerate(labels) if other == label))
            for label in dict.fromkeys(labels)
        )
        return run_scene, groups
    return run_scene, (Group(scene.name, tuple(range(len(bodies)))),)


class Session:
    """One run of a :class:`Setup`: ``simulation``, ``groups`` (views), the latest ``snapshot``, and the
    references the plots measure against. ``plotted`` are the indices of the dynamic bodies, whose names and
    integrators label the plot series."""

    def __init__(self, setup: Setup) -> None:
        self.setup = setup
        self.scene, self.groups = run_layout(setup)
        self.simulation = Simulation(self.scene, h=setup.h, gyroscopic=setup.gyroscopic)
        self.snapshot = self.simulation.snapshot()
        self.initial = self.snapshot
        bodies = self.scene.bodies
        self.plotted = np.array([i for i, body in enumerate(bodies) if not body.kinematic], dtype=np.intp)
        # Side by side with one body per copy, a series is best named by its integrator alone.
        single = setup.side_by_side and len(setup.scene.bodies) == 1
        self.names = [bodies[i].integrator if single else bodies[i].name for i in self.plotted]
        self._pivoted = np.array([bodies[i].pivot is not None for i in self.plotted])
        self._energy0 = self._energy()
        # The error is relative to |T₀| + |V₀|: E₀ itself for a torque-free body, and a scale that does not
        # depend on where a pivoted body's potential energy is zero.
        kinetic0 = self.initial.energy[self.plotted]
        self._energy_scale = np.maximum(np.abs(kinetic0) + np.abs(self._energy0 - kinetic0), 1e-300)
        self._reference_arrays()
        largest = [
            np.linalg.norm(v[self.plotted], axis=1).max(initial=0.0)
            for v in (self.initial.omega_world, self.initial.L_world)
        ]
        self._draw_limits = tuple(DRAW_LIMIT * max(value, 1e-3) for value in largest)

    def _reference_arrays(self) -> None:
        """Per plotted body, batched: the initial L (K, 3), the invariable plane's and the polhode's axes
        (K, 3, 2), and the closed forms, one per distinct initial state with the rows it serves: ``_solutions``
        torque-free (they give the exact curves too), ``_tops`` heavy symmetric tops (orientation only)."""
        references = [Reference.make(self.scene, self.initial, i) for i in self.plotted]
        self._L0 = self.initial.L_world[self.plotted]
        self._L0_norm = np.linalg.norm(self._L0, axis=1)
        self._plane_axes = np.array([r.plane_axes for r in references]).reshape(-1, 3, 2)
        self._polhode_axes = np.array([r.polhode_axes for r in references]).reshape(-1, 3, 2)
        self._torque_free = np.array([r.torque_free for r in references], dtype=bool)
        self._has_reference = np.array([r.solution is not None for r in references], dtype=bool)
        solutions: dict[int, tuple[TorqueFreeSolution | LagrangeTopSolution, list[int]]] = {}
        for row, reference in enumerate(references):
            if reference.solution is not None:
                solutions.setdefault(reference.key, (reference.solution, []))[1].append(row)
        grouped = [(solution, np.array(rows)) for solution, rows in solutions.values()]
        self._solutions = [(s, rows) for s, rows in grouped if isinstance(s, TorqueFreeSolution)]
        self._tops = [(s, rows) for s, rows in grouped if isinstance(s, LagrangeTopSolution)]
        self.exact_rows = [int(rows[0]) for _, rows in self._solutions]

    def drawable(self) -> Snapshot:
        """The latest snapshot for the 3D view, with ω and L at most ``DRAW_LIMIT`` times the largest initial ones
        (non-finite entries replaced): the last good state before a blow-up can hold vectors too long to draw."""
        snapshot = self.snapshot
        omega, L = (
            _clamped(vectors, limit)
            for vectors, limit in zip((snapshot.omega_world, snapshot.L_world), self._draw_limits, strict=True)
        )
        if omega is snapshot.omega_world and L is snapshot.L_world:
            return snapshot
        return dataclasses.replace(snapshot, omega_world=omega, L_world=L, energy=0.5 * np.sum(omega * L, axis=1))

    @property
    def t(self) -> float:
        """Simulation time, s."""
        return self.simulation.t

    @property
    def h(self) -> float:
        return self.simulation.h

    def set_gyroscopic(self, on: bool) -> None:
        """Switch the gyroscopic term from the next step on (the run goes on from where it is)."""
        self.simulation.world.gyroscopic = bool(on)

    def step(self, count: int, budget_s: float = float("inf")) -> StepReport:
        """Take up to ``count`` steps of ``h``, stopping early once ``budget_s`` wall seconds are spent. A
        numerical failure stops it too (a :class:`NumericalError`, or an arithmetic or linear-algebra error from
        the numerics): the state stays the last good one and the report carries the message (which names the body
        and why)."""
        newton = np.zeros(len(self.scene.bodies))
        steps, error = 0, None
        start = time.perf_counter()
        while steps < count:
            try:
                cost = self.simulation.step()
            except NumericalError as failure:
                error = str(failure)
                break
            except (ArithmeticError, np.linalg.LinAlgError) as failure:
                error = f"at t = {self.t:.6g} s: {type(failure).__name__}: {failure}"
                break
            newton += cost.newton_iterations
            steps += 1
            if time.perf_counter() - start > budget_s:
                break
        elapsed = time.perf_counter() - start
        if steps:
            self.snapshot = self.simulation.snapshot()
        per_step = newton[self.plotted] / max(steps, 1)
        return StepReport(steps, per_step, 1e3 * elapsed / steps if steps else float("nan"), error)

    def _energy(self) -> np.ndarray:
        """(K,) J: kinetic energy, plus the potential energy for pivoted bodies (whose total is conserved)."""
        kinetic = self.snapshot.energy[self.plotted]
        if not self._pivoted.any():
            return kinetic
        potential = self.simulation.potential_energy()[self.plotted]
        return kinetic + np.where(self._pivoted, potential, 0.0)

    def sample(self) -> Sample:
        """This instant's measurements (see :class:`Sample`). The last good state before a blow-up is finite but
        can be huge: a measure of it that overflows is shown as the largest double, never as an infinity (and
        without numpy's warnings, since the run's report says what happened)."""
        with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
            return self._measure()

    def _measure(self) -> Sample:
        snapshot, t, rows = self.snapshot, self.t, self.plotted
        count = len(rows)
        energy_error = np.maximum(np.abs(self._energy() - self._energy0) / self._energy_scale, ERROR_FLOOR)
        free = self._torque_free
        drift = np.linalg.norm(snapshot.L_world[rows] - self._L0, axis=1) / self._L0_norm
        # NaN (L₀ = 0) counts as no drift: then the floor.
        momentum_error = np.where(free, np.fmax(drift, ERROR_FLOOR), np.nan)
        # The exact motion of each distinct initial state, at t; NaN for the bodies under a torque. A heavy
        # symmetric top's gives its orientation only (its ω stays NaN: no exact curves under a torque).
        q_exact, omega_body_exact = np.full((count, 4), np.nan), np.full((count, 3), np.nan)
        for solution, served in self._solutions:
            q_exact[served], omega_body_exact[served] = solution.orientation_and_omega_body(np.array(t))
        for top, served in self._tops:
            q_exact[served] = top.orientation(np.array(t))
        angle = orientation_error(snapshot.q[rows], q_exact)
        orientation = np.where(self._has_reference, np.fmax(angle, ERROR_FLOOR), np.nan)
        # One rotation for both: the bodies' ω to the body frame, the exact Ω to the world frame.
        omega_world = snapshot.omega_world[rows]
        rotated = quat_rotate(
            np.concatenate([quat_conj(snapshot.q[rows]), q_exact]), np.concatenate([omega_world, omega_body_exact])
        )
        herpolhode, herpolhode_exact = _in_axes(self._plane_axes, np.stack([omega_world, rotated[count:]]))
        polhode, polhode_exact = _in_axes(self._polhode_axes, np.stack([rotated[:count], omega_body_exact]))
        herpolhode = np.where(free[:, None], herpolhode, np.nan)
        measures = (energy_error, momentum_error, orientation, herpolhode, herpolhode_exact, polhode, polhode_exact)
        return Sample(t, *(_finite_or_nan(values) for values in measures))


def _finite_or_nan(values: np.ndarray) -> np.ndarray:
    """``values`` with infinities as ± the largest double; NaN (a measure that does not apply) is kept."""
    largest = np.finfo(float).max
    return np.clip(values, -largest, largest)


def _clamped(vectors: np.ndarray, limit: float) -> np.ndarray:
    """``vectors`` (N, 3) with every norm at most ``limit`` (NaN taken as 0, infinities as huge); the same array
    when all are within it."""
    with np.errstate(over="ignore", invalid="ignore"):
        if np.all(np.linalg.norm(vectors, axis=1) <= limit):
            return vectors
    finite = np.nan_to_num(vectors, nan=0.0, posinf=np.finfo(float).max, neginf=-np.finfo(float).max)
    # |v| = m |v/m| with m the largest component: no overflow in the squares.
    largest = np.maximum(np.abs(finite).max(axis=1), np.finfo(float).tiny)
    norms = largest * np.linalg.norm(finite / largest[:, None], axis=1)
    return finite * np.minimum(1.0, limit / np.maximum(norms, np.finfo(float).tiny))[:, None]


def _in_axes(axes: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """(S, K, 2): each of ``vectors`` (S, K, 3) along its body's two ``axes`` (K, 3, 2)."""
    return np.einsum("kij,ski->skj", axes, vectors)


def reference_solution(
    scene: SceneSpec, initial: Snapshot, index: int
) -> TorqueFreeSolution | LagrangeTopSolution | None:
    """The closed-form motion the plots measure body ``index`` of ``scene`` against, from its state in ``initial``
    (the one choice of it, as ``run``'s table makes it in scene/runner.py): a torque-free body's exact solution
    (sim/exact.py), a heavy symmetric top's about a fixed pivot (sim/lagrange_top.py), else ``None`` (a kinematic
    body, a torque without a closed form, a state the closed form cannot take)."""
    body = scene.bodies[index]
    q0, omega0 = initial.q[index], initial.omega_world[index]
    if body.kinematic:
        return None
    if not scene.under_torque(body):
        try:
            return TorqueFreeSolution.from_state(body.inertia_body, q0, omega0)
        except (ArithmeticError, ValueError):  # a state too extreme to solve (overflow): no reference
            return None
    if body.parent is not None:  # a pinned child follows its parent: no fixed pivot
        return None
    # body.pivot is the pivot from the centre of mass (body frame); inertia_body is already about the pivot.
    with np.errstate(all="ignore"):
        return lagrange_top_from_body(body.inertia_body, body.mass, -body.pivot, scene.gravity, q0, omega0)


@dataclass(frozen=True)
class Reference:
    """One plotted body's references: its closed-form ``solution`` (:func:`reference_solution`; ``None`` when it
    has none), the invariable plane's axes (3, 2) (columns e₁, e₂ ⊥ L₀, e₁ along ω₀'s part in the plane) and the
    polhode's axes (3, 2) in the body frame (the intermediate principal axis, then the extreme axis the polhode
    does not circle). ``key`` identifies equal initial states (and, for a heavy top, equal tops under equal
    gravity), which share one solution."""

    solution: TorqueFreeSolution | LagrangeTopSolution | None
    plane_axes: np.ndarray
    polhode_axes: np.ndarray
    key: int

    @property
    def torque_free(self) -> bool:
        """Whether ``solution`` is the exact torque-free motion (which also gives the exact herpolhode and polhode)."""
        return isinstance(self.solution, TorqueFreeSolution)

    @classmethod
    def make(cls, scene: SceneSpec, initial: Snapshot, index: int) -> Reference:
        body = scene.bodies[index]
        q0, omega0, L0 = initial.q[index], initial.omega_world[index], initial.L_world[index]
        solution = reference_solution(scene, initial, index)
        state = (body.inertia_body.tobytes(), q0.tobytes(), omega0.tobytes())
        if isinstance(solution, LagrangeTopSolution):
            state += (float(body.mass), body.pivot.tobytes(), np.asarray(scene.gravity, dtype=float).tobytes())
        return cls(solution, _plane_axes(L0, omega0), _polhode_axes(body.inertia_body, q0, omega0), hash(state))


def _plane_axes(L_world: np.ndarray, omega_world: np.ndarray) -> np.ndarray:
    """(3, 2): an orthonormal basis of the plane ⊥ ``L_world``, the first axis along ``omega_world``'s part in it
    (any perpendicular when ω ∥ L)."""
    norm = np.linalg.norm(L_world)
    normal = L_world / norm if norm > 0.0 else np.array([0.0, 0.0, 1.0])
    across = omega_world - (omega_world @ normal) * normal
    if np.linalg.norm(across) < 1e-9 * max(np.linalg.norm(omega_world), 1e-300):
        across = np.cross(normal, [1.0, 0.0, 0.0] if abs(normal[0]) < 0.9 else [0.0, 1.0, 0.0])
    first = across / np.linalg.norm(across)
    return np.column_stack([first, np.cross(normal, first)])


def _polhode_axes(inertia_body: np.ndarray, q0: np.ndarray, omega_world0: np.ndarray) -> np.ndarray:
    """(3, 2) body-frame axes to show the polhode on: the intermediate principal axis and the extreme axis it does
    not circle. The polhode circles the major axis when |L|² > 2E·I₂, else the minor one (Landau & Lifshitz §37);
    seen along the circled axis it is a closed loop."""
    moments, axes = principal_moments(inertia_body)
    omega_body = quat_rotate(quat_conj(q0), omega_world0)
    L_body = inertia_body @ omega_body
    circles_major = L_body @ L_body > (omega_body @ L_body) * moments[1]
    other = 0 if circles_major else 2
    return axes[:, [1, other]]
