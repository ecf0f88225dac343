"""render/yuv.py's numpy loops (until the compiled ones are loaded: sim/compiled.py) give the compiled bytes."""

import numpy as np
import pytest

from spinlab.render.yuv import rgb_to_yuv420p_bt709
from spinlab.sim import compiled


def _planes(width, height, pad):
    """A video frame's planes, rows padded by ``pad`` bytes (as PyAV's are), filled with a marker."""
    y = np.full((height, width + pad), 7, np.uint8)
    chroma = [np.full((height // 2, width // 2 + pad), 7, np.uint8) for _ in range(2)]
    return [y, *chroma]


@pytest.mark.parametrize("channels", [3, 4])
@pytest.mark.parametrize("flip", [False, True])
def test_numpy_and_compiled_conversions_write_the_same_bytes(channels, flip):
    rng = np.random.default_rng(11)
    width, height = 38, 22
    rgb = rng.integers(0, 256, size=(height, width, channels), dtype=np.uint8)
    rgb[:4, :6] = 255  # the extremes of every level
    rgb[4:8, :6] = 0
    numpy_planes, compiled_planes = _planes(width, height, 5), _planes(width, height, 5)
    with compiled.gated():
        assert not compiled.is_ready(compiled.COLOUR_CONVERSION)
        rgb_to_yuv420p_bt709(rgb, *numpy_planes, flip=flip)
    with compiled.gated({compiled.COLOUR_CONVERSION}):
        rgb_to_yuv420p_bt709(rgb, *compiled_planes, flip=flip)
    for ours, theirs in zip(numpy_planes, compiled_planes, strict=True):
        np.testing.assert_array_equal(ours, theirs, strict=True)
    assert np.all(numpy_planes[0][:, width:] == 7)  # the rows' padding is left alone


def test_a_frame_converts_on_numpy_without_importing_numba():
    import subprocess
    import sys

    script = (
        "import sys, numpy as np\nfrom spinlab.sim import compiled\n"
        "from spinlab.render.yuv import rgb_to_yuv420p_bt709\n"
        "compiled.start_on_numpy()\n"
        "planes = [np.zeros((4, 6), np.uint8), np.zeros((2, 3), np.uint8), np.zeros((2, 3), np.uint8)]\n"
        "rgb_to_yuv420p_bt709(np.full((4, 6, 4), 255, np.uint8), *planes)\n"
        "print(int(planes[0][0, 0]), 'numba' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["235", "False"]
