"""PNG files from RGB arrays, with zlib alone (no imaging library, no GL): the one encoder spinlab has.

The window's screenshots (ui/) and the docs' stills (commands/stills.py) are written here. The format is the
smallest valid PNG: 8-bit truecolour, one IDAT chunk, filter type 0 (none) on every row, no interlace
(PNG specification, 2nd ed., §11.2). Files are written atomically (:mod:`scene.files.atomic_file`).
"""

from __future__ import annotations

import os
import struct
import zlib
from pathlib import Path

import numpy as np

from spinlab.scene.files.atomic_file import write_atomically

__all__ = ["PNG_SIGNATURE", "encode_png", "save_png"]

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
COMPRESSION = 6  # zlib's own default level


def encode_png(rgb: np.ndarray) -> bytes:
    """PNG bytes of ``rgb``: (H, W, 3) uint8, rows top-down, sRGB values as they are (no gamma chunk)."""
    if rgb.ndim != 3 or rgb.shape[2] != 3 or rgb.dtype != np.uint8:
        raise ValueError(f"expected an (H, W, 3) uint8 image, got {rgb.shape} {rgb.dtype}")
    height, width, _ = rgb.shape
    rows = np.zeros((height, 1 + 3 * width), dtype=np.uint8)  # each row starts with its filter type, 0
    rows[:, 1:] = rgb.reshape(height, 3 * width)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit, truecolour, deflate, no interlace
    return b"".join(
        [
            PNG_SIGNATURE,
            _chunk(b"IHDR", header),
            _chunk(b"IDAT", zlib.compress(rows.tobytes(), COMPRESSION)),
            _chunk(b"IEND", b""),
        ]
    )


def _chunk(kind: bytes, data: bytes) -> bytes:
    """Length, type, data and the CRC-32 of type and data (PNG §5.3)."""
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def save_png(path: str | os.PathLike[str], rgb: np.ndarray) -> Path:
    """Write ``rgb`` (H, W, 3) uint8 as a PNG file at ``path``, atomically (:func:`write_atomically`: a missing
    directory is an ``InputError``, a full disk an ``OutputError``); returns ``path``."""
    return write_atomically(path, encode_png(rgb))
