"""numba needs somewhere to cache the kernels; a read-only install with a read-only home must still run."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.hang import HANG_S

ROOT = Path(__file__).resolve().parents[2]


def _read_only_copy(source: Path, mount_point: Path) -> None:
    """Bind-mount ``source`` read-only at ``mount_point`` (root only; skipped where mounting is not allowed)."""
    mount_point.mkdir()
    bind = subprocess.run(["mount", "--bind", str(source), str(mount_point)], capture_output=True)
    if bind.returncode != 0:
        pytest.skip(f"cannot bind-mount here: {bind.stderr.decode().strip()}")
    remount = subprocess.run(["mount", "-o", "remount,ro,bind", str(mount_point)], capture_output=True)
    if remount.returncode != 0:
        subprocess.run(["umount", str(mount_point)])
        pytest.skip(f"cannot remount read-only here: {remount.stderr.decode().strip()}")


@pytest.mark.skipif(shutil.which("mount") is None or os.geteuid() != 0, reason="needs root and mount(8)")
def test_a_read_only_install_and_home_still_run(tmp_path):
    tree = tmp_path / "tree"
    tree.mkdir()
    for name in ("main.py", "pyproject.toml", "spinlab", "commands", "sim", "scene", "assets"):
        if (ROOT / name).is_file():
            shutil.copy2(ROOT / name, tree / name)
        else:
            shutil.copytree(ROOT / name, tree / name, ignore=shutil.ignore_patterns("__pycache__"))
    home = tmp_path / "home"
    home.mkdir()
    _read_only_copy(tree, tmp_path / "ro_tree")
    try:
        _read_only_copy(home, tmp_path / "ro_home")
        try:
            env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME")}
            env["HOME"] = str(tmp_path / "ro_home")
            result = subprocess.run(
                [sys.executable, "main.py", "run", "t_handle", "--duration", "0.05", "--integrator", "euler"],
                cwd=tmp_path / "ro_tree", env=env, capture_output=True, text=True, timeout=HANG_S,
            )  # fmt: skip
        finally:
            subprocess.run(["umount", str(tmp_path / "ro_home")])
    finally:
        subprocess.run(["umount", str(tmp_path / "ro_tree")])
    assert result.returncode == 0, result.stderr
    assert "handle" in result.stdout and result.stderr == ""
