"""Newton's method on each implicit method's own residual: its Jacobian, its curvature bound, its quadratic
convergence, the stopping test built on the bound, and the sub-stepping of a step Newton cannot take.

Each of implicit_midpoint, trapezoidal and object_trapezoidal is tested on its own equation, with its own bound
(``residual_curvature`` in its module), so a wrong Jacobian or a wrong bound in one of them fails that method's
tests. References: dual numbers and central differences for the Jacobians, central differences of the Jacobian
for the second derivative, Newton's own residuals for the convergence rate, seed 003's momentum grid for the
sub-stepping.
"""

import numpy as np
import pytest

from spinlab.sim import dual
from spinlab.sim.errors import NumericalError
from spinlab.sim.integrators import INTEGRATORS, implicit_midpoint, object_trapezoidal, trapezoidal
from spinlab.sim.integrators.newton import NewtonOptions, newton_curvature, newton_solve
from spinlab.sim.integrators.state import BodyParams, BodyState, energy, matvec
from spinlab.sim.quaternion import quat_identity
from tests.sim.test_integrators import T_HANDLE_MOMENTS, T_HANDLE_OMEGA_BODY, _random_bodies, _states_close

MODULES = {"implicit_midpoint": implicit_midpoint, "trapezoidal": trapezoidal, "object_trapezoidal": object_trapezoidal}
ATOL_JACOBIAN = 1e-12
RTOL_BACKENDS = 1e-14
# Newton's residual (rad) that rounding alone leaves: |v| ≲ 3 rad and each residual sums terms of that size.
RESIDUAL_FLOOR = 1e-14
# The step (rad) of the central difference of the Jacobian that measures the second derivative, and its relative
# error allowance (O(step²) truncation plus rounding of ~1e-16/step).
STEP_SECOND_DERIVATIVE = 1e-4
RTOL_SECOND_DERIVATIVE = 1e-6
UNLIMITED_STEP_ANGLE = NewtonOptions(max_step_angle=np.inf)  # Newton may converge to any root (seed 003's maps)


def _bodies(name: str, n_bodies: int, seed: int, h_range: tuple[float, float]):
    """Random bodies with torques (:func:`_random_bodies`), per-body step lengths ``h`` (s) uniform in
    ``h_range``, and the method's start value and residual arguments for them: ``(state, params, h, v0, args)``."""
    state, params = _random_bodies(n_bodies, seed)
    h = np.random.default_rng(seed).uniform(*h_range, n_bodies)
    v0, args = MODULES[name].METHOD.setup(state, params, h)
    return state, params, h, v0, args


def _rotation_vectors(n_bodies: int, seed: int) -> np.ndarray:
    """Random rotation vectors (n, 3) of lengths 1e-9 … 3 rad, log-uniform."""
    rng = np.random.default_rng(seed)
    v = rng.normal(size=(n_bodies, 3))
    return v * (10.0 ** rng.uniform(-9.0, np.log10(3.0), n_bodies) / np.linalg.norm(v, axis=-1))[:, None]


@pytest.mark.parametrize("name", MODULES)
def test_hand_written_newton_jacobians_equal_dual_numbers_and_finite_differences(name):
    module = MODULES[name]
    *_, args = _bodies(name, 40, seed=9, h_range=(0.05, 0.5))
    v = _rotation_vectors(40, seed=10)
    J_hand = module.residual_jacobian(v, *args)
    J_dual, F = dual.jacobian(lambda x: module.residual(x, *(a[:, None] for a in args)), v)
    np.testing.assert_allclose(F, module.residual(v, *args), rtol=0.0, atol=1e-15)
    np.testing.assert_allclose(J_hand, J_dual, rtol=0.0, atol=ATOL_JACOBIAN)
    step = 1e-6
    for j in range(3):
        e = np.zeros(3)
        e[j] = step
        column = (module.residual(v + e, *args) - module.residual(v - e, *args)) / (2.0 * step)
        np.testing.assert_allclose(J_hand[..., j], column, rtol=0.0, atol=1e-8)


@pytest.mark.parametrize("name", MODULES)
def test_newton_with_dual_number_jacobians_takes_the_same_steps(name):
    state, params = _random_bodies(8, seed=10)
    hand, hand_cost = INTEGRATORS[name](state, params, 0.1, backend="numpy", jacobian="analytic")
    automatic, automatic_cost = INTEGRATORS[name](state, params, 0.1, backend="numpy", jacobian="dual")
    _states_close(hand, automatic, RTOL_BACKENDS)
    np.testing.assert_array_equal(hand_cost.newton_iterations, automatic_cost.newton_iterations)


