"""spinlab's data files, installed as package data (``spinlab.assets``): the scene presets (``scenes/*.toml``) and
the GLSL programs (``shaders/*.glsl``).

They are found through :mod:`importlib.resources`, never beside a source file, so an installed wheel and a
checkout read them the same way.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

__all__ = ["asset_dir"]


def asset_dir(name: str) -> Path:
    """The folder ``name`` (``"scenes"`` or ``"shaders"``) of the data files, as a path on disk.

    pip and pipx unpack wheels, so the files are real files; an import from a zip archive is refused, saying why.
    """
    folder = resources.files(__name__).joinpath(name)
    if not isinstance(folder, os.PathLike):
        raise RuntimeError(f"spinlab's data files are not on disk ({folder}): install spinlab unpacked (pip, pipx)")
    return Path(folder)
