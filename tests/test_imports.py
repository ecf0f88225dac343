"""The code and the tests import spinlab under its one installed name: ``spinlab.sim``, never ``sim``.

In a checkout the root is on the path (for ``tests.*``), so ``import scene.files.validation`` would quietly load a
second copy of the module, and a monkeypatch on it would reach nothing the code under test uses. Installed, the import
fails. Every import statement, and every module named in a string (``monkeypatch.setattr("x.y.z", ...)``,
``importorskip``, ``python -m``, a script in a string), is checked here.
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHECKOUT_PACKAGES = frozenset({"sim", "scene", "render", "ui", "commands", "benchmarks", "assets", "main"})
NAMING_CALLS = frozenset({"setattr", "importorskip", "import_module", "delattr", "setitem"})


def _python_files() -> list[Path]:
    skipped = {".venv", "build", ".git"}
    return [
        path
        for path in ROOT.rglob("*.py")
        if not skipped.intersection(path.relative_to(ROOT).parts) and path != Path(__file__).resolve()
    ]  # this file's own examples of strays are checked by the test below


def _is_checkout_name(name: str) -> bool:
    return name.partition(".")[0] in CHECKOUT_PACKAGES


def _strays(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names if _is_checkout_name(alias.name)]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and _is_checkout_name(node.module):
            found.append((node.lineno, node.module))
        elif isinstance(node, ast.Call):
            callee = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            first = node.args[0] if node.args else None
            if callee in NAMING_CALLS and isinstance(first, ast.Constant) and isinstance(first.value, str):
                if "." in first.value and _is_checkout_name(first.value):
                    found.append((node.lineno, first.value))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and "import " in node.value:
            try:  # a script in a string (python -c, a file a test writes) is checked too
                script = ast.parse(node.value)
            except SyntaxError:
                continue
            found += [(node.lineno, name) for _, name in _strays(script)]
        elif isinstance(node, ast.List):
            items = [item.value if isinstance(item, ast.Constant) else None for item in node.elts]
            for flag, module in zip(items, items[1:], strict=False):
                if flag == "-m" and isinstance(module, str) and _is_checkout_name(module):
                    found.append((node.lineno, module))
    return found


def test_every_import_names_spinlab():
    strays = [
        f"{path.relative_to(ROOT)}:{line}: {name}"
        for path in _python_files()
        for line, name in _strays(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert not strays, "import these as spinlab.<name>:\n" + "\n".join(strays)


def test_the_check_finds_each_kind_of_stray_import():
    source = (
        "import scene.files.validation\nfrom sim.so3 import exp_so3\nimport numpy\nfrom spinlab.sim import so3\n"
        "monkeypatch.setattr('render.record.frames', None)\ncommand = ['python', '-m', 'commands.stills']\n"
        "code = 'import sys, ui.controller'\n"
    )
    assert [line for line, _ in _strays(ast.parse(source))] == [1, 2, 5, 6, 7]
