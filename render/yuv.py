"""RGB to Y'CbCr 4:2:0 (BT.709, limited range), the pixel format the H.264 encoder takes (render/video.py).

swscale's unscaled RGB paths are not vectorised on these machines and cost more than x264 then spends encoding a
frame at the ultrafast preset, so the conversion is ours. The compiled loops (render/_yuv_kernels.py) run on the
encoder's thread with the GIL released; from RGBA (each pixel one 32-bit word, which LLVM vectorises, and what GL
reads back fastest) they are several times faster than from packed RGB. Until they are loaded (sim/compiled.py's
``COLOUR_CONVERSION``), numpy does the same integer arithmetic to the same bytes, several times slower: a recording
started early never waits for numba, nor has its compiler hold the GIL on the encoder's thread.

The coefficients (BT.709, limited range, 16-bit fixed point) are render/bt709.py's.
"""

from __future__ import annotations

import sys

import numpy as np

from spinlab.render.bt709 import C_OFFSET, SHIFT, U_COEFFICIENTS, V_COEFFICIENTS, Y_COEFFICIENTS, Y_OFFSET
from spinlab.sim import compiled

__all__ = ["rgb_to_yuv420p_bt709"]


def rgb_to_yuv420p_bt709(rgb: np.ndarray, y: np.ndarray, u: np.ndarray, v: np.ndarray, *, flip: bool = False) -> None:
    """Convert ``rgb`` (H, W, 3) uint8 RGB, or (H, W, 4) RGBA (alpha ignored), into the planes ``y`` (H, ≥ W),
    ``u`` and ``v`` (H/2, ≥ W/2) uint8, C-contiguous (a video frame's planes, whose rows may be padded). ``flip``
    reads ``rgb``'s rows from the last (glReadPixels' bottom-up order) to give top-down planes."""
    height, width = rgb.shape[:2]
    if height % 2 or width % 2:
        raise ValueError(f"4:2:0 needs an even width and height, got {width}x{height}")
    if y.shape[0] != height or y.shape[1] < width or u.shape[0] != v.shape[0] != height // 2:
        raise ValueError("plane shapes do not match the image")
    if u.shape[1] < width // 2 or v.shape[1] < width // 2:
        raise ValueError("plane shapes do not match the image")
    if not compiled.is_ready(compiled.COLOUR_CONVERSION):
        _convert_numpy(rgb, flip, y, u, v)
        return
    from spinlab.render import _yuv_kernels

    if rgb.shape[2] == 4 and sys.byteorder == "little":
        rgba = np.ascontiguousarray(rgb)
        _yuv_kernels.convert_rgba(rgba.view(np.uint32).reshape(height, width), flip, y, u, v)
    else:
        _yuv_kernels.convert(np.ascontiguousarray(rgb[..., :3]), flip, y, u, v)


def _convert_numpy(rgb: np.ndarray, flip: bool, y: np.ndarray, u: np.ndarray, v: np.ndarray) -> None:
    """The kernels' integer arithmetic over whole planes (exact, so the same bytes)."""
    width = rgb.shape[1]
    image = rgb[::-1] if flip else rgb
    r, g, b = (image[..., channel].astype(np.int32) for channel in range(3))
    yr, yg, yb = Y_COEFFICIENTS
    y[:, :width] = (yr * r + yg * g + yb * b + Y_OFFSET) >> SHIFT
    # Each 2×2 block's sums: the two rows, then the two columns.
    r, g, b = ((channel[0::2] + channel[1::2]) for channel in (r, g, b))
    r, g, b = ((channel[:, 0::2] + channel[:, 1::2]) for channel in (r, g, b))
    ur, ug, ub = U_COEFFICIENTS
    vr, vg, vb = V_COEFFICIENTS
    u[:, : width // 2] = (ur * r + ug * g + ub * b + C_OFFSET) >> SHIFT
    v[:, : width // 2] = (vr * r + vg * g + vb * b + C_OFFSET) >> SHIFT
