"""The closed form for a nearly symmetric body circulating about one of its two near-equal axes.

There ``n = −I_c |I2 − I_e| / (I_e |I_c − I2|)`` is large and negative and ``λ ∝ √|I_c − I2|`` small: the plain form
``φ = |L| t / I_e + coefficient (G(u) − G(u₀))`` carried the absolute rounding of ``u`` into ``φ`` multiplied by
``~1/λ``. Before: φ off by 1.1e-10 and 3.8e-10 rad at ``I2 − I1 = 1e-13`` and ``I3 − I2 = 1e-13`` (4e4 and 4e5 ulps),
the orientation by up to 4.4e-10 rad in 10 s, φ by up to 7e-9 rad in a random sweep over 30 s; now within 1.4 ulps.
Below :data:`TRANSFORMED_CHARACTERISTIC` the precession angle takes ``Π(n; am u | m)`` whole by DLMF 19.7.9
(sim/jacobi_elliptic.py's ``legendre_pi_by_conjugate``), checked here against mpmath: ``φ`` against mpmath's
``ellippi`` at 40 digits from the same doubles, the orientation against mpmath's Taylor integration of the Euler
equations and ``q̇ = ½ q ⊗ (0, Ω)``, which shares nothing with the closed form.
"""

import mpmath
import numpy as np
import pytest

import spinlab.sim.euler_poinsot as euler_poinsot
from spinlab.sim.euler_poinsot import EulerPoinsot
from spinlab.sim.exact import TorqueFreeSolution
from spinlab.sim.exact_batch import TorqueFreeBatch
from spinlab.sim.jacobi_elliptic import legendre_pi_by_conjugate
from spinlab.sim.quaternion import quat_conj, quat_mul

EPS = np.finfo(float).eps
# φ is a sum of terms of its own size (|L| t / I_c and the periodic part): a few ulps of |φ| (measured: at most 1.33;
# the plain form: 1 to 4e5 over the gaps below).
PHI_ULPS = 4.0
# The orientation's error, as the golden traces bound it (tests/test_trace_digest.py): phases of size |ω| t, each
# rounded, move a unit quaternion by as much (measured: at most 1.05 of eps (1 + |ω| t), 9.8e-15 rad at 10 s; the
# plain form: 1e5).
ORIENTATION_ULPS = 8.0
# Legendre's Π relative to its size: R_J and R_C each to an ulp or two (measured: at most 2.3 eps on 400 samples).
PI_RELATIVE_ULPS = 4.0
TIMES = np.array([0.7, 9.3, 30.0])  # s


def _nearly_symmetric(pair: str, gap: float) -> tuple[np.ndarray, np.ndarray]:
    """Principal moments and Ω of a body whose two ``pair`` moments are ``gap`` apart, spun mostly about one of them
    and so circulating about it: the odd-axis component is half of what would put it on the separatrix."""
    if pair == "minor":
        moments = np.array([1.3, 1.3 + gap, 2.5])  # c = axis 1
        odd = 0.5 * np.sqrt(moments[0] * (moments[1] - moments[0]) / (moments[2] * (moments[2] - moments[1])))
        return moments, np.array([5.0, 0.3, odd * 5.0])
    moments = np.array([1.0, 2.5 - gap, 2.5])  # c = axis 3
    odd = 0.5 * np.sqrt(moments[2] * (moments[2] - moments[1]) / (moments[0] * (moments[1] - moments[0])))
    return moments, np.array([odd * 5.0, -0.3, 5.0])


