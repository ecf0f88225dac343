"""The heavy symmetric top in closed form (sim/lagrange_top.py).

References: scipy's ``solve_ivp`` (DOP853, rtol = atol = 1e-13) on the body equations ``I Ω̇ = (I Ω) × Ω + m c × Oᵀ g``
with ``q̇ = ½ q ⊗ (0, Ω)`` (the torque of sim/world.py); finite differences of the closed form itself (``q̇ = ½ ω ⊗ q``
and ``L̇ = τ``); the invariants E, p_φ, p_ψ; restarting the closed form from its own state. Tops are built from
Euler rates in a canonical frame (symmetry axis body z, up world z) and then turned by random body and world
rotations, so the principal axes and gravity point anywhere.
"""

import tomllib
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from spinlab.sim.inertia import cylinder, parallel_axis
from spinlab.sim.lagrange_top import LagrangeTopSolution, lagrange_top_from_body
from spinlab.sim.quaternion import quat_conj, quat_exp, quat_mul, quat_normalize, quat_rotate

EPS = np.finfo(float).eps
IVP_TOL = 1e-13  # solve_ivp's rtol and atol (q dimensionless, Ω in rad/s)
ANGLE_TOL_VS_IVP_RAD = 1e-10  # angle of q_closed⁻¹ ⊗ q_ivp over 10 nutation periods
OMEGA_RTOL_VS_IVP = 1e-10  # |ω_closed − ω_ivp| / max |ω_ivp|
INITIAL_STATE_ATOL = 32 * EPS  # q(0) − q0 and (ω(0) − ω0)/|ω| scale
CONSERVATION_RTOL = 1e-13  # E against kinetic + |potential|, p_φ and p_ψ against |L|, at any time up to 1000 s
FINITE_DIFFERENCE_RTOL = 1e-8  # 6th-order central differences, h = 1e-3 s, against |ω| and |τ| + |L̇| scales
RESTART_ATOL_RAD = 1e-9  # the closed form restarted from its own state after 1000 s
MEAN_RATE_ATOL_RAD = 1e-9  # azimuth of the axis after 10 periods against the mean precession rate

PRESET = Path(__file__).resolve().parents[2] / "assets" / "scenes" / "heavy_top.toml"
# The canonical body: moments about the pivot (transverse, axial) kg m², COM 0.4 m up the axis, 1 kg, g = 9.81.
MOMENTS, ARM_M, MASS_KG, GRAVITY = (0.5, 0.3), 0.4, 1.0, 9.81


def _rotation(seed: int | None) -> np.ndarray:
    if seed is None:
        return np.array([1.0, 0.0, 0.0, 0.0])
    return quat_normalize(np.random.default_rng(seed).normal(size=4))


def _top(theta0, theta_rate, phi_rate, omega_axial, moments=MOMENTS, seed=None):
    """Arguments of :func:`lagrange_top_from_body` for a top tilted θ0 about world x with Euler rates θ̇, φ̇ and the
    axial rate ω·n, then turned by a random body rotation B and world rotation W (``seed``): ``q' = W q B*``."""
    body, world = _rotation(seed), _rotation(None if seed is None else seed + 1000)
    q0 = quat_exp(np.array([theta0, 0.0, 0.0]))
    axis = np.array([0.0, -np.sin(theta0), np.cos(theta0)])
    omega0 = phi_rate * np.array([0.0, 0.0, 1.0]) + theta_rate * np.array([1.0, 0.0, 0.0])
    omega0 = omega0 + (omega_axial - phi_rate * np.cos(theta0)) * axis
    axes_body = quat_rotate(body, np.eye(3)).T  # columns: the canonical axes in the turned body frame
    inertia = axes_body @ np.diag([moments[0], moments[0], moments[1]]) @ axes_body.T
    com = axes_body @ np.array([0.0, 0.0, ARM_M])
    gravity = quat_rotate(world, np.array([0.0, 0.0, -GRAVITY]))
    return inertia, MASS_KG, com, gravity, quat_mul(quat_mul(world, q0), quat_conj(body)), quat_rotate(world, omega0)


def _heavy_top():
    """The heavy_top preset's body and state, from its file (a cylinder on a stem, pivot below the disc)."""
    spec = tomllib.loads(PRESET.read_text())
    body = spec["body"][0]
    assert body["shape"] == "cylinder"
    pivot = np.array(body["pivot"])
    inertia = parallel_axis(cylinder(body["mass"], body["radius"], body["length"]).inertia, body["mass"], pivot)
    q0 = np.array(body["orientation"])
    return (
        inertia,
        body["mass"],
        -pivot,
        np.array(spec["scene"]["gravity"]),
        q0,
        quat_rotate(q0, np.array(body["body_angular_velocity"])),
    )


