"""spinlab: spinning rigid bodies in real time, in 3D, and why the numerics matter.

Installed, everything lives under this one name: ``spinlab.sim``, ``spinlab.scene``, ``spinlab.render``,
``spinlab.ui``, ``spinlab.commands``, ``spinlab.benchmarks`` and the data files ``spinlab.assets`` (pyproject.toml
maps the checkout's top-level folders there with setuptools' ``package-dir``). In a checkout those folders sit
beside this one, not inside it, so the package's search path (``__path__``) takes in the checkout's root as well:
``python main.py`` and the tests then import the same ``spinlab.*`` names with or without an install.

From Python, ``spinlab.simulate``, ``spinlab.compare`` and ``spinlab.integrators`` run what the command line runs and
return numpy arrays (spinlab/api.py, docs/api.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the API's names for a type checker; at run time they load on first use (``__getattr__``)
    from spinlab.api import (
        Body,
        Change,
        Comparison,
        Errors,
        Exact,
        Failure,
        InputError,
        IntegratorInfo,
        Kick,
        Run,
        RunSettings,
        Scene,
        Video,
        compare,
        integrators,
        simulate,
    )

__all__ = ["checkout_root", "checkout_folder", "simulate", "compare", "integrators", "IntegratorInfo", "Scene", "Body",
           "Kick", "Change", "Run", "Comparison", "Errors", "Exact", "Failure", "RunSettings", "Video",
           "InputError"]  # fmt: skip

API = frozenset(__all__[2:])
"""The Python API (spinlab/api.py), offered here as ``spinlab.simulate`` and so on."""

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


def __getattr__(name: str) -> Any:
    """The API's names (:data:`API`), imported from spinlab/api.py when first asked for: ``import spinlab`` stays
    as quick as it was for the command line, which needs none of them (numpy, the run model)."""
    if name in API:
        from spinlab import api

        return getattr(api, name)
    raise AttributeError(f"module 'spinlab' has no attribute {name!r}")


if checkout_root() is not None:
    __path__.append(str(_HERE.parent))  # noqa: F821 - a package's module attribute
