"""Comparisons that survive, driven through the controller as the window drives it (no window): a view that
diverges is frozen and listed, the run does not pause, the threshold is a setup choice a person can change, and
the integrators' costs and accuracy are there to plot."""

import math

import numpy as np

from spinlab.ui.controller_state import PanelEdits
from spinlab.ui.failures_panel import DIVERGENCE_RANGE
from spinlab.ui.integrator_table import left_out_note
from tests.ui.headless_host import headless_controller


def side_by_side(tmp_path, scene, compared):
    controller, host = headless_controller(scene, str(tmp_path))
    controller.apply(PanelEdits(side_by_side=True))
    for name in list(controller.choices.compared):
        if name not in compared:
            controller.apply(PanelEdits(compare=(name, False)))
    for name in compared:
        controller.apply(PanelEdits(compare=(name, True)))
    return controller, host


def test_heavy_top_all_side_by_side_runs_with_exact_left_out_and_noted(tmp_path):
    controller, host = headless_controller("heavy_top", str(tmp_path))
    controller.apply(PanelEdits(side_by_side=True))
    choices = controller.choices
    assert "exact" in choices.compared
    assert left_out_note(choices.scene, choices.compared).startswith("left out: exact")
    assert controller.step(30) == 30 and choices.error is None
    assert "exact" not in [group.label for group in controller.timeline.session.groups]


def test_a_diverging_view_is_frozen_and_listed_and_the_run_goes_on(tmp_path):
    controller, host = side_by_side(tmp_path, "heavy_top", ("euler_body", "rkmk4", "split4"))
    choices, form = controller.choices, controller.form
    assert choices.divergence == 0.5 and controller.timeline.session.setup.divergence == 0.5
    steps = sum(controller.step(30) for _ in range(8))
    assert steps == 240 and choices.error is None and not choices.paused
    (line,) = form.failures
    assert line.startswith("euler_body: diverged at t = 1.") and line.endswith("ΔE/E passed +0.5 (energy gained)")
    # The plots' model: every integrator's cost, the frozen one marked.
    table = {row.name: row for row in host.series.integrator_table.table()}
    assert table["euler_body"].failed and not table["rkmk4"].failed
    assert table["rkmk4"].us > 0 and table["split4"].newton > 0 and table["rkmk4"].substeps == 1
    assert table["rkmk4"].energy_error > 0 and math.isnan(table["euler_body"].energy_error)
    assert np.isfinite(host.series.integrator_table.frozen_t).sum() == 1
    # Reset brings every view back.
    controller.apply(PanelEdits(reset=True))
    assert form.failures == [] and controller.timeline.session.failures == {}


def test_the_threshold_is_a_choice_in_the_setup_and_applies_to_the_running_session(tmp_path):
    controller, host = side_by_side(tmp_path, "t_handle", ("euler_body", "implicit_midpoint", "rkmk4"))
    assert controller.step(10) == 10 and not controller.form.failures
    low = DIVERGENCE_RANGE[0]
    controller.apply(PanelEdits(divergence=low))
    assert controller.choices.divergence == low and controller.choices.setup() == controller.timeline.session.setup
    assert controller.timeline.session.t > 0  # not restarted
    for _ in range(20):
        controller.step(30)
    assert any(line.startswith("euler_body: diverged") for line in controller.form.failures)
    assert controller.choices.error is None
