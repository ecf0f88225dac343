"""The one pacing rule (scene/running/pacing.py): a video's frame shows the step nearest its time; the window's live
accumulator takes the whole steps due and drops what it cannot catch up."""

import numpy as np
import pytest

from spinlab.scene.running.pacing import Accumulator, steps_to


def nearest_by_counting(index: int, h: float, t: float) -> int:
    """The rule as a video applied it step by step: one more while the next step's midpoint is not past t."""
    count = 0
    while (index + count) * h + 0.5 * h <= t:
        count += 1
    return count


@pytest.mark.parametrize("h", [1 / 60, 1 / 120, 0.1, 1e-3, 1 / 7])
def test_the_step_nearest_a_frame_is_the_one_counting_gives(h):
    rng = np.random.default_rng(7)
    for fps in (20.0, 30.0, 60.0, 59.94):
        index = 0
        for frame in range(400):  # a video's schedule: frame k at k / fps
            t = frame / fps
            count = steps_to(index, h, t)
            assert count == nearest_by_counting(index, h, t), (fps, frame)
            index += count
    for _ in range(2000):  # anywhere, exactly on half steps too
        index = int(rng.integers(0, 10_000))
        t = (index + rng.integers(-3, 40) + rng.choice([0.0, 0.5, rng.random()])) * h
        assert steps_to(index, h, t) == nearest_by_counting(index, h, t)


def test_no_steps_back_and_none_for_a_time_that_is_not_a_number():
    assert steps_to(100, 0.01, 0.5) == 0
    assert steps_to(0, 0.01, float("nan")) == 0
    assert steps_to(0, 0.01, 0.005) == 1  # the midpoint itself: the later step


def test_the_accumulator_takes_whole_steps_and_drops_what_it_cannot_catch_up():
    pace, h = Accumulator(), 1 / 60
    assert [pace.due(1 / 120, h) for _ in range(1)] == [0]
    assert pace.due(1 / 120, h) == 1  # two half steps
    pace.took(1, 1, h)
    assert pace.due(10 * h, h) == 10
    pace.took(3, 10, h)  # a slow frame: 7 steps owed, one kept
    assert pace.seconds == pytest.approx(h)
    assert pace.due(0.0, h) == 1


def test_a_recordings_frame_keeps_what_it_owes_until_its_steps_are_taken():
    pace, h = Accumulator(), 1 / 240
    assert pace.due(1 / 60, h) == 4
    pace.took(3, 4, h, keep=True)  # the frame's budget fitted 3: the fourth is still owed, not dropped
    assert pace.due(0.0, h) == 1
    pace.took(1, 1, h, keep=True)
    assert pace.due(0.0, h) == 0
