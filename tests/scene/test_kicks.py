"""Kicks (scene/running/kicks.py): read and checked from [[kick]] tables, landed on the first step boundary at or after
their time, L jumping by exactly the impulse, the same in run's trace, side by side and the window's session, and
written back."""

import csv
import dataclasses
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from spinlab.scene.files.kick_table import BEYOND_ANY_RUN, KickSpec, kick_step
from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.files.scene_toml import scene_to_toml
from spinlab.scene.model.run_model import Session, Setup, default_integrators
from spinlab.scene.model.runner import run_scene
from spinlab.scene.running.simulation import Simulation
from spinlab.sim.errors import InputError
from spinlab.sim.integrators import CLAIMS
from spinlab.sim.quaternion import quat_rotate

ROOT = Path(__file__).resolve().parents[2]

FREE = """
[scene]
dt = 0.01

[[body]]
name = "handle"
shape = "t_handle"
inertia = [1.3, 1.4, 2.5]
mass = 2.0
body_angular_velocity = [0.1, 4.0, 0.1]
"""


def _write(tmp_path, text, name="scene.toml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _kicked(tmp_path, kick_text, body_text=FREE):
    return load_scene(_write(tmp_path, body_text + "\n[[kick]]\n" + kick_text))


@pytest.mark.parametrize(
    ("time", "h", "step"),
    [(0.0, 0.01, 0), (1.0, 0.01, 100), (0.995, 0.01, 100), (1.0001, 0.01, 101), (0.3, 0.1, 3), (1e-9, 0.5, 1)],
)
def test_a_kick_lands_on_the_first_step_boundary_at_or_after_its_time(time, h, step):
    assert kick_step(time, h) == step
    assert step * h >= time and (step == 0 or (step - 1) * h < time)


@pytest.mark.parametrize("time", [1e50, 1.7e308, 2.0**60 * 0.09272606489357409])
def test_a_kick_beyond_any_run_lands_far_away_at_once(time):
    # Past 2**52 steps k and k - 1 are one float64: the search by ones never ended (a fuzzed scene, a kick at 1e50 s).
    h = 0.09272606489357409
    assert kick_step(time, h) == BEYOND_ANY_RUN == 2**52
    assert kick_step(BEYOND_ANY_RUN * h * 0.5, h) == 2**51  # below it, exact as before


def test_L_is_constant_before_and_after_and_jumps_by_exactly_the_impulse(tmp_path):
    impulse = np.array([0.0, 2.0, 0.5])
    scene = _kicked(tmp_path, 'body = "handle"\ntime = 0.5\nangular_impulse = [0.0, 2.0, 0.5]\n')
    simulation = Simulation(scene, integrator="implicit_midpoint")
    rows = []
    for _ in range(100):
        simulation.step()
        rows.append((simulation.step_index, simulation.snapshot()))
    L = {step: snapshot.L_world[0] for step, snapshot in rows}
    before, after = np.array([L[k] for k in range(1, 50)]), np.array([L[k] for k in range(50, 101)])
    assert np.abs(before - before[0]).max() < 1e-12  # torque-free: L constant
    assert np.abs(after - after[0]).max() < 1e-12
    np.testing.assert_allclose(L[50] - L[49], impulse, rtol=0, atol=1e-12)  # the row at t_k is after the kick
    snapshot = dict(rows)[50]
    assert snapshot.t == pytest.approx(0.5)
    # ω follows the new L: L = O I Oᵀ ω.
    inertia = scene.bodies[0].inertia_body
    omega_body = quat_rotate(snapshot.q[0] * [1, -1, -1, -1], snapshot.omega_world[0])
    np.testing.assert_allclose(quat_rotate(snapshot.q[0], inertia @ omega_body), L[50], atol=1e-12)


def test_a_linear_impulse_at_a_point_adds_its_moment_and_moves_a_free_body(tmp_path):
    text = 'body = "handle"\ntime = 0.1\nimpulse = [0.0, 0.0, 3.0]\npoint = [0.5, 0.0, 0.0]\n'
    scene = _kicked(tmp_path, text)
    simulation = Simulation(scene)
    for _ in range(9):
        simulation.step()
    L_before = simulation.snapshot().L_world[0]
    simulation.step()
    after = simulation.snapshot()
    arm = quat_rotate(after.q[0], np.array([0.5, 0.0, 0.0]))  # the kick leaves the orientation as it is
    np.testing.assert_allclose(after.L_world[0] - L_before, np.cross(arm, [0.0, 0.0, 3.0]), atol=1e-12)
    position = after.position[0].copy()
    simulation.step()
    # v = J / m = 1.5 m/s along z, no gravity.
    np.testing.assert_allclose(simulation.snapshot().position[0] - position, [0.0, 0.0, 1.5 * 0.01], atol=1e-12)


def test_a_pivoted_body_takes_the_moment_about_its_pivot(tmp_path):
    top = FREE.replace("mass = 2.0", "mass = 2.0\npivot = [0.0, 0.0, -0.5]")
    scene = _kicked(tmp_path, 'body = "handle"\ntime = 0.0\nimpulse = [1.0, 0.0, 0.0]\n', top)
    # At t = 0 the body frame is the world's: the arm from the pivot to the centre of mass is +0.5 z.
    plain = Simulation(load_scene(_write(tmp_path, top, "top.toml")))
    kicked = Simulation(scene)
    np.testing.assert_allclose(
        kicked.snapshot().L_world[0] - plain.snapshot().L_world[0], np.cross([0.0, 0.0, 0.5], [1.0, 0.0, 0.0])
    )


def test_counteracting_keeps_a_kinematic_childs_global_rate(tmp_path):
    text = (
        FREE
        + """
[[body]]
name = "vane"
parent = "handle"
shape = "box"
position = [0.0, 0.0, 1.0]
[body.kinematic]
angular_velocity = [0.0, 0.0, 2.0]
"""
    )
    kick = 'body = "handle"\ntime = 0.05\nangular_impulse = [3.0, 0.0, 0.0]\n'
    plain = Simulation(load_scene(_write(tmp_path, text, "plain.toml")))
    for _ in range(5):
        plain.step()
    unkicked = plain.snapshot()
    for counteract in (False, True):
        scene = _kicked(tmp_path, kick + ("counteract_children = true\n" if counteract else ""), text)
        simulation = Simulation(scene)
        for _ in range(5):
            simulation.step()
        after = simulation.snapshot()  # at t_k, after the kick; the orientations are the unkicked run's
        np.testing.assert_array_equal(after.q[0], unkicked.q[0])
        kicked = after.omega_world[0] - unkicked.omega_world[0]
        assert np.linalg.norm(kicked) > 1.0
        inherited = after.omega_world[1] - unkicked.omega_world[1]
        if counteract:
            np.testing.assert_allclose(inherited, 0.0, atol=1e-12)
            np.testing.assert_allclose(after.q[1], unkicked.q[1], atol=1e-12)  # continuous at t_k
        else:
            np.testing.assert_allclose(inherited, kicked, atol=1e-12)  # Δω₃ = Δω₂
        simulation.step()
        assert np.isfinite(simulation.snapshot().omega_world).all()


def test_run_traces_the_kick_and_every_integrator_gets_it(tmp_path):
    scene = _write(tmp_path, FREE + '\n[[kick]]\nbody = "handle"\ntime = 0.2\nangular_impulse = [0.0, 0.0, 1.0]\n')
    trace = tmp_path / "trace.csv"
    args = [sys.executable, str(ROOT / "main.py"), "run", str(scene), "--duration", "0.3", "--trace", str(trace)]
    result = subprocess.run([*args, "--integrator", "all"], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert "kicked 1× (scene file): measured from t = 0.2 s, after the last kick" in result.stdout
    traces = sorted(tmp_path.glob("trace.*.csv"))
    assert len(traces) > 3
    # Those that keep L to rounding show the jump alone; the others drift by their error over a step too.
    traces = [path for path in traces if CLAIMS[path.suffixes[0][1:]].conserves_momentum]
    assert len(traces) > 3
    for path in traces:
        with path.open() as handle:
            rows = {round(float(row["t"]), 6): row for row in csv.DictReader(handle)}
        L = {t: np.array([float(rows[t][k]) for k in ("Lx", "Ly", "Lz")]) for t in (0.19, 0.2, 0.21)}
        np.testing.assert_allclose(L[0.2] - L[0.19], [0.0, 0.0, 1.0], atol=1e-9, err_msg=path.name)
        np.testing.assert_allclose(L[0.21], L[0.2], atol=1e-9, err_msg=path.name)


def test_side_by_side_copies_are_kicked_alike_and_the_session_matches_run(tmp_path):
    scene = _kicked(tmp_path, 'body = "handle"\ntime = 0.1\nangular_impulse = [1.0, -1.0, 0.0]\n')
    compared = ("implicit_midpoint", "rkmk4", "exact")
    session = Session(Setup(scene, default_integrators(scene), side_by_side=True, compared=compared, h=scene.h))
    assert [kick.body for kick in session.scene.kicks] == [f"handle [{name}]" for name in compared]
    session.step(10)
    for copy, name in enumerate(compared):
        alone = Simulation(scene, integrator=name)
        for _ in range(10):
            alone.step()
        np.testing.assert_array_equal(session.snapshot.L_world[copy], alone.snapshot().L_world[0])
        np.testing.assert_array_equal(session.snapshot.q[copy], alone.snapshot().q[0])


def test_kicks_are_written_back_and_read_alike(tmp_path):
    text = (
        'body = "handle"\ntime = 0.25\nangular_impulse = [0.1, 0.2, 0.3]\nimpulse = [1.0, 0.0, 0.0]\n'
        "point = [0.0, 0.25, 0.0]\n"
    )
    scene = _kicked(tmp_path, text)
    again = load_scene(_write(tmp_path, scene_to_toml(scene, default_integrators(scene), scene.h), "again.toml"))
    assert len(again.kicks) == 1
    for field in ("angular_impulse", "impulse", "point"):
        np.testing.assert_array_equal(getattr(again.kicks[0], field), getattr(scene.kicks[0], field))
    assert (again.kicks[0].body, again.kicks[0].time) == ("handle", 0.25)
    preset = load_scene("kick")
    back = load_scene(_write(tmp_path, scene_to_toml(preset, default_integrators(preset), preset.h), "p.toml"))
    assert [(k.body, k.time, tuple(k.angular_impulse)) for k in back.kicks] == [
        (k.body, k.time, tuple(k.angular_impulse)) for k in preset.kicks
    ]


def test_a_live_kick_is_scheduled_on_the_simulation():
    simulation = Simulation(load_scene("t_handle"))
    for _ in range(3):
        simulation.step()
    L = simulation.snapshot().L_world[0].copy()
    step = simulation.kicks.add(KickSpec("handle", (simulation.step_index + 1) * simulation.h, np.array([0, 1.0, 0])))
    assert step == 4
    simulation.step()
    np.testing.assert_allclose(simulation.snapshot().L_world[0] - L, [0.0, 1.0, 0.0], atol=1e-12)


HIERARCHY_CHILD = FREE + '\n[[body]]\nname = "spinner"\nshape = "box"\n[body.kinematic]\nangular_velocity = [0, 0, 1]\n'


@pytest.mark.parametrize(
    ("kick", "key", "words"),
    [
        ('body = "handel"\ntime = 1.0\nangular_impulse = [0, 1, 0]', "kick[0].body", "did you mean 'handle'"),
        ('body = "spinner"\ntime = 1.0\nangular_impulse = [0, 1, 0]', "kick[0].body", "kinematic"),
        ('body = "handle"\ntime = -1.0\nangular_impulse = [0, 1, 0]', "kick[0].time", "at least 0"),
        ('body = "handle"\ntime = nan\nangular_impulse = [0, 1, 0]', "kick[0].time", "finite"),
        ('body = "handle"\nangular_impulse = [0, 1, 0]', "kick[0].time", "required"),
        ('body = "handle"\ntime = 1.0\nangular_impulse = [0, 1]', "kick[0].angular_impulse", "3 numbers"),
        ('body = "handle"\ntime = 1.0\nangular_impulse = [0, "x", 0]', "kick[0].angular_impulse", "number"),
        ('body = "handle"\ntime = 1.0\nimpulse = [inf, 0, 0]', "kick[0].impulse", "finite"),
        ('body = "handle"\ntime = 1.0\npoint = [0, 0, 1]', "kick[0].point", "impulse"),
        ('body = "handle"\ntime = 1.0', "kick[0].body", "nothing"),
        ('body = "handle"\ntime = 1.0\nangular_impulse = [0, 1, 0]\nspin = 2', "kick[0].spin", "unknown key"),
        (
            'body = "handle"\ntime = 1.0\nangular_impulse = [0, 1, 0]\ncounteract_children = 1',
            "kick[0].counteract_children",
            "true or false",
        ),
        (
            'body = "handle"\ntime = 1.0\nangular_impulse = [0, 1, 0]\ncounteract_children = true',
            "kick[0].counteract_children",
            "no children",
        ),
    ],
)
def test_bad_kicks_name_the_file_key_and_value(tmp_path, kick, key, words):
    path = _write(tmp_path, HIERARCHY_CHILD + "\n[[kick]]\n" + kick + "\n")
    with pytest.raises(InputError) as error:
        load_scene(path)
    message = str(error.value)
    assert str(path) in message and key in message and words in message, message
    assert "\n" not in message


def test_kick_must_be_an_array_of_tables(tmp_path):
    with pytest.raises(InputError, match="kick"):
        load_scene(_write(tmp_path, FREE.replace("[scene]", 'kick = "now"\n[scene]')))


@pytest.mark.parametrize(
    "kick", ['body = "nobody"\ntime = 1.0\nangular_impulse = [0, 1, 0]', 'body = "handle"\ntime = -2']
)
def test_run_refuses_a_bad_kick_in_one_line_with_exit_2(tmp_path, kick):
    path = _write(tmp_path, FREE + "\n[[kick]]\n" + kick + "\n")
    result = subprocess.run(
        [sys.executable, str(ROOT / "main.py"), "run", str(path), "--duration", "0.1"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "kick[0]" in result.stderr and "Traceback" not in result.stderr


def test_run_and_the_window_measure_a_kicked_run_alike():
    # One run model: run's table is the window's session (scene/model/run_model.py) measured at the end, from the
    # state just after the last kick, so a run of the kick preset gives the same figures to the bit.
    scene = load_scene("kick")
    duration = 8.0
    (row,) = run_scene(scene, integrator=None, h=scene.h, duration=duration)
    session = Session(Setup(scene, default_integrators(scene), h=scene.h))
    steps = round(duration / scene.h)
    while session.simulation.step_index < steps:  # the window steps within a time budget a call
        session.step(steps - session.simulation.step_index)
    sample = session.sample()
    assert 0.0 < row.energy_error < 1e-3, "the implicit midpoint rule's error, not the kick's change of energy"
    assert row.energy_error == sample.energy_error[0]
    assert row.orientation_error == sample.orientation_error[0]
    assert row.momentum_error == 0.0 and sample.momentum_error[0] == 0.0


class _CountedName(str):
    """A body's name that counts its comparisons: a kick's name is compared with the bodies' and the other kicks'."""

    comparisons = 0

    def __eq__(self, other):
        _CountedName.comparisons += 1
        return str.__eq__(self, other)

    __hash__ = str.__hash__


def test_a_runs_kick_bookkeeping_is_linear_in_its_kicks(tmp_path):
    # Counting the kicks per body for the table's notes compared every kick with every other (10^5 kicks: > 400 s).
    # Each kick's name is its own object, so that no comparison is skipped by identity.
    scene = load_scene(_write(tmp_path, FREE))
    count = 300
    kicks = tuple(KickSpec(_CountedName("handle"), step * scene.h, np.array([0.0, 0.0, 1e-3])) for step in range(count))
    kicked = dataclasses.replace(scene, kicks=kicks)
    _CountedName.comparisons = 0
    (row,) = run_scene(kicked, integrator=None, h=scene.h, duration=count * scene.h)
    assert row.note is not None and f"kicked {count}×" in row.note
    assert _CountedName.comparisons <= 10 * count  # a few a kick (its schedule, the notes), not one per pair
