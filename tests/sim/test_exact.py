"""The closed-form torque-free motion (sim/exact.py, sim/euler_poinsot.py, sim/jacobi_elliptic.py).

References: scipy's ``solve_ivp`` (DOP853) on the body Euler equations ``I Ω̇ = (I Ω) × Ω`` with the quaternion
kinematics ``q̇ = ½ q ⊗ (0, Ω)``; scipy's ``ellipj``; the expansions of sn, cn, dn near m = 1 (Abramowitz & Stegun
16.15); quadrature of ``φ̇``; and, where installed, a 20-digit Taylor integration by mpmath through a saddle
passage, where solve_ivp itself is only good to ~1e-8.
"""

from functools import cache

import numpy as np
import pytest
from scipy.integrate import quad, solve_ivp
from scipy.special import ellipj

from spinlab.sim.euler_poinsot import EulerPoinsot, principal_frame
from spinlab.sim.exact import TorqueFreeSolution, quat_from_zxz_euler
from spinlab.sim.jacobi_elliptic import jacobi_sn_cn_dn, legendre_f, quarter_period
from spinlab.sim.quaternion import quat_conj, quat_identity, quat_mul, quat_normalize, quat_rotate

EPS = np.finfo(float).eps
OMEGA_RTOL_VS_IVP = 1e-9  # |Ω_exact − Ω_ivp| / |Ω0|, and the same for ω_world
ANGLE_TOL_VS_IVP_RAD = 1e-8  # angle of q_exact⁻¹ ⊗ q_ivp
IVP_RTOL = 1e-12  # solve_ivp's rtol and atol (Ω in rad/s, q dimensionless)
INITIAL_STATE_RTOL = 64 * EPS  # Ω(0) = Ω0, ω(0) = ω0, q(0) = q0 up to rounding
CONSERVATION_RTOL = 1e-13  # relative change of E and L at any time
FLIP_PERIOD_RTOL = 1e-6
JACOBI_ATOL = 1e-14  # sn, cn, dn are bounded by 1
JACOBI_IDENTITY_ATOL = 64 * EPS  # sn² + cn² = 1 after ~6 levels of the descending transformation
SCIPY_ELLIPJ_ATOL = 5e-14  # scipy's own error, checked against mpmath: up to 2e-14 for |u| ≤ 20
PRECESSION_ATOL_RAD = 1e-12  # φ(t) against quadrature over up to 30 s
SEMIGROUP_ATOL_RAD = 1e-10  # restarting the closed form from its own state at t₁, after up to 1000 s
DURATION_S = 20.0

T_HANDLE = np.diag([2.5, 1.4, 1.3])  # seed 003's body, principal moments along body x, y, z
SEPARATRIX_BODY = np.diag([3.0, 4.0, 6.0])
# I3 (I3 − I2) Ω3² = I1 (I2 − I1) Ω1² = 3/4 exactly in binary floating point: L² = 2 E I2 with no rounding.
SEPARATRIX_OMEGA = np.array([0.5, -1.0, 0.25])
NEAR_SEPARATRIX = 1e-8
# Starts where Ω2 = 0, 1e-8 off the separatrix, and passes the saddle (Ω along axis 2) within √m₁ ≈ 1e-4 of it
# at t ≈ 9.6 s. That amplifies solve_ivp's own errors to ~2e-8, so it is checked against mpmath instead.
SADDLE_PASSAGE_OMEGA = np.array([3.0, 0.0, 1.5 * (1.0 + NEAR_SEPARATRIX)])


def _random_rotation(rng: np.random.Generator) -> np.ndarray:
    return quat_normalize(rng.normal(size=4))


def _rotated_inertia(moments, q) -> np.ndarray:
    axes = quat_rotate(q, np.eye(3)).T  # columns: the rotated basis vectors
    return axes @ np.diag(moments) @ axes.T


