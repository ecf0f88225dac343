"""The window's kernels, compiled in a worker process and then loaded on a thread, never on the window's thread
(issue 22).

numba compiles a kernel at its first call (seconds of CPU, holding the GIL much of the time) and caches it on disk
(sim/_numba_cache.py); loading it from the cache takes milliseconds. So :class:`KernelLoader` starts a worker
process (``python -m spinlab.ui.kernel_loader SCENE``, at the lowest priority) that makes the first calls of
:func:`stages` in order, filling the cache, and says ``ready K`` after stage K. On each, a thread of
the window's process makes the same calls, which now only load from the cache (in the turns the window lends it
between frames, ui/turns.py: never beside a frame), and marks the stage's kernels ready
(sim/compiled.py): from the next step on the world steps those integrators compiled (ui/app.py then recomputes the
run on them, scene/running/replay.py). Meanwhile everything steps on the numpy paths. The stages: what the scene's own
integrators take (its first step included), the trails' thinning, the video's colour conversion, and every
integrator side by side on the scene and under a heavy top's torque. Should the worker fail, the thread compiles what is
left itself.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
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
from spinlab.ui.turns import Turns

__all__ = ["KernelLoader", "stages", "excerpt", "WORKER_NICENESS"]

EXCERPT_BODIES = 64  # the bodies of the scene the stages run on: a scene's kernels do not depend on its size

# The worker takes what the window's threads leave of the cores: at niceness 5 it still took a quarter of the core it
# shared with the window's thread or llvmpipe's (frames a third longer for the minute a cold start compiles). Not
# SCHED_IDLE: under any other load (a niceness-10 job) the worker got nothing, and the kernels never came.
WORKER_NICENESS = 19
CLOSE_WAIT_S = 30.0  # at most, for the thread to finish loading a stage as the window closes
LOAD_SWITCH_INTERVAL_S = 0.0005  # while the thread loads, the window's thread gets the GIL back this soon

Stage = tuple[frozenset[str], Callable[[], None]]


# Slowest on their numpy paths first: each one compiled takes its share off every frame (the records' compile_rank).
NUMPY_SLOWEST_FIRST = COMPILE_ORDER


def stages(scene: SceneSpec) -> list[Stage]:
    """What the window may call compiled, in the order it is compiled: (kernel names, the calls that compile or
    load them). The scene's own integrators one at a time (:func:`scene.process.kernels.load_kernels`), then its first
    step as the window takes it (the same kernels with the scene's own arrays, of its :func:`excerpt`), the scene
    graph's composition, the trails' thinning, the video's colours, and every integrator side by side on the
    excerpt, under a heavy top's torque and in a hierarchy."""
    own = [name for name in default_integrators(scene) if name is not None]
    ranked = sorted(dict.fromkeys(own), key=lambda name: NUMPY_SLOWEST_FIRST.index(name)
                    if name in NUMPY_SLOWEST_FIRST else len(NUMPY_SLOWEST_FIRST))  # fmt: skip
    first = [(frozenset({name}), lambda name=name: load_kernels(scene, (name,))) for name in ranked]
    return [
        *first,
        (frozenset({compiled.FREE_FALL}), lambda: check_scene_runs(excerpt(scene))),
        (frozenset({compiled.SCENE_GRAPH}), _scene_graph),
        (frozenset({compiled.POLYLINE_KEEP}), _thinning),
        # Before the long stage of every integrator (a minute of compiling, cold), which a recording started in
        # that minute would otherwise wait for on numpy's slower conversion.
        (frozenset({compiled.COLOUR_CONVERSION}), _colour_conversion),
        (
            frozenset(INTEGRATORS),
            lambda: _side_by_side((excerpt(scene), load_scene("heavy_top"), load_scene("hierarchy"))),
        ),
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


def _side_by_side(scenes) -> None:
    """A step of each scene as it is, and side by side under every family of integrators (the maths' methods, the
    engines' steps, the axes splittings): every kernel the stage marks ready. The simulations alone, as the window's
    runs lay them out (a run's references and measures call no kernel): a third of the Python the runs took, 0.05 s
    instead of 0.13, which this thread spent beside the window's frames."""
    for scene in scenes:
        for setup in (Setup(scene, default_integrators(scene), h=scene.h), *(
            Setup(scene, default_integrators(scene), True, family, h=scene.h)
            for family in dict.fromkeys(FAMILIES.values())
        )):  # fmt: skip
            Simulation(run_layout(setup)[0], h=setup.h, gyroscopic=setup.gyroscopic).step()


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
    process and load them here on a thread, marking each stage ready (module docstring). :attr:`stages_done` counts
    the stages ready; :meth:`close` ends the worker."""

    def __init__(self, argument: str, scene: SceneSpec) -> None:
        self.stages = stages(scene)
        self.stages_done = 0
        self.error: BaseException | None = None
        # The thread runs Python only in the turns the window lends it between frames (ui/turns.py).
        self.turns = Turns()
        self._closing = False
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
        self._thread = threading.Thread(target=self._run, name="spinlab-kernels", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            # While the worker compiles the first stage: the video writer's module (PyAV, ~50 ms of imports),
            # which a recording's first frame would otherwise import on the window's thread.
            with self._turn():
                import spinlab.render.video  # noqa: F401
            assert self._worker.stdout is not None, "the worker is started with stdout=PIPE"
            for line in self._worker.stdout:
                if self._closing:
                    return
                if line.startswith(b"ready ") and self.stages_done < len(self.stages):
                    self._load(self.stages_done)
            for number in range(self.stages_done, len(self.stages)):  # the worker failed: compile here
                if self._closing:
                    return
                self._load(number)
        except BaseException as error:  # the window goes on on the numpy paths
            self.error = error

    def _load(self, number: int) -> None:
        names, work = self.stages[number]
        try:
            with self._turn(), compiled.loading():
                work()
        except Exception:  # noqa: BLE001 - a scene that fails its first step has loaded its kernels all the same
            pass
        compiled.mark_ready(names)
        self.stages_done = number + 1

    @contextlib.contextmanager
    def _turn(self) -> Iterator[None]:
        """The block in the window's turns (:class:`~ui.turns.Turns`), with a short switch interval: when a frame
        begins, the window's thread gets the interpreter back within half a millisecond, and this thread parks.

        The cyclic collector is paused meanwhile, and what survives is frozen before it runs again
        (scene/process/collector.py): the ~34,000 objects of numba's import and loads otherwise set off full
        collections on this thread, 20-50 ms each in C, which no hook can park, every frame waiting for them."""
        interval = sys.getswitchinterval()
        sys.setswitchinterval(LOAD_SWITCH_INTERVAL_S)
        try:
            with self.turns.taking(), collector_paused(freeze_after=True):
                yield
        finally:
            sys.setswitchinterval(interval)

    def wait(self, seconds: float | None = None) -> bool:
        """Wait up to ``seconds`` for every stage; whether they are all ready."""
        self._thread.join(seconds)
        return not self._thread.is_alive()

    def close(self) -> None:
        """End the worker (its cache files are written whole, by numba, or not at all), and wait for the thread to
        finish the stage it is loading: a thread still in numba's compiler as the interpreter exits can crash it."""
        self._closing = True
        self.turns.end()  # no more frames: the stage under way finishes without waiting for turns
        if self._worker.poll() is None:
            self._worker.terminate()
            try:
                self._worker.wait(5.0)
            except subprocess.TimeoutExpired:
                self._worker.kill()
        self._thread.join(CLOSE_WAIT_S)


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
