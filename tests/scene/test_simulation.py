"""The scene in motion: the world's batching, the scene graph, traces, determinism and the `run` command."""

import dataclasses
import functools
import hashlib
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.files.trace import TRACE_HEADER
from spinlab.scene.model.runner import run_scene
from spinlab.scene.running.simulation import Simulation
from spinlab.sim.errors import NumericalError
from spinlab.sim.quaternion import quat_conj, quat_exp, quat_mul, quat_rotate
from tests.sim.world_reference import assert_same_bits, reference_step

ROOT = Path(__file__).resolve().parents[2]
ATOL = 1e-12


def _steps(simulation: Simulation, n: int) -> None:
    for _ in range(n):
        simulation.step()


def test_time_is_the_step_index_times_h():
    simulation = Simulation(load_scene("t_handle"), h=0.1)
    _steps(simulation, 7)
    assert simulation.t == 7 * 0.1 and simulation.snapshot().t == 7 * 0.1


def test_a_mixed_world_steps_each_body_as_it_would_alone():
    """compare holds one body per integrator: one batched world step equals five single-body simulations."""
    together = Simulation(load_scene("compare"))
    _steps(together, 30)
    for i, body in enumerate(together.scene.bodies):
        alone = Simulation(load_scene("t_handle"), integrator=body.integrator)
        _steps(alone, 30)
        np.testing.assert_allclose(together.snapshot().q[i], alone.snapshot().q[0], atol=ATOL)
        np.testing.assert_allclose(together.snapshot().omega_world[i], alone.snapshot().omega_world[0], atol=ATOL)


def test_kinematic_parent_turns_exactly_and_carries_its_children():
    simulation = Simulation(load_scene("hierarchy"))
    scene = simulation.scene
    table = scene.body("turntable")
    wheel = scene.body("wheel_east")
    index = {name: i for i, name in enumerate(simulation.names)}
    _steps(simulation, 123)
    now = simulation.snapshot()
    expected_table_q = quat_mul(quat_exp(now.t * table.omega_parent), table.orientation)
    np.testing.assert_allclose(now.q[index["turntable"]], expected_table_q, atol=ATOL)
    # The wheel's centre rides at its local position on the turning table.
    np.testing.assert_allclose(
        now.position[index["wheel_east"]], quat_rotate(expected_table_q, wheel.position), atol=1e-12
    )


def test_dynamic_children_are_torque_free_in_the_world():
    """Held at their centres by a frictionless joint, the wheels keep their world angular momentum."""
    simulation = Simulation(load_scene("hierarchy"))
    dynamic = [i for i, name in enumerate(simulation.names) if simulation.body_integrators[i] is not None]
    start = simulation.snapshot()
    _steps(simulation, 200)
    np.testing.assert_allclose(simulation.snapshot().L_world[dynamic], start.L_world[dynamic], rtol=1e-12)


def test_child_orientation_is_relative_to_the_parent_at_the_start():
    simulation = Simulation(load_scene("hierarchy"))
    index = {name: i for i, name in enumerate(simulation.names)}
    start = simulation.snapshot()
    wheel, table = simulation.scene.body("wheel_arm"), simulation.scene.body("arm")
    parent_q = start.q[index["arm"]]
    np.testing.assert_allclose(quat_mul(quat_conj(parent_q), start.q[index["wheel_arm"]]), wheel.orientation, atol=ATOL)
    assert table.kinematic


def test_heavy_top_energy_converges_at_second_order():
    """The torque is taken at the step's midpoint, so the energy error falls by ~4 when h is halved."""
    errors = [
        run_scene(load_scene("heavy_top"), integrator="implicit_midpoint", h=h, duration=2.0)[0].energy_error
        for h in (1 / 120, 1 / 240)
    ]
    assert 3.0 < errors[0] / errors[1] < 5.5


def test_trace_format_and_determinism(tmp_path):
    scene = load_scene("compare")
    paths = [tmp_path / "a.csv", tmp_path / "b.csv"]
    for path in paths:
        run_scene(scene, integrator=None, h=scene.h, duration=0.5, trace_path=path)
    assert hashlib.sha256(paths[0].read_bytes()).digest() == hashlib.sha256(paths[1].read_bytes()).digest()
    lines = paths[0].read_text().splitlines()
    assert lines[0] == TRACE_HEADER
    steps = round(0.5 / scene.h)
    assert len(lines) == 1 + len(scene.bodies) * (steps + 1)
    last = lines[-1].split(",")
    assert float(last[0]) == steps * scene.h and last[1] == scene.bodies[-1].name
    # Every float is the shortest repr that reads back to the same double.
    for field in lines[-1].split(",")[2:]:
        assert repr(float(field)) == field


