"""``python -m spinlab.commands.stills``: the README's pictures, rendered offscreen in a process of their own, as a
person runs it (it broke unseen once, when a view's label grew a third line)."""

import subprocess
import sys
from pathlib import Path

import numpy as np

from spinlab.commands import stills
from tests.hang import HANG_S
from tests.scene.test_png import _decode_by_hand

ROOT = Path(__file__).resolve().parents[2]


def test_the_stills_are_written_and_show_the_labelled_scene(gl_context, tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "spinlab.commands.stills", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.count("wrote ") == 2
    for name in ("t_handle", "compare"):
        image = _decode_by_hand((tmp_path / f"{name}.png").read_bytes())
        assert image.shape == (*reversed(stills.SIZE), 3)
        # Not one flat colour: bodies, labels and the floor's grid are there.
        assert len(np.unique(image.reshape(-1, 3), axis=0)) > 1000
