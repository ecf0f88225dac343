"""What the live measures do at a kick: a kick starts a new motion with a new energy and L, so the
window's and the video's measures start again from the state just after it, and a comparison struck mid-run does
not read the kick as a divergence (which would freeze every view)."""

import numpy as np

from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.model.run_model import Session, Setup, default_integrators

STEPS = 6 * 60  # past both kicks of the preset (2 s and 5 s)


def test_a_kicked_comparison_keeps_every_view_and_small_errors():
    scene = load_scene("kick")
    setup = Setup(scene, default_integrators(scene), side_by_side=True, compared=("implicit_midpoint", "im4", "exact"))
    session = Session(setup)
    energy = []
    for _ in range(STEPS // 30):
        report = session.step(30)
        assert report.error is None and report.steps == 30
        energy.append(session.latest.sample.energy_error)
    assert not session.watch.failures, "a kick was read as a divergence"
    energy = np.concatenate(energy)
    # The kicks change E by tens of percent; measured against the state after each, the errors stay tiny.
    assert energy.max() < 1e-3  # implicit midpoint drifts ~3e-5 in 6 s; the kicks alone would read ~0.1–1
    orientation = session.latest.sample.orientation_error[-1]
    assert np.all(orientation < 1e-2)  # since the last kick: implicit midpoint 3e-3 rad, im4 2e-5, exact 0


def test_the_measures_restart_at_the_kicks_step_and_the_flip_counts_go_on():
    scene = load_scene("kick")
    session = Session(Setup(scene, ("im6",)))
    before = session.references
    session.step(int(round(2.0 / session.h)) + 10)  # one batch across the first kick
    assert session.references is not before
    assert session.references.t0 == int(round(2.0 / session.h)) * session.h
    assert session.references.flip_counters is before.flip_counters
    t = session.latest.sample.t
    assert np.all(np.diff(t) > 0) and t.shape == session.latest.sample.energy_error.shape[:1]
    # L after the kick is L before plus the impulse; measured against it, |ΔL|/|L| is at rounding.
    assert np.nanmax(session.latest.sample.momentum_error) < 1e-12
    assert np.allclose(session.references.L0[0] - before.L0[0], [4.0, 0.0, 0.0], atol=1e-12)
