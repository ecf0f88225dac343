"""The import graph of spinlab's own modules: floors that import only downwards, and no cycle anywhere.

Every ``import`` and ``from … import`` counts, at module level and inside functions alike (a deferred import is
still a dependency, only a later one); those under ``if TYPE_CHECKING:`` do not (they never run). ``from pkg import
name`` depends on the module ``pkg.name`` when there is one, and on ``pkg`` itself (its ``__init__`` runs first).

Two rules, each with a test that shows it can fail:

- **No cycle.** Two modules that need each other cannot be read, tested or loaded apart.
- **Floors.** Inside a folder, its subfolders are floors, listed in :data:`FLOORS` from the bottom up: a module
  may import from its own floor and the floors below it, never from one above. A folder not listed there must at
  least have subfolders that do not import each other both ways.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parents[1]

# The checkout's folders that are installed under ``spinlab`` (pyproject.toml's package-dir), and spinlab/ itself.
PACKAGE_FOLDERS = ("assets", "sim", "scene", "render", "ui", "benchmarks", "commands", "spinlab")

FLOORS: dict[str, tuple[str, ...]] = {
    # The product's layers (design.md): numerics, then the scene in motion, its drawing, the window, and the
    # commands that wire them; the benchmarks time the layers below the commands. spinlab/ (the installed name
    # and the launcher) is left out: its __init__ is imported by all and imports none of them.
    "": ("assets", "sim", "scene", "render", "ui", "benchmarks", "commands"),
    # Process plumbing (signals, the collector), the files a person reads and writes (scene files and their
    # schemas, traces), a scene in motion (simulation, kicks applied, pacing), the run model and its history.
    "scene": ("process", "files", "running", "model"),
}

Graph = Mapping[str, frozenset[str]]


def module_files(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the tree by its installed name (``spinlab.sim.so3``), with its file."""
    modules = {}
    for folder in PACKAGE_FOLDERS:
        for path in (root / folder).rglob("*.py"):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            if parts and parts[0] == "spinlab":
                parts.pop(0)
            modules[".".join(["spinlab", *parts])] = path
    return modules


def _type_checking_imports(tree: ast.AST) -> set[int]:
    """The ids of the import nodes under ``if TYPE_CHECKING:``."""
    skipped = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(inner) for statement in node.body for inner in ast.walk(statement))
    return skipped


def imported_modules(source: str, name: str, is_package: bool, known: Iterable[str]) -> frozenset[str]:
    """The modules of ``known`` that the module ``name`` (source ``source``) imports."""
    known = frozenset(known)
    tree = ast.parse(source)
    skipped = _type_checking_imports(tree)
    package = name if is_package else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module or ""
            found.add(origin)
            found.update(f"{origin}.{alias.name}" for alias in node.names)
    return frozenset(found & known - {name})


def import_graph(root: Path = ROOT) -> dict[str, frozenset[str]]:
    """Each module of the tree and the modules of the tree it imports."""
    files = module_files(root)
    return {
        name: imported_modules(path.read_text(encoding="utf-8"), name, path.name == "__init__.py", files)
        for name, path in files.items()
    }


def cycles(graph: Graph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            advanced = False
            for successor in successors:
                if successor not in graph:
                    continue
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph[successor]))))
                    advanced = True
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def folder_of(name: str, files: Mapping[str, Path], root: Path = ROOT) -> PurePosixPath:
    """The folder of a module, relative to the checkout's root (``sim/integrators``)."""
    return PurePosixPath(files[name].relative_to(root).parent.as_posix())


def floor_breaches(
    graph: Graph, folder: Mapping[str, PurePosixPath], floors: Mapping[str, tuple[str, ...]] = FLOORS
) -> list[str]:
    """Each import that runs up between sibling subfolders, and each pair of siblings that import each other
    where no floors are declared: ``"a -> b (floor x below y)"``."""
    crossings: dict[tuple[PurePosixPath, str, str], list[str]] = {}
    for importer, imported in sorted((a, b) for a, targets in graph.items() for b in targets):
        source, target = folder[importer].parts, folder[imported].parts
        shared = 0
        while shared < min(len(source), len(target)) and source[shared] == target[shared]:
            shared += 1
        if shared == len(source) or shared == len(target):
            continue  # the same folder, or one inside the other: not siblings
        parent = PurePosixPath(*source[:shared])
        crossings.setdefault((parent, source[shared], target[shared]), []).append(f"{importer} -> {imported}")
    breaches = []
    for (parent, lower, upper), examples in sorted(crossings.items()):
        order = floors.get("" if str(parent) == "." else str(parent))
        if order is not None and lower in order and upper in order:
            if order.index(upper) > order.index(lower):
                breaches += [f"{example} ({lower} is below {upper} in {parent})" for example in examples]
        elif order is None and (parent, upper, lower) in crossings and lower < upper:
            breaches.append(f"{examples[0]} and {crossings[parent, upper, lower][0]} ({lower} and {upper} in {parent})")
    return breaches


def test_no_import_cycle():
    found = cycles(import_graph())
    assert not found, "modules that import each other:\n" + "\n".join(" <-> ".join(cycle) for cycle in found)


def test_no_import_runs_up_a_floor():
    files = module_files()
    graph = import_graph()
    folders = {name: folder_of(name, files) for name in graph}
    breaches = floor_breaches(
        {name: targets for name, targets in graph.items() if not _in_spinlab(files[name])}, folders
    )
    assert not breaches, "imports that run up between sibling folders:\n" + "\n".join(breaches)


def _in_spinlab(path: Path) -> bool:
    return path.relative_to(ROOT).parts[0] == "spinlab"


def test_every_floor_names_a_folder():
    for parent, order in FLOORS.items():
        for floor in order:
            assert (ROOT / parent / floor).is_dir(), f"FLOORS names {parent}/{floor}, which is not a folder"


def test_the_graph_sees_imports_in_functions_and_skips_type_checking():
    source = (
        "from typing import TYPE_CHECKING\nfrom . import b\nfrom .c import thing\nimport p.d\n"
        "if TYPE_CHECKING:\n    from p import e\n"
        "def f():\n    from p.f import g\n"
    )
    known = {"p.a", "p.b", "p.c", "p.d", "p.e", "p.f", "p.f.g", "p"}
    assert imported_modules(source, "p.a", False, known) == {"p", "p.b", "p.c", "p.d", "p.f", "p.f.g"}


def test_the_checks_find_a_cycle_and_an_import_up_a_floor():
    graph = {"a": frozenset({"b"}), "b": frozenset({"c"}), "c": frozenset({"a"}), "d": frozenset({"a"})}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": frozenset({"b"}), "b": frozenset()}) == []
    folders = {
        "low.x": PurePosixPath("scene/files"),
        "high.y": PurePosixPath("scene/model"),
        "free.u": PurePosixPath("sim/one"),
        "free.v": PurePosixPath("sim/two"),
    }
    up = {"low.x": frozenset({"high.y"}), "high.y": frozenset(), "free.u": frozenset(), "free.v": frozenset()}
    assert floor_breaches(up, folders) == ["low.x -> high.y (files is below model in scene)"]
    down = {**up, "low.x": frozenset(), "high.y": frozenset({"low.x"})}
    assert floor_breaches(down, folders) == []
    both_ways = {**down, "free.u": frozenset({"free.v"}), "free.v": frozenset({"free.u"})}
    assert floor_breaches(both_ways, folders) == ["free.u -> free.v and free.v -> free.u (one and two in sim)"]
