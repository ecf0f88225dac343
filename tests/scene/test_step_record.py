"""A run's step record (scene/model/step_record.py): going back to any step gives, bit for bit, the state the run had
there (scene/model/replay.py's ``at_step``), and the record stays within its budget."""

import dataclasses

import numpy as np
import pytest

from spinlab.benchmarks.cloud import cloud_toml
from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.model.replay import at_step
from spinlab.scene.model.run_model import Session, Setup, default_integrators
from spinlab.scene.model.samples import ALL_MEASURED_MAX
from spinlab.scene.model.step_record import StepRecord, checkpoint_interval

FIELDS = ("q", "omega_world", "L_world", "position", "energy")


def state_bytes(session: Session) -> bytes:
    snapshot = session.simulation.snapshot()
    return b"".join(getattr(snapshot, name).tobytes() for name in FIELDS)


def run_with_edits(name: str, calls: int = 120, per_call: int = 7, **record) -> tuple[Session, dict[int, bytes]]:
    """A window-like run of preset ``name``: ``calls`` step calls, the gyroscopic term off and on again on the way;
    its state's bytes after every call, by step."""
    scene = load_scene(name)
    session = Session(Setup(scene, default_integrators(scene), h=scene.h), record=True)
    if record:
        session.record.budget_bytes = record["budget_bytes"]
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
    assert len(session.record.checkpoints) > 3, "the test goes back from checkpoints other than the start"
    # Between checkpoints, on them, at the edits (steps 217 and 497), and at the present.
    for step in (0, 7, 63, 217, 224, 497, 504, 840):
        back = at_step(session, step)
        assert back.simulation.step_index == step
        assert state_bytes(back) == states[step], step
        assert back.record.last_step == step
        assert back.simulation.world.gyroscopic is (not 217 <= step < 497)


def test_a_run_taken_back_and_run_again_repeats_its_future():
    """(A run taken back before an edit goes on without it: that is a new future, the window's branch.)"""
    session, states = run_with_edits("compare")
    back = at_step(session, 560)  # after the gyroscopic term was switched off (217) and on again (497)
    for _ in range(40):
        back.step(7)
    assert back.simulation.step_index == 840
    assert state_bytes(back) == states[840]
    # Its record is the run's: the snapshot it shows at step 400 is the one the run showed.
    shown = [run.record.steps_until(400).snapshots[-1].q for run in (back, session)]
    assert np.array_equal(*shown)


def test_the_past_read_across_calls_is_the_steps_as_they_were_taken():
    session, _ = run_with_edits("heavy_top", calls=20)
    record = session.record
    steps = record.steps_until(100, 30)  # steps 71..100 span five calls of 7
    assert len(steps.snapshots) == 30 and len(steps.sample.t) == 30
    h = session.h
    assert np.allclose(steps.sample.t, h * np.arange(71, 101), rtol=0, atol=1e-12)
    assert np.allclose([snapshot.t for snapshot in steps.snapshots], steps.sample.t, rtol=0, atol=0)
    assert [entry.last for entry in record.entries_until(100)][-2:] == [98, 100]
    with pytest.raises(IndexError):
        record.steps_until(141)


