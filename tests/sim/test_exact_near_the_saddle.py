"""The closed form next to the intermediate axis: a body spun within 1e-150 … 1e-300 of it (Ω's other
components that small: only the library API reaches them, scene files stop at 1e-50) has a finite, conserving
motion, where it was NaN from ~1.5e-154 on (``m₁ = 1 − m`` subnormal: scipy's Carlson integrals of a subnormal
argument are inf) and the separatrix below ~1e-162 (``m₁`` rounded to 0). Near the saddle ``R_F`` and ``R_J`` are
their logarithmic forms (sim/jacobi_elliptic.py), checked here against mpmath."""

import mpmath
import numpy as np
import pytest

from spinlab.sim.euler_poinsot import EulerPoinsot
from spinlab.sim.jacobi_elliptic import carlson_rj_near_saddle, legendre_f

MOMENTS = np.array([1.3, 1.4, 2.5])  # kg m², the T-handle's
SPIN = 5.0  # rad/s about the intermediate axis
TIMES = np.linspace(0.0, 1000.0, 2001)  # s: past the first flips of every case below (~380 s at 1e-150)


def _solved(distance: float) -> EulerPoinsot:
    return EulerPoinsot.solve(MOMENTS, np.array([SPIN * distance, SPIN, 0.0]))


@pytest.mark.parametrize("distance", [1e-150, 1e-154, 1e-155, 1e-158, 1e-162, 1e-170, 1e-300])
def test_a_spin_next_to_the_intermediate_axis_has_a_finite_conserving_motion(distance):
    motion = _solved(distance)
    assert motion.kind == "elliptic" and motion.m_complement > 0.0
    omega = motion.omega_principal(TIMES)
    phi, theta, psi = motion.euler_angles(TIMES)
    assert np.isfinite(omega).all() and all(np.isfinite(angle).all() for angle in (phi, theta, psi))
    # |L| and E of every Ω: as the closed form keeps them where m₁ is normal (1e-100 off the axis: 7.8e-13 and
    # 1.6e-12 relative at the flips, u ~ 350, the rounding of sn, cn, dn there), here 1.8e-12 and 3.5e-12.
    L = np.linalg.norm(MOMENTS * omega, axis=-1)
    E = 0.5 * np.sum(MOMENTS * omega * omega, axis=-1)
    np.testing.assert_allclose(L, motion.L_norm, rtol=5e-12, atol=0.0)
    np.testing.assert_allclose(E, motion.energy, rtol=1e-11, atol=0.0)


@pytest.mark.parametrize("distance", [1e-150, 1e-155])
def test_the_motion_next_to_the_saddle_is_the_one_further_out_later(distance):
    """Leaving the saddle, a body ``ε`` off the axis is where a body ``ε'`` off is ``ln(ε'/ε)/λ`` earlier (the
    unstable direction grows as e^{λt}; both orbits are the separatrix to O(m₁) ~ ε²): the subnormal ``m₁`` of
    1e-155 (new path) against the normal ``m₁`` of 1e-100 (scipy's integrals as they were). The 1e-12 rad/s is the
    rounding of u ~ 350 carried through sn, cn, dn."""
    far, near = _solved(1e-100), _solved(distance)
    times = 240.0 + np.linspace(0.0, 60.0, 31)  # the first flip of the body 1e-100 off
    shift = np.log(1e-100 / distance) / far.rate
    np.testing.assert_allclose(near.omega_principal(times + shift), far.omega_principal(times), atol=1e-11, rtol=0)


@pytest.mark.parametrize(
    "cn, sn, m_complement", [(0.0, 1.0, 1e-120), (1e-70, 0.6, 1e-139), (2e-55, 0.8, 1e-110), (0.0, 1.0, 1e-310)]
)
def test_carlson_rj_near_the_saddle_is_mpmaths(cn, sn, m_complement):
    mpmath.mp.dps = 400
    p = 2.7
    cn_, sn_, m1 = (mpmath.mpf(v) for v in (cn, sn, m_complement))
    exact = mpmath.elliprj(cn_**2, cn_**2 + m1 * sn_**2, 1, p)
    value = float(carlson_rj_near_saddle(cn, sn, m_complement, p))
    assert value == pytest.approx(float(exact), rel=4e-16, abs=0.0)


@pytest.mark.parametrize("cos_amplitude, m_complement", [(0.0, 1e-310), (1e-160, 1e-318), (3e-60, 1e-121)])
def test_legendre_f_near_the_saddle_is_mpmaths(cos_amplitude, m_complement):
    mpmath.mp.dps = 400
    sin_amplitude = 1.0
    phi = mpmath.atan2(sin_amplitude, cos_amplitude)
    exact = mpmath.ellipf(phi, 1 - mpmath.mpf(m_complement))
    value = float(legendre_f(np.array(sin_amplitude), np.array(cos_amplitude), m_complement))
    assert value == pytest.approx(float(exact), rel=4e-16, abs=0.0)


def test_the_batch_of_bodies_next_to_the_saddle_is_each_ones_closed_form():
    """sim/exact_batch.py (run's references) takes the same near-saddle forms: each body's orientation and Ω are
    its own closed form's (the batch keeps bodies with a zero gap for the single path, and these have none)."""
    from spinlab.sim.exact import TorqueFreeSolution
    from spinlab.sim.exact_batch import TorqueFreeBatch

    distances = np.array([1e-3, 1e-150, 1e-155, 1e-160, 1e-300])
    omega = np.stack([SPIN * distances, np.full(5, SPIN), np.zeros(5)], axis=-1)
    inertia = np.broadcast_to(np.diag(MOMENTS), (5, 3, 3))
    q0 = np.tile([1.0, 0.0, 0.0, 0.0], (5, 1))
    batch = TorqueFreeBatch.from_states(inertia, q0, omega)
    t = 400.0  # past the first flip of every one of them
    q, omega_body = batch.orientation_and_omega_body(t)
    assert np.isfinite(q).all() and np.isfinite(omega_body).all()
    for k in range(5):
        single = TorqueFreeSolution.from_state(inertia[k], q0[k], omega[k])
        q_single, omega_single = single.orientation_and_omega_body(np.array([t]))
        # 1e-12: the rounding of u ~ 400 through sn, cn, dn and of φ ~ 2000 rad (tests/sim/test_exact_batch.py)
        np.testing.assert_allclose(omega_body[k], omega_single[0], atol=1e-12 * SPIN, rtol=0)
        assert min(np.abs(q[k] - q_single[0]).max(), np.abs(q[k] + q_single[0]).max()) < 1e-11
