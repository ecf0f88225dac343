"""The orientation carried as a double-double, ``q + q_low`` (sim/integrators/state.py ``BodyState.q_low``).

Each step's rotation is added to the orientation as a small increment by compensated summation
(:func:`sim.integrators._kernels.compensated_step`), so the rounding of ``q`` no longer piles up with the number of
steps: against exact arithmetic (mpmath) over many small turns, and on the T-handle, whose flips amplify any
rounding 20–80×, the error of the methods that carry the low part no longer rises as ``h`` shrinks.
"""

import math

import mpmath
import numpy as np
import pytest

from spinlab.scene.model.measures import orientation_error
from spinlab.sim.exact import TorqueFreeSolution
from spinlab.sim.integrators import INTEGRATORS
from spinlab.sim.integrators._kernels import compensated_step
from spinlab.sim.integrators.state import BodyParams, BodyState
from spinlab.sim.quaternion import quat_identity

TURNS = 20_000
ZERO = (0.0, 0.0, 0.0, 0.0)
# 20,000 turns of sin(x) = 0.003 about a fixed axis, every number made by IEEE operations alone (the same bits on
# every CPU). The double-double is off the exact product of the same turns by the rounding of the increments
# alone, ~sqrt(20,000) · ε · |δ| (measured 2.1e-17 rad); float64, by that of q, ~sqrt(20,000) · ε (measured
# 6.9e-15 rad).
ATOL_COMPENSATED_RAD = 2e-16
FLOAT64_AT_LEAST_RAD = 2e-15
T_HANDLE_MOMENTS = (2.5, 1.4, 1.3)  # kg m², seed 003's T-handle (benchmarks/accuracy.py)
T_HANDLE_OMEGA_BODY = (0.05, 5.0, 0.05)  # rad/s: near the intermediate axis, a flip every 9.7 s
# Over 60 s in float64 these reach 1.2e-12 … 7e-12 rad, rising as h shrinks; carried as double-doubles, 1e-14 …
# 2.5e-13 (measured); the closed form itself agrees with an independent long-double run to 2.5e-14.
ATOL_T_HANDLE_RAD = 1e-12
# im6: Newton's stopping rule leaves up to ~4e-15 · ∫|ω| dt ≈ 1e-12 rad, amplified by the flips.
ATOL_IMPLICIT_RAD = 5e-12


def _turn(axis: tuple, sine: float) -> tuple[float, float, float, float]:
    """A turn's difference from 1, ``(cos x − 1, sin x · axis)`` with ``sin x = sine`` (a unit ``axis``), by IEEE
    operations alone: ``cos x − 1 = −sin² x / (1 + cos x)``."""
    return (-(sine * sine) / (1.0 + math.sqrt(1.0 - sine * sine)), sine * axis[0], sine * axis[1], sine * axis[2])


def _angle_to(high, low, exact: list) -> float:
    """The rotation angle (rad) between the double-double ``high + low`` (4-tuples, summed in mpmath) and the mpmath
    quaternion ``exact`` (any length)."""
    norm = mpmath.sqrt(sum(e * e for e in exact))
    w, x, y, z = (e / norm for e in exact)
    a = [mpmath.mpf(h) + mpmath.mpf(lo) for h, lo in zip(high, low, strict=True)]
    # the vector part of exact* ⊗ a: its length is sin(angle/2) |a|
    vx = w * a[1] - x * a[0] - (y * a[3] - z * a[2])
    vy = w * a[2] - y * a[0] - (z * a[1] - x * a[3])
    vz = w * a[3] - z * a[0] - (x * a[2] - y * a[1])
    return float(2 * mpmath.asin(mpmath.sqrt(vx * vx + vy * vy + vz * vz) / mpmath.sqrt(sum(v * v for v in a))))


def test_many_small_turns_add_up_to_the_exact_product_of_the_same_turns():
    turn = _turn((0.36, 0.48, 0.8), 0.003)
    start = (0.5, -0.1, 0.7, 0.3)
    norm = math.sqrt(sum(v * v for v in start))
    start = tuple(v / norm for v in start)
    high, low, plain = start, ZERO, start
    for _ in range(TURNS):
        high, low = compensated_step(high, low, ZERO, turn)
        plain, _ = compensated_step(plain, ZERO, ZERO, turn)  # the low part dropped every step: float64
    with mpmath.workdps(60):
        step = [mpmath.mpf(1) + mpmath.mpf(turn[0]), *(mpmath.mpf(v) for v in turn[1:])]
        total = [mpmath.mpf(1), mpmath.mpf(0), mpmath.mpf(0), mpmath.mpf(0)]
        power, n = step, TURNS
        while n:  # (1 + turn)^TURNS by squaring
            if n & 1:
                total = _mul(total, power)
            power, n = _mul(power, power), n >> 1
        exact = _mul([mpmath.mpf(v) for v in start], total)
        compensated = _angle_to(high, low, exact)
        float64 = _angle_to(plain, ZERO, exact)
    assert compensated < ATOL_COMPENSATED_RAD, compensated
    assert float64 > FLOAT64_AT_LEAST_RAD, float64  # what the low part is for: the bound is not loose


