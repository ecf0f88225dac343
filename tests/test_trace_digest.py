"""Determinism across commits: the SHA-256 of a few traces written by ``main.py run`` is pinned here.

tests/scene/test_simulation.py checks that two runs in one checkout write identical traces; this file checks that
they are the traces this commit's parent wrote too, so a numerical change between commits is noticed. Each case runs
``python main.py run SCENE [--integrator NAME] --duration 1 --trace OUT.csv`` in its own process (the command a
person types, through design.md §Trace files' float format) and compares the file's digest with ``DIGESTS``.

The digests were checked stable across processes, and equal with ``NUMBA_DISABLE_JIT=1`` (the numba kernels and
their pure-Python reading give the same bytes on this machine).

**When a change of numbers is intended** (a new integrator formula, a different Newton start, a scene preset
edited, a change in how floats are written): rerun this file, confirm that only the cases you expect fail, replace
their digests with the ones the failure prints, and say in the commit message which traces changed and why. A
failure nobody intended is a regression: find the commit that changed the numbers before re-pinning anything.
"""

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DURATION_S = "1"

DIGESTS = {
    ("t_handle", "implicit_midpoint"): "2329bdd498c2e71b154e66d5c071b6101a1dfc6fd46416472a46c90c3ef29534",
    ("t_handle", "exact"): "7db837f06c5ee408484e1a6d2356389a9431b68f4749678856a82310d2ee2c9b",
    ("t_handle", "rkmk4"): "f71302c081b3f05460f70b49ae97bedd1901aef9b3ec3b4b0a89d7249657cb4c",
    ("heavy_top", "split4"): "4ea13673e2e1a42acde94569433006fed9b4b7c88aae9e83c97f35e6c4a881f3",
    ("compare", None): "8c02040d46ce69cefd0b24237262a298c60dbf2a3f9b7a39a2c318aee07eebda",  # each body its own
}
"""(preset, integrator or None for the scene's own) → SHA-256 of the trace of ``DURATION_S`` seconds."""


@pytest.fixture(scope="module")
def traces(tmp_path_factory) -> dict[tuple[str, str | None], Path]:
    """Every case's trace, the processes started together (each is mostly start-up) and awaited."""
    folder = tmp_path_factory.mktemp("traces")
    running = {}
    for scene, integrator in DIGESTS:
        path = folder / f"{scene}-{integrator or 'scene'}.csv"
        options = ["--integrator", integrator] if integrator else []
        command = [sys.executable, str(ROOT / "main.py"), "run", scene, *options, "--duration", DURATION_S]
        command += ["--trace", str(path)]
        process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        running[scene, integrator] = (path, process)
    paths = {}
    for case, (path, process) in running.items():
        _, stderr = process.communicate(timeout=300)
        assert process.returncode == 0, f"{case}: {stderr.decode(errors='replace')}"
        paths[case] = path
    return paths


@pytest.mark.parametrize("case", list(DIGESTS), ids=lambda case: f"{case[0]}-{case[1] or 'scene'}")
def test_trace_digest_is_pinned(traces, case):
    data = traces[case].read_bytes()
    assert data.startswith(b"t,body,qw,qx,qy,qz,wx,wy,wz,Lx,Ly,Lz,energy\n")
    digest = hashlib.sha256(data).hexdigest()
    assert digest == DIGESTS[case], (
        f"the trace of {case} changed: {digest} (pinned {DIGESTS[case]}); see this module's docstring before re-pinning"
    )
