"""The ``bullet_*`` and ``mujoco_*`` engine steps against the real engines (the ``peers`` extra: ``mujoco``,
``pybullet``): the same body and state, 600 steps, the same end state. The mapping of engine settings to steps is
benchmarks/engine_peers.py's.

Tolerance: both sides compute the same formulas in float64 in another order, so they differ by rounding, which the
motion amplifies (the T-handle passes near its separatrix); ``RTOL_AGREEMENT`` bounds the end state (q, and ω
relative to its size) after 600 steps (measured: at most 3e-12).
"""

import numpy as np
import pytest

from spinlab.benchmarks.engine_peers import BODIES, PAIRS, difference, mujoco_run, peer_run, spinlab_run, start
from spinlab.sim.integrators import INTEGRATORS
from spinlab.sim.integrators.state import BodyParams, BodyState, to_body
from spinlab.sim.quaternion import quat_normalize

RTOL_AGREEMENT = 1e-9
SKIP_REASON = "the peers extra (pip install -e '.[peers]') is not installed"


@pytest.mark.parametrize("h", [1.0 / 60.0, 1.0 / 30.0])
@pytest.mark.parametrize("body", list(BODIES))
@pytest.mark.parametrize("name", list(PAIRS))
def test_engine_steps_agree_with_the_real_engines(name, body, h):
    module, setting = PAIRS[name]
    peer = pytest.importorskip(module, reason=SKIP_REASON)
    moments, omega = BODIES[body]
    q0, omega_body = start(7, omega)
    q_peer, omega_peer = peer_run(peer, setting, q0, omega_body, moments, h)
    q_difference, omega_difference = difference(q_peer, omega_peer, spinlab_run(name, q0, omega_body, moments, h))
    assert q_difference <= RTOL_AGREEMENT and omega_difference <= RTOL_AGREEMENT


def test_mujoco_implicitfast_is_not_euler_on_a_free_body():
    """The gyroscopic derivative that makes implicitfast differ from Euler on a free body (MuJoCo ≥ 3.11) is in
    the installed MuJoCo: the two end states differ by far more than the agreement tolerance."""
    mujoco = pytest.importorskip("mujoco", reason=SKIP_REASON)
    moments, omega = BODIES["t_handle"]
    q0, omega_body = start(7, omega)
    euler, _ = mujoco_run(mujoco, "Euler", q0, omega_body, moments, 1.0 / 60.0)
    fast, _ = mujoco_run(mujoco, "implicitfast", q0, omega_body, moments, 1.0 / 60.0)
    assert np.abs(euler - fast).max() > 1e3 * RTOL_AGREEMENT


def test_bullet_implicit_world_and_body_are_one_map_to_rounding():
    """computeGyroscopicImpulseImplicit_World and _Body take the same Newton step in two frames (the body
    Jacobian is the world one turned by O): one step of random bodies agrees to rounding."""
    rng = np.random.default_rng(3)
    q = quat_normalize(rng.normal(size=(50, 4)))
    inertia = np.broadcast_to(np.diag(BODIES["t_handle"][0]), (50, 3, 3))
    state = BodyState.from_omega_body(q, 4.0 * rng.normal(size=(50, 3)), inertia)
    params = BodyParams.from_inertia(inertia)
    world, _ = INTEGRATORS["bullet_implicit_world"](state, params, 1.0 / 60.0)
    body, _ = INTEGRATORS["bullet_implicit_body"](state, params, 1.0 / 60.0)
    np.testing.assert_allclose(to_body(world.q, world.omega_world), to_body(body.q, body.omega_world), atol=1e-13)
    np.testing.assert_allclose(world.q, body.q, atol=1e-15)
