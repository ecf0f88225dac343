"""A run over time with no window (scene/model/timeline.py): stepping, looking back, playing the recorded steps on,
going on from a past step and branching there, each bit for bit the run taken alone; and the follower told of each.

Going on or branching within the run's first checkpoint interval (steps 0 to 59: the run's start is rebuilt anew,
not copied) once ended the window with an ``AttributeError``; it is tested here from step 0 on."""

import numpy as np
import pytest

from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.model.run_model import Session, Setup, default_integrators
from spinlab.scene.model.step_record import CHECKPOINT_STEPS
from spinlab.scene.model.timeline import Follower, Timeline

FIELDS = ("q", "omega_world", "L_world", "position", "energy")


def state_bytes(session: Session) -> bytes:
    snapshot = session.simulation.snapshot()
    return b"".join(getattr(snapshot, name).tobytes() for name in FIELDS)


class Seen(Follower):
    """What a follower is told: the runs started, the steps fed (their count), the steps shown afresh."""

    def __init__(self) -> None:
        self.started_runs: list[Session] = []
        self.fed = 0
        self.shown: list[int] = []

    def started(self, session):
        self.started_runs.append(session)
        self.fed = len(session.latest.snapshots)

    def stepped(self, shown, newton_per_step, ms_per_step):
        self.fed += len(shown.latest.snapshots)

    def shown_at(self, session, step):
        self.shown.append(step)
        self.fed = step + 1


def started(name: str = "compare") -> tuple[Timeline, Seen]:
    scene = load_scene(name)
    seen = Seen()
    timeline = Timeline(seen)
    timeline.restart(Setup(scene, default_integrators(scene), h=scene.h))
    return timeline, seen


def alone(timeline: Timeline, switched_at: int, until: int) -> Session:
    """The run taken alone from its start: the gyroscopic term off at step ``switched_at``."""
    run = Session(timeline.session.initial_setup)
    run.step(switched_at)
    run.set_gyroscopic(False)
    run.step(until - switched_at)
    return run


@pytest.mark.parametrize("back", [0, 1, 30, CHECKPOINT_STEPS - 1, CHECKPOINT_STEPS, 90])
def test_a_change_at_a_past_step_goes_on_from_its_exact_state(back):
    timeline, seen = started()
    assert timeline.step(100).steps == 100 and seen.fed == 101
    timeline.seek(back)
    assert timeline.shown_step == back and timeline.session.simulation.step_index == 100, "seeking steps nothing"
    assert timeline.go_on_from_shown()
    timeline.session.set_gyroscopic(False)
    # On past two checkpoints' worth of steps: the run taken back leaves checkpoints as any run does.
    assert timeline.step(2 * CHECKPOINT_STEPS + 5).error is None
    until = back + 2 * CHECKPOINT_STEPS + 5
    assert timeline.session.simulation.step_index == until == timeline.shown_step
    assert state_bytes(timeline.session) == state_bytes(alone(timeline, back, until))
    assert timeline.record.checkpoint_step(until) > back, "a checkpoint left after the step gone back to"


@pytest.mark.parametrize("back", [0, 12, 61])
def test_a_branch_in_the_first_steps_runs_beside_its_original(back):
    timeline, _ = started()
    timeline.step(150)
    original = timeline.session
    recorded = original.record.steps_until(back + 80).snapshots[-1]
    timeline.seek(back)
    branch = timeline.branch()
    assert branch.session is original and timeline.session is not original
    timeline.session.set_gyroscopic(False)
    timeline.step(80)
    assert branch.step == back + 80 == timeline.shown_step, "both futures in lock step"
    assert np.array_equal(branch.shown.drawable().q, recorded.q), "the original's own future"
    assert state_bytes(timeline.session) == state_bytes(alone(timeline, back, back + 80))
    divergence = timeline.divergence(timeline.session.groups, [(1.0, 1.0, 1.0)] * len(timeline.session.plotted))
    assert divergence.angle.shape == (len(timeline.session.groups), 81) and divergence.angle[:, 0].max() == 0.0
    timeline.end_branch()
    assert timeline.original is None


def test_playing_the_recorded_steps_feeds_them_as_they_were_taken_then_goes_on_live():
    timeline, seen = started("t_handle")
    for _ in range(10):
        timeline.step(7)
    timeline.seek(20)
    assert seen.shown == [20] and seen.fed == 21
    assert timeline.play(30) == 30 and timeline.shown_step == 50 and seen.fed == 51
    assert timeline.session.simulation.step_index == 70, "the recorded steps are played, not taken again"
    assert timeline.play(30, then_live=False) == 20 and timeline.moment is None
    assert timeline.play(5) == 5 and timeline.session.simulation.step_index == 75 and seen.fed == 76


def test_a_restart_is_all_or_nothing():
    timeline, seen = started("t_handle")
    timeline.step(10)
    running = timeline.session

    class Refuses(Follower):
        def started(self, session):
            raise MemoryError("no room")

    timeline.follower = Refuses()
    with pytest.raises(MemoryError):
        timeline.restart(running.setup)
    assert timeline.session is running and timeline.shown_step == 10
