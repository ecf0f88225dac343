"""What the window sets up before its GL context: llvmpipe's rasteriser threads (ui/window.py)."""

import os

from spinlab.ui import window
from spinlab.ui.window import LLVMPIPE_THREADS_PER_CORE
from tests.hang import HANG_S


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


def test_the_rasterisers_threads_go_behind_the_windows_thread():
    """In a process of its own (its llvmpipe threads are no other test's): after a GL context is made, every
    rasteriser thread is RASTERISER_NICENESS lower in priority, the calling thread as it was."""
    import json
    import subprocess
    import sys

    script = """
import json, os, threading
from spinlab.render.offscreen import create_offscreen_context
from spinlab.ui import window
from tests.hang import HANG_S
ctx = create_offscreen_context()
def rasterisers():
    out = {}
    for thread in os.listdir("/proc/self/task"):
        with open(f"/proc/self/task/{thread}/comm") as comm:
            if comm.read().startswith("llvmpipe"):
                out[thread] = os.getpriority(os.PRIO_PROCESS, int(thread))
    return out
before = rasterisers()
own = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
window._lower_rasterisers(window.RASTERISER_NICENESS)
print(json.dumps([before, rasterisers(), own, os.getpriority(os.PRIO_PROCESS, threading.get_native_id())]))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=HANG_S)
    assert done.returncode == 0, done.stderr
    before, after, own_before, own_after = json.loads(done.stdout.strip().splitlines()[-1])
    if not before:
        import pytest

        pytest.skip("no llvmpipe threads: not Mesa's CPU rasteriser")
    assert set(after) == set(before)
    assert all(after[t] == min(before[t] + window.RASTERISER_NICENESS, 19) for t in before), (before, after)
    assert own_after == own_before
