"""spinlab: spinning rigid bodies in real time, in 3D, and why the numerics matter.

Installed, everything lives under this one name: ``spinlab.sim``, ``spinlab.scene``, ``spinlab.render``,
``spinlab.ui``, ``spinlab.commands``, ``spinlab.benchmarks`` and the data files ``spinlab.assets`` (pyproject.toml
maps the checkout's top-level folders there with setuptools' ``package-dir``). In a checkout those folders sit
beside this one, not inside it, so the package's search path (``__path__``) takes in the checkout's root as well:
``python main.py`` and the tests then import the same ``spinlab.*`` names with or without an install.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["checkout_root", "checkout_folder"]

_HERE = Path(__file__).resolve().parent


def checkout_root() -> Path | None:
    """The source checkout this package runs from (the folder holding pyproject.toml, sim/ and docs/), or None
    when it is installed: the places only a checkout has (docs/, benchmarks/results/) are written only then."""
    root = _HERE.parent
    if (
        (root / "pyproject.toml").is_file()
        and (root / "sim" / "__init__.py").is_file()
        and not (_HERE / "sim").exists()
    ):
        return root
    return None


def checkout_folder(*parts: str) -> Path:
    """The folder ``parts`` of the source checkout (``"docs", "images"``), for what only a developer writes (the
    docs' tables and figures); an installed spinlab has none and says so."""
    root = checkout_root()
    if root is None:
        raise RuntimeError(f"{'/'.join(parts)}/ belongs to spinlab's source checkout; this spinlab is installed")
    return root.joinpath(*parts)


if checkout_root() is not None:
    __path__.append(str(_HERE.parent))  # noqa: F821 - a package's module attribute
