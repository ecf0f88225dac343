"""The window's compiled kernels: put in numba's cache by a worker process, loaded by the window between frames.

numba compiles a kernel at its first call (seconds of CPU) and caches it on disk (sim/_numba_cache.py); a process
that finds it there loads it in milliseconds, once numba is imported and its compiler readied (~0.5 s, which
:class:`KernelLoader` pays before the window's first frame: sim/compiled.py's ``load_numba``). The loader starts a
worker process (``python -m spinlab.ui.kernel_loader SCENE``, at the lowest priority) that makes the calls of
:func:`stages` in order, filling the cache, and prints ``ready K`` after stage K. Once a frame, between two, the
window asks the loader for the next stage the worker has cached (:meth:`KernelLoader.load_ready`): it makes that
stage's calls, which now only load (5-50 ms), and marks its kernels ready (sim/compiled.py). From the next step on
the world steps those integrators compiled (and ui/app.py recomputes a run that stepped on numpy references,
scene/model/replay.py). Meanwhile the integrators step on their plain kernels or numpy paths; should the worker
fail, they go on so.

The stages: what the scene's own integrators take (one at a time, slowest without numba first), the video writer's
modules, the scene's first step, the scene graph's composition, the trails' thinning, the video's colour conversion,
and every family of integrators side by side on the scene, under a heavy top's torque and in a hierarchy.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np

import spinlab
from spinlab.scene.files.scene_file import SceneSpec, load_scene
from spinlab.scene.model.run_model import Setup, check_scene_runs, default_integrators, run_layout
from spinlab.scene.process.collector import collector_paused
from spinlab.scene.process.kernels import load_kernels
from spinlab.scene.running.simulation import Simulation
from spinlab.sim import compiled
from spinlab.sim.integrators import COMPILE_ORDER, FAMILIES, INTEGRATORS

__all__ = ["KernelLoader", "stages", "excerpt", "WORKER_NICENESS"]

EXCERPT_BODIES = 64  # the bodies of the scene the stages run on: a scene's kernels do not depend on its size

# The worker takes what the window's threads leave of the cores: at niceness 5 it still took a quarter of the core it
# shared with the window's thread or llvmpipe's (frames a third longer for the minute a cold start compiles). Not
# SCHED_IDLE: under any other load (a niceness-10 job) the worker got nothing, and the kernels never came.
WORKER_NICENESS = 19
POLL_S = 0.01  # KernelLoader.wait looks this often whether the worker has cached another stage

Stage = tuple[frozenset[str], Callable[[], None]]


# Slowest without numba first: each one compiled takes its share off every frame (the records' compile_rank).
NUMPY_SLOWEST_FIRST = COMPILE_ORDER


def stages(scene: SceneSpec) -> list[Stage]:
    """What the window may call compiled, in the order it is compiled: (kernel names, the calls that compile or
    load them), each stage's calls a few milliseconds once cached. The scene's own integrators one at a time
    (:func:`scene.process.kernels.load_kernels`), the video writer's modules (imported here rather than at a
    recording's first frame), the scene's first step as the window takes it (the same kernels with the scene's own
    arrays, of its :func:`excerpt`), the scene graph's composition, the trails' thinning, the video's colours, and
    every family of integrators side by side on the excerpt, under a heavy top's torque and in a hierarchy, one
    scene a stage, every integrator marked ready after the last."""
    own = [name for name in default_integrators(scene) if name is not None]
    ranked = sorted(dict.fromkeys(own), key=lambda name: NUMPY_SLOWEST_FIRST.index(name)
                    if name in NUMPY_SLOWEST_FIRST else len(NUMPY_SLOWEST_FIRST))  # fmt: skip
    first = [(frozenset({name}), partial(load_kernels, scene, (name,))) for name in ranked]
    side_by_side: list[Stage] = [
        (frozenset(), partial(_side_by_side, scene_of, family))
        for scene_of in (partial(excerpt, scene), partial(load_scene, "heavy_top"), partial(load_scene, "hierarchy"))
        for family in (None, *dict.fromkeys(FAMILIES.values()))
    ]
    return [
        *first,
        (frozenset(), _video_writer),
        (frozenset({compiled.FREE_FALL}), partial(check_scene_runs, excerpt(scene))),
        (frozenset({compiled.SCENE_GRAPH}), _scene_graph),
        (frozenset({compiled.POLYLINE_KEEP}), _thinning),
        # Before every integrator side by side (a minute of compiling, cold), which a recording started in that
        # minute would otherwise wait for on numpy's slower conversion.
        (frozenset({compiled.COLOUR_CONVERSION}), _colour_conversion),
        *side_by_side[:-1],
        (frozenset(INTEGRATORS), side_by_side[-1][1]),
    ]


def excerpt(scene: SceneSpec, count: int = EXCERPT_BODIES) -> SceneSpec:
    """``scene`` cut to its first ``count`` bodies (each with its parents) and their kicks: the same integrators,
    torques and hierarchy, so the same kernels compile, at a small world's cost (a 10^5-body cloud stepped side by
    side under every integrator took 4 GB)."""
    if len(scene.bodies) <= count:
        return scene
    kept: dict[str, None] = {}
    for body in scene.bodies:
        if len(kept) == count:
            break
        if body.parent is None or body.parent in kept:
            kept[body.name] = None
    bodies = tuple(body for body in scene.bodies if body.name in kept)
    kicks = tuple(kick for kick in scene.kicks if kick.body in kept)
    return dataclasses.replace(scene, bodies=bodies, kicks=kicks)


def _side_by_side(scene_of: Callable[[], SceneSpec], family: tuple[str, ...] | None) -> None:
    """A step of the scene ``scene_of`` gives as it is (``family`` ``None``), or side by side under ``family``: the
    simulation alone, as the window's runs lay it out (a run's references and measures call no kernel)."""
    scene = scene_of()
    if family is None:
        setup = Setup(scene, default_integrators(scene), h=scene.h)
    else:
        setup = Setup(scene, default_integrators(scene), True, family, h=scene.h)
    Simulation(run_layout(setup)[0], h=setup.h, gyroscopic=setup.gyroscopic).step()


def _video_writer() -> None:
    import spinlab.render.video  # noqa: F401 - PyAV's modules, ~50 ms of imports


def _scene_graph() -> None:
    from spinlab.scene.running.graph_kernel import compose_nodes

    two = np.zeros((2, 3))
    compose_nodes(np.array([-1, 0], np.intp), np.array([False, True]), two.copy(), np.zeros((2, 4)), two.copy(),
                  two.copy(), two.copy(), two.copy(), two.copy())  # fmt: skip


def _thinning() -> None:
    from spinlab.render.overlays import trail_keep

    trail_keep(np.zeros((2, 8, 2)), np.ones((2, 8), bool), np.arange(8), 1, segment_px=4.0, error_px=0.5, max_stride=4)


def _colour_conversion() -> None:
    from spinlab.render.yuv import rgb_to_yuv420p_bt709

    for channels in (3, 4):
        writable = np.zeros((16, 16, channels), np.uint8)
        # The window's frames are read back from GL into bytes (ui/capture.py): read-only arrays, another signature
        # for numba, which the encoder's thread compiled at the first recording (0.2 s gaps in the window).
        read_only = np.frombuffer(bytes(writable.size), np.uint8).reshape(writable.shape)
        planes = [np.zeros((16, 16), np.uint8), np.zeros((8, 8), np.uint8), np.zeros((8, 8), np.uint8)]
        for rgb in (writable, read_only):
            for flip in (False, True):
                rgb_to_yuv420p_bt709(rgb, *planes, flip=flip)  # compiled: every kernel is ready while loading


class KernelLoader:
    """Compile ``scene``'s kernels (``argument``: the preset name or path the worker loads it from) in a worker
    process, and load each stage it has cached here, one a :meth:`load_ready` (module docstring). Made before the
    window's first frame: it readies numba in this process then. :attr:`stages_done` counts the stages loaded;
    :meth:`close` ends the worker."""

    def __init__(self, argument: str, scene: SceneSpec) -> None:
        self.stages = stages(scene)
        self.stages_done = 0
        self._cached = 0  # the stages the worker has said are in the cache
        # The worker imports the same spinlab as this process, installed or from this checkout.
        root = str(Path(spinlab.__file__).resolve().parents[1])
        path = os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))
        environment = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": path}
        self._worker = subprocess.Popen(
            [sys.executable, "-m", "spinlab.ui.kernel_loader", argument],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
            env=environment,
            preexec_fn=lambda: os.nice(WORKER_NICENESS),
        )
        assert self._worker.stdout is not None, "the worker is started with stdout=PIPE"
        self._reports = self._worker.stdout.fileno()
        os.set_blocking(self._reports, False)
        compiled.load_numba()

    def load_ready(self) -> bool:
        """Load the next stage the worker has cached, if there is one, and mark its kernels ready: the window calls
        this between two frames. Whether a stage was loaded."""
        if self.stages_done == len(self.stages):
            return False
        try:
            self._cached += os.read(self._reports, 4096).count(b"ready ")
        except BlockingIOError:
            pass
        if self.stages_done == self._cached:
            return False
        names, work = self.stages[self.stages_done]
        # Numba's loads make thousands of objects: frozen after the stage, out of the collector's reach, rather than
        # traversed by a full collection in some later frame (scene/process/collector.py).
        with compiled.loading(), collector_paused(freeze_after=True):
            try:
                work()
            except Exception:  # noqa: BLE001 - a scene that fails its first step has loaded its kernels all the same
                pass
        compiled.mark_ready(names)
        self.stages_done += 1
        return True

    def wait(self, seconds: float) -> bool:
        """Load every stage as the worker caches it, for up to ``seconds``; whether they are all loaded."""
        deadline = time.perf_counter() + seconds
        while self.stages_done < len(self.stages) and time.perf_counter() < deadline:
            if not self.load_ready():
                time.sleep(POLL_S)
        return self.stages_done == len(self.stages)

    def close(self) -> None:
        """End the worker (its cache files are written whole, by numba, or not at all)."""
        if self._worker.poll() is None:
            self._worker.terminate()
            try:
                self._worker.wait(5.0)
            except subprocess.TimeoutExpired:
                self._worker.kill()
        if self._worker.stdout is not None:
            self._worker.stdout.close()


def _worker(argument: str) -> int:
    """The worker: each stage's calls in turn, ``ready K`` on stdout after stage K."""
    scene = load_scene(argument)
    for number, (_, work) in enumerate(stages(scene)):
        try:
            work()
        except Exception:  # noqa: BLE001 - a stage that cannot run (a scene that fails) leaves the rest to do
            pass
        print(f"ready {number}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(_worker(sys.argv[1]))
