"""What the window sets up around its GL context: llvmpipe's rasteriser threads, and their priority (ui/window.py)."""

import os
from pathlib import Path

import pytest

from spinlab.sim.errors import InputError
from spinlab.ui import window
from spinlab.ui.window import LLVMPIPE_THREADS_PER_CORE


def test_llvmpipe_gets_three_threads_per_core_unless_told(monkeypatch):
    monkeypatch.delenv("LP_NUM_THREADS", raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    window._share_cores_with_llvmpipe()
    assert os.environ["LP_NUM_THREADS"] == str(2 * LLVMPIPE_THREADS_PER_CORE)

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(64)), raising=False)
    monkeypatch.delenv("LP_NUM_THREADS")
    window._share_cores_with_llvmpipe()
    assert os.environ["LP_NUM_THREADS"] == str(window.LLVMPIPE_MAX_THREADS)

    monkeypatch.setenv("LP_NUM_THREADS", "1")
    window._share_cores_with_llvmpipe()
    assert os.environ["LP_NUM_THREADS"] == "1", "a value the user set is kept"


def test_the_rasteriser_runs_below_the_windows_thread_unless_told(monkeypatch):
    monkeypatch.delenv(window.RASTERISER_NICE_VARIABLE, raising=False)
    assert window.rasteriser_nice() == window.RASTERISER_NICE == 10
    for text, nice in (("0", 0), (" 19 ", 19), ("3", 3)):
        monkeypatch.setenv(window.RASTERISER_NICE_VARIABLE, text)
        assert window.rasteriser_nice() == nice
    for text in ("20", "-1", "ten", "2.5", "²"):
        monkeypatch.setenv(window.RASTERISER_NICE_VARIABLE, text)
        with pytest.raises(InputError, match=f"SPINLAB_RASTERISER_NICE.*0 to 19.*got '{text}'"):
            window.rasteriser_nice()


def test_a_windows_llvmpipe_threads_run_nice_steps_below_its_thread(app):
    own = os.getpriority(os.PRIO_PROCESS, 0)
    threads = {}
    for task in Path("/proc/self/task").iterdir():
        if (task / "comm").read_text().startswith("llvmpipe"):
            threads[task.name] = os.getpriority(os.PRIO_PROCESS, int(task.name))
    if "llvmpipe" not in app.ctx.info["GL_RENDERER"]:
        pytest.skip("not llvmpipe: its threads are not there to lower")
    assert threads and set(threads.values()) == {min(own + window.RASTERISER_NICE, 19)}, (own, threads)
