"""What the window sets up before its GL context: llvmpipe's rasteriser threads (ui/window.py)."""

import os

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