def _mul(p: list, q: list) -> list:
    return [
        p[0] * q[0] - p[1] * q[1] - p[2] * q[2] - p[3] * q[3],
        p[0] * q[1] + p[1] * q[0] + p[2] * q[3] - p[3] * q[2],
        p[0] * q[2] + p[2] * q[0] + p[3] * q[1] - p[1] * q[3],
        p[0] * q[3] + p[3] * q[0] + p[1] * q[2] - p[2] * q[1],
    ]


def test_the_low_part_is_within_half_an_ulp_and_the_orientation_stays_unit():
    rng = np.random.default_rng(3)
    high, low = tuple(quat_identity()), ZERO
    for _ in range(1000):
        high, low = compensated_step(high, low, _turn((0.0, 0.6, 0.8), rng.uniform(0, 0.3)),
                                     _turn((1.0, 0.0, 0.0), rng.uniform(-0.3, 0.3)))  # fmt: skip
    assert np.all(np.abs(low) <= 0.5 * np.spacing(np.abs(high)))
    assert abs(np.dot(high, high) - 1.0) < 4 * np.finfo(float).eps


def test_a_quaternion_given_off_unit_length_is_normalised_and_its_low_part_dropped():
    high, low = compensated_step((2.0, 0.0, 0.0, 0.0), (1e-17, 0.0, 0.0, 0.0), ZERO, ZERO)
    assert high == (1.0, 0.0, 0.0, 0.0) and low == ZERO


def _t_handle_error(name: str, h: float, duration: float, *, keep_low: bool = True) -> float:
    """The final orientation error (rad) of ``name`` on the T-handle; ``keep_low=False`` drops the orientation's
    low part after every step (float64, as before the double-double, but for the one rounding a step)."""
    inertia = np.diag(T_HANDLE_MOMENTS)[None]
    state = BodyState.from_omega_body(quat_identity((1,)), np.array([T_HANDLE_OMEGA_BODY]), inertia)
    params = BodyParams.from_inertia(inertia)
    steps = round(duration / h)
    step = INTEGRATORS[name]
    for _ in range(steps):
        state, _ = step(state, params, h)
        if not keep_low:
            state = BodyState(state.q, state.omega_world, state.L_world, np.zeros((1, 4)))
    exact = TorqueFreeSolution.from_body_state(inertia[0], quat_identity(), np.array(T_HANDLE_OMEGA_BODY))
    return float(orientation_error(state.q[0] + state.q_low[0], exact.orientation(np.array([steps * h]))[0]))


@pytest.mark.parametrize("name", ["axes6", "axes8"])
def test_on_the_t_handle_the_error_does_not_rise_as_the_step_shrinks(name):
    """60 s (six flips), 14,400 … 60,000 steps: in float64 alone the error at h = 1/240 … 1/1000 was 1.2e-12 …
    7.6e-12 rad; with the low part dropped after each step, 0.5e-12 … 2.2e-12 (measured)."""
    steps = (1 / 240, 1 / 480, 1 / 1000)
    errors = [_t_handle_error(name, h, 60.0) for h in steps]
    assert max(errors) < ATOL_T_HANDLE_RAD, errors
    dropped = [_t_handle_error(name, h, 60.0, keep_low=False) for h in steps]
    assert max(dropped) > ATOL_T_HANDLE_RAD, dropped  # the bound is what the low part buys


def test_the_sixth_order_implicit_composition_no_longer_rises_near_1e_11_on_the_t_handle():
    """im6 (split6 is the same torque-free): each Newton piece's turn ``exp(v/2) − 1`` is added to ``q + q_low``
    (sim/integrators/_kernels.py ``_advance``). Before, each piece normalised ``q ⊗ exp(v/2)`` in float64 and the
    error rose from 2.3e-12 rad at h = 1/480 to 2.1e-11 at 1/1000 (measured); now 0.4–2.3e-12, bounded by Newton's
    relative stopping rule (4e-15 |v| a piece, sim/integrators/newton.py), not by the number of steps."""
    errors = [_t_handle_error("im6", h, 60.0) for h in (1 / 480, 1 / 1000, 1 / 2000)]
    assert max(errors) < ATOL_IMPLICIT_RAD, errors
