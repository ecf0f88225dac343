"""The compiled kernels a scene's integrators take, loaded before the work that is timed.

numba compiles a kernel at its first call and caches it on disk (sim/_numba_cache.py); a process that finds it
cached still spends ~0.1 s loading it at that first call. :func:`load_kernels` makes that call on a throwaway
world, so that neither a run's wall time (commands/run.py's table) nor the window's first frame pays it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np

from spinlab.sim.integrators import CLAIMS
from spinlab.sim.world import World

if TYPE_CHECKING:  # read for its gravity alone: process/ sits below the scene files
    from spinlab.scene.files.scene_file import SceneSpec

__all__ = ["load_kernels"]

# A T-handle's moments (kg m²) and a spin near its intermediate axis (rad/s): any body compiles the same kernels.
_INERTIA_BODY = np.diag([1.3, 1.4, 2.5])
_OMEGA_WORLD = np.array([0.05, 5.0, 0.05])
_PIVOT_BODY = np.array([0.0, 0.0, -1.0])  # m from the centre of mass: a heavy top's tip
# s: the step does not change what is compiled, and at this one every integrator converges on this body (the
# scene's own step could be 1000 s, where Newton may fail on a body that is not the scene's).
_H = 1.0 / 240.0


def load_kernels(scene: SceneSpec, names: Iterable[str]) -> None:
    """Compile, or load from numba's cache, the kernels ``names`` (integrators) take on ``scene``: one short step
    of a single body with each, on a throwaway world (under gravity's torque about a pivot when the scene has one and
    the integrator accepts a torque: the closed form refuses one). What a run's first step would otherwise pay,
    ~0.1 s a process when cached."""
    for name in names:
        torque = scene.has_torque and CLAIMS[name].accepts_torque
        world = World(gravity=scene.gravity if torque else np.zeros(3))
        world.add_body(
            q=np.array([1.0, 0.0, 0.0, 0.0]),
            omega_world=_OMEGA_WORLD,
            inertia_body=_INERTIA_BODY,
            integrator=name,
            pivot_body=_PIVOT_BODY if torque else None,
        )
        world.step(_H)
