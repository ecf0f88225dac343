"""The panel's status line without a window: the frame's budget, each part's time over the last frames (ui/status.py),
on a clock the test moves."""

import pytest

from spinlab.ui import status as status_module
from spinlab.ui.controller_state import Status
from spinlab.ui.status import FRAME_PARTS, FRAME_STATS, StatusMeter, budget_line


@pytest.fixture
def clock(monkeypatch):
    """The meter's clock, moved on by hand (s)."""
    now = [0.0]
    monkeypatch.setattr(status_module.time, "perf_counter", lambda: now[0])
    return now


def frames(meter, clock, parts_ms, count):
    """``count`` frames, each spending ``parts_ms`` in its parts, then updating a status."""
    status = Status()
    for _ in range(count):
        for name, ms in parts_ms.items():
            with meter.part(name):
                clock[0] += ms / 1e3
        meter.update(status, 0.0)
    return status


def test_each_part_of_the_frame_is_its_mean_over_the_last_frames(clock):
    meter = StatusMeter()
    status = frames(meter, clock, {"steps": 3.0, "plots": 6.0, "views": 2.0, "gpu": 1.0}, FRAME_STATS + 5)
    assert status.parts_ms == pytest.approx({"steps": 3.0, "plots": 6.0, "views": 2.0, "gpu": 1.0})
    assert status.frame_ms == pytest.approx(12.0)
    # The plots hidden: they leave the budget once no frame of the last ones laid them out.
    status = frames(meter, clock, {"steps": 3.0, "views": 2.0, "gpu": 1.0}, FRAME_STATS // 2)
    assert status.parts_ms["plots"] == pytest.approx(3.0)  # half the frames
    status = frames(meter, clock, {"steps": 3.0, "views": 2.0, "gpu": 1.0}, FRAME_STATS)
    assert set(status.parts_ms) == {"steps", "views", "gpu"}


def test_a_part_timed_twice_in_a_frame_adds_up(clock):
    meter = StatusMeter()
    status = frames(meter, clock, {"views": 2.0, "panel": 1.0}, 3)
    with meter.part("views"):
        clock[0] += 0.004
    with meter.part("views"):
        clock[0] += 0.001
    meter.update(status, 0.0)
    assert status.parts_ms["views"] == pytest.approx((2.0 + 2.0 + 5.0) / 3)


def test_the_budget_line_names_the_largest_part_first_and_the_tooltip_says_what_each_is():
    parts = {"steps": 3.04, "plots": 6.2, "panel": 0.4, "gpu": 4.6}
    status = Status(frame_ms=14.2, steps_per_frame=1.0, parts_ms=parts)
    line, tip = budget_line(status)
    assert line == "frame 14.2 ms: plots 6, gpu 5, steps 3, panel 0.4"
    assert "1.0 steps/frame" in tip
    for name in status.parts_ms:
        assert f"{name} " in tip and FRAME_PARTS[name] in tip
    assert budget_line(Status(frame_ms=9.0, steps_per_frame=2.0))[0] == "frame 9.0 ms, 2.0 steps/frame"