def test_the_history_forgets_its_oldest_steps_past_its_budget():
    full, states = run_with_edits("compare", calls=60)
    per_step = full.record.nbytes / (full.record.last_step + 1)
    session, _ = run_with_edits("compare", calls=60, budget_bytes=int(100 * per_step))
    record = session.record
    assert record.nbytes <= record.budget_bytes
    assert 80 <= record.last_step - record.first_step + 1 <= 100
    assert record.dropped > 0
    # A checkpoint at or before the oldest step held is kept, so every step held can still be reached...
    oldest = record.first_step
    assert record.checkpoint_step(oldest) is not None
    assert state_bytes(at_step(session, oldest + 3)) == states.get(
        oldest + 3, state_bytes(at_step(session, oldest + 3))
    )
    for step in (record.last_step, (oldest + record.last_step) // 2 // 7 * 7):
        assert state_bytes(at_step(session, step)) == states[step]
    # ...and none before it is held any more.
    assert min(record.checkpoints) <= oldest < min(record.checkpoints) + checkpoint_interval(8) + 7
    with pytest.raises(ValueError, match="no longer in this run's step record"):
        at_step(session, oldest - 1)


def test_checkpoints_are_spaced_out_for_large_worlds():
    assert checkpoint_interval(1) == checkpoint_interval(1000) == 60
    assert checkpoint_interval(10_000) == 600
    assert checkpoint_interval(100_000) == 6000


def test_a_history_refuses_steps_that_do_not_follow_it():
    session, _ = run_with_edits("kick", calls=2)
    with pytest.raises(ValueError, match="do not follow"):
        session.record.append(5, session.latest, np.zeros(1), 1.0)
    assert isinstance(session.record, StepRecord)


def test_a_run_taken_back_counts_flips_and_errors_as_the_run_did_and_leaves_the_run_alone():
    """The measures that carry state from step to step (the flip counters) are the copy's own: the run taken back
    counts as the run counted, and stepping it changes nothing in the run it came from."""
    session, _ = run_with_edits("compare", calls=160)  # past the first flips
    record = session.record
    recorded = record.steps_until(record.last_step).sample
    assert np.nanmax(recorded.flips[-1]) >= 1, "the T-handles have flipped"
    back = at_step(session, 560)
    for _ in range(80):
        back.step(7)
    assert back.simulation.step_index == record.last_step
    for name in ("flips", "flips_exact", "energy_error", "orientation_error"):
        np.testing.assert_array_equal(getattr(back.latest.sample, name)[-1], getattr(recorded, name)[-1], name)
    # The run itself goes on as a run never taken back does.
    alone, _ = run_with_edits("compare", calls=161)
    session.step(7)
    np.testing.assert_array_equal(session.latest.sample.flips, alone.latest.sample.flips)


def test_a_sampled_runs_history_holds_its_measured_rows_and_gives_back_the_samples_it_showed(tmp_path):
    """A window's run of a large scene measures a sample of its bodies (scene/model/samples.py): its record holds
    those rows of the measures that are NaN elsewhere, and gives back every step's sample bit for bit."""
    path = tmp_path / "cloud.toml"
    path.write_text(cloud_toml(ALL_MEASURED_MAX + 500))
    scene = load_scene(path)
    session = Session(Setup(scene, default_integrators(scene), h=scene.h), record=True)
    shown = {}
    for _ in range(4):
        session.step(2)
        shown[session.simulation.step_index] = session.latest.sample
    record = session.record
    assert record.measured is not None and len(record.measured) < len(session.plotted)
    assert record.entries[-1].stored.sample.orientation_error.shape[1] == len(record.measured)
    for step, sample in shown.items():
        back = record.steps_until(step, 2).sample
        for field in dataclasses.fields(sample):
            value = getattr(sample, field.name)
            assert np.asarray(getattr(back, field.name)).tobytes() == np.asarray(value).tobytes(), (step, field.name)


def test_a_window_measures_every_body_it_draws_overlays_for_and_a_sample_past_them(tmp_path):
    # A window's run of the 1000-handle cloud measured every handle against its closed form each frame (~19 ms of its
    # update) for 64 lines of plots; past the renderer's MANY_BODIES its per-body overlays (the ghosts) are off.
    from spinlab.render.renderer import MANY_BODIES
    from spinlab.scene.model.samples import SAMPLED_ROWS

    assert ALL_MEASURED_MAX == MANY_BODIES
    for count, measured in ((MANY_BODIES, MANY_BODIES), (1000, SAMPLED_ROWS)):
        path = tmp_path / f"cloud{count}.toml"
        path.write_text(cloud_toml(count))
        scene = load_scene(path)
        session = Session(Setup(scene, default_integrators(scene), h=scene.h), record=True)
        assert len(session.references.measured) == measured
