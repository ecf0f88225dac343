"""sim/'s imports make no cycle, and no module of sim/integrators imports through the package's __init__.

The package's __init__ re-exports the registry, which imports every integrator; a module of the package that imported
``from spinlab.sim.integrators import ...`` would go through it, and close a cycle. Read from the source with ``ast``
(module level and inside functions; ``if TYPE_CHECKING:`` blocks aside), counting ``from X import y`` as an import of
``X`` and, where ``X.y`` is a module, of ``X.y`` too.
"""

import ast
import subprocess
import sys
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

from tests.hang import HANG_S

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "spinlab.sim.integrators"


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(("spinlab", *(parts[:-1] if parts[-1] == "__init__" else parts)))


def _imports(tree: ast.AST, modules: set[str]) -> set[str]:
    found: set[str] = set()
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING"):
            found |= _imports(ast.Module(body=node.orelse, type_ignores=[]), modules)
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
        else:
            found |= _imports(node, modules)
    return found & modules


def _graph() -> dict[str, set[str]]:
    paths = {_module_name(path): path for path in (ROOT / "sim").rglob("*.py")}
    return {
        name: _imports(ast.parse(path.read_text(encoding="utf-8")), set(paths)) - {name} for name, path in paths.items()
    }


def test_no_module_of_the_package_imports_through_its_init():
    graph = _graph()
    through = sorted(name for name, imported in graph.items() if name.startswith(PACKAGE + ".") and PACKAGE in imported)
    assert through == [], "import these from their own modules (spinlab.sim.integrators.<module>)"


def test_sims_imports_make_no_cycle():
    try:
        TopologicalSorter(_graph()).prepare()
    except CycleError as error:
        raise AssertionError(f"an import cycle: {' -> '.join(error.args[1])}") from None


def test_the_check_sees_a_cycle_through_a_packages_init():
    modules = {"a", "a.b"}
    assert _imports(ast.parse("from a import b"), modules) == {"a", "a.b"}
    assert _imports(ast.parse("def f():\n    import a.b"), modules) == {"a.b"}
    assert _imports(ast.parse("if TYPE_CHECKING:\n    import a"), modules) == set()


# A stop signal raised while the compiled kernels' module is imported (numba with it, at the first compiled step).
_SIGNAL_DURING_THE_KERNELS_IMPORT = """
import os, signal, sys
import numpy as np
from spinlab.scene.process.interrupts import install_handlers
from spinlab.sim.world import World

class SignalOnImport:
    def find_spec(self, name, path=None, target=None):
        if name == "numba":
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.SIGINT)
        return None

install_handlers()
world = World()
world.add_body(q=np.array([1.0, 0.0, 0.0, 0.0]), omega_world=np.ones(3), inertia_body=np.eye(3), integrator="euler")
sys.meta_path.insert(0, SignalOnImport())
try:
    world.step(1.0 / 60.0)
except KeyboardInterrupt as interrupt:
    print("interrupted", interrupt)
"""


def test_a_stop_signal_while_the_kernels_load_stops_the_step():
    # Reached through a lazily loaded module, the import swallowed it (CPython clears an error raised while it reads
    # a module's __spec__), and the step went on to "cannot import name 'euler_kernel'" from the half-run module.
    done = subprocess.run(
        [sys.executable, "-c", _SIGNAL_DURING_THE_KERNELS_IMPORT],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    assert done.stdout.strip() == "interrupted SIGINT", done.stderr
