"""record --integrator all goes on past a view that fails: the video holds every frame, the failed view is frozen
(its pixels stop changing) while the others move, and the command lists what failed and what was left out."""

import subprocess
import sys
from pathlib import Path

import numpy as np

from spinlab.render.grid import grid_columns, grid_viewports
from spinlab.render.video import decode_frames, read_video_info
from spinlab.render.video_file import record_scene
from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.model.run_model import integrators_for
from spinlab.sim.integrators import METHODS
from tests.hang import HANG_S

ROOT = Path(__file__).resolve().parents[2]
SIZE = (640, 360)


def test_heavy_top_all_records_every_frame_with_the_diverged_view_frozen(tmp_path):
    scene = load_scene("heavy_top")
    out = tmp_path / "all.mp4"
    result = record_scene(scene, out, duration=2.5, fps=8, size=SIZE, integrator="all")
    assert result.frames == 20 and result.simulated_seconds > 2.0
    (failure,) = result.failures
    assert failure.startswith("euler_body: diverged at t = 1.")
    assert failure.endswith(": ΔE/E passed +0.5 (energy gained)")
    assert read_video_info(out)[:3] == (20, *SIZE)
    # The frozen view's cell is the same in the last two frames (its state, label and trail are kept); the
    # others' cells change.
    names = integrators_for(scene, METHODS)
    cells = grid_viewports(SIZE, len(names), grid_columns(len(names), *SIZE))
    late, last = (frame.astype(int) for frame in decode_frames(out, [18, 19]))

    def changed(cell):
        x, y, w, h = (int(v) for v in cell)
        top = SIZE[1] - (y + h)
        # Inset a few pixels: the encoder's blocks straddle the cell borders.
        region = (slice(top + 8, top + h - 8), slice(x + 8, x + w - 8))
        return np.abs(late[region] - last[region]).mean()

    frozen = names.index("euler_body")
    assert changed(cells[frozen]) < 1.0  # H.264 leaves a little noise where nothing moves (~0.3 here)
    assert all(changed(cell) > 2.0 for number, cell in enumerate(cells) if number != frozen)  # ~5-20


def test_the_command_lists_the_failure_and_what_was_left_out(tmp_path):
    out = tmp_path / "all.mp4"
    command = [sys.executable, "main.py", "record", "heavy_top", "--integrator", "all", "--out", str(out)]
    command += ["--duration", "1.5", "--fps", "4", "--size", "160x90"]
    result = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=HANG_S)
    # As `run --integrator all`: every view recorded, and a view that failed is a numerical failure (exit 1).
    assert result.returncode == 1, result.stderr
    assert result.stderr == ""
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"wrote {out}: 6 frames")
    assert lines[1] == "left out: exact (it takes no torque, and this scene has one)"
    assert lines[2].startswith("failed: euler_body: diverged at t = 1.")
    assert read_video_info(out)[0] == 6
