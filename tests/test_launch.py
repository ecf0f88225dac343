"""spinlab/launch.py: every way of starting spinlab takes one path for stop signals from its first import on, and
writes the same UTF-8 whatever the locale. Each test runs the command line as a person would (a subprocess)."""

from __future__ import annotations

import os
import random
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.hang import HANG_S

ROOT = Path(__file__).resolve().parents[1]
RUN = ["run", "t_handle", "--duration", "0.05"]


def _command(entry: str) -> list[str]:
    return [sys.executable, str(ROOT / "main.py")] if entry == "main.py" else [sys.executable, "-m", "spinlab"]


def _assert_interrupted(status: int, stderr: str) -> None:
    if status != 130:  # pytest.fail's message is shown whole: a crash's dump (faulthandler's) with it
        pytest.fail(f"exit status {status}, stderr:\n{stderr}")
    assert "Traceback" not in stderr and "Exception ignored" not in stderr, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].endswith("interrupted (SIGINT)"), stderr


# A stop signal (two, as a person pressing Ctrl-C twice) raised from inside the import of ``argv[1]``; "signalled"
# on stdout says it came.
_SIGNAL_DURING_IMPORT = """
import os, runpy, signal, sys

MODULE = sys.argv[1]

class SignalOnImport:
    def find_spec(self, name, path=None, target=None):
        if name == MODULE:
            sys.meta_path.remove(self)
            print("signalled", flush=True)
            os.kill(os.getpid(), signal.SIGINT)
            os.kill(os.getpid(), signal.SIGINT)
        return None

sys.meta_path.insert(0, SignalOnImport())
main = sys.argv[2]
sys.argv = [main, *sys.argv[3:]]
runpy.run_path(main, run_name="__main__")
"""


@pytest.mark.parametrize("module", ["spinlab.commands.cli", "spinlab.scene.files.atomic_file", "spinlab.sim", "numpy"])
def test_ctrl_c_during_the_first_imports_is_one_line_and_130(module):
    # Before launch.py, Python's own Ctrl-C met the command line's import and printed the import's traceback.
    script = [sys.executable, "-c", _SIGNAL_DURING_IMPORT, module, str(ROOT / "main.py"), *RUN]
    result = subprocess.run(script, capture_output=True, text=True, cwd=ROOT, timeout=HANG_S)
    _assert_interrupted(result.returncode, result.stderr)
    assert result.stdout == "signalled\n"


def test_ctrl_c_while_a_c_extension_initialises_is_one_line_and_130():
    # numba's _dispatcher, as it initialises, imports numba._devicearray from C: a signal there reached Python's
    # handler inside that C code, which printed the interrupt's traceback itself before failing its import (the
    # random moments below met it 1 time in 400 on a busy machine). A run long enough to load numba's kernels.
    run = ["run", "compare", "--duration", "10"]
    script = [sys.executable, "-c", _SIGNAL_DURING_IMPORT, "numba._devicearray", str(ROOT / "main.py"), *run]
    result = subprocess.run(script, capture_output=True, text=True, cwd=ROOT, timeout=HANG_S)
    _assert_interrupted(result.returncode, result.stderr)
    assert result.stdout == "signalled\n"


# A segmentation fault in native code (a read of address 0) as ``argv[1]`` is imported.
_FAULT_DURING_IMPORT = """
import ctypes, runpy, sys

MODULE = sys.argv[1]

class FaultOnImport:
    def find_spec(self, name, path=None, target=None):
        if name == MODULE:
            ctypes.string_at(0)
        return None

sys.meta_path.insert(0, FaultOnImport())
main = sys.argv[2]
sys.argv = [main, *sys.argv[3:]]
runpy.run_path(main, run_name="__main__")
"""


def _no_core_file() -> None:
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def test_a_crash_in_native_code_says_where(tmp_path):
    # A double Ctrl-C once ended a run with status -11 and nothing on stderr: now the fault and its Python traceback.
    script = [
        sys.executable,
        "-c",
        _FAULT_DURING_IMPORT,
        "spinlab.scene.files.atomic_file",
        str(ROOT / "main.py"),
        *RUN,
    ]
    result = subprocess.run(
        script, capture_output=True, text=True, cwd=tmp_path, timeout=HANG_S, preexec_fn=_no_core_file
    )
    assert result.returncode == -signal.SIGSEGV, result
    assert "Fatal Python error: Segmentation fault" in result.stderr, result.stderr
    assert "in find_spec" in result.stderr and "commands/cli.py" in result.stderr, result.stderr


def _wait_for_spinlab_s_handlers(process: subprocess.Popen) -> None:
    """Wait until ``process`` catches SIGTERM (``/proc/PID/status``'s ``SigCgt``), which only spinlab's handlers do
    (scene/process/interrupts.py, launch.py's first lines), or until it has ended."""
    caught = 1 << (signal.SIGTERM - 1)
    status = Path(f"/proc/{process.pid}/status")
    while process.poll() is None:
        try:
            fields = dict(line.split(":\t", 1) for line in status.read_text().splitlines() if ":\t" in line)
        except OSError:
            return  # gone meanwhile
        if int(fields["SigCgt"], 16) & caught:
            return
        time.sleep(0.001)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc to see the handlers installed")