def _steady_precession(theta0=0.6, omega_axial=20.0, slow=True):
    """θ̇ = 0 and φ̇ a root of m g l = φ̇ (I3 ω3 − I1 φ̇ cos θ): the axis keeps its height."""
    i1, i3 = MOMENTS
    roots = np.roots([i1 * np.cos(theta0), -i3 * omega_axial, MASS_KG * GRAVITY * ARM_M])
    return _top(theta0, 0.0, float(min(roots) if slow else max(roots)), omega_axial, seed=7)


CASES = {
    "heavy_top": _heavy_top(),
    "cusp": _top(0.7, 0.0, 0.0, 20.0, seed=1),  # released with φ̇ = 0: a cusp at the top turning point
    "looping": _top(0.7, 0.0, -3.0, 20.0, seed=2),  # φ̇ changes sign over a nutation
    "steep": _top(0.05, 0.3, 0.2, 30.0, seed=3),
    "shallow": _top(1.5, 0.2, 2.0, 15.0, seed=4),
    "fast": _top(0.9, 0.5, 0.5, 200.0, seed=5),
    "slow": _top(0.7, 0.3, 1.0, 0.5, seed=6),
    "steady_precession": _steady_precession(),
    "near_vertical": _top(1e-5, 1e-3, 0.0, 30.0, seed=8),
    "hanging": _top(2.9, 0.5, 0.3, 5.0, seed=9),
    "through_the_bottom": _top(1.0, 0.0, 0.0, 0.0),  # no spin, from rest: swings exactly through θ = π
    "near_the_bottom": _top(1.0, 0.0, 0.0, 1e-6, seed=11),  # misses θ = π by ~1e-7 rad
    "spherical_inertia": _top(0.7, 0.5, -2.0, 10.0, moments=(0.4, 0.4), seed=12),
    # Just inside the sleeping top's stability bound a² = 4β: u2 and u3 nearly collide at 1 (m₁ ≈ 6e-4).
    "roots_nearly_colliding": _top(
        1e-3, 0.0, 0.0, 0.99 * 2.0 * np.sqrt(MASS_KG * GRAVITY * ARM_M * MOMENTS[0]) / MOMENTS[1], seed=15
    ),
    "random_a": _top(0.3, -1.2, 0.7, 4.0, moments=(1.3, 0.2), seed=13),
    "random_b": _top(2.2, 2.0, -1.5, -6.0, moments=(0.2, 0.35), seed=14),
}


# Periods compared with solve_ivp: 10, except near the unstable sleeping state, where the ODE's own errors grow
# (over 3 periods of 26 s DOP853 at rtol 1e-13 and at 2.5e-14 differ by 1.5e-8 there).
IVP_PERIODS = {"roots_nearly_colliding": 1}


@cache
def _solution(name: str) -> LagrangeTopSolution:
    return LagrangeTopSolution.from_state(*CASES[name])


