"""The first minute of the window: how long from ``python main.py gui SCENE`` to the real scene drawn and
stepping, cold (every compiled kernel's cache removed) and warm, and the longest gap between frames meanwhile.

Each start runs ``main.py gui SCENE`` in a fresh process under ``DISPLAY`` (a private Xvfb when none is set), with
``NUMBA_CACHE_DIR`` pointed at a folder of its own: an empty one for a cold start, one a previous start filled for a
warm one. The child is the command a person types, with :class:`ui.app.App`'s ``draw`` watched: it notes the wall
time (from the parent's ``Popen``) and its CPU seconds (every thread of the process, and of the compile workers it
has reaped) when the first frame is drawn and when the first frame shows a simulation time past 0, then keeps
drawing ``HOLD_S`` seconds and reports the longest gaps between two frames after the first, and the largest CPU
seconds the window's thread spent from one frame to the next (firmer than the gaps when others load the cores; so is
the CPU at the first moving frame against its wall time: on a busy machine the wall times say little). Run as
``python -m spinlab.benchmarks.first_frame [--scripted] [SCENE ...]``; prints one JSON line per start.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from contextlib import nullcontext
from pathlib import Path

__all__ = ["measure_start", "main"]

HOLD_S = 6.0
TIMEOUT_S = 300.0

# The child: main.py's gui with App.draw watched. It prints one JSON line and closes the window after HOLD_S s.
_CHILD = r"""
import json, os, resource, sys, time
begun = float(sys.argv[1]); hold = float(sys.argv[2]); scripted = sys.argv[3] == "scripted"
def cpu():
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime
from spinlab.ui import app as app_module
seen = {}
draw = app_module.App.draw
def watched(self):
    draw(self)
    now = time.time()
    frames = seen.setdefault("frames", [])
    frames.append(now)
    seen.setdefault("thread_cpu", []).append(time.thread_time())
    if "first_frame_s" not in seen:
        seen["first_frame_s"], seen["first_frame_cpu_s"] = now - begun, cpu()
    if "moving_s" not in seen and self.session is not None and self.session.t > 0:
        seen["moving_s"], seen["moving_cpu_s"] = now - begun, cpu()
        seen["moving_at"] = now
    if "moving_at" in seen and now - seen["moving_at"] > hold:
        self.window.has_exit = True
    if scripted and "moving_at" in seen:  # what a person does in the first half minute, as edits of the panel
        from spinlab.ui.controller_state import PanelEdits
        done = seen.setdefault("done", [])
        for at, name, fields in ACTIONS:
            if name not in done and now - seen["moving_at"] > at:
                done.append(name)
                for key, value in fields.items():
                    setattr(self.pending, key, value)
ACTIONS = [(1.0, "all side by side", {"side_by_side": True}), (4.0, "heavy_top", {"scene": "heavy_top"}),
           (7.0, "all side by side", {"side_by_side": True}), (10.0, "record", {"toggle_record": True}),
           (13.0, "stop", {"toggle_record": True}), (15.0, "compare", {"scene": "compare"})]
app_module.App.draw = watched
from spinlab.launch import main
import tempfile
os.chdir(tempfile.mkdtemp(prefix="spinlab-first-minute-"))  # the scripted recording's video goes there
status = main(["gui", *sys.argv[4:]])
frames = seen.pop("frames", [])
gaps = [b - a for a, b in zip(frames, frames[1:])]
moving_at = seen.pop("moving_at", frames[0] if frames else 0.0); seen.pop("done", None)
# The five longest gaps, each with when it began (s after the first moving frame): which action paid for it.
seen["longest_gaps"] = sorted(((round(b - a, 3), round(a - moving_at, 2)) for a, b in zip(frames, frames[1:])),
                              reverse=True)[:5]
# The window thread's own CPU seconds from one frame to the next: what the frame cost, less the waits for the cores
# others' work takes (which the wall-clock gaps include).
thread_cpu = seen.pop("thread_cpu", [])
seen["longest_frame_cpu"] = sorted(((round(b - a, 3), round(t - moving_at, 2)) for a, b, t
                                   in zip(thread_cpu, thread_cpu[1:], frames)), reverse=True)[:5]
seen.update(status=status, frames=len(frames), longest_gap_s=max(gaps, default=0.0), end_cpu_s=cpu())
print("FIRST_FRAME " + json.dumps(seen), flush=True)
"""


def measure_start(
    scene: str, cache_dir: str, *, hold_s: float = HOLD_S, environment=None, scripted: bool = False
) -> dict:
    """One start of the window on ``scene`` with numba's cache in ``cache_dir``: the child's JSON report plus
    ``process_s``, the wall time to its exit. ``scripted``: the child also does what a person does in the first
    half minute (the child's ``ACTIONS``: all side by side, heavy_top loaded and side by side, a recording started
    and stopped, compare again), and holds ``hold_s`` past the last."""
    env = {**os.environ, **(environment or {}), "NUMBA_CACHE_DIR": cache_dir}
    root = Path(__file__).resolve().parents[1]
    begun = time.time()
    child = subprocess.run(
        [sys.executable, "-c", _CHILD, repr(begun), repr(hold_s), "scripted" if scripted else "still", scene],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
    )
    lines = [line for line in child.stdout.splitlines() if line.startswith("FIRST_FRAME ")]
    if not lines:
        raise RuntimeError(f"the window did not report: {child.stderr[-2000:]}")
    report = json.loads(lines[-1].removeprefix("FIRST_FRAME "))
    report.update(scene=scene, process_s=time.time() - begun)
    return report


def main(argv: list[str] | None = None) -> int:
    """``[--scripted] [SCENE ...]``: a cold and a warm start of each scene (with ``--scripted``, the first half
    minute's actions too: :func:`measure_start`)."""
    args = list(argv if argv is not None else sys.argv[1:])
    scripted = "--scripted" in args
    scenes = [arg for arg in args if arg != "--scripted"] or ["compare"]
    from spinlab.ui.xvfb import virtual_display

    display = nullcontext() if os.environ.get("DISPLAY") else virtual_display()
    with display:
        for scene in scenes:
            with tempfile.TemporaryDirectory(prefix="spinlab-cold-") as cache:
                for kind in ("cold", "warm"):
                    report = measure_start(scene, cache, hold_s=20.0 if scripted else HOLD_S, scripted=scripted)
                    print(json.dumps({"start": kind, **report}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
