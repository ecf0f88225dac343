"""Default names for the files the window writes (screenshots, scene files, CSV).

The writing itself is elsewhere, once for every output: atomic writes in :mod:`scene.files.atomic_file`, PNG in
:mod:`scene.files.png`.
"""

from __future__ import annotations

import datetime
import os
from collections.abc import Collection
from pathlib import Path

__all__ = ["timestamped_path"]


def timestamped_path(
    directory: str | os.PathLike[str], stem: str, suffix: str, *, taken: Collection[Path] = ()
) -> Path:
    """``directory/spinlab-<stem>-YYYYmmdd-HHMMSS<suffix>``, with ``-2``, ``-3``… added if that exists or is
    ``taken`` (about to be written)."""
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    base = Path(directory) / f"spinlab-{stem}-{stamp}"
    path, count = base.with_name(base.name + suffix), 1
    while path.exists() or path in taken:
        count += 1
        path = base.with_name(f"{base.name}-{count}{suffix}")
    return path
