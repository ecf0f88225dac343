"""numba's cache when something went wrong before: a damaged cache file is compiled again (sim/_numba_cache.py's
checked_cache) and a killed process's temporary cache folder is removed by the next one that makes its own."""

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from spinlab.sim._numba_cache import remove_stale_folders
from tests.hang import HANG_S

ROOT = Path(__file__).resolve().parents[2]

# The kernels of explicit Euler, loaded as the window's worker, the window and record load a scene's kernels
# (scene/process/kernels.py), then one step of a T-handle on them: its bits, and whether each kernel came from the
# cache. Euler's are the cheapest to compile (~2 CPU-s cold, with the world's free fall).
LOAD = textwrap.dedent(
    """
    import numpy as np
    from spinlab.scene.files.scene_file import load_scene
    from spinlab.scene.process.kernels import load_kernels
    from spinlab.sim.integrators import _kernels
    from spinlab.sim.world import World

    load_kernels(load_scene("t_handle"), ["euler"])
    world = World(gravity=np.array([0.0, 0.0, -9.81]))
    world.add_body(q=np.array([1.0, 0.0, 0.0, 0.0]), omega_world=np.array([0.05, 5.0, 0.05]),
                   inertia_body=np.diag([1.3, 1.4, 2.5]), integrator="euler", position=np.zeros(3))
    world.step(1.0 / 60.0)
    hits = [bool(getattr(_kernels, name).stats.cache_hits) for name in ("euler_kernel", "free_fall_kernel")]
    print(world.peek("q").tobytes().hex(), world.peek("position").tobytes().hex(), *hits)
    """
)


def _load(cache: Path) -> list[str]:
    """Run :data:`LOAD` in a fresh process caching into ``cache``: its printed words."""
    environment = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        [sys.executable, "-c", LOAD], capture_output=True, text=True, cwd=ROOT, env=environment, timeout=HANG_S
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout.split()


def _damage(path: Path, how: str) -> None:
    data = path.read_bytes()
    if how == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif how == "empty":
        path.write_bytes(b"")
    else:  # garbled: a stretch in the middle overwritten, as a bad sector or a stray write leaves it
        middle = len(data) // 2
        path.write_bytes(data[:middle] + bytes(b ^ 0x5A for b in data[middle : middle + 64]) + data[middle + 64 :])


def test_damaged_cache_files_are_compiled_again_and_step_as_before(tmp_path):
    cache = tmp_path / "cache"
    *first, _, _ = _load(cache)  # cold: compiled and saved
    (index,) = cache.glob("*/_kernels.euler_kernel-*.nbi")
    (data,) = cache.glob("*/_kernels.free_fall_kernel-*.nbc")
    intact = {path: path.read_bytes() for path in (index, data)}
    for how in ("truncated", "empty", "garbled"):
        for path, content in intact.items():
            path.write_bytes(content)
        # One kernel's index and the other's data damaged: both are compiled again, with the same bits.
        _damage(index, how)
        _damage(data, how)
        assert _load(cache) == [*first, "False", "False"], how
    assert _load(cache) == [*first, "True", "True"]  # saved again, whole: read from the cache now


# Makes this process's temporary cache folder as a process that can cache nowhere else does, in the folder given,
# and prints its path.
MAKE_FOLDER = textwrap.dedent(
    """
    import os, sys, tempfile
    tempfile.tempdir = sys.argv[1]
    import spinlab.sim._numba_cache as cache
    del os.environ["NUMBA_CACHE_DIR"]
    cache._can_write_in = lambda folder: False
    cache.ensure_numba_cache()
    print(os.environ["NUMBA_CACHE_DIR"])
    """
)


def _dead_pid() -> int:
    """The id of a process that has ended (and been reaped)."""
    child = subprocess.Popen([sys.executable, "-c", ""])
    child.wait(timeout=HANG_S)
    return child.pid


def test_the_temporary_cache_folder_of_a_killed_process_is_removed_at_the_next_start(tmp_path):
    dead, live = tmp_path / f"spinlab-numba-{_dead_pid()}-x1y2z3", tmp_path / f"spinlab-numba-{os.getpid()}-a1b2c3"
    for folder in (dead, live):
        (folder / "sim_0123").mkdir(parents=True)
        (folder / "sim_0123" / "kernel.nbi").write_bytes(b"index")
    unrelated = tmp_path / "spinlab-numba-notapid"  # not named by spinlab's scheme: not ours to judge
    unrelated.mkdir()
    environment = {**os.environ, "NUMBA_CACHE_DIR": "set, then removed by the script", "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, "-c", MAKE_FOLDER, str(tmp_path)], capture_output=True, text=True,
                            cwd=ROOT, env=environment, timeout=HANG_S)  # fmt: skip
    assert result.returncode == 0, result.stderr
    made = Path(result.stdout.strip())
    assert made.parent == tmp_path and re.fullmatch(r"spinlab-numba-[0-9]+-.+", made.name)  # its pid in its name
    assert not dead.exists() and live.is_dir() and unrelated.is_dir()
    assert not made.exists()  # the new one removed at its process's exit, as before


def test_remove_stale_folders_keeps_files_links_and_live_processes(tmp_path):
    pid = _dead_pid()
    target = tmp_path / "elsewhere"
    target.mkdir()
    (tmp_path / f"spinlab-numba-{pid}-link").symlink_to(target)
    (tmp_path / f"spinlab-numba-{pid}-file").write_bytes(b"")
    (tmp_path / f"spinlab-numba-{os.getppid()}-parent").mkdir()
    (tmp_path / f"spinlab-numba-{pid}-gone").mkdir()
    assert remove_stale_folders(tmp_path) == [tmp_path / f"spinlab-numba-{pid}-gone"]
    assert target.is_dir() and len(list(tmp_path.iterdir())) == 4


@pytest.mark.parametrize("missing", ["no such folder", ""])
def test_remove_stale_folders_never_raises(tmp_path, missing):
    assert remove_stale_folders(tmp_path / missing if missing else tmp_path) == []
