"""Kicks and the shared initial state through the controller, with no window (tests/ui/headless_host.py): "Kick
now" and a drag's kick, on every copy of a comparison at the same step, replayed by a reset, saved as [[kick]]
tables that a run of the saved file reproduces; ω's (|ω|, angle, azimuth) drags and an edit shared by the copies
that started alike; the pure maths of ui/kick_controls.py."""

import warnings

import numpy as np
import pytest

from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.model.run_model import Session, Setup
from spinlab.sim.quaternion import quat_conj, quat_rotate
from spinlab.ui.controller_state import PanelEdits
from spinlab.ui.kick_controls import AXES, drag_impulse, drag_kick, omega_from_polar, omega_to_polar, principal_axes
from tests.ui.headless_host import headless_controller

T_HANDLE = np.diag([1.3, 1.4, 2.5])
TILTED = np.array([[2.0, 0.3, 0.1], [0.3, 1.5, -0.2], [0.1, -0.2, 1.1]])


def apply(controller, **fields):
    controller.apply(PanelEdits(**fields))
    return controller


def omega_body(body):
    return quat_rotate(quat_conj(body.orientation), body.omega_parent)


@pytest.mark.parametrize("inertia", [T_HANDLE, TILTED])
@pytest.mark.parametrize("axis", AXES)
def test_omega_round_trips_through_magnitude_angle_and_azimuth(inertia, axis):
    rng = np.random.default_rng(7)
    for omega in [*rng.normal(size=(20, 3)) * 3.0, np.array([0.0, 5.0, 0.0]), np.array([0.05, 5.0, 0.05])]:
        magnitude, angle, azimuth = omega_to_polar(omega, inertia, axis)
        assert magnitude == pytest.approx(np.linalg.norm(omega)) and 0.0 <= angle <= np.pi
        np.testing.assert_allclose(omega_from_polar(magnitude, angle, azimuth, inertia, axis), omega, atol=1e-12)


def test_the_angle_is_measured_off_the_chosen_principal_axis():
    assert omega_to_polar(np.array([0.0, 5.0, 0.0]), T_HANDLE, "intermediate")[:2] == (5.0, 0.0)
    assert omega_to_polar(np.array([0.0, 0.0, 2.0]), T_HANDLE, "major")[:2] == (2.0, 0.0)
    assert omega_to_polar(np.array([0.0, 0.0, 2.0]), T_HANDLE, "minor")[1] == pytest.approx(np.pi / 2)
    # ω at 10° off the intermediate axis, whatever the azimuth.
    for azimuth in (0.0, 1.0, -2.5):
        omega = omega_from_polar(3.0, np.radians(10.0), azimuth, T_HANDLE, "intermediate")
        assert np.degrees(np.arccos(omega[1] / 3.0)) == pytest.approx(10.0)
    basis = principal_axes(TILTED, "major")
    np.testing.assert_allclose(basis @ basis.T, np.eye(3), atol=1e-12)
    assert np.linalg.det(basis) == pytest.approx(1.0)


def test_a_drag_strikes_about_the_view_axis_cross_the_drag():
    toward, right, up = np.array([0.0, 0.0, 1.0]), np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0])
    impulse = drag_impulse(toward, right, up, 100.0, 0.0, 400.0, 8.0)
    np.testing.assert_allclose(impulse, [0.0, 2.0, 0.0])  # drag right: the near face turns right, about +y
    np.testing.assert_allclose(drag_impulse(toward, right, up, 0.0, -50.0, 400.0, 8.0), [1.0, 0.0, 0.0])
    assert not drag_impulse(toward, right, up, 0.0, 0.0, 400.0, 8.0).any()


def test_kick_now_lands_on_the_next_step_is_replayed_by_a_reset_and_saved(tmp_path):
    controller, host = headless_controller("t_handle", str(tmp_path))
    controller.step(30)
    L_before = controller.timeline.session.snapshot.L_world[0].copy()
    apply(controller, kick_text="0.5, -1, 2")
    apply(controller, kick=(0, None))
    assert controller.form.kick_error is None and "kick" in controller.form.message
    assert controller.timeline.session.t == pytest.approx(30 * controller.timeline.session.h)  # nothing stepped yet
    controller.step(1)
    np.testing.assert_allclose(controller.timeline.session.snapshot.L_world[0] - L_before, [0.5, -1.0, 2.0], atol=1e-12)
    assert host.series.kick_times == [31 * controller.timeline.session.h]
    (kick,) = controller.choices.scene.kicks
    assert kick.body == "handle" and kick.time == 31 * controller.timeline.session.h
    controller.step(29)
    live = controller.timeline.session.snapshot
    # The saved scene runs (as record and run do) to the very states the window showed.
    path = tmp_path / "kicked.toml"
    apply(controller, save_text=str(path))
    apply(controller, save_scene=True)
    assert "[[kick]]" in path.read_text()
    saved = load_scene(path)
    session = Session(Setup(saved, tuple(controller.choices.integrators), h=saved.h))
    session.step(60)
    np.testing.assert_array_equal(session.snapshot.q, live.q)
    np.testing.assert_array_equal(session.snapshot.L_world, live.L_world)
    # A reset replays the kick.
    apply(controller, reset=True)
    controller.step(60)
    np.testing.assert_array_equal(controller.timeline.session.snapshot.q, live.q)
    assert host.series.kick_times == [31 * controller.timeline.session.h]
    apply(controller, clear_kicks=True)
    assert controller.choices.scene.kicks == () and host.series.kick_times == []


