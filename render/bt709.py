"""BT.709's RGB to Y'CbCr coefficients in 16-bit fixed point, shared by render/yuv.py's numpy conversion and its
compiled loops (render/_yuv_kernels.py), so that both compute the same bytes from one definition.

BT.709 (ITU-R BT.709-6 §3): luma ``Y' = Kr R' + Kg G' + Kb B'`` with ``Kr = 0.2126``, ``Kb = 0.0722``; colour
differences ``Cb = (B' − Y') / (2 (1 − Kb))``, ``Cr = (R' − Y') / (2 (1 − Kr))``. Limited ("MPEG") range in 8 bits:
``Y = 16 + 219 Y'``, ``C = 128 + 224 C'`` for ``R', G', B'`` in [0, 1]. Chroma is computed from the mean of each
2×2 block of R'G'B' (centred siting); odd widths and heights are not supported (the writer makes sizes even).
"""

from __future__ import annotations

__all__ = [
    "KR",
    "KB",
    "KG",
    "SHIFT",
    "HALF",
    "Y_COEFFICIENTS",
    "U_COEFFICIENTS",
    "V_COEFFICIENTS",
    "Y_OFFSET",
    "C_OFFSET",
]

KR = 0.2126
KB = 0.0722
KG = 1.0 - KR - KB
_LUMA = 219.0 / 255.0
_CB = 224.0 / 255.0 / (2.0 * (1.0 - KB))
_CR = 224.0 / 255.0 / (2.0 * (1.0 - KR))


# Fixed point, 16 fractional bits (as swscale does): luma from one pixel, colour differences from the sums of a
# 2×2 block (hence the quarter), each ``(Σ c·x + offset·2¹⁶ + 2¹⁵) >> 16``: rounded to the nearest level. Every
# sum stays below 2³¹. render/_yuv_kernels.py compiles these in, and numba's cache looks only at that file's
# modification time: after changing one, touch it.
SHIFT = 16
HALF = 1 << (SHIFT - 1)
Y_COEFFICIENTS = tuple(round((1 << SHIFT) * _LUMA * k) for k in (KR, KG, KB))
U_COEFFICIENTS = tuple(round((1 << SHIFT) * 0.25 * _CB * k) for k in (-KR, -KG, 1.0 - KB))
V_COEFFICIENTS = tuple(round((1 << SHIFT) * 0.25 * _CR * k) for k in (1.0 - KR, -KG, -KB))
Y_OFFSET = (16 << SHIFT) + HALF
C_OFFSET = (128 << SHIFT) + HALF
