"""``gui --fullscreen``: the window covers Xvfb's screen and is drawn to its last pixel. In a process of its own, as
a user starts it, so that a full-screen window never changes the module windows of the other tests."""

import os
import subprocess
import sys
from pathlib import Path

from tests.hang import HANG_S

ROOT = Path(__file__).resolve().parents[2]
CHECK = """
from spinlab.scene.files.scene_file import load_scene
from tests.ui.test_resize import assert_view_drawn, run_frames
from spinlab.ui.app import App
from spinlab.ui.xvfb import SCREEN

app = App(load_scene("t_handle"), vsync=False, fullscreen=True, output_dir={out!r})
run_frames(app, 6)
size = app.window.get_framebuffer_size()
assert size == tuple(int(v) for v in SCREEN.split("x")[:2]), size
assert_view_drawn(app, size)
app.close()
print("drawn", size)
"""


def test_the_window_can_open_full_screen(x_display, tmp_path):
    env = {**os.environ, "DISPLAY": x_display, "PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        [sys.executable, "-c", CHECK.format(out=str(tmp_path))],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=HANG_S,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    assert "drawn (1920, 1080)" in result.stdout