@pytest.mark.parametrize("name", MODULES)
def test_each_methods_curvature_bound_holds_and_the_shared_bound_covers_it(name):
    """``½ |F''(v)[d, d]| ≤ residual_curvature`` at random ``v`` and unit ``d`` (measured), and the one bound the
    solver and the kernel use, :func:`newton_curvature`, is at least the method's own."""
    module = MODULES[name]
    state, params, h, _, args = _bodies(name, 2000, seed=31, h_range=(0.05, 0.5))
    v = _rotation_vectors(2000, seed=32)
    d = np.random.default_rng(33).normal(size=(2000, 3))
    d /= np.linalg.norm(d, axis=-1, keepdims=True)
    eps = STEP_SECOND_DERIVATIVE
    second = matvec(module.residual_jacobian(v + eps * d, *args) - module.residual_jacobian(v - eps * d, *args), d)
    measured = 0.5 * np.linalg.norm(second, axis=-1) / (2.0 * eps)
    own = module.residual_curvature(v, *args)
    assert np.all(measured <= own * (1.0 + RTOL_SECOND_DERIVATIVE))
    assert (measured / own).max() > 0.2  # not a vacuous bound (measured: 0.67, 0.23 and 0.67 of it)
    shared = newton_curvature(params.inertia_body_inv, state.L_world, params.torque_world, h)
    assert np.all(own <= shared)


def _newton_history(module, jacobian, v0, args, n_iterations: int):
    """Plain Newton on ``module.residual`` with ``jacobian``: the residual norms (K + 1, n) and the spectral norms
    of the inverse Jacobians used (K, n)."""
    v = v0.copy()
    residuals = [np.linalg.norm(module.residual(v, *args), axis=-1)]
    inverse_norms = []
    for _ in range(n_iterations):
        J = jacobian(v, *args)
        v = v - np.linalg.solve(J, module.residual(v, *args)[..., None])[..., 0]
        inverse_norms.append(np.linalg.norm(np.linalg.inv(J), 2, axis=(-2, -1)))
        residuals.append(np.linalg.norm(module.residual(v, *args), axis=-1))
    return np.array(residuals), np.array(inverse_norms)


def _above_quadratic(module, jacobian, v0, args) -> np.ndarray:
    """Where Newton's next residual exceeds the quadratic bound ``r_{k+1} ≤ C |J_k⁻¹|² r_k²`` (bool, (K, n)),
    ``C`` the method's own ``residual_curvature`` (Taylor: ``F(v_k + Δ) = F(v_k) + J Δ + R``, ``|R| ≤ C |Δ|²``,
    ``|Δ| ≤ |J_k⁻¹| r_k``), plus the rounding floor."""
    residuals, inverse_norms = _newton_history(module, jacobian, v0, args, n_iterations=6)
    C = module.residual_curvature(v0, *args)
    return residuals[1:] > C * inverse_norms**2 * residuals[:-1] ** 2 + RESIDUAL_FLOOR


@pytest.mark.parametrize("name", MODULES)
def test_newton_converges_quadratically_on_each_methods_own_residual(name):
    module = MODULES[name]
    # Steps of 0.02 … 0.15 s at |ω| ~ 5 rad/s: turns of up to ~1 rad, where Newton converges from the start value.
    _, _, _, v0, args = _bodies(name, 300, seed=34, h_range=(0.02, 0.15))
    residuals, _ = _newton_history(module, module.residual_jacobian, v0, args, n_iterations=6)
    assert residuals[-1].max() <= RESIDUAL_FLOOR  # every body converged
    # Enough iterations far above rounding for the rate to show: r_k in 1e-9 … 1e-2 rad.
    assert np.sum((residuals[:-1] > 1e-9) & (residuals[:-1] < 1e-2)) >= 300
    assert not _above_quadratic(module, module.residual_jacobian, v0, args).any()
    # The test can fail: a Jacobian 1 % off converges only linearly (r_{k+1} ≈ 0.01 r_k) and breaks the bound.
    off = _above_quadratic(module, lambda *a: 1.01 * module.residual_jacobian(*a), v0, args)
    assert off.sum() >= 100


# ------------------------------------------------------------------------------------------ the stopping test


