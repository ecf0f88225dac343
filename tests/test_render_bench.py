"""The render benchmark's whole-process ``record``: the command a user runs, timed, and the video it wrote read back."""

from __future__ import annotations

import pytest

from spinlab.benchmarks import render


def test_a_record_process_is_timed_and_its_video_measured(tmp_path, monkeypatch):
    monkeypatch.setattr(render, "RECORD_SIZE", (64, 48))
    monkeypatch.setattr(render, "RECORD_SECONDS_QUICK", 0.25)
    row = render._record_process("t_handle", True, tmp_path)
    assert row["scene"] == "t_handle" and row["size"] == [64, 48]
    assert row["video_seconds"] == pytest.approx(15 / 60)  # round(60 fps x 0.25 s) frames, read back from the file
    assert 0.0 < row["cpu_s"] and 0.0 < row["process_s"]
    assert row["realtime_factor"] == pytest.approx(row["video_seconds"] / row["process_s"])
    assert "0.25 s of 64x48 at 60 fps in " in render.record_lines([row])[1]


def test_a_failed_record_process_is_an_error(tmp_path):
    with pytest.raises(RuntimeError, match="exited with status 2"):
        render._record_process("no_such_scene", True, tmp_path)