PRESETS = ("compare", "t_handle", "hierarchy", "heavy_top", "stable_major", "stable_minor")
SNAPSHOT_EVERY = 7  # steps between the snapshots of the run under test, which composes the scene graph lazily


def _rebuilding(simulation: Simulation) -> Simulation:
    """``simulation`` with a world that rebuilds everything at every step (the step before the layout cache)."""
    simulation.world.step = functools.partial(reference_step, simulation.world)
    return simulation


def _assert_same_step(actual: Simulation, expected: Simulation, snapshot: bool) -> None:
    """One step of both: the same cost and, if ``snapshot``, the same snapshot and potential energy, bit for bit.
    ``expected`` is composed after every step, as every step did before the composition was made lazy."""
    cost, expected_cost = actual.step(), expected.step()
    assert_same_bits(cost.newton_iterations, expected_cost.newton_iterations)
    assert_same_bits(cost.substeps, expected_cost.substeps)
    expected_snapshot, expected_potential = expected.snapshot(), expected.potential_energy()
    if snapshot:
        now = actual.snapshot()
        for field in dataclasses.fields(now):
            assert_same_bits(getattr(now, field.name), getattr(expected_snapshot, field.name))
        assert_same_bits(actual.potential_energy(), expected_potential)


@pytest.mark.parametrize("gyroscopic", [True, False], ids=["gyroscopic", "no_gyroscopic_term"])
@pytest.mark.parametrize("name", PRESETS)
def test_presets_step_bit_for_bit_as_a_world_that_rebuilds_every_step(name, gyroscopic):
    cached = Simulation(load_scene(name), gyroscopic=gyroscopic)
    rebuilt = _rebuilding(Simulation(load_scene(name), gyroscopic=gyroscopic))
    for step in range(1, 121):
        _assert_same_step(cached, rebuilt, snapshot=step % SNAPSHOT_EVERY == 0)


def test_switching_the_gyroscopic_term_mid_run_is_honoured_on_the_next_step():
    """The window's checkbox writes ``simulation.world.gyroscopic`` (``Session.set_gyroscopic``) between steps."""
    cached, rebuilt = Simulation(load_scene("compare")), _rebuilding(Simulation(load_scene("compare")))
    for on in (True, False, True):
        cached.world.gyroscopic = rebuilt.world.gyroscopic = on
        for _ in range(5):
            _assert_same_step(cached, rebuilt, snapshot=True)


def test_failed_run_leaves_no_trace(tmp_path):
    path = tmp_path / "blowup.csv"
    with pytest.raises(NumericalError) as error:
        run_scene(load_scene("t_handle"), integrator="euler", h=40.0, duration=4000.0, trace_path=path)
    assert "handle" in str(error.value)
    assert not list(tmp_path.iterdir())


def _main(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "main.py"), *args], capture_output=True, text=True, cwd=ROOT)


def test_run_command_prints_a_summary_and_writes_a_trace(tmp_path):
    trace = tmp_path / "t.csv"
    result = _main("run", "t_handle", "--integrator", "implicit_midpoint", "--duration", "1", "--trace", str(trace))
    assert result.returncode == 0, result.stderr
    assert "implicit_midpoint" in result.stdout and "energy err" in result.stdout
    assert trace.read_text().startswith(TRACE_HEADER)


def test_run_command_rejects_bad_input_in_one_line(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[[body]]\nshape = "t_handle"\nmass = -1.0\n')
    for args in (("run", "no_such_preset"), ("run", str(bad)), ("run", "t_handle", "--dt", "0")):
        result = _main(*args)
        assert result.returncode == 2, args
        assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, result.stderr


def test_run_command_reports_a_blow_up_without_a_traceback():
    result = _main("run", "t_handle", "--integrator", "euler", "--dt", "40", "--duration", "4000")
    assert result.returncode == 1
    assert "handle" in result.stderr and "Traceback" not in result.stderr


def test_a_symmetric_heavy_top_is_measured_against_its_closed_form():
    # heavy_top is a Lagrange top: run's orientation error comes from sim/lagrange_top. The sixth-order splitting
    # agrees with it to ~1e-10 rad over 5 s, which a wrong reference (or none) could not give.
    scene = load_scene("heavy_top")
    (accurate,) = run_scene(scene, integrator="split6", h=scene.h, duration=5.0)
    (coarse,) = run_scene(scene, integrator="implicit_midpoint", h=scene.h, duration=5.0)
    assert accurate.orientation_error is not None and accurate.orientation_error < 1e-8
    assert 1e-4 < coarse.orientation_error < 1e-1
    assert accurate.momentum_error is None  # gravity's torque changes L: no |ΔL| to report
