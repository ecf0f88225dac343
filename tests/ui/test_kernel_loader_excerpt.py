"""The kernel loader compiles on an excerpt of a large scene (ui/kernel_loader.excerpt): the same integrators,
torques and hierarchy at a small world's cost."""

import dataclasses

from spinlab.scene.files.kick_table import KickSpec
from spinlab.scene.files.scene_file import load_scene
from spinlab.ui.kernel_loader import EXCERPT_BODIES, excerpt


def test_a_small_scene_is_its_own_excerpt():
    scene = load_scene("compare")
    assert excerpt(scene) is scene


def test_an_excerpt_keeps_each_body_with_its_parents_and_their_kicks():
    hierarchy = load_scene("hierarchy")
    # A scene of many copies of the hierarchy, the last bodies' kicks on bodies past the excerpt.
    copies, kicks = [], []
    for number in range(40):
        rename = {body.name: f"{body.name}{number}" for body in hierarchy.bodies}
        for body in hierarchy.bodies:
            parent = None if body.parent is None else rename[body.parent]
            copies.append(dataclasses.replace(body, name=rename[body.name], parent=parent))
        kicks.append(KickSpec(f"wheel_east{number}", 1.0, (0.0, 0.0, 0.1)))
    big = dataclasses.replace(hierarchy, bodies=tuple(copies), kicks=tuple(kicks))
    small = excerpt(big)
    assert len(small.bodies) == EXCERPT_BODIES < len(big.bodies)
    names = {body.name for body in small.bodies}
    assert all(body.parent is None or body.parent in names for body in small.bodies)
    assert {body.integrator for body in small.bodies} == {body.integrator for body in big.bodies}
    assert {body.kinematic for body in small.bodies} == {True, False}
    assert small.kicks and all(kick.body in names for kick in small.kicks)
    assert len(small.kicks) < len(big.kicks)
