"""Scripted changes (scene/files/change_table.py, scene/running/changes.py): [[change]] tables switch the gyroscopic
term at a step boundary, as the window's switch does at that step, bit for bit; they are checked, written back, and
a session's switches are saved as changes that give its run again."""

import dataclasses

import numpy as np
import pytest

from spinlab.scene.files.change_table import ChangeSpec
from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.files.scene_toml import scene_to_toml
from spinlab.scene.model.run_model import Session, Setup, default_integrators
from spinlab.scene.model.runner import run_scene
from spinlab.scene.running.simulation import Simulation
from spinlab.sim.errors import InputError
from tests.scene.test_kicks import FREE as KICKED_FREE

FREE = KICKED_FREE + 'integrator = "implicit_midpoint"\n'  # the body kicks are tried on, with a method that keeps L

CHANGE = "\n[[change]]\ntime = {}\ngyroscopic = {}\n"


def _scene(tmp_path, changes_text, name="scene.toml"):
    path = tmp_path / name
    path.write_text(FREE + changes_text, encoding="utf-8")
    return load_scene(path)


def _state(simulation):
    snapshot = simulation.snapshot()
    return snapshot.q.tobytes() + snapshot.omega_world.tobytes() + snapshot.L_world.tobytes()


def test_a_change_switches_the_term_from_its_step_on_as_the_window_switch_does(tmp_path):
    scene = _scene(tmp_path, CHANGE.format(0.3, "false") + CHANGE.format(0.6, "true"))
    assert scene.changes == (ChangeSpec(0.3, False), ChangeSpec(0.6, True))
    scripted, by_hand = Simulation(scene), Simulation(dataclasses.replace(scene, changes=()))
    for step in range(1, 91):
        scripted.step()
        by_hand.step()
        if step in (30, 60):
            by_hand.world.gyroscopic = step == 60
        assert scripted.world.gyroscopic is by_hand.world.gyroscopic, step
        assert _state(scripted) == _state(by_hand), step
    # Without the term for 30 steps, the run is not the one with it throughout.
    always = Simulation(dataclasses.replace(scene, changes=()))
    for _ in range(90):
        always.step()
    assert _state(always) != _state(scripted)


def test_a_change_at_time_zero_applies_before_the_first_step(tmp_path):
    scene = _scene(tmp_path, "\n[[change]]\ntime = 0\ngyroscopic = false\n")
    assert Simulation(scene).world.gyroscopic is False
    assert Simulation(dataclasses.replace(scene, changes=())).world.gyroscopic is True


def test_run_applies_the_changes(tmp_path):
    scene = _scene(tmp_path, "\n[[change]]\ntime = 0.2\ngyroscopic = false\n")
    changed = run_scene(scene, integrator=None, h=0.01, duration=0.5)
    plain = run_scene(dataclasses.replace(scene, changes=()), integrator=None, h=0.01, duration=0.5)
    # Without the gyroscopic term a torque-free body's L is no longer kept: the summaries part.
    assert changed[0].momentum_error > 100 * max(plain[0].momentum_error, 1e-16)


@pytest.mark.parametrize(
    ("text", "key", "words"),
    [
        ("time = 1.0", "change[0].gyroscopic", "is required"),
        ("gyroscopic = false", "change[0].time", "is required"),
        ("time = -1.0\ngyroscopic = false", "change[0].time", "at least 0"),
        ('time = 1.0\ngyroscopic = "no"', "change[0].gyroscopic", "true or false"),
        ("time = 1.0\ngyroscopic = false\nintegrator = 'euler'", "change[0]", "integrator"),
    ],
)
def test_a_mistake_in_a_change_names_its_key(tmp_path, text, key, words):
    with pytest.raises(InputError) as error:
        _scene(tmp_path, "\n[[change]]\n" + text + "\n")
    assert key in str(error.value) and words in str(error.value)


def test_changes_are_written_back_and_read_the_same(tmp_path):
    scene = _scene(tmp_path, CHANGE.format(0.1, "false") + CHANGE.format(0.7, "true"))
    again = tmp_path / "again.toml"
    again.write_text(scene_to_toml(scene, (None,), scene.h), encoding="utf-8")
    assert load_scene(again).changes == scene.changes


def test_a_session_saved_with_its_switches_gives_its_run_again(tmp_path):
    scene = _scene(tmp_path, "\n[[change]]\ntime = 0.05\ngyroscopic = true\n")
    setup = Setup(scene, default_integrators(scene), gyroscopic=False, h=0.01)
    session = Session(setup)
    session.step(20)
    session.set_gyroscopic(False)
    session.step(15)
    session.set_gyroscopic(True)
    session.step(10)
    changes = session.scripted_changes()
    assert [(change.time, change.gyroscopic) for change in changes] == [
        (0.0, False), (0.05, True), (20 * 0.01, False), (35 * 0.01, True)
    ]  # fmt: skip
    saved = tmp_path / "saved.toml"
    saved.write_text(scene_to_toml(dataclasses.replace(scene, changes=changes), setup.integrators, 0.01))
    again = Session(Setup(load_scene(saved), setup.integrators, h=0.01))
    again.step(45)
    for name in ("q", "omega_world", "L_world"):
        assert np.array_equal(getattr(again.snapshot, name), getattr(session.snapshot, name)), name