def _ivp(name: str, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """solve_ivp on (q, Ω_body) under gravity's torque about the pivot: q (T, 4) and ω_world (T, 3) at ``t``."""
    inertia, mass, com, gravity, q0, omega0 = (np.asarray(x, dtype=float) for x in CASES[name])
    inverse = np.linalg.inv(inertia)

    def rhs(_t, y):
        q, omega_body = y[:4] / np.linalg.norm(y[:4]), y[4:]
        torque_body = mass * np.cross(com, quat_rotate(quat_conj(q), gravity))
        omega_rate = inverse @ (np.cross(inertia @ omega_body, omega_body) + torque_body)
        return np.concatenate([0.5 * quat_mul(y[:4], np.concatenate([[0.0], omega_body])), omega_rate])

    start = np.concatenate([q0, quat_rotate(quat_conj(q0), omega0)])
    result = solve_ivp(rhs, (0.0, t[-1]), start, method="DOP853", rtol=IVP_TOL, atol=IVP_TOL, t_eval=t)
    assert result.success
    q = quat_normalize(result.y[:4].T)
    return q, quat_rotate(q, result.y[4:].T)


def _angle(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    difference = quat_mul(quat_conj(p), q)
    return 2.0 * np.arctan2(np.linalg.norm(difference[..., 1:], axis=-1), np.abs(difference[..., 0]))


def _phi_rate_signs(solution: LagrangeTopSolution) -> np.ndarray:
    """Signs of ``p_φ − p_ψ u`` (∝ φ̇) at the two turning points u1, u2."""
    u1, u2, _ = solution.cos_theta_roots
    return np.sign(solution.L_vertical - solution.L_axis * np.array([u1, u2]))


@pytest.mark.parametrize("name", list(CASES))
def test_matches_a_tight_ode_solve_over_ten_nutation_periods(name):
    solution = _solution(name)
    t = np.linspace(0.0, IVP_PERIODS.get(name, 10) * solution.nutation_period, 401)
    q, omega = solution.orientation_and_omega_world(t)
    q_ivp, omega_ivp = _ivp(name, t)
    assert _angle(q, q_ivp).max() < ANGLE_TOL_VS_IVP_RAD
    omega_scale = np.linalg.norm(omega_ivp, axis=-1).max()
    assert np.abs(omega - omega_ivp).max() < OMEGA_RTOL_VS_IVP * omega_scale


def test_the_cases_are_what_they_claim():
    heavy_top = _solution("heavy_top")
    assert heavy_top.kind == "nutating" and 0.1 < heavy_top.m < 0.9
    # Released at rest in tilt: the start is the top turning point, where φ̇ = 0 (a cusp).
    assert np.cos(np.pi / 6) == pytest.approx(heavy_top.cos_theta_roots[1], abs=1e-15)
    for name in ("heavy_top", "cusp"):
        solution = _solution(name)
        assert abs(solution.L_vertical - solution.L_axis * solution.cos_theta_roots[1]) < 1e-14 * abs(solution.L_axis)
    assert _phi_rate_signs(_solution("looping"))[0] != _phi_rate_signs(_solution("looping"))[1]
    assert _solution("steady_precession").m < 1e-12
    assert 1.0 + _solution("through_the_bottom").cos_theta_roots[0] == 0.0
    assert 0.0 < 1.0 + _solution("near_the_bottom").cos_theta_roots[0] < 1e-13
    assert _solution("hanging").cos_theta_roots[1] < -0.9
    assert 1e-4 < _solution("roots_nearly_colliding").m_complement < 1e-3


@pytest.mark.parametrize("name", list(CASES))
def test_starts_at_the_initial_state(name):
    solution = _solution(name)
    q, omega = solution.orientation_and_omega_world(np.zeros(1))
    _, _, _, _, q0, omega0 = CASES[name]
    assert np.abs(q[0] - q0).max() < INITIAL_STATE_ATOL
    scale = max(np.linalg.norm(omega0), np.sqrt(solution.mass * np.linalg.norm(solution.gravity_world) * ARM_M))
    assert np.abs(omega[0] - omega0).max() < INITIAL_STATE_ATOL * scale


@pytest.mark.parametrize("name", list(CASES))
def test_conserves_energy_and_both_momenta(name):
    solution = _solution(name)
    t = np.concatenate([np.linspace(0.0, 20.0, 500), np.linspace(990.0, 1000.0, 100)])
    q, omega = solution.orientation_and_omega_world(t)
    assert np.allclose(np.linalg.norm(q, axis=-1), 1.0, rtol=0.0, atol=16 * EPS)
    energy, L_vertical, L_axis = solution.invariants(q, omega)
    weight = solution.mass * np.linalg.norm(solution.gravity_world) * solution.arm
    energy_scale = np.abs(energy - weight * 0.0).max() + weight
    L_scale = np.linalg.norm(solution.inertia_body @ np.abs(omega).max(axis=0)) + np.abs(L_vertical).max()
    assert np.abs(energy - solution.energy).max() < CONSERVATION_RTOL * energy_scale
    assert np.abs(L_vertical - solution.L_vertical).max() < CONSERVATION_RTOL * L_scale
    assert np.abs(L_axis - solution.L_axis).max() < CONSERVATION_RTOL * L_scale


@pytest.mark.parametrize("name", ["heavy_top", "looping", "hanging", "near_vertical", "near_the_bottom", "random_b"])
def test_satisfies_the_equations_of_motion_by_finite_differences(name):
    # 6th-order central differences: q̇ = ½ ω ⊗ q (kinematics) and L̇ = τ = (O c) × m g (dynamics).
    solution = _solution(name)
    h = 1e-3
    stencil = [(1, 3 / 4), (2, -3 / 20), (3, 1 / 60)]
    t = np.linspace(0.1, 3.0 * solution.nutation_period, 97)

    def state(times):
        q, omega = solution.orientation_and_omega_world(times)
        L_world = quat_rotate(q, quat_rotate(quat_conj(q), omega) @ solution.inertia_body.T)
        return q, omega, L_world

    q, omega, L_world = state(t)
    q_rate = sum(c * (state(t + k * h)[0] - state(t - k * h)[0]) for k, c in stencil) / h
    L_rate = sum(c * (state(t + k * h)[2] - state(t - k * h)[2]) for k, c in stencil) / h
    omega_quat = np.concatenate([np.zeros((len(t), 1)), omega], axis=-1)
    omega_scale = np.linalg.norm(omega, axis=-1).max()
    assert np.abs(q_rate - 0.5 * quat_mul(omega_quat, q)).max() < FINITE_DIFFERENCE_RTOL * omega_scale
    arm_world = quat_rotate(q, np.broadcast_to(solution.com_from_pivot_body, omega.shape))
    torque = np.cross(arm_world, solution.mass * solution.gravity_world)
    # The differences' truncation is ~h⁶ |L| |ω|⁷ and a wrong torque is off by ~|τ|: scale by both.
    scale = np.abs(torque).max() + np.linalg.norm(L_world, axis=-1).max() * omega_scale
    assert np.abs(L_rate - torque).max() < FINITE_DIFFERENCE_RTOL * scale


@pytest.mark.parametrize("name", ["heavy_top", "looping", "through_the_bottom", "near_the_bottom", "random_a"])
def test_restarting_from_its_own_state_after_1000_s_continues_the_same_motion(name):
    solution = _solution(name)
    later = np.array([1000.0])
    q1, omega1 = solution.orientation_and_omega_world(later)
    restarted = LagrangeTopSolution.from_state(*CASES[name][:4], q1[0], omega1[0])
    t = np.linspace(0.0, 2.0 * solution.nutation_period, 51)
    assert _angle(solution.orientation(later + t), restarted.orientation(t)).max() < RESTART_ATOL_RAD


@pytest.mark.parametrize("name", ["heavy_top", "looping", "shallow", "hanging"])
def test_nutation_is_periodic_and_precession_advances_at_the_mean_rate(name):
    solution = _solution(name)
    periods = 10
    t = np.linspace(0.0, periods * solution.nutation_period, 20 * periods * 64 + 1)
    axis = quat_rotate(solution.orientation(t), np.broadcast_to(solution.axis_body, (len(t), 3)))
    height = axis @ solution.up_world
    assert abs(height[-1] - height[0]) < 1e-12
    assert np.all((height > solution.cos_theta_roots[0] - 1e-12) & (height < solution.cos_theta_roots[1] + 1e-12))
    # The azimuth of the axis about the vertical, in a horizontal frame (x, y).
    x = np.cross(solution.up_world, [1.0, 0.0, 0.0] if abs(solution.up_world[0]) < 0.9 else [0.0, 1.0, 0.0])
    x /= np.linalg.norm(x)
    y = np.cross(solution.up_world, x)
    azimuth = np.unwrap(np.arctan2(axis @ y, axis @ x))
    expected = solution.mean_precession_rate * t[-1]
    assert abs(azimuth[-1] - azimuth[0] - expected) < MEAN_RATE_ATOL_RAD


@pytest.mark.parametrize("theta0", [0.0, np.pi])
def test_a_top_spinning_about_the_vertical_turns_uniformly(theta0):
    args = _top(theta0, 0.0, 0.0, 30.0, seed=20)
    solution = LagrangeTopSolution.from_state(*args)
    assert solution.kind == "sleeping" and solution.nutation_period == np.inf
    t = np.linspace(0.0, 5.0, 11)
    q, omega = solution.orientation_and_omega_world(t)
    q0, omega0 = args[4], args[5]
    assert np.abs(omega - omega0).max() == 0.0
    assert _angle(q, quat_mul(quat_exp(t[:, None] * omega0), q0)).max() < 1e-14


def test_refuses_a_vertical_start_that_tilts_and_colliding_roots():
    vertical = _top(0.0, 0.1, 0.0, 30.0, seed=21)
    reason = LagrangeTopSolution.applies(*vertical)
    assert "vertical" in reason
    with pytest.raises(ValueError, match="vertical"):
        LagrangeTopSolution.from_state(*vertical)
    assert lagrange_top_from_body(*vertical) is None
    # 1e-12 rad from the vertical and swinging far: refused; spinning there with no swing: solved.
    assert "swings away" in LagrangeTopSolution.applies(*_top(1e-12, 10.0, 0.0, 30.0, seed=23))
    assert LagrangeTopSolution.applies(*_top(1e-12, 0.0, 0.0, 30.0, seed=23)) is None
    # u2 = u3 = 1: b = a and α = β, the top creeping up to the vertical forever (θ̇² = β (1 − u0) − φ̇² sin² θ).
    i1, i3 = MOMENTS
    theta0, omega_axial = 0.8, 5.0
    u0 = np.cos(theta0)
    a, beta = i3 * omega_axial / i1, 2.0 * MASS_KG * GRAVITY * ARM_M / i1
    phi_rate = a * (1.0 - u0) / np.sin(theta0) ** 2  # b − a u0 = φ̇ sin² θ0 = a (1 − u0)
    theta_rate = -np.sqrt(beta * (1.0 - u0) - (phi_rate * np.sin(theta0)) ** 2)
    creeping = _top(theta0, theta_rate, phi_rate, omega_axial)
    assert "collide" in LagrangeTopSolution.applies(*creeping)
    assert lagrange_top_from_body(*creeping) is None


def test_from_body_answers_none_where_there_is_no_symmetric_heavy_top():
    inertia, mass, com, gravity, q0, omega0 = _top(0.7, 0.0, 0.0, 20.0, seed=22)
    assert isinstance(lagrange_top_from_body(inertia, mass, com, gravity, q0, omega0), LagrangeTopSolution)
    assert LagrangeTopSolution.applies(inertia, mass, com, gravity, q0, omega0) is None
    # Equal moments within rounding still count; 1e-6 apart they do not.
    axis = com / np.linalg.norm(com)
    across = np.cross(axis, [1.0, 0.0, 0.0])
    across /= np.linalg.norm(across)
    for relative, expected in [(1e-13, LagrangeTopSolution), (1e-6, type(None))]:
        uneven = inertia + relative * np.trace(inertia) * np.outer(across, across)
        assert isinstance(lagrange_top_from_body(uneven, mass, com, gravity, q0, omega0), expected)
    off_axis = com + 1e-6 * across
    assert lagrange_top_from_body(inertia, mass, off_axis, gravity, q0, omega0) is None
    assert lagrange_top_from_body(inertia, mass, np.zeros(3), gravity, q0, omega0) is None
    assert lagrange_top_from_body(inertia, mass, com, np.zeros(3), q0, omega0) is None
    assert lagrange_top_from_body(inertia, 0.0, com, gravity, q0, omega0) is None
    assert lagrange_top_from_body(inertia, mass, com, gravity, q0, [np.nan, 0.0, 0.0]) is None
    assert lagrange_top_from_body(inertia[:2], mass, com, gravity, q0, omega0) is None
    assert "symmetric" in LagrangeTopSolution.applies(inertia, mass, off_axis, gravity, q0, omega0)


@pytest.mark.filterwarnings("error")
def test_random_tops_are_solved_or_refused_cleanly():
    # Tilts from the vertical to the bottom, rates from 1e-6 to 1e3 rad/s, any moments: either None, or a finite
    # motion that starts at the state, with no warning from numpy.
    rng = np.random.default_rng(24)
    solved = 0
    for _ in range(300):
        theta0 = rng.choice([rng.uniform(0.0, np.pi), 10 ** rng.uniform(-12, -1), np.pi - 10 ** rng.uniform(-12, -1)])
        rates = rng.normal(size=3) * 10 ** rng.uniform(-6, 3) * (rng.uniform(size=3) < 0.8)
        args = _top(
            theta0, *rates, moments=(rng.uniform(0.1, 2.0), rng.uniform(0.05, 2.0)), seed=int(rng.integers(1e6))
        )
        solution = lagrange_top_from_body(*args)
        if solution is None:
            assert isinstance(LagrangeTopSolution.applies(*args), str)
            continue
        solved += 1
        q, omega = solution.orientation_and_omega_world(np.concatenate([[0.0], rng.uniform(0.0, 100.0, 20)]))
        assert np.all(np.isfinite(q)) and np.all(np.isfinite(omega))
        assert np.abs(q[0] - args[4]).max() < INITIAL_STATE_ATOL
    assert solved > 200