def _rotation_angle(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    difference = quat_mul(quat_conj(p), q)
    return 2.0 * np.arctan2(np.linalg.norm(difference[..., 1:], axis=-1), np.abs(difference[..., 0]))


@cache
def _reference(inertia: tuple, q0: tuple, omega_body0: tuple, duration: float):
    """solve_ivp on (Ω_body, q); returns the ``OdeSolution`` (dense) and Ω_y's sign changes, in s."""
    inertia_body = np.array(inertia).reshape(3, 3)
    inverse = np.linalg.inv(inertia_body)

    def rhs(_t, y):
        omega = y[:3]
        return np.concatenate(
            [inverse @ np.cross(inertia_body @ omega, omega), 0.5 * quat_mul(y[3:], np.concatenate([[0.0], omega]))]
        )

    def omega_y(_t, y):
        return y[1]

    solution = solve_ivp(
        rhs,
        (0.0, duration),
        np.concatenate([omega_body0, q0]),
        method="DOP853",
        rtol=IVP_RTOL,
        atol=IVP_RTOL,
        dense_output=True,
        events=omega_y,
    )
    assert solution.success
    return solution.sol, solution.t_events[0]


def _compare_with_ivp(inertia_body, q0, omega_body0, duration=DURATION_S):
    """Max errors (Ω relative, ω_world relative, angle in rad) of the closed form against solve_ivp."""
    exact = TorqueFreeSolution.from_body_state(inertia_body, q0, omega_body0)
    dense, _ = _reference(tuple(np.ravel(inertia_body)), tuple(q0), tuple(omega_body0), duration)
    t = np.linspace(0.0, DURATION_S, 401)
    y = dense(t).T
    omega_ivp, q_ivp = y[:, :3], quat_normalize(y[:, 3:])
    scale = np.linalg.norm(omega_body0)
    omega_error = np.max(np.abs(exact.omega_body(t) - omega_ivp)) / scale
    world_error = np.max(np.abs(exact.omega_world(t) - quat_rotate(q_ivp, omega_ivp))) / scale
    angle_error = np.max(_rotation_angle(exact.orientation(t), q_ivp))
    return omega_error, world_error, angle_error


def _cases() -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(inertia_body, q0, omega_body0) for every case compared with solve_ivp."""
    rng = np.random.default_rng(2024)
    tilt = _random_rotation(rng)
    q0 = _random_rotation(rng)
    general = _rotated_inertia([1.1, 1.7, 2.3], tilt)
    # Principal components chosen in each family, then expressed in the (non-principal) body frame.
    moments, axes = principal_frame(general)
    about_major = axes @ np.array([0.3, -1.0, 2.0])  # L² > 2 E I2: circulates about the largest moment
    about_minor = axes @ np.array([-2.0, 1.0, 0.3])  # L² < 2 E I2: circulates about the smallest moment
    assert EulerPoinsot.solve(moments, axes.T @ about_major).spin_axis == 2
    assert EulerPoinsot.solve(moments, axes.T @ about_minor).spin_axis == 0
    near_plus = SEPARATRIX_OMEGA * [1.0, 1.0, 1.0 + NEAR_SEPARATRIX]
    near_minus = SEPARATRIX_OMEGA * [1.0, 1.0, 1.0 - NEAR_SEPARATRIX]
    return {
        "t_handle_flips": (T_HANDLE, q0, np.array([0.05, 5.0, 0.05])),
        "t_handle_stable_major": (T_HANDLE, q0, np.array([5.0, 0.05, 0.05])),
        "t_handle_stable_minor": (T_HANDLE, q0, np.array([0.05, 0.05, 5.0])),
        "t_handle_tiny_polhode": (T_HANDLE, q0, np.array([5.0, 1e-9, -1e-9])),
        "t_handle_steady_intermediate": (T_HANDLE, q0, np.array([0.0, 1.0, 0.0])),
        "random_about_major": (general, q0, about_major),
        "random_about_minor": (general, q0, about_minor),
        "random_world_state": (general, _random_rotation(rng), rng.normal(size=3) * 3.0),
        "oblate_axisymmetric": (_rotated_inertia([1.0, 1.0, 2.0], tilt), q0, np.array([1.0, 0.5, -2.0])),
        "prolate_axisymmetric": (np.diag([1.0, 2.0, 2.0]), q0, np.array([-3.0, 0.5, 1.0])),
        "oblate_spin_about_symmetry_axis": (np.diag([1.0, 1.0, 2.0]), q0, np.array([0.0, 0.0, -3.0])),  # θ = π
        "nearly_axisymmetric": (np.diag([1.0, 1.0 + 1e-6, 2.0]), q0, np.array([1.0, 0.5, 0.01])),
        "sphere": (2.0 * np.eye(3), q0, np.array([1.0, 0.5, 2.0])),
        "separatrix": (SEPARATRIX_BODY, q0, SEPARATRIX_OMEGA),
        "near_separatrix_major": (SEPARATRIX_BODY, q0, near_plus),
        "near_separatrix_minor": (SEPARATRIX_BODY, q0, near_minus),
    }


CASES = _cases()


@pytest.mark.parametrize("name", list(CASES))
def test_matches_solve_ivp(name):
    omega_error, world_error, angle_error = _compare_with_ivp(*CASES[name])
    assert omega_error <= OMEGA_RTOL_VS_IVP
    assert world_error <= OMEGA_RTOL_VS_IVP
    assert angle_error <= ANGLE_TOL_VS_IVP_RAD


def test_cases_reach_every_branch():
    kinds = {}
    for name, (inertia_body, q0, omega_body0) in CASES.items():
        motion = TorqueFreeSolution.from_body_state(inertia_body, q0, omega_body0).motion
        kinds[name] = (motion.kind, motion.spin_axis, motion.m_complement)
    assert kinds["separatrix"] == ("elliptic", 2, 0.0)
    assert kinds["near_separatrix_major"][:2] == ("elliptic", 2)
    assert kinds["near_separatrix_minor"][:2] == ("elliptic", 0)
    assert 1e-9 < kinds["near_separatrix_major"][2] < 1e-7
    assert kinds["oblate_axisymmetric"][:2] == ("axisymmetric", 2)
    assert kinds["prolate_axisymmetric"][:2] == ("axisymmetric", 0)
    assert kinds["nearly_axisymmetric"][0] == "elliptic"
    assert kinds["sphere"][0] == kinds["t_handle_steady_intermediate"][0] == "constant"


@pytest.mark.parametrize("name", list(CASES))
def test_initial_state_is_reproduced(name):
    inertia_body, q0, omega_body0 = CASES[name]
    omega_world0 = quat_rotate(q0, omega_body0)
    solution = TorqueFreeSolution.from_state(inertia_body, q0, omega_world0)
    scale = np.linalg.norm(omega_body0)
    np.testing.assert_allclose(solution.omega_body(0.0), omega_body0, rtol=0, atol=INITIAL_STATE_RTOL * scale)
    np.testing.assert_allclose(solution.omega_world(0.0), omega_world0, rtol=0, atol=INITIAL_STATE_RTOL * scale)
    np.testing.assert_allclose(solution.orientation(0.0), q0, rtol=0, atol=INITIAL_STATE_RTOL)


@pytest.mark.parametrize("name", list(CASES))
def test_orientation_and_omega_body_together_are_each_alone(name):
    solution = TorqueFreeSolution.from_body_state(*CASES[name])
    for t in (np.linspace(0.0, 50.0, 11), np.array(7.3)):
        q, omega_body = solution.orientation_and_omega_body(t)
        np.testing.assert_array_equal(q, solution.orientation(t))
        np.testing.assert_array_equal(omega_body, solution.omega_body(t))
        np.testing.assert_array_equal(solution.omega_world(t), quat_rotate(q, omega_body))


@pytest.mark.parametrize("name", list(CASES))
def test_euler_angles_with_omega_share_one_evaluation_and_change_nothing(name):
    motion = TorqueFreeSolution.from_body_state(*CASES[name]).motion
    if motion.kind == "constant":
        pytest.skip("no Euler angles when Ω is constant")
    for t in (np.linspace(-40.0, 60.0, 101), np.array(7.3)):
        omega, (phi, _, _) = motion.omega_and_euler_angles(t)
        np.testing.assert_array_equal(omega, motion.omega_principal(t))
        np.testing.assert_array_equal(phi, motion.precession_angle(t))


@pytest.mark.parametrize("name", list(CASES))
def test_energy_and_momentum_are_conserved(name):
    solution = TorqueFreeSolution.from_body_state(*CASES[name])
    t = np.linspace(0.0, 200.0, 2001)
    omega_body = solution.omega_body(t)
    energy = 0.5 * np.einsum("ti,ij,tj->t", omega_body, solution.inertia_body, omega_body)
    L_world = quat_rotate(solution.orientation(t), omega_body @ solution.inertia_body.T)
    assert np.max(np.abs(energy - solution.energy)) <= CONSERVATION_RTOL * solution.energy
    L_norm = np.linalg.norm(solution.L_world)
    assert np.max(np.abs(L_world - solution.L_world)) <= CONSERVATION_RTOL * L_norm


@pytest.mark.parametrize("name", list(CASES))
def test_invariable_frame_z_is_along_L(name):
    solution = TorqueFreeSolution.from_body_state(*CASES[name])
    if solution.motion.kind == "constant":
        pytest.skip("no Euler angles when Ω is constant")
    z_world = quat_rotate(solution.q_world_invariable, np.array([0.0, 0.0, 1.0]))
    L_world = solution.L_world
    np.testing.assert_allclose(z_world, L_world / np.linalg.norm(L_world), rtol=0, atol=INITIAL_STATE_RTOL)


def test_flip_period_is_the_time_between_sign_changes_of_omega_y():
    # 4K/λ is the period of Ω; Ω_y changes sign twice in it (the handle flips over and back).
    _, q0, omega_body0 = CASES["t_handle_flips"]
    solution = TorqueFreeSolution.from_body_state(T_HANDLE, q0, omega_body0)
    period = solution.flip_period
    _, crossings = _reference(tuple(np.ravel(T_HANDLE)), tuple(q0), tuple(omega_body0), 2.3 * period)
    assert len(crossings) >= 4
    np.testing.assert_allclose(np.diff(crossings), 0.5 * period, rtol=FLIP_PERIOD_RTOL)
    np.testing.assert_allclose(crossings[2:] - crossings[:-2], period, rtol=FLIP_PERIOD_RTOL)


@pytest.mark.parametrize(
    "name", ["t_handle_flips", "random_about_minor", "near_separatrix_major", "prolate_axisymmetric"]
)
def test_omega_is_periodic_with_the_flip_period(name):
    solution = TorqueFreeSolution.from_body_state(*CASES[name])
    t = np.linspace(0.0, 30.0, 61)
    scale = np.linalg.norm(solution.omega_body0)
    error = np.max(np.abs(solution.omega_body(t + solution.flip_period) - solution.omega_body(t)))
    assert error <= 1e-12 * scale * max(1.0, solution.flip_period)


def test_flip_period_is_infinite_without_a_period():
    for omega in ([0.0, 0.0, 0.0], SEPARATRIX_OMEGA):
        assert TorqueFreeSolution.from_body_state(SEPARATRIX_BODY, quat_identity(), omega).flip_period == np.inf
    assert TorqueFreeSolution.from_body_state(np.eye(3), quat_identity(), [1.0, 2.0, 3.0]).flip_period == np.inf
    assert TorqueFreeSolution.from_body_state(T_HANDLE, quat_identity(), [0, 5.0, 0]).flip_period == np.inf


def test_separatrix_ends_in_a_steady_spin_about_the_intermediate_axis():
    # On the separatrix Ω → ±A2 e2 as t → ∞ (sn u = tanh u → 1): then ω ∥ L and the body turns about L at |L|/I2.
    # At t ≥ 200 s, u = λ t + u₀ > 70, past the saturation of tanh where φ is extended linearly.
    solution = TorqueFreeSolution.from_body_state(
        SEPARATRIX_BODY, _random_rotation(np.random.default_rng(4)), SEPARATRIX_OMEGA
    )
    t1, t2 = np.array(200.0), np.array(260.0)
    L_world = solution.L_world
    L_norm = np.linalg.norm(L_world)
    turn = quat_mul(solution.orientation(t2), quat_conj(solution.orientation(t1)))
    half_angle = 0.5 * L_norm / SEPARATRIX_BODY[1, 1] * (t2 - t1)
    expected = np.concatenate([[np.cos(half_angle)], np.sin(half_angle) * L_world / L_norm])
    assert _rotation_angle(turn, expected) <= 1e-12
    np.testing.assert_allclose(solution.omega_world(t2), L_world / SEPARATRIX_BODY[1, 1], rtol=0, atol=1e-15 * L_norm)


def test_rest_keeps_its_orientation():
    q0 = _random_rotation(np.random.default_rng(5))
    solution = TorqueFreeSolution.from_body_state(T_HANDLE, q0, np.zeros(3))
    t = np.linspace(0.0, 10.0, 11)
    np.testing.assert_array_equal(solution.orientation(t), np.broadcast_to(q0, (11, 4)))
    np.testing.assert_array_equal(solution.omega_world(t), np.zeros((11, 3)))
    assert solution.energy == 0.0


def test_precession_angle_matches_quadrature_of_its_rate():
    states = [CASES[name] for name in ["t_handle_flips", "random_about_minor", "separatrix"]]
    states.append((SEPARATRIX_BODY, quat_identity(), SADDLE_PASSAGE_OMEGA))
    for state in states:
        motion = TorqueFreeSolution.from_body_state(*state).motion
        a, b, _ = motion.euler_axes

        def rate(t, motion=motion, a=a, b=b):
            omega = motion.omega_principal(np.array(t))
            weighted = motion.moments * omega
            return (
                motion.L_norm
                * (weighted[a] * omega[a] + weighted[b] * omega[b])
                / (weighted[a] ** 2 + weighted[b] ** 2)
            )

        for t in (0.7, 9.3, 30.0):
            integral, _ = quad(rate, 0.0, t, epsabs=1e-13, epsrel=1e-13, limit=400)
            assert abs(motion.precession_angle(np.array(t)) - integral) <= PRECESSION_ATOL_RAD


@pytest.mark.parametrize(
    "name", ["t_handle_flips", "near_separatrix_major", "separatrix", "oblate_axisymmetric", "saddle_passage"]
)
def test_restarting_from_a_later_state_gives_the_same_motion(name):
    state = (SEPARATRIX_BODY, quat_identity(), SADDLE_PASSAGE_OMEGA) if name == "saddle_passage" else CASES[name]
    solution = TorqueFreeSolution.from_body_state(*state)
    dt = np.linspace(0.0, 30.0, 31)
    scale = np.linalg.norm(solution.omega_body0)
    for t1 in (3.7, 100.3, 1000.9):
        later = np.array(t1)
        restarted = TorqueFreeSolution.from_body_state(
            solution.inertia_body, solution.orientation(later), solution.omega_body(later)
        )
        assert np.max(np.abs(restarted.omega_body(dt) - solution.omega_body(t1 + dt))) <= SEMIGROUP_ATOL_RAD * scale
        assert np.max(_rotation_angle(restarted.orientation(dt), solution.orientation(t1 + dt))) <= SEMIGROUP_ATOL_RAD


def test_near_separatrix_through_the_saddle_against_high_precision():
    """Passing the saddle within √m₁ ≈ 1e-4 amplifies solve_ivp's errors to ~1e-8; mpmath's Taylor method is exact."""
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 20
    omega0 = SADDLE_PASSAGE_OMEGA
    i1, i2, i3 = (mp.mpf(x) for x in (3, 4, 6))
    reference = mp.odefun(
        lambda _t, w: [(i2 - i3) / i1 * w[1] * w[2], (i3 - i1) / i2 * w[2] * w[0], (i1 - i2) / i3 * w[0] * w[1]],
        0,
        [mp.mpf(float(x)) for x in omega0],
    )
    solution = TorqueFreeSolution.from_body_state(SEPARATRIX_BODY, quat_identity(), omega0)
    for t in (10.0, 20.0):
        expected = np.array([float(x) for x in reference(mp.mpf(t))])
        assert np.max(np.abs(solution.omega_body(np.array(t)) - expected)) <= 1e-13 * np.linalg.norm(omega0)


def test_outputs_follow_the_shape_of_t():
    solution = TorqueFreeSolution.from_body_state(*CASES["random_about_major"])
    t = np.linspace(0.0, 1.0, 6).reshape(2, 3)
    assert solution.omega_body(t).shape == (2, 3, 3)
    assert solution.omega_world(t).shape == (2, 3, 3)
    assert solution.orientation(t).shape == (2, 3, 4)
    np.testing.assert_allclose(np.linalg.norm(solution.orientation(t), axis=-1), 1.0, rtol=0, atol=4 * EPS)
    # An array of times and one time take numpy's vector and scalar paths, which may round apart by an ulp or two.
    np.testing.assert_allclose(solution.orientation(t)[1, 2], solution.orientation(1.0), rtol=0, atol=4 * EPS)


def test_principal_frame_is_sorted_right_handed_and_snaps_equal_moments():
    q = _random_rotation(np.random.default_rng(9))
    moments, axes = principal_frame(_rotated_inertia([2.0, 1.0, 1.0], q))
    assert moments[0] == moments[1] and moments[1] < moments[2]
    assert np.linalg.det(axes) > 0.0
    moments, axes = principal_frame(T_HANDLE)
    np.testing.assert_array_equal(moments, [1.3, 1.4, 2.5])
    np.testing.assert_allclose(axes @ np.diag(moments) @ axes.T, T_HANDLE, rtol=0, atol=4 * EPS)
    assert np.linalg.det(axes) > 0.0


def test_zxz_quaternion_is_the_product_of_axis_rotations():
    rng = np.random.default_rng(11)
    phi, theta, psi = rng.uniform(-7.0, 7.0, size=(3, 20))

    def about(axis, angle):
        q = np.zeros(angle.shape + (4,))
        q[..., 0], q[..., axis] = np.cos(0.5 * angle), np.sin(0.5 * angle)
        return q

    expected = quat_mul(quat_mul(about(3, phi), about(1, theta)), about(3, psi))
    np.testing.assert_allclose(quat_from_zxz_euler(phi, theta, psi), expected, rtol=0, atol=4 * EPS)


# --- sim/jacobi_elliptic.py -------------------------------------------------------------------------------------


@pytest.mark.parametrize("m", [0.0, 1e-12, 0.3, 0.5, 0.9, 0.999])
def test_jacobi_functions_match_scipy_away_from_m_equal_one(m):
    u = np.linspace(-20.0, 20.0, 401)
    ours = np.array(jacobi_sn_cn_dn(u, m, 1.0 - m))
    np.testing.assert_allclose(ours, np.array(ellipj(u, m)[:3]), rtol=0, atol=SCIPY_ELLIPJ_ATOL)


@pytest.mark.parametrize("m_complement", [1e-10, 1e-11, 1e-12])
def test_jacobi_functions_near_m_equal_one_match_the_expansion(m_complement):
    # A&S 16.15.1–3: with m₁ → 0, the first-order corrections to tanh and sech; the remainder is O(m₁² e^{2u}).
    u = np.linspace(-4.0, 4.0, 81)
    correction = 0.25 * m_complement * (np.sinh(u) * np.cosh(u) - u) / np.cosh(u) ** 2
    sn_expected = np.tanh(u) + correction
    cn_expected = 1.0 / np.cosh(u) - 0.25 * m_complement * (np.sinh(u) * np.cosh(u) - u) * np.tanh(u) / np.cosh(u)
    dn_expected = 1.0 / np.cosh(u) + 0.25 * m_complement * (np.sinh(u) * np.cosh(u) + u) * np.tanh(u) / np.cosh(u)
    sn, cn, dn = jacobi_sn_cn_dn(u, 1.0 - m_complement, m_complement)
    np.testing.assert_allclose(sn, sn_expected, rtol=0, atol=JACOBI_ATOL)
    np.testing.assert_allclose(cn, cn_expected, rtol=0, atol=JACOBI_ATOL)
    np.testing.assert_allclose(dn, dn_expected, rtol=0, atol=JACOBI_ATOL)


@pytest.mark.parametrize("m_complement", [0.5, 1e-4, 1e-8, 1e-14])
def test_jacobi_identities_periods_and_inverse(m_complement):
    m = 1.0 - m_complement
    K = quarter_period(m_complement)
    u = np.linspace(-5.0 * K, 5.0 * K, 1001)
    sn, cn, dn = jacobi_sn_cn_dn(u, m, m_complement)
    np.testing.assert_allclose(sn**2 + cn**2, 1.0, rtol=0, atol=JACOBI_IDENTITY_ATOL)
    np.testing.assert_allclose(dn**2 - (cn**2 + m_complement * sn**2), 0.0, rtol=0, atol=JACOBI_IDENTITY_ATOL)
    shifted = jacobi_sn_cn_dn(u + 2.0 * K, m, m_complement)
    np.testing.assert_allclose(shifted, [-sn, -cn, dn], rtol=0, atol=JACOBI_ATOL * K)
    inside = np.abs(u) < K
    np.testing.assert_allclose(legendre_f(sn[inside], cn[inside], m_complement), u[inside], rtol=0, atol=1e-13 * K)


def test_jacobi_functions_on_the_separatrix_are_tanh_and_sech():
    u = np.linspace(-700.0, 700.0, 1401)
    sn, cn, dn = jacobi_sn_cn_dn(u, 1.0, 0.0)
    np.testing.assert_array_equal(sn, np.tanh(u))
    np.testing.assert_allclose(cn, 1.0 / np.cosh(u), rtol=4 * EPS, atol=0)
    np.testing.assert_array_equal(cn, dn)
    far = jacobi_sn_cn_dn(np.array([-1e4, 1e4]), 1.0, 0.0)
    np.testing.assert_array_equal(far, [[-1.0, 1.0], [0.0, 0.0], [0.0, 0.0]])  # no overflow on the way
    assert quarter_period(0.0) == np.inf
