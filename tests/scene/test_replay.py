"""scene/model/replay.py: a run that stepped on the numpy paths while its kernel compiled, then switched, is the run
of the compiled kernel from its start, bit for bit: the pinned trace of tests/test_trace_digest.py, and the
same session as one that never waited, edits made mid-run included."""

import hashlib

import numpy as np
import pytest

from spinlab.scene.files.kick_table import KickSpec
from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.files.trace import TraceWriter
from spinlab.scene.model.replay import Replay
from spinlab.scene.model.run_model import Session, Setup
from spinlab.scene.model.runner import step_count
from spinlab.sim import compiled
from tests.test_trace_digest import DIGESTS, DURATION_S

SWITCH_STEPS = (1, 23, 59)  # steps taken on the numpy path before the kernel is ready (of 60 or more)


def _setup(preset: str, integrator: str) -> Setup:
    scene = load_scene(preset)
    return Setup(scene, (integrator,) * len(scene.bodies), h=scene.h)


def _step(session: Session, count: int, snapshots: list) -> None:
    """``count`` steps in calls of a few steps (as frames take them), keeping every snapshot."""
    while count > 0:
        report = session.step(min(count, 7))
        assert report.error is None
        snapshots.extend(session.latest.snapshots)
        count -= report.steps


def _replayed(live: Session) -> Replay:
    replay = Replay(live)
    while not replay.advance(0.002):  # a frame's budget at a time
        pass
    assert replay.error is None and replay.steps == live.simulation.step_index
    return replay


@pytest.mark.parametrize("switch", SWITCH_STEPS)
@pytest.mark.parametrize("case", [("t_handle", "implicit_midpoint"), ("heavy_top", "split4")], ids="-".join)
def test_a_run_that_switched_mid_way_writes_the_pinned_trace(tmp_path, case, switch):
    preset, integrator = case
    setup = _setup(preset, integrator)
    steps = step_count(float(DURATION_S), setup.h)
    with compiled.gated():
        live = Session(setup)
        numpy_path = []
        _step(live, switch, numpy_path)
        compiled.mark_ready([integrator])
        replay = Replay(live)
        assert replay.advance()  # in one call (one batch of snapshots), no edits to wait for
        session = replay.session
        snapshots = [session.initial, *replay.session.latest.snapshots]
        assert len(snapshots) == switch + 1
        _step(session, steps - switch, snapshots)
    path = tmp_path / "trace.csv"
    names = [body.name for body in setup.scene.bodies]
    with TraceWriter(path) as trace:
        for snapshot in snapshots:
            trace.write(snapshot.t, names, snapshot.q, snapshot.omega_world, snapshot.L_world, snapshot.energy)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == DIGESTS[case]
    # The test has teeth: the steps taken meanwhile were the numpy path's, which differ in the last bits.
    before = snapshots[switch]
    assert not np.array_equal(numpy_path[-1].q, before.q) or not np.array_equal(
        numpy_path[-1].omega_world, before.omega_world
    )


def test_the_replay_makes_the_edits_of_the_run_at_their_steps():
    setup = _setup("t_handle", "implicit_midpoint")
    edits = {40: ("gyroscopic", False), 90: ("gyroscopic", True), 120: ("divergence", 0.5)}

    def run(gated: bool) -> Session:
        with compiled.gated(ready=() if gated else ["implicit_midpoint"]):
            session = Session(setup)
            for step in range(150):
                if step in edits:
                    what, value = edits[step]
                    session.set_gyroscopic(value) if what == "gyroscopic" else session.set_divergence(value)
                session.step(1)
            if not gated:
                return session
            compiled.mark_ready(["implicit_midpoint"])
            replay = _replayed(session)
            replay.session.step(30)
            return replay.session

    replayed, straight = run(gated=True), run(gated=False)
    straight.step(30)
    assert replayed.simulation.step_index == straight.simulation.step_index == 180
    for field in ("q", "omega_world", "L_world", "position"):
        assert np.array_equal(getattr(replayed.snapshot, field), getattr(straight.snapshot, field)), field
    assert replayed.setup.divergence == straight.setup.divergence == 0.5
    # Without the edits the run ends elsewhere: the replay did make them.
    plain = Session(setup)
    plain.step(180)
    assert not np.array_equal(plain.snapshot.q, straight.snapshot.q)


def test_kicks_added_during_the_run_are_replayed():
    setup = _setup("t_handle", "implicit_midpoint")
    with compiled.gated():
        live = Session(setup)
        live.step(20)
        time = (live.simulation.step_index + 1) * live.simulation.h  # the next step boundary, as the panel kicks
        kicks = [KickSpec(live.scene.bodies[0].name, time, np.array([0.0, 0.3, 0.1]))]
        for kick in kicks:
            live.simulation.kicks.add(kick)
        live.step(30)
        compiled.mark_ready(["implicit_midpoint"])
        replay = _replayed(live)
    straight = Session(setup)
    straight.step(20)
    for kick in kicks:
        straight.simulation.kicks.add(kick)
    straight.step(30)
    assert np.array_equal(replay.session.snapshot.omega_world, straight.snapshot.omega_world)
    unkicked = Session(setup)
    unkicked.step(50)
    assert not np.array_equal(unkicked.snapshot.omega_world, straight.snapshot.omega_world)
