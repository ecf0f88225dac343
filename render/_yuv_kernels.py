"""The compiled loops of render/yuv.py's colour conversion (numba), imported only once the conversion is ready
(sim/compiled.py's ``COLOUR_CONVERSION``): importing this module imports numba.

numba's cache checks only the modification time of this file: the constants come from render/bt709.py, so after
changing one there, touch this file.
"""

from __future__ import annotations

import numpy as np

from spinlab.render.bt709 import C_OFFSET, SHIFT, U_COEFFICIENTS, V_COEFFICIENTS, Y_COEFFICIENTS, Y_OFFSET
from spinlab.sim.jit import njit

__all__ = ["convert", "convert_rgba"]


@njit(cache=True, nogil=True)
def convert(rgb, flip, y, u, v):  # pragma: no cover - compiled
    yr, yg, yb = Y_COEFFICIENTS
    ur, ug, ub = U_COEFFICIENTS
    vr, vg, vb = V_COEFFICIENTS
    height, width = rgb.shape[0], rgb.shape[1]
    # Simple loops over one row at a time, which LLVM vectorises (the stride-3 reads included).
    for row in range(height):
        source, luma = rgb[height - 1 - row if flip else row], y[row]
        for column in range(width):
            r, g, b = np.int32(source[column, 0]), np.int32(source[column, 1]), np.int32(source[column, 2])
            luma[column] = np.uint8((yr * r + yg * g + yb * b + Y_OFFSET) >> SHIFT)
    sums = np.empty((width, 3), dtype=np.int32)
    for pair in range(height // 2):
        top = rgb[height - 1 - 2 * pair if flip else 2 * pair]
        bottom = rgb[height - 2 - 2 * pair if flip else 2 * pair + 1]
        for column in range(width):
            for channel in range(3):
                sums[column, channel] = np.int32(top[column, channel]) + np.int32(bottom[column, channel])
        cb, cr = u[pair], v[pair]
        for block in range(width // 2):
            r = sums[2 * block, 0] + sums[2 * block + 1, 0]
            g = sums[2 * block, 1] + sums[2 * block + 1, 1]
            b = sums[2 * block, 2] + sums[2 * block + 1, 2]
            cb[block] = np.uint8((ur * r + ug * g + ub * b + C_OFFSET) >> SHIFT)
            cr[block] = np.uint8((vr * r + vg * g + vb * b + C_OFFSET) >> SHIFT)


@njit(cache=True, nogil=True)
def convert_rgba(pixels, flip, y, u, v):  # pragma: no cover - compiled
    # ``pixels`` (H, W) uint32: R in the low byte, then G, B (A ignored), as RGBA bytes read on a little-endian CPU.
    # Row pair by row pair: both rows' luma, then their chroma while the two rows are still in the L1 cache (a frame
    # read back has just left the caches: read once, not twice).
    ur, ug, ub = U_COEFFICIENTS
    vr, vg, vb = V_COEFFICIENTS
    height, width = pixels.shape
    for pair in range(height // 2):
        top = pixels[height - 1 - 2 * pair if flip else 2 * pair]
        bottom = pixels[height - 2 - 2 * pair if flip else 2 * pair + 1]
        _luma_rgba(top, y[2 * pair])
        _luma_rgba(bottom, y[2 * pair + 1])
        cb, cr = u[pair], v[pair]
        for block in range(width // 2):
            a, b_, c, d = (
                np.int32(top[2 * block]),
                np.int32(top[2 * block + 1]),
                np.int32(bottom[2 * block]),
                np.int32(bottom[2 * block + 1]),
            )
            r = (a & 255) + (b_ & 255) + (c & 255) + (d & 255)
            g = ((a >> 8) & 255) + ((b_ >> 8) & 255) + ((c >> 8) & 255) + ((d >> 8) & 255)
            b = ((a >> 16) & 255) + ((b_ >> 16) & 255) + ((c >> 16) & 255) + ((d >> 16) & 255)
            cb[block] = np.uint8((ur * r + ug * g + ub * b + C_OFFSET) >> SHIFT)
            cr[block] = np.uint8((vr * r + vg * g + vb * b + C_OFFSET) >> SHIFT)


@njit(cache=True, nogil=True)
def _luma_rgba(source, luma):  # pragma: no cover - compiled
    # One row, a simple loop LLVM vectorises.
    yr, yg, yb = Y_COEFFICIENTS
    for column in range(source.shape[0]):
        word = np.int32(source[column])
        r, g, b = word & 255, (word >> 8) & 255, (word >> 16) & 255
        luma[column] = np.uint8((yr * r + yg * g + yb * b + Y_OFFSET) >> SHIFT)