class _CountedResidual:
    """A residual that counts the bodies (rows) it is evaluated for."""

    def __init__(self, residual):
        self.residual, self.rows = residual, 0

    def __call__(self, v, *args):
        self.rows += len(v)
        return self.residual(v, *args)


@pytest.mark.parametrize("name", MODULES)
def test_stopping_on_the_curvature_bound_leaves_each_methods_residual_within_tolerance(name):
    """The solver stops right after an update ``Δv`` with ``curvature |Δv|² ≤ tolerance |v|`` without evaluating
    the residual there: for each method, the residual at the returned ``v`` is within tolerance."""
    module = MODULES[name]
    state, params, h, v0, args = _bodies(name, 300, seed=35, h_range=(0.02, 0.15))
    curvature = newton_curvature(params.inertia_body_inv, state.L_world, params.torque_world, h)
    for tolerance in (1e-6, 1e-9, 1e-12):
        options = NewtonOptions(tolerance=tolerance)
        shortcut, plain_residual = _CountedResidual(module.residual), _CountedResidual(module.residual)
        v, converged, iterations = newton_solve(
            shortcut, module.residual_jacobian, v0, args, options=options, curvature=curvature
        )
        assert converged.all()
        size = np.linalg.norm(v, axis=-1)
        assert np.all(np.linalg.norm(module.residual(v, *args), axis=-1) <= tolerance * size)
        # The same updates as stopping on the residual alone, and the shortcut saved residuals.
        _, _, plain = newton_solve(plain_residual, module.residual_jacobian, v0, args, options=options)
        np.testing.assert_array_equal(iterations, plain)
        assert shortcut.rows < plain_residual.rows


def test_newtons_stopping_rule_is_relative_to_the_step_so_small_steps_keep_their_digits():
    """Newton stops at ``|F(v)| ≤ tolerance |v|``, the step's own scale: over 10 s of a T-handle's flips, im6's
    orientation error keeps within 1e-12 rad of the closed form at every h from 1/64 to 1/1024 s (an absolute
    stopping rule, ``1e-14 (1 + |v|)``, let each step keep ~1e-14 rad of Newton's error, which piled up to
    1.1e-11 rad at h = 1/256 while the method's own error was 1e-13: the error rose as h shrank). The closed form
    agrees with DOP853 at rtol 1e-14 to 4e-14 rad here; 1e-12 leaves room for the rounding of 10⁴ steps."""
    from spinlab.sim.exact import TorqueFreeSolution
    from spinlab.sim.quaternion import quat_conj, quat_mul

    inertia = np.diag(T_HANDLE_MOMENTS)
    omega_body = np.array(T_HANDLE_OMEGA_BODY)
    q0 = quat_identity((1,))
    solution = TorqueFreeSolution.from_state(inertia, q0[0], omega_body)
    for steps_per_s in (64, 256, 1024):
        state = BodyState.from_omega_body(q0, omega_body[None], inertia[None])
        params = BodyParams.from_inertia(inertia[None])
        for _ in range(10 * steps_per_s):
            state, _ = INTEGRATORS["im6"](state, params, 1.0 / steps_per_s)
        difference = quat_mul(quat_conj(solution.orientation(np.array([10.0]))), state.q)[0]
        angle = 2.0 * np.arctan2(np.linalg.norm(difference[1:]), abs(difference[0]))
        assert angle < 1e-12, (steps_per_s, angle)


# ------------------------------------------------------------------------------------------------ sub-stepping


def _seed_003_grid() -> tuple[BodyState, BodyParams]:
    """Body momenta ℓ on the grid (−50…50, −50…50, 0), step 10, without 0; identity orientation."""
    axis = np.arange(-50.0, 51.0, 10.0)
    x, y = np.meshgrid(axis, axis)
    ell = np.stack([x.ravel(), y.ravel(), np.zeros(x.size)], axis=-1)
    ell = ell[np.any(ell != 0.0, axis=-1)]
    inertia = np.broadcast_to(np.diag(T_HANDLE_MOMENTS), (len(ell), 3, 3))
    params = BodyParams.from_inertia(inertia)
    omega = np.einsum("nij,nj->ni", params.inertia_body_inv, ell)
    return BodyState.from_omega_body(quat_identity((len(ell),)), omega, inertia), params


