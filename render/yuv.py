"""RGB to Y'CbCr 4:2:0 (BT.709, limited range), the pixel format the H.264 encoder takes (render/video.py).

swscale converts a 1280×720 frame in ~4 ms on these machines (its unscaled RGB paths are not vectorised here), more
than x264 then spends encoding it at the ultrafast preset. These compiled loops run on the encoder's thread with
the GIL released: ~2 ms from packed RGB, ~0.35 ms from RGBA (each pixel one 32-bit word, which LLVM vectorises;
RGBA is also what GL reads back fastest, ~0.15 ms against ~1.1 ms for RGB on llvmpipe).

BT.709 (ITU-R BT.709-6 §3): luma ``Y' = Kr R' + Kg G' + Kb B'`` with ``Kr = 0.2126``, ``Kb = 0.0722``; colour
differences ``Cb = (B' − Y') / (2 (1 − Kb))``, ``Cr = (R' − Y') / (2 (1 − Kr))``. Limited ("MPEG") range in 8 bits:
``Y = 16 + 219 Y'``, ``C = 128 + 224 C'`` for ``R', G', B'`` in [0, 1]. Chroma is computed from the mean of each
2×2 block of R'G'B' (centred siting); odd widths and heights are not supported (the writer makes sizes even).
"""

from __future__ import annotations

import sys

import numpy as np
from numba import njit

__all__ = ["rgb_to_yuv420p_bt709", "KR", "KB"]

KR = 0.2126
KB = 0.0722
KG = 1.0 - KR - KB
_LUMA = 219.0 / 255.0
_CB = 224.0 / 255.0 / (2.0 * (1.0 - KB))
_CR = 224.0 / 255.0 / (2.0 * (1.0 - KR))


# Fixed point, 16 fractional bits (as swscale does): luma from one pixel, colour differences from the sums of a
# 2×2 block (hence the quarter), each ``(Σ c·x + offset·2¹⁶ + 2¹⁵) >> 16``: rounded to the nearest level.
_SHIFT = 16
_HALF = 1 << (_SHIFT - 1)
_Y_COEFFICIENTS = tuple(round((1 << _SHIFT) * _LUMA * k) for k in (KR, KG, KB))
_U_COEFFICIENTS = tuple(round((1 << _SHIFT) * 0.25 * _CB * k) for k in (-KR, -KG, 1.0 - KB))
_V_COEFFICIENTS = tuple(round((1 << _SHIFT) * 0.25 * _CR * k) for k in (1.0 - KR, -KG, -KB))
_Y_OFFSET = (16 << _SHIFT) + _HALF
_C_OFFSET = (128 << _SHIFT) + _HALF


@njit(cache=True, nogil=True)
def _convert(rgb, flip, y, u, v):  # pragma: no cover - compiled
    yr, yg, yb = _Y_COEFFICIENTS
    ur, ug, ub = _U_COEFFICIENTS
    vr, vg, vb = _V_COEFFICIENTS
    height, width = rgb.shape[0], rgb.shape[1]
    # Simple loops over one row at a time, which LLVM vectorises (the stride-3 reads included).
    for row in range(height):
        source, luma = rgb[height - 1 - row if flip else row], y[row]
        for column in range(width):
            r, g, b = np.int32(source[column, 0]), np.int32(source[column, 1]), np.int32(source[column, 2])
            luma[column] = np.uint8((yr * r + yg * g + yb * b + _Y_OFFSET) >> _SHIFT)
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
            cb[block] = np.uint8((ur * r + ug * g + ub * b + _C_OFFSET) >> _SHIFT)
            cr[block] = np.uint8((vr * r + vg * g + vb * b + _C_OFFSET) >> _SHIFT)


@njit(cache=True, nogil=True)
def _convert_rgba(pixels, flip, y, u, v):  # pragma: no cover - compiled
    # ``pixels`` (H, W) uint32: R in the low byte, then G, B (A ignored), as RGBA bytes read on a little-endian CPU.
    yr, yg, yb = _Y_COEFFICIENTS
    ur, ug, ub = _U_COEFFICIENTS
    vr, vg, vb = _V_COEFFICIENTS
    height, width = pixels.shape
    for row in range(height):
        source, luma = pixels[height - 1 - row if flip else row], y[row]
        for column in range(width):
            word = np.int32(source[column])
            r, g, b = word & 255, (word >> 8) & 255, (word >> 16) & 255
            luma[column] = np.uint8((yr * r + yg * g + yb * b + _Y_OFFSET) >> _SHIFT)
    for pair in range(height // 2):
        top = pixels[height - 1 - 2 * pair if flip else 2 * pair]
        bottom = pixels[height - 2 - 2 * pair if flip else 2 * pair + 1]
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
            cb[block] = np.uint8((ur * r + ug * g + ub * b + _C_OFFSET) >> _SHIFT)
            cr[block] = np.uint8((vr * r + vg * g + vb * b + _C_OFFSET) >> _SHIFT)


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
    if rgb.shape[2] == 4 and sys.byteorder == "little":
        rgba = np.ascontiguousarray(rgb)
        _convert_rgba(rgba.view(np.uint32).reshape(height, width), flip, y, u, v)
    else:
        _convert(np.ascontiguousarray(rgb[..., :3]), flip, y, u, v)
