"""Scaling: body-steps/s of the whole ``run`` process and of its stepping loop alone, at N = 1, 10², 10⁴, 10⁵
T-handles, with MuJoCo's RK4 building and stepping the same bodies beside it, and each process's CPU time and peak
memory.

The bodies are the cloud preset's (benchmarks/cloud.py: seed 003's T-handle spun round its intermediate axis, in a
grid), its first N, written to a scene file per N in a temporary directory (uncoloured). Each is run as a user runs
it, in a subprocess: ``python -m spinlab run SCENE --integrator implicit_midpoint --dt 1/240 --duration 60/240``
with ``SPINLAB_NO_LIMITS=1`` (its output to a file), a checkout's modules compiled first where their bytecode is
missing or stale, as an install's are, and the environment the benchmark was started with (not one its own imports
changed: :func:`started_environment`). Per process:

- *process*: the subprocess's wall time from start to exit (start-up, imports, loading and checking the scene,
  building the world and the closed-form references, the steps, the summary table), and its CPU seconds (user and
  system, from ``wait4``: firmer than the wall time when others share the cores);
- *loop*: the wall time of the stepping loop alone, as the run measures it (its table's ``wall s``);
- *peak memory*: the child's high-water resident set (``VmHWM`` of ``/proc/PID/status``, read until it exits). Not
  ``ru_maxrss``: Linux carries the forking parent's high-water mark across ``exec`` into it, so after the other
  benchmarks of a ``bench`` run had grown this process to 10 GB, every child "peaked" at 10 GB.

MuJoCo (when ``import mujoco`` works) runs in a subprocess too, ``python -m spinlab.benchmarks.scaling --mujoco
STATES.npz STEPS H``: the same N bodies, each on a free joint with the handle's principal moments (as
benchmarks/accuracy.py builds them), no gravity, no contacts, RK4 at the same h, from the same initial states (the
cloud's positions, body angular velocities and moments, written by this process to ``STATES.npz``: the child
imports numpy and mujoco and nothing of spinlab's beyond this module, as a MuJoCo user's script would), in models
of at most ``MUJOCO_BATCH`` bodies (MuJoCo compiles a model in time quadratic in its bodies: 10⁵ in one model would
take hours); it reports its loop's wall time and the process is timed the same way. The best of 9 processes counts
(1 at N ≥ 10⁴), ours and MuJoCo's taken in turn so that others' work on the cores falls on both alike.
``--quick`` stops at N = 10⁴. 2 cores shared: the figures are noisy, but the ratios between N are not subtle.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import numpy as np

from spinlab import checkout_root

__all__ = ["SIZES", "QUICK_SIZES", "STEPS", "H", "INTEGRATOR", "run", "format_table", "mujoco_child",
           "started_environment", "timed_child"]  # fmt: skip

SIZES = (1, 100, 10_000, 100_000)
QUICK_SIZES = (1, 100, 10_000)
STEPS = 60
H = 1.0 / 240.0
INTEGRATOR = "implicit_midpoint"
MUJOCO_INTEGRATOR = "RK4"
MUJOCO_BATCH = 1000  # bodies a MuJoCo model holds (see mujoco_child)


def _repeats(n: int) -> int:
    # 9 below 10^4: on 2 loaded cores the best of 5 still moved the N = 100 ratio by a fifth between two runs
    # minutes apart; a small process is short, so the extra repeats cost little.
    return 9 if n <= 100 else 1


def timed_child(command: list[str], stdout, cwd: pathlib.Path) -> dict[str, float]:
    """Run ``command`` in ``cwd`` to its end, in the environment a user's shell would give it
    (:func:`started_environment`): ``{"process_s": wall s, "cpu_s": user + system s, "peak_mb": peak resident MB of
    that process, "status": exit status}``."""
    env = {**started_environment(), "SPINLAB_NO_LIMITS": "1"}
    begin = time.perf_counter()
    child = subprocess.Popen(command, cwd=checkout_root() or cwd, env=env, stdout=stdout, stderr=subprocess.DEVNULL)
    peak_kib, status, usage = 0, None, None
    while status is None:
        peak_kib = max(peak_kib, _high_water_kib(child.pid))
        pid, waited, usage = os.wait4(child.pid, os.WNOHANG)
        if pid:
            status = waited
        else:
            time.sleep(0.002)
    wall = time.perf_counter() - begin
    child.returncode = os.waitstatus_to_exitcode(status)
    assert usage is not None, "wait4 ran at least once"
    cpu = usage.ru_utime + usage.ru_stime
    return {"process_s": wall, "cpu_s": cpu, "peak_mb": peak_kib / 1024.0, "status": child.returncode}


def started_environment() -> dict[str, str]:
    """The environment this process started with (Linux: ``/proc/self/environ``; elsewhere ``os.environ``), not
    ``os.environ`` as its imports left it: the benchmarks' imports of imgui_bundle set ``PYGLFW_LIBRARY``, with which
    a child's ``import mujoco`` loads GLFW without the search a MuJoCo user's script makes, which would flatter
    MuJoCo's small processes."""
    try:
        with open("/proc/self/environ", "rb") as environ:
            entries = environ.read().split(b"\0")
    except OSError:
        return dict(os.environ)
    pairs = (entry.split(b"=", 1) for entry in entries if b"=" in entry)
    return {os.fsdecode(name): os.fsdecode(value) for name, value in pairs}


