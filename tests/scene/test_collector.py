"""``run`` pauses the cyclic garbage collector (commands/run.py, scene/process/collector.py): that is safe only while a
run makes no reference cycles as it steps, which these tests hold by counting what the collector finds."""

import gc

import pytest

from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.model.runner import run_scene
from spinlab.scene.process.collector import collector_paused


def _cycles_left_by(scene, steps: int, tmp_path) -> int:
    """The objects in reference cycles a run of ``steps`` steps of ``scene`` (with a trace) leaves to the
    collector."""
    gc.collect()
    with collector_paused():
        run_scene(scene, integrator=None, h=scene.h, duration=steps * scene.h, trace_path=tmp_path / "t.csv")
        return gc.collect()


@pytest.mark.parametrize("preset", ["compare", "heavy_top", "kick", "hierarchy"])
def test_a_run_makes_no_reference_cycle_per_step_nor_per_run(preset, tmp_path):
    # None per run either: `run --integrator all` runs the scene once per integrator with the collector paused.
    scene = load_scene(preset)
    # The first runs compile and cache, or import numba: their objects live on. A short run steps without numba and
    # a long one with it (sim/compiled.py's steps_without_numba): each path's first run is made here.
    _cycles_left_by(scene, 2, tmp_path)
    _cycles_left_by(scene, 200, tmp_path)
    few, many = _cycles_left_by(scene, 5, tmp_path), _cycles_left_by(scene, 200, tmp_path)
    assert few == many == 0


def test_the_collector_is_paused_within_the_block_and_restored_after():
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()  # it was off before: it stays off
    finally:
        gc.enable()


def test_an_error_in_the_block_restores_the_collector():
    with pytest.raises(ValueError), collector_paused():
        raise ValueError
    assert gc.isenabled()


def test_frozen_objects_leave_the_collectors_generations():
    # In a fresh process: freezing this one would keep the tests' own garbage for good.
    import subprocess
    import sys

    child = (
        "import gc, numpy\n"
        "from spinlab.scene.process.collector import freeze_survivors\n"
        "before = len(gc.get_objects())\n"
        "freeze_survivors()\n"
        "print(before, len(gc.get_objects()), gc.get_freeze_count())\n"
    )
    before, after, frozen = map(int, subprocess.run([sys.executable, "-c", child], capture_output=True, text=True,
                                                    check=True).stdout.split())  # fmt: skip
    assert before > 10_000 and after < 100 and frozen >= before - 100


@pytest.mark.parametrize(("preset", "side_by_side"), [("compare", True), ("hierarchy", False), ("heavy_top", True)])
def test_a_run_is_freed_by_reference_counting(preset, side_by_side):
    # What the window freezes (commands/gui.py) is never collected if it is in a cycle: the runs it makes and
    # replaces must go by reference counting alone.
    import weakref

    from spinlab.scene.model.run_model import Session, Setup, default_integrators

    scene = load_scene(preset)
    with collector_paused():
        session = Session(Setup(scene, default_integrators(scene), side_by_side=side_by_side))
        session.step(5)
        gone = weakref.ref(session), weakref.ref(session.simulation), weakref.ref(session.simulation.world)
        del session
        assert [ref() for ref in gone] == [None, None, None]


def test_what_survives_a_paused_block_is_frozen_before_the_collector_runs_again():
    # The kernel loader's stages make ~34,000 objects with the collector paused: collecting them all at its first
    # chance cost 46 ms on its thread. Frozen first, they are out of its reach.
    before = gc.get_freeze_count()
    enabled = gc.isenabled()
    try:
        with collector_paused(freeze_after=True):
            made = [[number] for number in range(1000)]
        assert gc.get_freeze_count() >= before + len(made)
        assert gc.isenabled() == enabled
    finally:
        gc.unfreeze()


def test_what_survives_run_is_frozen_out_of_the_collection_at_exit():
    """``run`` freezes what survives it (the modules, numba's compiler once loaded): the interpreter's collection
    as it exits then skips them (10^5 bodies: ~0.2 CPU s). In a process of its own: a frozen test process would
    keep any cycle made before it."""
    import subprocess
    import sys
    from pathlib import Path

    probe = (
        "import gc\nfrom spinlab.launch import main\n"
        "assert main(['run', 't_handle', '--duration', '0.05']) == 0\nprint(gc.get_freeze_count(), gc.isenabled())"
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", probe], cwd=root, capture_output=True, text=True, check=True)
    frozen, enabled = done.stdout.split()[-2:]
    assert int(frozen) > 1000 and enabled == "True"
