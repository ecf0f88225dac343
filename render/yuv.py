"""RGB to Y'CbCr 4:2:0 (BT.709, limited range), the pixel format the H.264 encoder takes (render/video.py).

swscale converts a 1280×720 frame in ~4 ms on these machines (its unscaled RGB paths are not vectorised here), more
than x264 then spends encoding it at the ultrafast preset. The compiled loops (render/_yuv_kernels.py) run on the
encoder's thread with the GIL released: ~2 ms from packed RGB, ~0.35 ms from RGBA (each pixel one 32-bit word,
which LLVM vectorises; RGBA is also what GL reads back fastest, ~0.15 ms against ~1.1 ms for RGB on llvmpipe).
Until they are loaded (the window has them compiled in a worker, ui/kernel_loader.py; sim/compiled.py), numpy does
the same integer arithmetic, to the same bytes, in ~15 ms a frame: a recording started early never waits for
numba, nor has its compiler hold the GIL on the encoder's thread.

BT.709 (ITU-R BT.709-6 §3): luma ``Y' = Kr R' + Kg G' + Kb B'`` with ``Kr = 0.2126``, ``Kb = 0.0722``; colour
differences ``Cb = (B' − Y') / (2 (1 − Kb))``, ``Cr = (R' − Y') / (2 (1 − Kr))``. Limited ("MPEG") range in 8 bits:
``Y = 16 + 219 Y'``, ``C = 128 + 224 C'`` for ``R', G', B'`` in [0, 1]. Chroma is computed from the mean of each
2×2 block of R'G'B' (centred siting); odd widths and heights are not supported (the writer makes sizes even).
"""

from __future__ import annotations

import sys

import numpy as np

from spinlab.sim import compiled

__all__ = ["rgb_to_yuv420p_bt709", "KR", "KB"]

KR = 0.2126
KB = 0.0722
KG = 1.0 - KR - KB
_LUMA = 219.0 / 255.0
_CB = 224.0 / 255.0 / (2.0 * (1.0 - KB))
_CR = 224.0 / 255.0 / (2.0 * (1.0 - KR))


# Fixed point, 16 fractional bits (as swscale does): luma from one pixel, colour differences from the sums of a
# 2×2 block (hence the quarter), each ``(Σ c·x + offset·2¹⁶ + 2¹⁵) >> 16``: rounded to the nearest level. Every
# sum stays below 2³¹. (render/_yuv_kernels.py compiles these in: after changing one, touch that file.)
_SHIFT = 16
_HALF = 1 << (_SHIFT - 1)
_Y_COEFFICIENTS = tuple(round((1 << _SHIFT) * _LUMA * k) for k in (KR, KG, KB))
_U_COEFFICIENTS = tuple(round((1 << _SHIFT) * 0.25 * _CB * k) for k in (-KR, -KG, 1.0 - KB))
_V_COEFFICIENTS = tuple(round((1 << _SHIFT) * 0.25 * _CR * k) for k in (1.0 - KR, -KG, -KB))
_Y_OFFSET = (16 << _SHIFT) + _HALF
_C_OFFSET = (128 << _SHIFT) + _HALF


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
    yr, yg, yb = _Y_COEFFICIENTS
    y[:, :width] = (yr * r + yg * g + yb * b + _Y_OFFSET) >> _SHIFT
    # Each 2×2 block's sums: the two rows, then the two columns.
    r, g, b = ((channel[0::2] + channel[1::2]) for channel in (r, g, b))
    r, g, b = ((channel[:, 0::2] + channel[:, 1::2]) for channel in (r, g, b))
    ur, ug, ub = _U_COEFFICIENTS
    vr, vg, vb = _V_COEFFICIENTS
    u[:, : width // 2] = (ur * r + ug * g + ub * b + _C_OFFSET) >> _SHIFT
    v[:, : width // 2] = (vr * r + vg * g + vb * b + _C_OFFSET) >> _SHIFT
