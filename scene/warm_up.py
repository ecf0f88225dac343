"""The first start: compile, one integrator at a time, the kernels a scene's first run in the window needs, so that a
splash can say how far it got (commands/gui.py, ui/splash.py).

numba compiles a kernel at its first call and caches it on disk (sim/_numba_cache.py): the first start of the
window on the compare preset compiles every integrator's kernels, ~4–8 s on a laptop core; every later start loads
them in a fraction of a second. :func:`warm_up` makes the same calls a first step would, but one integrator at a
time with a report after each, then checks the scene as the window will run it
(:func:`scene.run_model.check_scene_runs`, which compiles what is left: the closed forms, the samples).
"""

from __future__ import annotations

from collections.abc import Callable

from spinlab.scene.kernels import load_kernels
from spinlab.scene.run_model import check_scene_runs, default_integrators
from spinlab.scene.scene_file import SceneSpec

__all__ = ["warm_up", "warm_up_steps"]

Report = Callable[[int, int, str], None]
"""``report(done, total, what)``: ``done`` of ``total`` parts are ready, ``what`` is being compiled now."""


def warm_up_steps(scene: SceneSpec) -> tuple[str, ...]:
    """What :func:`warm_up` compiles, in order: each integrator ``scene``'s bodies use (file order, once each)."""
    return tuple(dict.fromkeys(name for name in default_integrators(scene) if name is not None))


def warm_up(scene: SceneSpec, report: Report) -> None:
    """Take one step of a single body with each integrator of ``scene`` (:func:`load_kernels`), then
    :func:`check_scene_runs` on ``scene``; ``report`` is called before each part and once at the end with
    ``done == total``. Raises what :func:`check_scene_runs` raises for a scene that cannot run."""
    names = warm_up_steps(scene)
    total = len(names) + 1
    for done, name in enumerate(names):
        report(done, total, name)
        load_kernels(scene, (name,))
    report(len(names), total, "the closed forms and the first step")
    check_scene_runs(scene)
    report(total, total, "")