def test_a_kick_in_a_side_by_side_comparison_strikes_every_copy_at_the_same_step(tmp_path):
    controller, host = headless_controller("t_handle", str(tmp_path))
    apply(controller, side_by_side=True)
    controller.step(10)
    before = controller.timeline.session.snapshot.L_world.copy()
    apply(controller, kick=(0, (0.0, 0.0, 3.0)))
    controller.step(1)
    copies = len(controller.timeline.session.groups)
    assert copies > 3 and len(controller.timeline.session.simulation.kicks.kicks) == copies
    jumps = controller.timeline.session.snapshot.L_world - before
    conserving = [
        i for i, g in enumerate(controller.timeline.session.groups) if g.label in ("implicit_midpoint", "im4", "exact")
    ]
    for i in conserving:
        np.testing.assert_allclose(jumps[i], [0.0, 0.0, 3.0], atol=1e-9)
    assert np.all(np.abs(jumps[:, 2] - 3.0) < 0.5)  # every copy got it (the others drift a little besides)


def test_the_compare_preset_shares_kicks_and_initial_state_edits(tmp_path):
    controller, host = headless_controller("compare", str(tmp_path))
    bodies = controller.choices.scene.bodies
    controller.step(5)
    apply(controller, kick=(2, (1.0, 0.0, 0.0)))
    assert {kick.body for kick in controller.choices.scene.kicks} == {body.name for body in bodies}
    # The typed ω of one body goes to every copy that started alike.
    apply(controller, select_body=3)
    apply(controller, body_text=("omega_body", "0.1, 4, 0.1"))
    apply(controller, apply_body="omega_body")
    for body in controller.choices.scene.bodies:
        np.testing.assert_allclose(omega_body(body), [0.1, 4.0, 0.1], atol=1e-12)
    assert controller.timeline.session.t == 0.0  # restarted from the new initial state
    # The drags: |ω| 6 rad/s at 20° off the major axis.
    apply(controller, initial_axis="major")
    apply(controller, omega_polar=(6.0, np.radians(20.0), 0.0))
    for body in controller.choices.scene.bodies:
        magnitude, angle, _ = omega_to_polar(omega_body(body), body.inertia_com, "major")
        assert magnitude == pytest.approx(6.0) and np.degrees(angle) == pytest.approx(20.0)
    assert len(controller.form.body_texts["omega_body"]) < 40  # the field shows the new ω, not 17 digits


def test_an_edit_of_one_body_of_a_plain_scene_stays_its_own(tmp_path):
    controller, _ = headless_controller("hierarchy", str(tmp_path))
    west = controller.choices.body_names.index("wheel_west")
    apply(controller, select_body=west)
    apply(controller, body_text=("omega_body", "0, 0, 9"))
    apply(controller, apply_body="omega_body")
    spins = {body.name: omega_body(body)[2] for body in controller.choices.scene.bodies if not body.kinematic}
    assert spins["wheel_west"] == pytest.approx(9.0) and spins["wheel_east"] == pytest.approx(6.0)


def test_bad_kicks_are_shown_beside_the_field(tmp_path):
    controller, host = headless_controller("hierarchy", str(tmp_path))
    apply(controller, kick_text="1, 2")
    apply(controller, kick=(1, None))
    assert "3 numbers" in controller.form.kick_error and controller.choices.scene.kicks == ()
    apply(controller, kick=(0, (0.0, 1.0, 0.0)))  # the turntable is kinematic
    assert "kinematic" in controller.form.kick_error and not controller.timeline.session.simulation.kicks.kicks
    apply(controller, kick=(1, (0.0, 1.0, 0.0)))
    assert controller.form.kick_error is None and len(controller.choices.scene.kicks) == 1
    assert controller.choices.scene.kicks[0].body == "wheel_east"