@pytest.mark.parametrize("entry", ["main.py", "-m"])
def test_ctrl_c_twice_at_random_moments_ends_in_one_line_and_130(tmp_path, entry):
    # Ctrl-C twice during `run` ended in a traceback 4 times in 6: the second signal raised again in the middle of
    # the first one's cleanup (its report, the interpreter's exit). Moments from spinlab's handlers on: before them
    # Python's own start-up (site, the editable install's finder) is running, which no code of spinlab's can reach
    # (0.15 s on an idle machine, longer on a busy one: a fixed 0.15 s signalled it there).
    rng = random.Random(26 if entry == "main.py" else 27)
    for attempt in range(3):
        trace = tmp_path / f"trace{attempt}.csv"
        process = subprocess.Popen(
            [*_command(entry), "run", "compare", "--duration", "600", "--trace", str(trace)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        _wait_for_spinlab_s_handlers(process)
        first, second = rng.uniform(0.0, 1.35), rng.choice([0.0, 0.005, rng.uniform(0.0, 0.4)])
        time.sleep(first)
        process.send_signal(signal.SIGINT)
        time.sleep(second)
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=HANG_S)
        _assert_interrupted(process.returncode, stderr)
        assert list(tmp_path.iterdir()) == [], f"nothing written (signals at {first:.3f} s, +{second:.3f} s)"


@pytest.mark.parametrize(
    "environment",
    [
        {"LC_ALL": "C", "LANG": "", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"},  # no UTF-8 and no coercion
        {"LC_ALL": "C", "PYTHONUTF8": "0"},  # Python coerces the C locale to C.UTF-8 where it can
        {"PYTHONIOENCODING": "ascii"},
        {"PYTHONIOENCODING": "latin-1", "PYTHONUTF8": "0"},
    ],
)
@pytest.mark.parametrize("entry", ["main.py", "-m"])
def test_the_output_is_the_same_utf8_in_any_locale(environment, entry):
    # LC_ALL=C ended `run` in "internal error: UnicodeEncodeError" on the 'Δ' of its table's heading.
    def run(extra: dict) -> subprocess.CompletedProcess:
        env = {key: value for key, value in os.environ.items() if key not in ("LC_ALL", "LANG", "PYTHONIOENCODING")}
        return subprocess.run(
            [*_command(entry), *RUN], capture_output=True, cwd=ROOT, env={**env, **extra}, timeout=HANG_S
        )

    reference, result = run({"LC_ALL": "C.UTF-8", "PYTHONUTF8": "1"}), run(environment)
    assert result.returncode == 0 and result.stderr == b"", result.stderr.decode("utf-8", "replace")
    assert "|ΔL|/|L|".encode() in result.stdout
    strip = lambda out: [line.rsplit(maxsplit=1)[0] for line in out.splitlines()]  # noqa: E731 - the wall seconds
    assert strip(result.stdout) == strip(reference.stdout)


def test_an_error_message_is_utf8_in_any_locale(tmp_path):
    scene = tmp_path / "ω.toml"
    scene.write_text('[[body]]\nname = "Δ"\nshape = "box"\nmass = -1\n', encoding="utf-8")
    env = {**os.environ, "LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0", "PYTHONIOENCODING": "ascii"}
    result = subprocess.run([*_command("main.py"), "run", str(scene)], capture_output=True, env=env, timeout=HANG_S)
    assert result.returncode == 2
    line = result.stderr.decode("utf-8")
    assert line.count("\n") == 1 and "ω.toml" in line and "Traceback" not in line, line


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="counts the process's threads in /proc")
def test_numpy_imported_after_the_launch_starts_no_blas_threads():
    # OpenBLAS's threads start with numpy's import and spin there (~0.06 CPU-s of a short run) and beside the
    # window's frames; spinlab's 3×3 algebra never uses them. Without the setting there is one more thread per
    # core past the first.
    code = (
        "import os, sys\n"
        "from spinlab.launch import one_blas_thread\n"
        "assert 'numpy' not in sys.modules\n"
        "one_blas_thread()\n"
        "import numpy\n"
        "print(len(os.listdir('/proc/self/task')), os.environ['OPENBLAS_NUM_THREADS'])\n"
    )
    environment = {key: value for key, value in os.environ.items() if key != "OPENBLAS_NUM_THREADS"}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=environment, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["1", "1"]


def test_a_blas_thread_count_the_person_chose_is_kept():
    code = (
        "from spinlab.launch import main\nimport os\nmain(['run', 't_handle', '--duration', '0.05'])\n"
        "print('BLAS', os.environ['OPENBLAS_NUM_THREADS'])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env={**os.environ, "OPENBLAS_NUM_THREADS": "3"},
                         capture_output=True, text=True)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[-1] == "BLAS 3"