def _mpmath_precession(moments: np.ndarray, omega: np.ndarray, times: np.ndarray) -> np.ndarray:
    """``φ(t) = |L| t / I_c + |L| (I_c − I_e)/(I_c I_e λ) (Π(n; am u | m) − Π(n; am u₀ | m))`` at 40 digits, from the
    doubles given (sim/euler_poinsot.py's module docstring for the constants), ``Π`` by mpmath's ``ellippi`` with
    the half periods taken out (``Π(am(u + 2K)) = Π(am u) + 2 Π(n | m)``)."""
    mpmath.mp.dps = 40
    c = EulerPoinsot.solve(moments, omega).spin_axis
    e = 2 - c
    moment = [mpmath.mpf(float(x)) for x in moments]
    w = [mpmath.mpf(float(x)) for x in omega]
    i_c, i2, i_e = moment[c], moment[1], moment[e]
    p = i2 * abs(i2 - i_e) * w[1] ** 2 + i_c * abs(i_c - i_e) * w[c] ** 2
    q = i_e * abs(i_c - i_e) * w[e] ** 2 + i2 * abs(i_c - i2) * w[1] ** 2
    rate = mpmath.sqrt(abs(i_c - i2) * p / (moment[0] * moment[1] * moment[2]))
    m = abs(i2 - i_e) * q / (abs(i_c - i2) * p)
    n = -i_c * abs(i2 - i_e) / (i_e * abs(i_c - i2))
    L_norm = mpmath.sqrt(sum((moment[k] * w[k]) ** 2 for k in range(3)))
    sigma, s = (1 if w[c] > 0 else -1), (1 if w[e] >= 0 else -1)
    sn0, cn0 = (
        sigma * s * w[1] / mpmath.sqrt(q / (i2 * abs(i_c - i2))),
        abs(w[e]) / mpmath.sqrt(q / (i_e * abs(i_c - i_e))),
    )
    amplitude0 = mpmath.atan2(sn0, cn0)
    u0 = mpmath.ellipf(amplitude0, m)
    K, complete = mpmath.ellipk(m), mpmath.ellippi(n, m)

    def pi(u):
        j = mpmath.nint(u / (2 * K))
        r = u - 2 * K * j
        return 2 * j * complete + mpmath.ellippi(n, mpmath.atan2(mpmath.ellipfun("sn", r, m),
                                                                mpmath.ellipfun("cn", r, m)), m)  # fmt: skip

    pi0 = pi(u0)
    coefficient = L_norm * (i_c - i_e) / (i_c * i_e * rate)
    return np.array([float(L_norm * t / i_c + coefficient * (pi(rate * t + u0) - pi0)) for t in map(mpmath.mpf, times)])


def _mpmath_orientation(moments: np.ndarray, omega: np.ndarray, times: np.ndarray) -> np.ndarray:
    """``q(t)`` from ``q(0) = 1`` by mpmath's Taylor integration at 25 digits of ``I Ω̇ = (I Ω) × Ω`` and
    ``q̇ = ½ q ⊗ (0, Ω)`` in principal axes."""
    mpmath.mp.dps = 25
    i1, i2, i3 = (mpmath.mpf(float(x)) for x in moments)

    def rates(_t, y):
        w1, w2, w3, qw, qx, qy, qz = y
        return [(i2 - i3) / i1 * w2 * w3, (i3 - i1) / i2 * w3 * w1, (i1 - i2) / i3 * w1 * w2,
                (-qx * w1 - qy * w2 - qz * w3) / 2, (qw * w1 + qy * w3 - qz * w2) / 2,
                (qw * w2 + qz * w1 - qx * w3) / 2, (qw * w3 + qx * w2 - qy * w1) / 2]  # fmt: skip

    solution = mpmath.odefun(rates, 0, [mpmath.mpf(float(x)) for x in omega] + [1, 0, 0, 0])
    return np.array([[float(x) for x in solution(mpmath.mpf(float(t)))[3:]] for t in times])


