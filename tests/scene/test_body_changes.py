"""A change naming a body (scene/files/change_table.py): the gyroscopic term switched for that body alone, so two
copies of one body, one switched, show both futures side by side. The switched body moves as it would alone in a
world whose whole term was switched at that step, the other as if nothing happened; a change of the whole world
clears the body's own switch; the tables are checked, written back and copied side by side."""

import numpy as np
import pytest

from spinlab.scene.files.change_table import ChangeSpec
from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.files.scene_toml import scene_to_toml
from spinlab.scene.model.run_changes import in_force, run_changes
from spinlab.scene.model.run_model import Session, Setup, run_layout, stand_ins
from spinlab.scene.running.simulation import Simulation
from spinlab.sim.errors import InputError
from tests.scene.test_kicks import FREE

TWO = (
    FREE
    + '\n[[body]]\nname = "twin"\nshape = "t_handle"\ninertia = [1.3, 1.4, 2.5]\nmass = 2.0\n'
    + ("position = [2.0, 0.0, 0.0]\nbody_angular_velocity = [0.1, 4.0, 0.1]\n")
)
CHANGE = "\n[[change]]\ntime = {}\ngyroscopic = {}\n"
OWN = CHANGE + 'body = "{}"\n'
STEPS = 150  # 1.5 s at h = 0.01 s: the term matters well within it (see the last assertion of the first test)
# One body stepped in a batch of one or of two: the same arithmetic per row, up to the batch's SIMD lanes (numpy's
# loops may take a vector path for one size and not the other), so each row agrees to a few ulps, not bit for bit.
TOLERANCE = 1e-12


def _load(tmp_path, text, name="scene.toml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return load_scene(path)


def _run(scene, steps=STEPS):
    simulation = Simulation(scene)
    for _ in range(steps):
        simulation.step()
    return simulation.snapshot()


def test_a_bodys_own_switch_changes_that_body_alone(tmp_path):
    both = _run(_load(tmp_path, TWO + OWN.format(0.5, "false", "twin")))
    alone_off = _run(_load(tmp_path, FREE + CHANGE.format(0.5, "false"), "alone_off.toml"))
    alone_on = _run(_load(tmp_path, FREE, "alone_on.toml"))
    np.testing.assert_allclose(both.q[0], alone_on.q[0], rtol=0, atol=TOLERANCE)  # the handle: as if nothing
    np.testing.assert_allclose(both.q[1], alone_off.q[0], rtol=0, atol=TOLERANCE)  # the twin: its term off
    np.testing.assert_allclose(both.L_world[1], alone_off.L_world[0], rtol=0, atol=TOLERANCE)
    assert np.abs(alone_on.q[0] - alone_off.q[0]).max() > 1e-3  # the two futures differ visibly


def test_a_change_of_the_whole_world_clears_a_bodys_own_switch(tmp_path):
    scene = _load(tmp_path, TWO + OWN.format(0.3, "false", "twin") + CHANGE.format(0.8, "true"))
    simulation = Simulation(scene)
    for _ in range(40):
        simulation.step()
    assert simulation.world.values("gyroscopic_set").tolist() == [0, -1]
    for _ in range(50):
        simulation.step()
    assert simulation.world.values("gyroscopic_set").tolist() == [0, 0]
    # The twin moves as a body alone whose whole world went off at 0.3 s and on again at 0.8 s.
    alone = _load(tmp_path, FREE + CHANGE.format(0.3, "false") + CHANGE.format(0.8, "true"), "alone.toml")
    np.testing.assert_allclose(_run(scene).q[1], _run(alone).q[0], rtol=0, atol=TOLERANCE)


def test_a_bodys_own_switch_stands_against_the_worlds_term(tmp_path):
    """Switched on for the twin while the world's term is off: the twin keeps its term."""
    scene = _load(tmp_path, TWO + CHANGE.format(0, "false") + OWN.format(0, "true", "twin"))
    with_term = _run(_load(tmp_path, FREE, "alone.toml"))
    np.testing.assert_allclose(_run(scene).q[1], with_term.q[0], rtol=0, atol=TOLERANCE)


@pytest.mark.parametrize(
    ("text", "words"),
    [('body = "nobody"', "unknown body"), ("body = 3", "change[0].body"), ('body = "spinner"', "kinematic")],
)
def test_a_mistake_in_a_changes_body_names_the_key_and_value(tmp_path, text, words):
    scene_text = FREE + '\n[[body]]\nname = "spinner"\nshape = "box"\n[body.kinematic]\nangular_velocity = [0, 0, 1]\n'
    with pytest.raises(InputError) as error:
        _load(tmp_path, scene_text + "\n[[change]]\ntime = 1.0\ngyroscopic = false\n" + text + "\n")
    assert "change[0].body" in str(error.value) and words in str(error.value)


def test_a_bodys_own_switch_is_written_back_and_reads_back_the_same(tmp_path):
    scene = _load(tmp_path, TWO + OWN.format(0.5, "false", "twin") + CHANGE.format(1.0, "true"))
    written = tmp_path / "written.toml"
    written.write_text(scene_to_toml(scene, (None, None), scene.h), encoding="utf-8")
    assert load_scene(written).changes == (ChangeSpec(0.5, False, "twin"), ChangeSpec(1.0, True))


def test_side_by_side_each_copy_of_the_body_is_switched_and_stands_for_itself(tmp_path):
    scene = _load(tmp_path, TWO + OWN.format(0.5, "false", "twin"))
    assert stand_ins(scene) == (0, 1)  # alike but for the switch: copied each
    setup = Setup(scene, (None, None), side_by_side=True, compared=("implicit_midpoint", "euler"))
    run, groups = run_layout(setup)
    assert len(groups) == 2
    assert run.changes == (
        ChangeSpec(0.5, False, "twin [implicit_midpoint]"),
        ChangeSpec(0.5, False, "twin [euler]"),
    )


def test_the_timeline_marks_a_bodys_own_switch_and_the_panel_keeps_the_worlds_term(tmp_path):
    scene = _load(tmp_path, TWO + OWN.format(0.5, "false", "twin"))
    session = Session(Setup(scene, (None, None), h=scene.h))
    session.step(60)
    [change] = run_changes(session)
    assert (change.step, change.gyroscopic, change.body) == (50, False, "twin")
    assert change.caption == "gyroscopic term off for twin at t = 0.50 s"
    assert in_force(session, 60).gyroscopic is True  # the world's term, as the panel's box shows it
    assert session.scripted_changes() == scene.changes  # what Save writes: the switch, named