def _high_water_kib(pid: int) -> int:
    """The process's peak resident set so far (KiB, ``VmHWM``: its own, from its exec on); 0 once it is gone."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            return next((int(line.split()[1]) for line in status if line.startswith("VmHWM:")), 0)
    except (OSError, ValueError):
        return 0


def _loop_seconds(table: str) -> float:
    """The stepping loop's wall time from ``run``'s table: the last column of its first body's row."""
    lines = table.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("body "))
    return float(lines[header + 2].split()[-1])


def _spinlab(scene: pathlib.Path, work: pathlib.Path) -> dict[str, float]:
    out = work / "run.out"
    command = [sys.executable, "-m", "spinlab", "run", str(scene), "--integrator", INTEGRATOR, "--dt", repr(H)]
    command += ["--duration", repr(STEPS * H)]
    with out.open("w") as stdout:
        figures = timed_child(command, stdout, work)
    if figures.pop("status") != 0:
        raise RuntimeError(f"run on {scene} exited with status {figures['status']}")
    return figures | {"loop_s": _loop_seconds(out.read_text())}


def _mujoco(states: pathlib.Path, work: pathlib.Path) -> dict[str, float]:
    out = work / "mujoco.out"
    command = [sys.executable, "-m", "spinlab.benchmarks.scaling", "--mujoco", str(states), str(STEPS), repr(H)]
    with out.open("w") as stdout:
        figures = timed_child(command, stdout, work)
    status = figures.pop("status")
    if status != 0:
        raise RuntimeError(f"MuJoCo on {states} exited with status {status}")
    return figures | {"loop_s": json.loads(out.read_text())["loop_s"]}


def _best(measures: Sequence[Callable[[], dict[str, float]]], repeats: int) -> list[dict[str, float]]:
    """The fastest of ``repeats`` processes of each of ``measures``, taken in turn (ours, MuJoCo's, ours, …), so
    that a spell of others' work on the cores falls on both alike."""
    runs: list[list[dict[str, float]]] = [[] for _ in measures]
    for _ in range(repeats):
        for measure, done in zip(measures, runs, strict=True):
            done.append(measure())
    return [min(done, key=lambda r: r["process_s"]) for done in runs]


def _with_rates(figures: dict[str, float], n: int) -> dict[str, float]:
    body_steps = n * STEPS
    return figures | {
        "process_body_steps_per_s": body_steps / figures["process_s"],
        "loop_body_steps_per_s": body_steps / max(figures["loop_s"], 1e-9),
    }


