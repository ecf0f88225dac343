"""A scene's bodies read as columns (scene/files/body_table.py): ``run`` reads every body's values a column at a
time and makes no ``BodySpec`` a body; one asked for is the per-body reader's, bit for bit; a copy with other
integrators shares the specs of the bodies whose integrator it keeps."""

from __future__ import annotations

import numpy as np
import pytest

import spinlab.scene.files.scene_file as scene_file
from spinlab.benchmarks.cloud import cloud_toml
from spinlab.scene.files.body_table import BodySpec, BodyTable, body_column
from spinlab.scene.files.body_text import PLAIN_BYTES
from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.model.runner import run_scene
from tests.scene.test_body_columns import _assert_same_bodies, _load_one_at_a_time

FIELDS = ("name", "shape", "sizes", "mass", "inertia_body", "inertia_com", "com_offset", "position", "orientation",
          "omega_parent", "integrator", "parent", "color", "pivot", "kinematic")  # fmt: skip


@pytest.fixture(params=[3, 500], ids=["parsed", "plain text"])
def cloud(request, tmp_path):
    """A cloud of handles: 3 (a small file, parsed as TOML) or 500 (past PLAIN_BYTES, read from its text)."""
    path = tmp_path / f"cloud{request.param}.toml"
    path.write_text(cloud_toml(request.param, colors=False))
    assert (path.stat().st_size > PLAIN_BYTES) == (request.param == 500)
    return path


def test_a_run_of_a_scene_read_as_columns_makes_no_spec_a_body(cloud, monkeypatch):
    made = []
    plain_init = BodySpec.__init__

    def counted(self, *args, **kwargs):
        made.append(1)
        plain_init(self, *args, **kwargs)

    monkeypatch.setattr(BodySpec, "__init__", counted)
    scene = load_scene(cloud)
    run = run_scene(scene, integrator="implicit_midpoint", h=1 / 240, duration=2 / 240)
    assert len(run) == len(scene.bodies) and not made
    assert isinstance(scene.bodies, BodyTable)


def test_the_columns_specs_are_the_per_body_readers(cloud, monkeypatch):
    scene = load_scene(cloud)
    _assert_same_bodies(scene, _load_one_at_a_time(cloud, monkeypatch))
    assert scene.bodies[0] is scene.bodies[0]  # made once, kept
    specs = tuple(scene.bodies)
    for field in FIELDS:
        column, gathered = body_column(scene.bodies, field), body_column(specs, field)
        if isinstance(column, np.ndarray):
            np.testing.assert_array_equal(column, gathered)
            assert column.dtype == gathered.dtype and column.shape == gathered.shape
        else:
            assert column == gathered, field
    rows = [2, 0]
    for field in ("name", "inertia_body", "pivot", "kinematic"):
        np.testing.assert_array_equal(body_column(scene.bodies, field, rows), body_column(specs, field, rows))


def test_a_copy_with_other_integrators_shares_the_bodies_that_keep_theirs(cloud):
    bodies = load_scene(cloud).bodies
    assert isinstance(bodies, BodyTable)
    integrators = ["euler_body", *body_column(bodies, "integrator")[1:]]
    assert bodies.with_integrators(body_column(bodies, "integrator")) is bodies
    copy = bodies.with_integrators(integrators)
    assert body_column(copy, "integrator") == integrators == [body.integrator for body in copy]
    specs = tuple(bodies)  # made with the copy's
    assert [body.name for body in copy] == [body.name for body in specs]
    assert copy[0] is not specs[0] and all(mine is theirs for mine, theirs in zip(copy[1:], specs[1:], strict=True))
    assert copy[0].position is specs[0].position


def test_a_scene_with_a_body_the_columns_do_not_take_holds_a_spec_a_body(tmp_path):
    path = tmp_path / "mixed.toml"
    path.write_text(cloud_toml(3, colors=False) + '\n[[body]]\nname = "top"\nshape = "sphere"\npivot = [0, 0, 1]\n')
    scene = scene_file.load_scene(path)
    assert isinstance(scene.bodies, tuple) and scene.bodies[-1].pivot is not None
    assert body_column(scene.bodies, "pivot")[:3] == [None] * 3
