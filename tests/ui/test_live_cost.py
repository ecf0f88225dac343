"""The cost column's µs per body-step (scene/model/failures.py's CostMeter, ui/integrator_table.py): timed by the one
function ``bench --only latency`` times with (sim/timing.py), on the path that steps each integrator now, which the
column says; a figure timed on a stand-in (numpy or the plain kernel, while the compiled kernel loads) never stands for
the compiled kernel that replaced it. Window-free: a session of the compare preset, the kernels gated as the window
gates them (sim/compiled.py)."""

import numpy as np
import pytest

from spinlab.benchmarks import latency
from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.model.run_model import Session, Setup, default_integrators
from spinlab.sim import compiled, timing
from spinlab.sim.integrators import INTEGRATORS
from spinlab.ui.integrator_table import IntegratorTable, cost_text

# The live figure (a one-body group's step, best of a few calls) against bench's ``step`` column (best of runs of many
# calls of the same step): the same call, so within noise; a factor this wide holds on a loaded machine, yet a
# figure on another path (numpy: ~25× the compiled kernel's at one body) lies far outside it.
SAME_PATH_FACTOR = 5.0


def compare_session() -> Session:
    scene = load_scene("compare")
    session = Session(Setup(scene, default_integrators(scene), h=scene.h))
    session.retime_costs = True
    return session


def test_the_live_cost_and_bench_latency_time_with_one_function(monkeypatch):
    callers = []
    real = timing.best_seconds_per_call

    def spy(call, repeats, calls, *clock):
        callers.append(getattr(call, "func", call).__qualname__)
        return real(call, repeats, calls, *clock)

    monkeypatch.setattr(timing, "best_seconds_per_call", spy)
    session = compare_session()
    session.step(1)
    timed = session.simulation.world.time_groups(session.h)
    assert set(timed) == {body.integrator for body in session.scene.bodies}
    assert callers and all(name == "World._step_group" for name in callers), callers
    callers.clear()
    latency.measure("euler", repeats=1, calls=2)
    assert len(callers) >= 2, "bench --only latency times its kernel, step and World.step with it"


def test_the_live_cost_says_what_it_times_and_drops_a_stand_ins_figures():
    session = compare_session()
    rgb = np.ones((len(session.plotted), 3))
    with compiled.gated(stand_in="twin"):  # no kernel loaded: the window's first frames
        table = IntegratorTable(session, rgb)
        for _ in range(3):
            session.step(2)
            table.table()
        rows = {row.name: row for row in table.table()}
        assert rows["euler"].path == "numpy, compiling"
        assert rows["implicit_midpoint"].path == "plain kernel, compiling"
        assert rows["exact"].path == "numpy"
        assert cost_text(rows["euler"])[0].endswith("*")
        assert "numpy, compiling" in cost_text(rows["euler"])[1]
    with compiled.gated(ready=INTEGRATORS):  # every kernel loaded: the next call times them alone
        session.step(2)
        rows = {row.name: row for row in table.table()}
        warm = session.cost_meter.costs()
        for name in ("euler", "implicit_midpoint"):
            assert rows[name].path == compiled.COMPILED_KERNEL
            assert rows[name].us == warm[name].us_per_body_step, "the stand-in's figures left the median"
            cell, tip = cost_text(rows[name])
            assert not cell.endswith("*")
            assert tip.endswith(f"µs per body-step of {name}'s step, compiled kernel, 1 body a call")


@pytest.mark.parametrize("name", ["euler", "implicit_midpoint"])
def test_the_live_cost_agrees_with_bench_latency(name):
    session = compare_session()
    session.step(2)
    live = []
    for _ in range(10):  # the least of several timings, as bench takes the least of its runs
        session.cost_meter.retime(session.simulation.world, session.h)
        session.step(1)
        live.append(session.cost_meter.costs()[name].us_per_body_step)
    bench = latency.measure(name, repeats=3, calls=300)["step_us"]
    assert 1.0 / SAME_PATH_FACTOR < min(live) / bench < SAME_PATH_FACTOR, (min(live), bench)
