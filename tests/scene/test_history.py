"""A run's history (scene/running/history.py): going back to any step gives, bit for bit, the state the run had there,
and the history stays within its budget."""

import dataclasses

import numpy as np
import pytest

from spinlab.benchmarks.cloud import cloud_toml
from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.model.run_model import Session, Setup, default_integrators
from spinlab.scene.model.samples import ALL_MEASURED_MAX
from spinlab.scene.running.history import RunHistory, checkpoint_interval

FIELDS = ("q", "omega_world", "L_world", "position", "energy")


def state_bytes(session: Session) -> bytes:
    snapshot = session.simulation.snapshot()
    return b"".join(getattr(snapshot, name).tobytes() for name in FIELDS)


def run_with_edits(name: str, calls: int = 120, per_call: int = 7, **history) -> tuple[Session, dict[int, bytes]]:
    """A window-like run of preset ``name``: ``calls`` step calls, the gyroscopic term off and on again on the way;
    its state's bytes after every call, by step."""
    scene = load_scene(name)
    session = Session(Setup(scene, default_integrators(scene), h=scene.h), history=True)
    if history:
        session.history.budget_bytes = history["budget_bytes"]
    states = {0: state_bytes(session)}
    for call in range(calls):
        session.step(per_call)
        if call == 30:
            session.set_gyroscopic(False)
        if call == 70:
            session.set_gyroscopic(True)
        states[session.simulation.step_index] = state_bytes(session)
    return session, states


@pytest.mark.parametrize("name", ["compare", "heavy_top", "kick"])
def test_going_back_gives_the_state_the_run_had_bit_for_bit(name):
    session, states = run_with_edits(name)
    assert len(session.history.checkpoints) > 3, "the test goes back from checkpoints other than the start"
    # Between checkpoints, on them, at the edits (steps 217 and 497), and at the present.
    for step in (0, 7, 63, 217, 224, 497, 504, 840):
        back = session.at_step(step)
        assert back.simulation.step_index == step
        assert state_bytes(back) == states[step], step
        assert back.history.last_step == step
        assert back.simulation.world.gyroscopic is (not 217 <= step < 497)


def test_a_run_taken_back_and_run_again_repeats_its_future():
    """(A run taken back before an edit goes on without it: that is a new future, the window's branch.)"""
    session, states = run_with_edits("compare")
    back = session.at_step(560)  # after the gyroscopic term was switched off (217) and on again (497)
    for _ in range(40):
        back.step(7)
    assert back.simulation.step_index == 840
    assert state_bytes(back) == states[840]
    # Its history is the run's: the snapshot it shows at step 400 is the one the run showed.
    shown = [run.history.steps_until(400).snapshots[-1].q for run in (back, session)]
    assert np.array_equal(*shown)


def test_the_past_read_across_calls_is_the_steps_as_they_were_taken():
    session, _ = run_with_edits("heavy_top", calls=20)
    history = session.history
    steps = history.steps_until(100, 30)  # steps 71..100 span five calls of 7
    assert len(steps.snapshots) == 30 and len(steps.sample.t) == 30
    h = session.h
    assert np.allclose(steps.sample.t, h * np.arange(71, 101), rtol=0, atol=1e-12)
    assert np.allclose([snapshot.t for snapshot in steps.snapshots], steps.sample.t, rtol=0, atol=0)
    assert [entry.last for entry in history.entries_until(100)][-2:] == [98, 100]
    with pytest.raises(IndexError):
        history.steps_until(141)


def test_the_history_forgets_its_oldest_steps_past_its_budget():
    full, states = run_with_edits("compare", calls=60)
    per_step = full.history.nbytes / (full.history.last_step + 1)
    session, _ = run_with_edits("compare", calls=60, budget_bytes=int(100 * per_step))
    history = session.history
    assert history.nbytes <= history.budget_bytes
    assert 80 <= history.last_step - history.first_step + 1 <= 100
    assert history.dropped > 0
    # A checkpoint at or before the oldest step held is kept, so every step held can still be reached...
    oldest = history.first_step
    assert history.checkpoint_step(oldest) is not None
    assert state_bytes(session.at_step(oldest + 3)) == states.get(oldest + 3, state_bytes(session.at_step(oldest + 3)))
    for step in (history.last_step, (oldest + history.last_step) // 2 // 7 * 7):
        assert state_bytes(session.at_step(step)) == states[step]
    # ...and none before it is held any more.
    assert min(history.checkpoints) <= oldest < min(history.checkpoints) + checkpoint_interval(8) + 7
    with pytest.raises(ValueError, match="no longer in this run's history"):
        session.at_step(oldest - 1)


def test_checkpoints_are_spaced_out_for_large_worlds():
    assert checkpoint_interval(1) == checkpoint_interval(1000) == 60
    assert checkpoint_interval(10_000) == 600
    assert checkpoint_interval(100_000) == 6000


def test_a_history_refuses_steps_that_do_not_follow_it():
    session, _ = run_with_edits("kick", calls=2)
    with pytest.raises(ValueError, match="do not follow"):
        session.history.append(5, session.latest, np.zeros(1), 1.0)
    assert isinstance(session.history, RunHistory)


def test_a_run_taken_back_counts_flips_and_errors_as_the_run_did_and_leaves_the_run_alone():
    """The measures that carry state from step to step (the flip counters) are the copy's own: the run taken back
    counts as the run counted, and stepping it changes nothing in the run it came from."""
    session, _ = run_with_edits("compare", calls=160)  # past the first flips
    history = session.history
    recorded = history.steps_until(history.last_step).sample
    assert np.nanmax(recorded.flips[-1]) >= 1, "the T-handles have flipped"
    back = session.at_step(560)
    for _ in range(80):
        back.step(7)
    assert back.simulation.step_index == history.last_step
    for name in ("flips", "flips_exact", "energy_error", "orientation_error"):
        np.testing.assert_array_equal(getattr(back.latest.sample, name)[-1], getattr(recorded, name)[-1], name)
    # The run itself goes on as a run never taken back does.
    alone, _ = run_with_edits("compare", calls=161)
    session.step(7)
    np.testing.assert_array_equal(session.latest.sample.flips, alone.latest.sample.flips)


def test_a_sampled_runs_history_holds_its_measured_rows_and_gives_back_the_samples_it_showed(tmp_path):
    """A window's run of a large scene measures a sample of its bodies (scene/model/samples.py): its history holds
    those rows of the measures that are NaN elsewhere, and gives back every step's sample bit for bit."""
    path = tmp_path / "cloud.toml"
    path.write_text(cloud_toml(ALL_MEASURED_MAX + 500))
    scene = load_scene(path)
    session = Session(Setup(scene, default_integrators(scene), h=scene.h), history=True)
    shown = {}
    for _ in range(4):
        session.step(2)
        shown[session.simulation.step_index] = session.latest.sample
    history = session.history
    assert history.measured is not None and len(history.measured) < len(session.plotted)
    assert history.entries[-1].stored.sample.orientation_error.shape[1] == len(history.measured)
    for step, sample in shown.items():
        back = history.steps_until(step, 2).sample
        for field in dataclasses.fields(sample):
            value = getattr(sample, field.name)
            assert np.asarray(getattr(back, field.name)).tobytes() == np.asarray(value).tobytes(), (step, field.name)
