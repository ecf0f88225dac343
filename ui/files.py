"""Files the window writes (screenshots, scene files, CSV): atomic writes, PNG encoding, default names.

A file is written to a temporary name in its directory and renamed over the target in one step, so a reader (or a
crash half-way) never sees a partial file, through the one atomic writer every output uses
(scene/atomic_file.py's :func:`~scene.atomic_file.write_atomically`, imported here for the window's callers).
PNG is encoded here with zlib (8-bit RGB, no filtering), so the window needs no imaging library.
"""

from __future__ import annotations

import datetime
import os
import struct
import zlib
from pathlib import Path

import numpy as np

from scene.atomic_file import write_atomically

__all__ = ["write_atomically", "encode_png", "save_png", "timestamped_path"]

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
PNG_COMPRESSION = 6


def encode_png(rgb: np.ndarray) -> bytes:
    """PNG bytes of ``rgb`` (H, W, 3) uint8, rows top-down."""
    height, width, channels = rgb.shape
    if channels != 3 or rgb.dtype != np.uint8:
        raise ValueError(f"expected an (H, W, 3) uint8 image, got {rgb.shape} {rgb.dtype}")
    # Each row starts with its filter type, 0 (none).
    rows = np.zeros((height, 1 + 3 * width), dtype=np.uint8)
    rows[:, 1:] = rgb.reshape(height, 3 * width)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit, truecolour, deflate, no interlace
    return b"".join(
        [
            PNG_SIGNATURE,
            _chunk(b"IHDR", header),
            _chunk(b"IDAT", zlib.compress(rows.tobytes(), PNG_COMPRESSION)),
            _chunk(b"IEND", b""),
        ]
    )


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def save_png(path: str | os.PathLike[str], rgb: np.ndarray) -> Path:
    """Write ``rgb`` (H, W, 3) uint8 as a PNG file, atomically."""
    return write_atomically(path, encode_png(rgb))


def timestamped_path(directory: str | os.PathLike[str], stem: str, suffix: str) -> Path:
    """``directory/spinlab-<stem>-YYYYmmdd-HHMMSS<suffix>``, with ``-2``, ``-3``… added if that exists."""
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    base = Path(directory) / f"spinlab-{stem}-{stamp}"
    path, count = base.with_name(base.name + suffix), 1
    while path.exists():
        count += 1
        path = base.with_name(f"{base.name}-{count}{suffix}")
    return path
