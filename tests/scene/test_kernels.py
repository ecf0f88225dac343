"""Kernels are loaded before the work that is timed (scene/process/kernels.py): on a throwaway body, whatever the
scene's step, and before a run's first step, so that its wall time is the stepping alone."""

import pytest

import spinlab.scene.model.runner as runner
from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.model.runner import run_scene
from spinlab.scene.process.kernels import load_kernels
from spinlab.scene.running.simulation import Simulation
from spinlab.sim import compiled
from spinlab.sim.integrators import INTEGRATORS


@pytest.mark.parametrize("pivot", [False, True])
def test_every_integrator_loads_on_any_scene_even_one_whose_step_newton_cannot_take(tmp_path, pivot):
    path = tmp_path / "coarse.toml"
    # h = 1000 s: implicit midpoint's Newton would fail on a spinning body; the throwaway step is a short one.
    pivot_line = "pivot = [0.0, 0.0, -0.5]\n" if pivot else ""
    path.write_text(f'[scene]\ngravity = [0, 0, -9.81]\ndt = 1000.0\n[[body]]\nshape = "t_handle"\n{pivot_line}')
    scene = load_scene(path)
    assert scene.has_torque == pivot
    load_kernels(scene, INTEGRATORS)  # the closed form among them: stepped torque-free


def test_a_run_loads_its_integrators_kernels_once_each_before_its_first_step(monkeypatch):
    monkeypatch.setattr(compiled, "steps_without_numba", lambda *args, **kwargs: False)  # a run long enough for numba
    events = []
    monkeypatch.setattr(runner, "load_kernels", lambda scene, names: events.append(("load", tuple(names))))
    step = Simulation.step

    def counted(self, *args, **kwargs):
        events.append("step")
        return step(self, *args, **kwargs)

    monkeypatch.setattr(Simulation, "step", counted)
    compare = load_scene("compare")
    run_scene(compare, integrator=None, h=compare.h, duration=3 * compare.h)
    names = tuple(dict.fromkeys(body.integrator for body in compare.bodies))
    assert events == [("load", names), "step", "step", "step"]
    events.clear()
    run_scene(compare, integrator="rkmk4", h=compare.h, duration=compare.h)
    assert events == [("load", ("rkmk4",)), "step"]