# Relative energy change of one step of h = 1 s over the grid (measured: 1.6e-2, 2.5e-2, 4e-14 sub-stepped with
# the default step-angle limit π; at the points where the full step converges with no limit: 6.2e-3, 1.9e-3,
# 4e-15). Seed 003 reports ~3e-3 for the midpoint rule; this implementation's unique root at ℓ = (−20, −20, 0)
# changes the energy by 6.2e-3 (and by 1.2e-2 at ℓ = (−5, −5, 0)). The object-space rule conserves energy
# exactly: ΔE = (R(−v) ℓ − ℓ)·v/h = 0 because R(v) v = v.
GRID_ENERGY_SUBSTEPPED = {"implicit_midpoint": 2e-2, "trapezoidal": 3e-2, "object_trapezoidal": 1e-12}
GRID_ENERGY_FULL_STEP = {"implicit_midpoint": 7e-3, "trapezoidal": 3e-3, "object_trapezoidal": 1e-12}


@pytest.mark.parametrize("name", MODULES)
def test_seed_003_energy_grid(name):
    state, params = _seed_003_grid()
    new, cost = INTEGRATORS[name](state, params, 1.0)  # every point converges after sub-stepping
    relative = np.abs(energy(new) / energy(state) - 1.0)
    assert np.all(cost.substeps > 1)  # every full step turns by more than π
    np.testing.assert_array_equal(new.L_world, state.L_world)
    assert relative.max() < GRID_ENERGY_SUBSTEPPED[name]
    with pytest.raises(NumericalError, match="sub-stepping is off"):
        INTEGRATORS[name](state, params, 1.0, newton=NewtonOptions(max_substep_depth=0))
    unlimited, unlimited_cost = INTEGRATORS[name](state, params, 1.0, newton=UNLIMITED_STEP_ANGLE)
    full_step = unlimited_cost.substeps == 1
    assert full_step.any()
    assert np.abs(energy(unlimited) / energy(state) - 1.0)[full_step].max() < GRID_ENERGY_FULL_STEP[name]


def test_seed_003_convergence_regions():
    """Seed 003 §11: the world trapezoidal rule converges on a much larger region than the midpoint rule, the
    object-space rule on a smaller one (measured, of 120 grid points: 104, 64, 56)."""
    state, params = _seed_003_grid()
    full_steps = {
        name: int(np.sum(INTEGRATORS[name](state, params, 1.0, newton=UNLIMITED_STEP_ANGLE)[1].substeps == 1))
        for name in MODULES
    }
    assert full_steps["trapezoidal"] > full_steps["implicit_midpoint"] > full_steps["object_trapezoidal"] > 0


@pytest.mark.parametrize("backend", ["numba", "numpy"])
@pytest.mark.parametrize("name", MODULES)
def test_a_step_newton_cannot_take_is_sub_stepped_and_otherwise_raises(name, backend):
    inertia = np.broadcast_to(np.diag(T_HANDLE_MOMENTS), (3, 3, 3))
    omega = np.array([T_HANDLE_OMEGA_BODY, (0.3, 60.0, 0.2), (1.0, 0.5, 0.2)])  # body 1: 30 rad per step
    state = BodyState.from_omega_body(quat_identity((3,)), omega, inertia)
    params = BodyParams.from_inertia(inertia)
    new, cost = INTEGRATORS[name](state, params, 0.5, backend=backend)
    np.testing.assert_array_equal(cost.substeps[[0, 2]], 1)
    assert cost.substeps[1] >= 16 and cost.newton_iterations[1] > 16 * cost.newton_iterations[0]
    np.testing.assert_array_equal(new.L_world, state.L_world)
    assert abs(energy(new)[1] / energy(state)[1] - 1.0) < 2e-2  # pieces of ~2 rad: a coarse but sane step
    for depth in (0, 2):
        with pytest.raises(NumericalError, match=r"failed for body 1: Newton"):
            INTEGRATORS[name](state, params, 0.5, backend=backend, newton=NewtonOptions(max_substep_depth=depth))


# A T-handle turning 3000 rad in a step of 0.5 s: ~1000 pieces of at most π rad each, within the default depth.
HOPELESS_OMEGA_BODY = (0.3, 6000.0, 0.2)
FEW_PIECES = 16


