"""benchmarks/latency.py: each kernel it times is its integrator's (same new state, bit for bit), and a quick
measurement has what the table and bench.json read."""

import json

import numpy as np
import pytest

from spinlab.benchmarks import latency
from spinlab.sim.integrators import INTEGRATORS, METHODS
from spinlab.sim.integrators.state import BodyParams, BodyState


@pytest.mark.parametrize("name", [name for name in METHODS if name != "exact"])  # the engines' steps: numpy alone
def test_the_kernel_timed_is_the_integrators(name):
    rng = np.random.default_rng(1)
    q = rng.normal(size=(3, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    inertia = np.broadcast_to(np.diag(latency.INERTIA.diagonal()), (3, 3, 3))
    state = BodyState.from_omega_body(q, latency.OMEGA_BODY + rng.normal(size=(3, 3)), inertia)
    params = BodyParams.from_inertia(inertia)
    q_out = np.empty((3, 4))
    latency.kernel_call(name, state, params, q_out)()
    assert q_out.tobytes() == INTEGRATORS[name](state, params, latency.H)[0].q.tobytes()


def test_a_quick_measurement_has_what_the_table_reads():
    rows = [latency.measure(name, repeats=1, calls=3) for name in ("euler", "exact")]
    result = json.loads(json.dumps({"name": "latency", "quick": True, "h": latency.H, "repeats": 1, "results": rows}))
    assert rows[0]["kernel_us"] > 0 and rows[0]["world_us"] > 0 and rows[1]["kernel_us"] is None
    table = latency.format_table(result)
    assert "euler" in table and "exact" in table and "World.step" in table
