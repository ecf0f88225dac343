"""mypy reads the source through .typecheck/ (pyproject.toml's [tool.mypy]): links laid out as the installed package.
A folder mapped into the package, or a module of spinlab/, without its link would go unchecked without a word."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINKS = ROOT / ".typecheck"


def _package_dirs() -> dict[str, str]:
    with open(ROOT / "pyproject.toml", "rb") as file:
        return tomllib.load(file)["tool"]["setuptools"]["package-dir"]


def test_every_folder_mapped_into_the_package_has_its_link():
    for package, folder in _package_dirs().items():
        if package == "spinlab":
            continue
        link = LINKS.joinpath(*package.split("."))
        assert link.is_symlink(), f"{link.relative_to(ROOT)} is missing: mypy would not check {folder}/"
        assert link.resolve() == (ROOT / folder).resolve()


def test_every_module_of_spinlab_and_main_have_their_link():
    modules = sorted((ROOT / "spinlab").glob("*.py")) + [ROOT / "main.py"]
    assert len(modules) >= 3
    for module in modules:
        inside = "spinlab" if module.parent.name == "spinlab" else ""
        link = LINKS / inside / module.name
        assert link.is_symlink(), f"{link.relative_to(ROOT)} is missing: mypy would not check {module.name}"
        assert link.resolve() == module.resolve()


def test_no_link_dangles_or_leaves_the_checkout():
    links = [path for path in LINKS.rglob("*") if path.is_symlink()]
    assert links
    for link in links:
        target = link.resolve()
        assert target.exists(), f"{link.relative_to(ROOT)} points at nothing"
        assert target.is_relative_to(ROOT), f"{link.relative_to(ROOT)} leaves the checkout"
