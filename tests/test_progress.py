"""commands/progress.py: the time left reckoned from the recent rate (a clock of the test's own, no waiting)."""

import io
import re

from spinlab.commands import progress
from spinlab.commands.progress import ProgressBar, duration_text


def test_durations_read_as_a_person_reads_them():
    assert [duration_text(s) for s in (0.2, 42.4, 185, 3723)] == ["0 s", "42 s", "3:05", "1:02:03"]


def test_the_time_left_follows_the_recent_rate_not_the_average(monkeypatch):
    """A recording whose first 180 frames (a title card's) take no time and whose 600 others take 0.1 s each: near
    the end the time left is the frames left at 0.1 s, where the average since the start says ~25 % less."""
    clock = [0.0]
    stderr = io.StringIO()
    monkeypatch.setattr(progress.time, "perf_counter", lambda: clock[0])
    monkeypatch.setattr(progress.sys, "stderr", stderr)
    bar = ProgressBar("recording", unit="frames")
    bar.enabled = True
    total = 780
    for done in range(1, total + 1):
        clock[0] += 0.0001 if done <= 180 else 0.1
        bar(done, total)
        if done == 700:
            shown = stderr.getvalue().rsplit("\r", 1)[-1]
    assert "700/780 frames" in shown and "10.0 frames/s" in shown, shown
    assert "8 s left" in shown, shown  # 80 frames at 0.1 s
    assert re.search(r"took 1:00\s*\n$", stderr.getvalue()), stderr.getvalue()[-80:]
