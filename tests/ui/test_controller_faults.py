"""The controller's failures, with no window: whatever an edit raises ends as a red message in the panel, beside
its field when it has one, and the run goes on from its last good state (ui/controller.py's one place for
failures); loading and saving scene files, and the files the panel writes."""

import dataclasses
import errno
import warnings

import numpy as np
import pytest

from spinlab.scene.files.scene_file import load_scene
from spinlab.sim.errors import OutputError
from spinlab.ui.controller import KEYS, MAX_MESSAGE
from spinlab.ui.controller_state import PanelEdits
from spinlab.ui.help_texts import KEY_HELP
from tests.scene.test_scene_file import assert_same_scene
from tests.ui.headless_host import headless_controller


@pytest.fixture
def app(tmp_path):
    """The controller on the T-handle (named ``app``: what the panel edits)."""
    return headless_controller("t_handle", str(tmp_path))[0]


def apply(app, **fields):
    """Apply one frame's edits: never raises, never warns."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        app.apply(PanelEdits(**fields))


def setup_of(app):
    choices = app.choices
    return choices.scene, list(choices.integrators), choices.h, app.timeline.session


# Refused for every field (a quaternion may have any magnitude, so huge ones are only refused for the others).
NOT_NUMBERS = ["5e-324, 0, 0", "nan, 0, 0", "0, inf, 0", "-inf, 0, 0", "1/0, 0, 0", "1" + "0" * 400 + "/7, 0, 0",
               "x, y, z", "", "1, 2", "\x00\x1b[2J"]  # fmt: skip
HUGE = ["1e308, 0, 0", "-1e308, 1e308, 0", "1e51, 0, 0"]


@pytest.mark.parametrize(
    "field, text",
    [(field, text) for field in ("omega_body", "moments", "orientation") for text in NOT_NUMBERS]
    + [(field, text) for field in ("omega_body", "moments") for text in HUGE],
)
def test_extreme_initial_states_are_refused_beside_their_field(app, field, text):
    before = setup_of(app)
    text = text if field != "orientation" else text + ", 0"
    apply(app, body_text=(field, text), apply_body=field)
    message = app.form.body_errors.get(field)
    assert message and message.isprintable() and len(message) <= MAX_MESSAGE
    assert setup_of(app) == before, "the running setup is kept"
    assert app.form.body_texts[field] == text, "what was typed stays, to be corrected"


@pytest.mark.parametrize("field, text", [("omega_body", "-0, -0, -0"), ("orientation", "1e308, 1e308, 0, 0"),
                                         ("moments", "1e-40, 1e-40, 1e-40"), ("omega_body", "1e50, 0, 0")])  # fmt: skip
def test_extreme_but_valid_initial_states_start_a_new_run(app, field, text):
    apply(app, body_text=(field, text), apply_body=field)
    assert field not in app.form.body_errors and not app.form.message_is_error
    assert app.timeline.session.t == 0.0
    for _ in range(5):
        apply(app, step=True)
    assert app.timeline.session.t > 0.0 or app.choices.error, "the new run steps, or its failure is shown"


@pytest.mark.parametrize("text", ["1e308", "-0", "0", "5e-324", "1e-300", "nan", "inf", "-inf", "2", "1/0", "h"])
def test_bad_time_steps_are_refused_beside_the_field(app, text):
    before = setup_of(app)
    apply(app, h_text=text, apply_h=True)
    assert app.form.h_error and setup_of(app) == before and app.form.h_text == text


def test_a_tiny_time_step_is_taken_and_runs(app):
    apply(app, h_text="1e-50", apply_h=True)
    assert app.form.h_error is None and app.timeline.session.h == 1e-50
    apply(app, step=True)
    assert app.timeline.session.t == 1e-50


def test_a_blow_up_pauses_the_run_with_the_reason_and_raises_nothing(app):
    apply(app, integrator=(0, "euler"), h_text="1", apply_h=True)
    for _ in range(40):
        apply(app, step=True)
    assert app.choices.paused and "'handle' (euler)" in app.choices.error
    assert np.isfinite(app.timeline.session.snapshot.omega_world).all(), "the last good state is kept"
    apply(app, reset=True)
    assert app.choices.error is None and app.timeline.session.t == 0.0


def test_a_hopeless_implicit_step_pauses_the_run_with_the_reason(app):
    """A spin the implicit methods could step only in ~2^16 pieces a step (minutes a frame on the plain kernels)
    is given up after max_pieces pieces: the run pauses on its last good state with the reason, as on a blow-up."""
    apply(app, integrator=(0, "im4"), body_text=("omega_body", "0.05, 1e6, 0.05"), apply_body="omega_body")
    apply(app, step=True)
    assert app.choices.paused and "'handle' (im4)" in app.choices.error
    assert "given up after 1024 pieces" in app.choices.error and app.timeline.session.t == 0.0


@pytest.mark.parametrize(
    "failure",
    [
        np.linalg.LinAlgError("Eigenvalues did not converge"),
        FloatingPointError("overflow encountered in multiply"),
        ZeroDivisionError("float division by zero"),
        ValueError("array must not contain infs or NaNs"),
        OSError(errno.ENOMEM, "Cannot allocate memory"),
        MemoryError(),
        RuntimeError("a bug"),
    ],
    ids=lambda error: type(error).__name__,
)
def test_any_error_starting_a_run_is_shown_and_the_last_good_run_goes_on(app, monkeypatch, failure):
    apply(app, step=True)
    before, t_before = setup_of(app), app.timeline.session.t

    def failing(*args, **kwargs):
        raise failure

    monkeypatch.setattr("spinlab.scene.model.samples.References.__init__", failing)
    apply(app, integrator=(0, "euler"))
    assert app.form.message_is_error and type(failure).__name__ in app.form.message
    assert setup_of(app) == before and app.choices.integrators == before[1] and app.timeline.session.t == t_before
    apply(app, body_text=("omega_body", "0, 3, 0.1"), apply_body="omega_body")
    assert type(failure).__name__ in app.form.body_errors["omega_body"]
    assert setup_of(app) == before
    monkeypatch.undo()
    apply(app, integrator=(0, "euler"))
    assert app.choices.integrators == ["euler"] and app.timeline.session.t == 0.0


def test_scene_files_that_cannot_run_are_refused_beside_the_path(app, tmp_path):
    first_step = tmp_path / "first_step.toml"
    first_step.write_text(
        '[[body]]\nshape = "box"\ninertia = [1, 2, 2.9]\nangular_velocity = [1e10, 1, 1]\n'
        'integrator = "implicit_midpoint"\n[scene]\ndt = 1.0\n'
    )
    junk = tmp_path / "junk.toml"
    junk.write_bytes(b"\x00\xff\xfe binary \x1b[31m")
    before = setup_of(app)
    for path in [first_step, junk, tmp_path, "/dev/null", tmp_path / "missing.toml", "no_such_preset"]:
        apply(app, scene=str(path))
        assert app.form.scene_error and app.form.scene_error.isprintable(), path
        assert setup_of(app) == before and app.choices.scene_name == "t_handle"
    assert "cannot run this scene" in _applied(app, scene=str(first_step)).form.scene_error
    apply(app, scene="compare")
    assert app.form.scene_error is None and app.choices.scene_name == "compare"


def _applied(app, **fields):
    apply(app, **fields)
    return app


@pytest.mark.parametrize(
    "target, why",
    [("missing/dir/x.toml", "does not exist"), ("x.txt", ".toml"), (".", ".toml"), ("", ".toml")],
)
def test_saving_a_scene_to_a_bad_place_is_shown(app, tmp_path, target, why):
    apply(app, save_text=str(tmp_path / target) if target else "", save_scene=True)
    assert app.form.message_is_error and why in app.form.message
    assert sorted(p.name for p in tmp_path.iterdir()) == [], "nothing is left behind"


def test_output_faults_are_shown_and_leave_nothing(app, tmp_path, monkeypatch):
    apply(app, output_dir=str(tmp_path / "missing"), export_csv=True)
    assert app.form.message_is_error and "does not exist" in app.form.message
    apply(app, toggle_record=True)
    assert app.form.message_is_error and "cannot record" in app.form.message and app.host.recording is None

    def full_disk(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("spinlab.scene.files.atomic_file.open", full_disk, raising=False)
    apply(app, output_dir=str(tmp_path), export_csv=True)
    assert app.form.message_is_error and "the disk is full" in app.form.message
    assert list(tmp_path.iterdir()) == []
    monkeypatch.undo()
    apply(app, export_csv=True)
    assert not app.form.message_is_error, app.form.message
    (csv_file,) = tmp_path.iterdir()
    header, *rows = csv_file.read_text().splitlines()
    assert rows and all("nan" not in row and "inf" not in row for row in rows), "every number written is finite"


def test_attempt_is_the_one_place_draw_time_actions_fail(app):
    def disk_full():
        raise OutputError("cannot be written: the disk is full", path="shot.png")

    assert not app.attempt(disk_full, failed="screenshot not saved")
    assert app.form.message == "screenshot not saved: shot.png: cannot be written: the disk is full"
    assert app.form.message_is_error
    assert app.attempt(lambda: None)
    with pytest.raises(KeyboardInterrupt):  # an interrupt is not a failure of the action: it ends the window
        app.attempt(lambda: (_ for _ in ()).throw(KeyboardInterrupt()))


def test_loading_a_preset_or_a_scene_file_replaces_the_setup(app, tmp_path):
    apply(app, integrator=(0, "euler"), split_views=False)
    apply(app, scene="compare")
    choices, session = app.choices, app.timeline.session
    assert choices.scene_name == "compare" and session.setup == choices.setup() and session.t == 0.0
    assert choices.integrators == [body.integrator for body in load_scene("compare").bodies]
    mine = tmp_path / "mine.toml"
    mine.write_text(
        '[scene]\ndt = 0.01\n[[body]]\nshape = "box"\nangular_velocity = [0, 3, 0.1]\nintegrator = "magnus"\n'
    )
    apply(app, scene_text=str(mine), scene=str(mine))
    assert (choices.scene_name, choices.integrators, choices.h) == ("mine", ["magnus"], 0.01)
    assert app.form.h_text == "1/100" and app.form.scene_error is None and app.form.scene_text == str(mine)
    assert app.timeline.session.setup == choices.setup() and choices.selected_body == 0


def test_a_saved_setup_loads_back_as_the_same_setup(app, tmp_path):
    apply(app, integrator=(0, "magnus"), h_text="1/250", apply_h=True)
    apply(app, body_text=("omega_body", "0.1, 4, 0.0123456789"), apply_body="omega_body")
    apply(app, body_text=("moments", "1.5, 2, 3"), apply_body="moments")
    saved = tmp_path / "edited.toml"
    apply(app, save_text=str(saved), save_scene=True)
    assert app.form.message == f"scene saved to {saved}" and not app.form.message_is_error
    before = app.choices.setup()
    apply(app, scene=str(saved))
    after = app.choices.setup()
    assert after.integrators == before.integrators == ("magnus",) and after.h == before.h == 1 / 250
    # The file names the chosen integrator of each body and the chosen h as its dt.
    bodies = tuple(dataclasses.replace(body, integrator="magnus") for body in before.scene.bodies)
    assert_same_scene(after.scene, dataclasses.replace(before.scene, h=before.h, bodies=bodies))


def test_the_plotted_series_are_exported_as_csv(app, tmp_path):
    for _ in range(10):
        apply(app, step=True)
    apply(app, export_csv=True)
    assert not app.form.message_is_error, app.form.message
    path = app.form.message.split(" to ", 1)[1]
    with open(path) as file:
        header, *rows = file.read().splitlines()
    assert header.startswith("t,ms_per_step,energy_error:handle")
    assert len(rows) == app.host.series.count == 11


def test_recording_is_started_and_stopped_by_the_window(app, tmp_path):
    apply(app, toggle_record=True)
    host = app.host
    assert app.form.recording and host.recording.parent == tmp_path and host.recording.suffix == ".mp4"
    assert app.form.message == f"recording to {host.recording}"
    apply(app, toggle_record=True)
    assert not app.form.recording and host.videos and host.recording is None


def test_save_never_replaces_a_file_at_the_first_press(app, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "out").mkdir()
    apply(app, output_dir=str(tmp_path / "out"))
    apply(app, save_scene=True)
    first = tmp_path / "out" / "t_handle-edited.toml"  # in the output folder, as the screenshots and videos
    assert first.is_file() and app.form.save_confirm is None
    assert not (tmp_path / "t_handle-edited.toml").exists()
    apply(app, scene="compare")
    assert app.form.save_text == "compare-edited.toml", "the save name is the loaded scene's own"
    apply(app, save_text="t_handle-edited.toml", save_scene=True)
    assert load_scene(first).name == "t_handle-edited", "kept: the file exists"
    assert app.form.message_is_error and "exists" in app.form.message
    assert app.form.save_confirm == "t_handle-edited.toml"
    apply(app, save_text="t_handle-edited.toml")  # the name edited (to the same text): asks again
    assert app.form.save_confirm is None
    apply(app, save_scene=True)
    apply(app, save_scene=True)  # the second press overwrites
    assert [body.name for body in load_scene(first).bodies] == [body.name for body in app.choices.scene.bodies]
    assert not app.form.message_is_error and app.form.save_confirm is None


def test_a_loaded_scene_starts_with_its_own_switches_and_says_so(app):
    apply(app, gyroscopic=False, toggle_pause=True)
    assert not app.choices.gyroscopic and app.choices.paused
    apply(app, scene="compare")
    assert app.choices.gyroscopic and not app.choices.paused
    assert app.timeline.session.setup.gyroscopic
    assert "gyroscopic term on again" in app.form.message and "running" in app.form.message
    apply(app, scene="t_handle")
    assert app.form.message == "loaded t_handle"


def test_f9_starts_and_stops_a_recording_and_the_key_help_lists_it(app):
    assert app.key(KEYS["f9"]) and app.take_pending().toggle_record
    assert ("F9", "start / stop recording") in KEY_HELP


def test_f_toggles_the_follow_camera_and_the_key_help_lists_it(app):
    assert app.key(KEYS["f"])
    apply(app, **{"follow": app.take_pending().follow})
    assert app.choices.follow
    assert ("F", "the cameras follow the selected body (on / off)") in KEY_HELP