def test_a_ctrl_drag_kicks_the_selected_body_scaled_by_its_momentum(tmp_path):
    from spinlab.render.camera import OrbitCamera

    controller, host = headless_controller("t_handle", str(tmp_path))
    camera = OrbitCamera(azimuth_deg=90.0, elevation_deg=0.0)  # looking along −y: right −x, up +z, back +y
    assert drag_kick([], controller.timeline.session, controller.choices, 10.0, 0.0, 720.0) is None
    index, impulse = drag_kick([camera], controller.timeline.session, controller.choices, 360.0, 0.0, 720.0)
    L = np.linalg.norm(controller.timeline.session.snapshot.L_world[0])
    np.testing.assert_allclose(impulse, 0.5 * L * np.cross([0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]), atol=1e-9)
    apply(controller, kick=(index, impulse))
    controller.step(1)
    assert len(controller.choices.scene.kicks) == 1


def test_the_panel_draws_the_kick_section_and_the_drags(imgui_window):
    from imgui_bundle import imgui

    from spinlab.render.renderer import RenderOptions
    from spinlab.scene.files.scene_file import list_presets
    from spinlab.sim.integrators import INTEGRATORS
    from spinlab.ui.controller_state import Choices, Form
    from spinlab.ui.panel import draw_panel
    from spinlab.ui.plots import PlotOptions

    for section in ("Initial state", "Kick"):
        imgui.get_state_storage().set_int(imgui.get_id(section), 1)
    scene = load_scene("kick")
    choices = Choices(
        scene, ["implicit_midpoint"], list(INTEGRATORS), 1 / 60, render=RenderOptions(), plots=PlotOptions()
    )
    form = Form(presets=list_presets(), integrator_names=list(INTEGRATORS), kick_error="give 3 numbers")
    assert draw_panel(choices, form) == PanelEdits()


def test_the_time_plots_mark_each_kick_in_their_window(imgui_window, monkeypatch):
    from imgui_bundle import implot

    from spinlab.ui.plots import PlotOptions, draw_plots
    from tests.ui.test_plots import filled, plots_window

    marked = []
    monkeypatch.setattr(implot, "plot_inf_lines", lambda label, values, spec=None: marked.append(values.tolist()))
    history = filled(30)
    first, last = history.t()[0], history.t()[-1]
    history.kick_times = [first - 1.0, 0.5 * (first + last), last + 1.0]
    with plots_window():
        draw_plots(history, PlotOptions(seconds=1e9), (1260.0, 280.0))
    assert marked and all(values == [0.5 * (first + last)] for values in marked)


def test_an_orientation_edit_in_the_compare_preset_goes_to_every_copy(tmp_path):
    controller, host = headless_controller("compare", str(tmp_path))
    apply(controller, select_body=1)
    apply(controller, body_text=("orientation", "0.9, 0.1, 0.3, 0"))
    apply(controller, apply_body="orientation")
    orientations = np.array([body.orientation for body in controller.choices.scene.bodies])
    assert np.abs(orientations - orientations[1]).max() == 0.0 and orientations[1][0] != 1.0
    np.testing.assert_array_equal(
        controller.timeline.session.snapshot.q[0], orientations[0]
    )  # the run restarted from it


@pytest.mark.parametrize(
    "kick, why",
    [
        ("nan, 0, 0", "not a finite number"),
        ("1e400, 0, 0", "not a finite number"),
        ((float("nan"), 0.0, 0.0), "not finite"),  # numbers, as a Ctrl+drag gives them
        ((float("inf"), 1.0, 0.0), "not finite"),
        ((1e300, 0.0, 0.0), "at most 1e+50"),
    ],
)
def test_a_kick_that_is_not_a_finite_number_is_refused_beside_its_field_without_a_warning(tmp_path, kick, why):
    # A NaN, infinite or overflowing impulse given as numbers reached the kicks and numpy's RuntimeWarning.
    controller, _ = headless_controller("t_handle", str(tmp_path))
    controller.timeline.step(3)
    before = controller.timeline.session.snapshot.L_world.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        if isinstance(kick, str):
            apply(controller, kick_text=kick)
            apply(controller, kick=(0, None))
        else:
            apply(controller, kick=(0, kick))
        controller.timeline.step(3)
    assert why in controller.form.kick_error
    assert controller.choices.scene.kicks == () and not controller.timeline.session.simulation.kicks.kicks
    assert np.array_equal(controller.timeline.session.snapshot.L_world, before), "nothing struck"
