"""spinlab's data files, installed as package data (``spinlab.assets``): the scene presets (``scenes/*.toml``) and
the GLSL programs (``shaders/*.glsl``).

They are found through :mod:`importlib.resources`, never beside a source file, so an installed wheel and a
checkout read them the same way.
"""

from __future__ import annotations

import os
from importlib.machinery import SourceFileLoader, SourcelessFileLoader
from pathlib import Path

__all__ = ["asset_dir"]


def asset_dir(name: str) -> Path:
    """The folder ``name`` (``"scenes"`` or ``"shaders"``) of the data files, as a path on disk.

    pip and pipx unpack wheels, so the files are real files; an import from a zip archive is refused, saying why.

    A package imported from a folder on disk (by the file loaders of :mod:`importlib.machinery`, as an install's
    and a checkout's are) has for its resources :mod:`importlib.resources`'s ``FileReader``, whose ``files()`` is the
    folder of the loader's path: that folder is taken here without importing :mod:`importlib.resources`, whose
    ``tempfile``, ``shutil`` and ``zipfile`` imports would cost every command a few milliseconds (``run``'s scene
    file module asks at import). Any other loader asks :mod:`importlib.resources`.
    """
    loader = __spec__.loader
    if isinstance(loader, (SourceFileLoader, SourcelessFileLoader)):
        return Path(loader.path).parent / name
    from importlib import resources

    folder = resources.files(__name__).joinpath(name)
    if not isinstance(folder, os.PathLike):
        raise RuntimeError(f"spinlab's data files are not on disk ({folder}): install spinlab unpacked (pip, pipx)")
    return Path(folder)
