"""Every test imports spinlab's code under its one installed name (``spinlab.sim``, never ``sim``).

The checkout's root is on the path (for ``tests.*``), so ``import scene.validation`` would quietly load a second
copy of the module, and a monkeypatch on it would reach nothing the code under test uses. Such an import fails here
at once, naming the name to use.
"""

import importlib.abc
import sys

CHECKOUT_PACKAGES = frozenset({"sim", "scene", "render", "ui", "commands", "benchmarks", "assets", "main"})


class _TopLevelRefused(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if path is None and fullname.partition(".")[0] in CHECKOUT_PACKAGES:
            raise ImportError(f"import spinlab.{fullname}, not {fullname}: the checkout's folders are spinlab's")
        return None


sys.meta_path.insert(0, _TopLevelRefused())
