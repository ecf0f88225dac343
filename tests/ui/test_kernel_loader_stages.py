"""The kernel loader's stages leave nothing for the window to compile: here the colour stage, against the frames a
recording reads back from GL (read-only arrays, a signature of their own for numba, which the encoder's thread
compiled at the window's first recording: 0.2 s gaps). In a fresh process, counting numba's compiles."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_CHILD = r"""
import json
import numpy as np
import numba.core.dispatcher as dispatcher

compiles = []
real = dispatcher.Dispatcher.compile

def counted(self, signature):
    compiles.append(str(signature))
    return real(self, signature)

dispatcher.Dispatcher.compile = counted
from spinlab.sim import compiled
from spinlab.ui.kernel_loader import _colour_conversion
compiled.start_on_numpy()
with compiled.loading():
    _colour_conversion()
compiled.mark_ready([compiled.COLOUR_CONVERSION])
loaded = len(compiles)
from spinlab.render.yuv import rgb_to_yuv420p_bt709
for channels in (4, 3):  # a window's read-back (RGBA) and an RGB one, as GL gives them: bytes, read-only
    frame = np.frombuffer(bytes(48 * 64 * channels), np.uint8).reshape(48, 64, channels)
    planes = [np.zeros((48, 64), np.uint8), np.zeros((24, 32), np.uint8), np.zeros((24, 32), np.uint8)]
    for flip in (True, False):
        rgb_to_yuv420p_bt709(frame, *planes, flip=flip)
print(json.dumps({"loaded": loaded, "after": compiles[loaded:]}))
"""


def test_the_colour_stage_covers_the_frames_a_recording_reads_back():
    result = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["loaded"] > 0, "the stage compiled or loaded the conversion"
    assert report["after"] == [], report["after"]