def _rotation_angle(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    difference = quat_mul(quat_conj(p), q)
    return 2.0 * np.arctan2(np.linalg.norm(difference[..., 1:], axis=-1), np.abs(difference[..., 0]))


@pytest.mark.parametrize("pair", ["minor", "major"])
@pytest.mark.parametrize("gap", [1e-13, 1e-10, 1e-7, 1e-4])
def test_the_precession_angle_is_mpmaths(pair, gap):
    """Before (the plain form), gaps 1e-13 … 1e-4: 1.1e-10, 9.4e-12, 1.3e-13, 2.8e-14 rad (minor pair), 3.8e-10,
    1.4e-11, 2.8e-13, 5.7e-14 (major pair); after: 2.8e-14 at most, 1.33 ulps of φ."""
    moments, omega = _nearly_symmetric(pair, gap)
    motion = EulerPoinsot.solve(moments, omega)
    assert motion.spin_axis == (0 if pair == "minor" else 2) and motion._transformed
    expected = _mpmath_precession(moments, omega, TIMES)
    error = np.abs(motion.precession_angle(TIMES) - expected)
    assert np.all(error <= PHI_ULPS * EPS * (1.0 + np.abs(expected))), error


@pytest.mark.parametrize("pair", ["minor", "major"])
def test_the_orientation_is_mpmaths_taylor_integration(pair):
    """At ``I2 − I1 = 1e-13`` at 1, 4 and 10 s: before, 1.4e-10, 2.5e-10 and 7.2e-11 rad (at ``I3 − I2 = 1e-13``,
    1.6e-11, 4.2e-10, 4.4e-10); after, 1.2e-15, 4.9e-15, 9.8e-15 (and 1.2e-15, 3.2e-15, 2.5e-15)."""
    moments, omega = _nearly_symmetric(pair, 1e-13)
    times = np.array([1.0, 4.0, 10.0])
    expected = _mpmath_orientation(moments, omega, times)
    solution = TorqueFreeSolution.from_body_state(np.diag(moments), [1.0, 0.0, 0.0, 0.0], omega)
    error = _rotation_angle(solution.orientation(times), expected)
    assert np.all(error <= ORIENTATION_ULPS * EPS * (1.0 + np.linalg.norm(omega) * times)), error


@pytest.mark.parametrize("gap", [0.0096, 0.01, 0.1])
def test_the_two_forms_agree_where_they_switch(gap, monkeypatch):
    """Either side of ``n = TRANSFORMED_CHARACTERISTIC`` (-64: gaps 0.0096 and 0.01 put n at -64.5 and -61.9; 0.1 at
    -5.7, the T-handle's), taking ``Π`` whole or ``G`` gives the same φ to rounding over several periods: the switch
    is continuous. (Above it the plain form is kept so that ordinary bodies keep their bits.)"""
    moments, omega = _nearly_symmetric("minor", gap)
    times = np.linspace(0.0, 100.0, 41)
    forms = []
    for switch in (-np.inf, 0.0):  # the plain form everywhere, the transformed everywhere
        monkeypatch.setattr(euler_poinsot, "TRANSFORMED_CHARACTERISTIC", switch)
        motion = EulerPoinsot.solve(moments, omega)
        forms.append(motion.precession_angle(times))
    assert -70.0 < motion._characteristic < -1.0
    assert np.all(np.abs(forms[0] - forms[1]) <= PHI_ULPS * EPS * (1.0 + np.abs(forms[0])))


def test_the_separatrix_of_a_nearly_symmetric_body():
    """Exactly on the separatrix (dyadic moments and Ω with ``I3 (I3 − I2) Ω3² = I1 (I2 − I1) Ω1²``, n = −17424),
    where ``Π(n; am u | 1) = (u + a atan(a tanh u)) / (1 + a²)``, ``a = √−n``: also past the saturation of tanh
    (u = 40, t ≈ 290 s), where Π grows by ``Δu / (1 − n)``."""
    moments = np.array([0.125, 2.125, 2.125 + 2.0**-9])
    omega = np.array([0.12890625, 0.5, 1.0])
    motion = EulerPoinsot.solve(moments, omega)
    assert motion.m_complement == 0.0 and motion._characteristic == -17424.0 and motion._transformed
    mpmath.mp.dps = 40
    i1, i2, i3 = (mpmath.mpf(float(x)) for x in moments)
    w1, w2, w3 = (mpmath.mpf(float(x)) for x in omega)
    rate = mpmath.sqrt((i3 - i2) * (i2 * (i2 - i1) * w2**2 + i3 * (i3 - i1) * w3**2) / (i1 * i2 * i3))
    a = mpmath.sqrt(17424)
    u0 = mpmath.atanh(w2 / mpmath.sqrt(w2**2 + i1 * (i3 - i1) * w1**2 / (i2 * (i3 - i2))))  # sn u₀ = tanh u₀

    def pi(u):
        return (u + a * mpmath.atan(a * mpmath.tanh(u))) / (1 + a * a)

    L_norm = mpmath.sqrt((i1 * w1) ** 2 + (i2 * w2) ** 2 + (i3 * w3) ** 2)
    times = np.array([3.0, 30.0, 250.0, 1000.0])
    coefficient = L_norm * (i3 - i1) / (i3 * i1 * rate)
    expected = np.array(
        [float(L_norm * t / i3 + coefficient * (pi(rate * t + u0) - pi(u0))) for t in map(mpmath.mpf, times)]
    )
    error = np.abs(motion.precession_angle(times) - expected)
    assert np.all(error <= PHI_ULPS * EPS * (1.0 + np.abs(expected))), error


def test_legendre_pi_by_conjugate_is_mpmaths():
    rng = np.random.default_rng(7)
    mpmath.mp.dps = 40
    for _ in range(100):
        n = -(10.0 ** rng.uniform(0.0, 13.0))
        m_complement = 10.0 ** rng.uniform(-16.0, 0.0)
        amplitude = np.pi / 2 if rng.random() < 0.2 else rng.uniform(-np.pi / 2, np.pi / 2)
        sn, cn = np.sin(amplitude), np.cos(amplitude)
        m = 1.0 - m_complement
        value = float(legendre_pi_by_conjugate(sn, cn, m_complement, n, m / n))
        exact = mpmath.ellippi(n, mpmath.atan2(sn, cn), 1 - mpmath.mpf(m_complement))
        assert value == pytest.approx(float(exact), rel=PI_RELATIVE_ULPS * EPS, abs=0.0)


@pytest.mark.parametrize(
    "cn, m_complement, n",
    [(1e-70, 1e-139, -6e12), (2e-55, 1e-110, -100.0), (0.0, 1e-310, -1e9), (1e-160, 1e-318, -5e4)],
)
def test_legendre_pi_by_conjugate_next_to_the_saddle_is_mpmaths(cn, m_complement, n):
    """A nearly symmetric body spun next to its intermediate axis: ``cos² φ + m₁ sin² φ`` below 1e-100, where
    ``R_J`` takes its logarithmic form (sim/jacobi_elliptic.py) and ``R_C``'s first argument underflows."""
    mpmath.mp.dps = 400
    sn = float(np.sqrt(1.0 - cn * cn))
    value = float(legendre_pi_by_conjugate(sn, cn, m_complement, n, (1.0 - m_complement) / n))
    exact = mpmath.ellippi(n, mpmath.atan2(sn, cn), 1 - mpmath.mpf(m_complement))
    assert value == pytest.approx(float(exact), rel=PI_RELATIVE_ULPS * EPS, abs=0.0)


def test_the_batch_takes_the_same_form():
    """TorqueFreeBatch (run's references) switches row by row: each nearly symmetric body, and an ordinary one
    beside them, is its own closed form to rounding (the bound of tests/sim/test_exact_batch.py)."""
    states = [_nearly_symmetric(pair, gap) for pair in ("minor", "major") for gap in (1e-13, 1e-7, 0.1)]
    states.append((np.array([1.3, 1.4, 2.5]), np.array([0.3, 5.0, 0.2])))
    inertia = np.stack([np.diag(moments) for moments, _ in states])
    omega = np.stack([w for _, w in states])
    q0 = np.tile([1.0, 0.0, 0.0, 0.0], (len(states), 1))
    batch = TorqueFreeBatch.from_body_states(inertia, q0, omega)
    assert batch.rows.size == len(states) and batch.transformed.tolist() == [True, True, False] * 2 + [False]
    times = np.array([0.0, 3.7, 41.0])
    q, omega_body = batch.orientation_and_omega_body(times)
    for k in range(len(states)):
        single = TorqueFreeSolution.from_body_state(inertia[k], q0[k], omega[k]).orientation_and_omega_body(times)
        bound = ORIENTATION_ULPS * EPS * (1.0 + np.linalg.norm(omega[k]) * times)
        assert np.all(np.abs(q[:, k] - single[0]) <= bound[:, None]), k
        assert np.all(np.abs(omega_body[:, k] - single[1]) <= np.linalg.norm(omega[k]) * bound[:, None]), k
