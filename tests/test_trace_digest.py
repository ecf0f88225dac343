"""Determinism across commits and machines: the traces written by ``main.py run`` are pinned here.

tests/scene/test_simulation.py checks that two runs in one checkout write identical traces; this file checks that
they are the traces this commit's parent wrote too, so a numerical change between commits is noticed. Each case runs
``python main.py run SCENE [--integrator NAME] --duration 1 --trace OUT.csv`` in its own process (the command a
person types, through design.md §Trace files' float format).

Two kinds of pin, by what the trace's numbers go through:

- **Bit for bit** (``DIGESTS``, SHA-256 of the file): the traces whose every number comes from IEEE additions,
  multiplications, divisions and square roots in a fixed order (at these steps the exponential maps take their
  Taylor branch, Newton solves 3×3 systems by hand), which round alike on every x86-64 CPU. Checked equal with
  numpy's AVX-512 and AVX2 paths off, glibc's FMA variants off, OpenBLAS's Nehalem kernels and numba compiling for
  a generic x86-64, and with ``NUMBA_DISABLE_JIT=1``.
- **To rounding** (``GOLDEN``, a gzipped copy of the trace in tests/data): the traces through the closed form, whose
  sines, arctangents and elliptic integrals come from the C library, numpy's vector code or OpenBLAS, each of which
  picks a CPU-specific variant (glibc's FMA and SSE2 sin differ by an ulp in ~0.05 % of inputs). Every number must
  lie within ``ULPS · eps · (1 + |ω| t)`` of the pinned one, relative to its row's scale: the phases grow as |ω| t,
  and a few ulps of a phase move everything by as much (tests/sim/test_exact_batch.py).

**When a change of numbers is intended** (a new integrator formula, a different Newton start, a scene preset
edited, a change in how floats are written): rerun this file, confirm that only the cases you expect fail, replace
their digests with the ones the failure prints (``python -m tests.test_trace_digest`` rewrites the golden traces),
and say in the commit message which traces changed and why. A failure nobody intended is a regression: find the
commit that changed the numbers before re-pinning anything.
"""

import csv
import gzip
import hashlib
import io
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.hang import HANG_S

ROOT = Path(__file__).resolve().parents[1]
GOLDEN_DIR = Path(__file__).resolve().parent / "data"
DURATION_S = "1"
HEADER = b"t,body,qw,qx,qy,qz,wx,wy,wz,Lx,Ly,Lz,energy\n"

DIGESTS = {
    ("t_handle", "implicit_midpoint"): "697d7facb8a6f094bab87d66d943454a2841d7218c831db03aae9623f1030581",
    ("t_handle", "rkmk4"): "f71302c081b3f05460f70b49ae97bedd1901aef9b3ec3b4b0a89d7249657cb4c",
    ("heavy_top", "split4"): "e825fbbbff1611ce9bfdf06ec6a2338154ae7b9ff626cdd649df2181c8f7cc13",
}
"""(preset, integrator) → SHA-256 of the trace of ``DURATION_S`` seconds: IEEE arithmetic only, bit for bit."""

GOLDEN = {
    ("t_handle", "exact"): "trace_t_handle_exact.csv.gz",
    ("compare", None): "trace_compare.csv.gz",  # each body its own integrator, the closed form among them
}
"""(preset, integrator or None for the scene's own) → the pinned trace, matched to rounding (module docstring)."""

ULPS = 8.0
EPS = np.finfo(float).eps


def _run_traces(folder: Path, cases) -> dict[tuple[str, str | None], Path]:
    """Each case's trace, the processes started together (each is mostly start-up) and awaited."""
    running = {}
    for scene, integrator in cases:
        path = folder / f"{scene}-{integrator or 'scene'}.csv"
        options = ["--integrator", integrator] if integrator else []
        command = [sys.executable, str(ROOT / "main.py"), "run", scene, *options, "--duration", DURATION_S]
        command += ["--trace", str(path)]
        process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        running[scene, integrator] = (path, process)
    paths = {}
    for case, (path, process) in running.items():
        _, stderr = process.communicate(timeout=HANG_S)
        assert process.returncode == 0, f"{case}: {stderr.decode(errors='replace')}"
        paths[case] = path
    return paths