def _compile_checkout() -> None:
    """Write the bytecode of a checkout's modules where it is missing or older than the source, as an install has
    it (pip compiles at install): otherwise, under ``PYTHONDONTWRITEBYTECODE=1``, every timed process compiles each
    module edited since its bytecode was last written again (a few ms each, a large share of a short run). Installed,
    nothing to do."""
    root = checkout_root()
    if root is None:
        return
    import compileall

    for folder in ("spinlab", "assets", "commands", "sim", "scene", "benchmarks"):
        compileall.compile_dir(root / folder, quiet=1)


def run(quick: bool, *, progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Measure every N (see the module docstring); JSON-serialisable: ``{"steps", "h", "integrator",
    "mujoco" (version or None), "rows": [{"n", "spinlab": {...}, "mujoco": {...} or None}]}`` where each
    ``{...}`` holds ``process_s``, ``cpu_s``, ``loop_s``, ``peak_mb`` and the two body-steps/s; ``load_average``:
    the machine's one-minute load average at the end."""
    from spinlab.benchmarks.cloud import MOMENTS, cloud_state, cloud_toml

    report = progress or (lambda message: None)
    _compile_checkout()
    try:
        import mujoco

        version = mujoco.__version__
    except ImportError:
        version = None
    rows = []
    with tempfile.TemporaryDirectory(prefix="spinlab-scaling-") as directory:
        work = pathlib.Path(directory)
        for n in QUICK_SIZES if quick else SIZES:
            scene = work / f"cloud_{n}.toml"
            scene.write_text(cloud_toml(n, colors=False), encoding="utf-8")
            measures = [partial(_spinlab, scene, work)]
            states = work / f"cloud_{n}.npz"
            if version is not None:
                position, omega_body, _, _ = cloud_state(n)
                np.savez(states, position=position, omega_body=omega_body, moments=np.array(MOMENTS))
                measures.append(partial(_mujoco, states, work))
            report(f"spinlab{' and mujoco' if version is not None else ''} N={n} ...")
            best = [_with_rates(figures, n) for figures in _best(measures, _repeats(n))]
            ours, theirs = best[0], (best[1] if version is not None else None)
            states.unlink(missing_ok=True)
            rows.append({"n": n, "spinlab": ours, "mujoco": theirs})
            scene.unlink()
    load = os.getloadavg()[0]  # the runnable processes on these cores meanwhile: others' work inflates the wall times
    return {"steps": STEPS, "h": H, "integrator": INTEGRATOR, "mujoco": version, "load_average": load, "rows": rows}


def format_table(result: dict[str, Any]) -> str:
    """The table: per N, process wall and CPU seconds, loop seconds, body-steps/s and peak memory, ours and
    MuJoCo's, and the ratios of the whole processes' wall and CPU times."""
    header = (
        f"{'N':>7} {'process s':>9} {'cpu s':>6} {'loop s':>7} {'process bs/s':>12} {'loop bs/s':>10} {'peak MB':>8} │ "
        f"{'MuJoCo s':>8} {'cpu s':>6} {'loop s':>7} {'process bs/s':>12} {'peak MB':>8} {'ours/MuJoCo':>11} "
        f"{'cpu':>6}"
    )
    lines = [
        f"{result['integrator']} against MuJoCo {MUJOCO_INTEGRATOR}, {result['steps']} steps of h = "
        f"{result['h']:.6g} s, whole `run` process vs the stepping loop (bs/s: body-steps per second; loop s as "
        "`run`'s table gives it, to 0.01 s)",
        "",
        header,
        "-" * len(header),
    ]
    for row in result["rows"]:
        ours, theirs = row["spinlab"], row["mujoco"]
        line = (
            f"{row['n']:>7} {ours['process_s']:>9.2f} {ours.get('cpu_s', float('nan')):>6.2f} {ours['loop_s']:>7.3f} "
            f"{ours['process_body_steps_per_s']:>12.3g} {ours['loop_body_steps_per_s']:>10.3g} "
            f"{ours['peak_mb']:>8.0f} │ "
        )
        if theirs is None:
            line += f"{'—':>8}"
        else:
            ratio = theirs["process_s"] / ours["process_s"]
            cpu_ratio = theirs.get("cpu_s", float("nan")) / ours.get("cpu_s", float("nan"))
            line += (
                f"{theirs['process_s']:>8.2f} {theirs.get('cpu_s', float('nan')):>6.2f} {theirs['loop_s']:>7.3f} "
                f"{theirs['process_body_steps_per_s']:>12.3g} {theirs['peak_mb']:>8.0f} {ratio:>10.2f}× "
                f"{cpu_ratio:>5.2f}×"
            )
        lines.append(line)
    if result["mujoco"] is None:
        lines.append("\nMuJoCo is not installed (`pip install mujoco`): its columns are empty.")
    else:
        lines.append(
            f"\nMuJoCo {result['mujoco']}; ours/MuJoCo > 1: our whole process is that much faster (wall, then CPU)."
        )
    if "load_average" in result:
        lines.append(
            f"Load average {result['load_average']:.1f} at the end (2 cores: above ~1, others' work shared them)."
        )
    return "\n".join(lines)


def _mujoco_model(mujoco, n: int, h: float, moments: tuple[float, float, float]):
    body = '<body><freejoint/><inertial pos="0 0 0" mass="1" diaginertia="{!r} {!r} {!r}"/></body>'.format(*moments)
    return mujoco.MjModel.from_xml_string(
        f'<mujoco><size memory="16M"/><option timestep="{h!r}" gravity="0 0 0" integrator="{MUJOCO_INTEGRATOR}">'
        f'<flag contact="disable"/></option><worldbody>{body * n}</worldbody></mujoco>'
    )


def mujoco_child(states: str, steps: int, h: float) -> dict[str, float]:
    """In the MuJoCo subprocess: build the N free bodies from the file ``states`` (``np.savez``'s: ``position`` and
    ``omega_body`` (N, 3), ``moments`` (3,)) and step them, in :data:`MUJOCO_BATCH` bodies a model
    (compiling a model takes time quadratic in its bodies: a fraction of a second at 10³, many seconds at 10⁴), one
    ``MjData`` a batch of them, every batch one model's."""
    import mujoco

    with np.load(states) as initial:
        position, omega_body, moments = initial["position"], initial["omega_body"], tuple(initial["moments"].tolist())
    n = len(position)
    models = {}
    batches = []
    for first in range(0, n, MUJOCO_BATCH):
        size = min(MUJOCO_BATCH, n - first)
        if size not in models:
            models[size] = _mujoco_model(mujoco, size, h, moments)
        data = mujoco.MjData(models[size])
        qpos, qvel = data.qpos.reshape(size, 7), data.qvel.reshape(size, 6)
        qpos[:, :3], qpos[:, 3:] = position[first : first + size], (1.0, 0.0, 0.0, 0.0)
        qvel[:, :3], qvel[:, 3:] = 0.0, omega_body[first : first + size]
        batches.append((models[size], data))
    begin = time.perf_counter()
    for _ in range(steps):
        for model, data in batches:
            mujoco.mj_step(model, data)
    loop = time.perf_counter() - begin
    if not all(np.all(np.isfinite(data.qvel)) for _, data in batches):
        raise FloatingPointError("MuJoCo's state is not finite")
    return {"loop_s": loop}


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--mujoco":
        print(json.dumps(mujoco_child(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]))))
        sys.exit(0)
    print(
        "usage: python -m spinlab.benchmarks.scaling --mujoco STATES.npy STEPS H "
        "(the benchmark runs as `spinlab bench --only scaling`)",
        file=sys.stderr,
    )
    sys.exit(2)