def _counting(monkeypatch, backend: str) -> list[int]:
    """The Newton iterations every solve of ``backend``'s step makes from now on, appended to the list returned:
    the plain kernel's ``_attempt`` (``"twin"``, the steps ``run`` takes without numba) or the reference's
    :func:`newton_solve` (``"numpy"``), wrapped."""
    counts: list[int] = []
    if backend == "twin":
        from spinlab.sim.integrators.kernel_twins import _KERNELS_SOURCE
        from spinlab.sim.jit import plain

        kernels = plain(_KERNELS_SOURCE)
        attempt = kernels._attempt

        def counted_attempt(*arguments):
            converged, iterations, v = attempt(*arguments)
            counts.append(iterations)
            return converged, iterations, v

        monkeypatch.setattr(kernels, "_attempt", counted_attempt)
    else:
        from spinlab.sim.integrators import implicit

        def counted_solve(*arguments, **options):
            v, converged, iterations = newton_solve(*arguments, **options)
            counts.append(int(iterations.sum()))
            return v, converged, iterations

        monkeypatch.setattr(implicit, "newton_solve", counted_solve)
    return counts


@pytest.mark.parametrize("backend", ["twin", "numpy"])
@pytest.mark.parametrize("name", ["implicit_midpoint", "im4"])
def test_a_hopeless_step_is_given_up_after_max_pieces_within_bounded_newton_iterations(name, backend, monkeypatch):
    """A step that would take ~1000 pieces is reported after ``max_pieces`` of them (each stage of a composition),
    its Newton iterations at most ``max_pieces · max_iterations`` a stage, instead of ending 'ok' minutes later."""
    inertia = np.diag(T_HANDLE_MOMENTS)[None]
    state = BodyState.from_omega_body(quat_identity((1,)), np.array([HOPELESS_OMEGA_BODY]), inertia)
    params = BodyParams.from_inertia(inertia)
    options = NewtonOptions(max_pieces=FEW_PIECES)
    counts = _counting(monkeypatch, backend)
    with pytest.raises(NumericalError, match=f"failed for body 0: the step was given up after {FEW_PIECES} pieces"):
        INTEGRATORS[name](state, params, 0.5, backend=backend, newton=options)
    stages = 1 if name == "implicit_midpoint" else 3
    assert len(counts) <= stages * FEW_PIECES  # pieces tried (the numpy reference's solves are one a piece here)
    assert 0 < sum(counts) <= stages * FEW_PIECES * options.max_iterations
    counts.clear()
    with pytest.raises(NumericalError, match="given up after 1024 pieces"):  # the default, as run and the window
        INTEGRATORS[name](state, params, 0.5, backend=backend)
    assert sum(counts) <= stages * 1024 * options.max_iterations


def test_the_compiled_kernels_give_up_a_hopeless_step_as_their_twins_do():
    inertia = np.broadcast_to(np.diag(T_HANDLE_MOMENTS), (2, 3, 3))
    state = BodyState.from_omega_body(
        quat_identity((2,)), np.array([T_HANDLE_OMEGA_BODY, HOPELESS_OMEGA_BODY]), inertia
    )
    params = BodyParams.from_inertia(inertia)
    for name in ("implicit_midpoint", "im6", "split4"):
        with pytest.raises(NumericalError, match=f"for body 1: the step was given up after {FEW_PIECES} pieces"):
            INTEGRATORS[name](state, params, 0.5, newton=NewtonOptions(max_pieces=FEW_PIECES))
        # Enough pieces: the same step is taken, each piece as before.
        new, cost = INTEGRATORS[name](state, params, 0.5, newton=NewtonOptions(max_pieces=4096))
        assert cost.substeps[1] > FEW_PIECES and np.isfinite(new.q).all()


def test_max_pieces_must_be_a_positive_integer():
    for bad in (0, -1, 2.5):
        with pytest.raises(ValueError, match="max_pieces"):
            NewtonOptions(max_pieces=bad)


@pytest.mark.parametrize("name", MODULES)
def test_sub_stepping_agrees_between_backends(name):
    inertia = np.broadcast_to(np.diag(T_HANDLE_MOMENTS), (2, 3, 3))
    omega = np.array([(0.3, 60.0, 0.2), (20.0, -3.0, 15.0)])
    state = BodyState.from_omega_body(quat_identity((2,)), omega, inertia)
    params = BodyParams.from_inertia(inertia, np.array([[1.0, 2.0, -3.0], [0.0, 5.0, 1.0]]))
    a, a_cost = INTEGRATORS[name](state, params, 0.5, backend="numba")
    b, b_cost = INTEGRATORS[name](state, params, 0.5, backend="numpy")
    _states_close(a, b, 1e-12)
    np.testing.assert_array_equal(a_cost.substeps, b_cost.substeps)