@pytest.fixture(scope="module")
def traces(tmp_path_factory) -> dict[tuple[str, str | None], Path]:
    return _run_traces(tmp_path_factory.mktemp("traces"), [*DIGESTS, *GOLDEN])


@pytest.mark.parametrize("case", list(DIGESTS), ids=lambda case: f"{case[0]}-{case[1]}")
def test_trace_digest_is_pinned(traces, case):
    data = traces[case].read_bytes()
    assert data.startswith(HEADER)
    digest = hashlib.sha256(data).hexdigest()
    assert digest == DIGESTS[case], (
        f"the trace of {case} changed: {digest} (pinned {DIGESTS[case]}); see this module's docstring before re-pinning"
    )


def _columns(text: str) -> tuple[np.ndarray, list[str], np.ndarray]:
    """A trace's times (R,), body names and the 11 numbers of each row (R, 11)."""
    rows = list(csv.reader(io.StringIO(text)))[1:]
    return (np.array([float(row[0]) for row in rows]), [row[1] for row in rows],
            np.array([[float(x) for x in row[2:]] for row in rows]))  # fmt: skip


def rounding_bound(t: np.ndarray, values: np.ndarray) -> np.ndarray:
    """(R, 11): ``ULPS · eps · (1 + |ω| t)`` times each column group's scale in its row: 1 for q, |ω| for ω, |L| for
    L, |E| for the energy (module docstring)."""
    omega, L, energy = values[:, 4:7], values[:, 7:10], values[:, 10:]
    speed = np.linalg.norm(omega, axis=1, keepdims=True)
    unit = ULPS * EPS * (1.0 + speed * t[:, None])
    scales = [np.ones((len(t), 4)), np.repeat(speed, 3, 1), np.repeat(np.linalg.norm(L, axis=1, keepdims=True), 3, 1)]
    return unit * np.concatenate([*scales, np.abs(energy)], axis=1)


@pytest.mark.parametrize("case", list(GOLDEN), ids=lambda case: f"{case[0]}-{case[1] or 'scene'}")
def test_trace_is_the_pinned_one_to_rounding(traces, case):
    got = traces[case].read_text(encoding="utf-8")
    assert got.startswith(HEADER.decode())
    pinned = gzip.decompress((GOLDEN_DIR / GOLDEN[case]).read_bytes()).decode("utf-8")
    t, names, values = _columns(got)
    t_pinned, names_pinned, values_pinned = _columns(pinned)
    assert names == names_pinned and np.array_equal(t, t_pinned), f"{case}: other rows than the pinned trace's"
    excess = np.abs(values - values_pinned) / rounding_bound(t_pinned, values_pinned)
    row, column = np.unravel_index(np.argmax(excess), excess.shape)
    assert excess.max() <= 1.0, (
        f"the trace of {case} changed beyond rounding: row {row + 2} ({names[row]}, t = {t[row]}), column "
        f"{HEADER.decode().split(',')[column + 2]}: {values[row, column]!r} against {values_pinned[row, column]!r}, "
        f"{excess.max():.3g} times the bound; see this module's docstring before re-pinning"
    )


def test_the_rounding_bound_fails_a_change_of_one_digit():
    pinned = gzip.decompress((GOLDEN_DIR / GOLDEN["t_handle", "exact"]).read_bytes()).decode("utf-8")
    t, _, values = _columns(pinned)
    bound = rounding_bound(t, values)
    assert np.all(bound > 0.0) and np.all(bound[:, :4] <= 1e-13), "the bound stays a few ulps of a unit quaternion"
    nudged = values.copy()
    nudged[-1, 0] *= 1.0 + 1e-12  # a change far below anything a plot shows, far above rounding
    assert np.abs(nudged - values).max() / bound[-1, 0] > 1.0


def write_golden_traces() -> None:
    """Run the ``GOLDEN`` cases and write their traces into tests/data (see the module docstring)."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        for case, path in _run_traces(Path(folder), GOLDEN).items():
            (GOLDEN_DIR / GOLDEN[case]).write_bytes(gzip.compress(path.read_bytes(), mtime=0))
            print(f"wrote tests/data/{GOLDEN[case]}")


if __name__ == "__main__":
    write_golden_traces()
