"""The claims a person reads beside the integrator combo (sim.integrators.claims.describe): ``implicit`` measured
by the Newton iterations a step reports, ``relative_cost`` checked against the benchmark results it was read from,
and the one-line description built from the claims alone."""

import json
from pathlib import Path

import numpy as np
import pytest

from spinlab.sim.integrators import CLAIMS, ENGINE_STEPS, INTEGRATORS
from spinlab.sim.integrators.claims import Claims, describe
from spinlab.sim.integrators.state import BodyParams, BodyState
from spinlab.sim.quaternion import quat_identity

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "bench.json"
COST_BODIES = 100_000
COST_RATIO_TOLERANCE = 1.25  # the claim is a rounded reading of the stored benchmark, not a timing


@pytest.mark.parametrize("name", INTEGRATORS)
def test_implicit_claim_matches_the_newton_iterations_a_step_reports(name):
    inertia = np.broadcast_to(np.diag((2.5, 1.4, 1.3)), (3, 3, 3))
    state = BodyState.from_omega_body(quat_identity((3,)), np.broadcast_to((0.05, 5.0, 0.05), (3, 3)), inertia)
    _, cost = INTEGRATORS[name](state, BodyParams.from_inertia(inertia), 1.0 / 60.0)
    assert bool((cost.newton_iterations > 0).all()) == CLAIMS[name].implicit


def test_relative_costs_are_the_stored_benchmarks_within_rounding():
    results = json.loads(BENCH.read_text())["benchmarks"]["integrators"]["results"]
    us = {
        r["integrator"]: r["us_per_step"] for r in results if r["backend"] == "numba" and r["n_bodies"] == COST_BODIES
    }
    for name, claims in CLAIMS.items():
        if claims.relative_cost is None:
            assert name not in us, f"{name} was benchmarked: claim its relative cost"
            continue
        measured = us[name] / us["euler"]
        assert 1 / COST_RATIO_TOLERANCE < claims.relative_cost / measured < COST_RATIO_TOLERANCE, (name, measured)


@pytest.mark.parametrize("name", INTEGRATORS)
def test_every_integrator_has_a_one_line_description_from_its_claims(name):
    claims = CLAIMS[name]
    line = describe(claims)
    assert claims.method and line.startswith(claims.method) and "\n" not in line
    assert ("implicit" in line) == claims.implicit
    assert (f"order {claims.order}" in line) == (claims.order is not None)
    assert ("keeps L" in line) == claims.conserves_momentum


def test_description_changes_with_each_claim():
    base = Claims(order=2, conserves_momentum=True, implicit=True, relative_cost=3.0, method="m")
    lines = {
        describe(base),
        describe(Claims(order=4, conserves_momentum=True, implicit=True, relative_cost=3.0, method="m")),
        describe(Claims(order=2, conserves_momentum=False, implicit=True, relative_cost=3.0, method="m")),
        describe(Claims(order=2, conserves_momentum=True, implicit=False, relative_cost=3.0, method="m")),
        describe(Claims(order=2, conserves_momentum=True, implicit=True, relative_cost=9.0, method="m")),
    }
    assert len(lines) == 5


@pytest.mark.parametrize("name", sorted(ENGINE_STEPS))
def test_an_engine_steps_description_says_when_it_takes_the_torque(name):
    """Each engine step takes a torque τ(q) where its engine evaluates its forces: once, at the step's start, or at
    each of MuJoCo RK4's stages; its line says which, under gravity and without."""
    line = describe(CLAIMS[name])
    when = "at each of the four stages" if name == "mujoco_rk4" else "at the step's start"
    assert CLAIMS[name].orientation_torque and when in line and line == describe(CLAIMS[name], under_torque=True)
