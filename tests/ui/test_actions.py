"""The panel's actions without a window: whatever an edit raises ends as a red message in the panel, beside its
field when it has one, and the run goes on from its last good state (ui/actions.py's one place for failures).

A :class:`HeadlessApp` is what :func:`ui.actions.apply` uses of the window's App: the setup, a real
:class:`~scene.run_model.Session` and its plots, restarted and stepped as App does, with no GL and no display.
"""

import errno
import warnings

import numpy as np
import pytest

from render.look import PALETTE_LINEAR
from scene.run_model import Session, Setup
from scene.scene_file import list_presets, load_scene
from sim.errors import OutputError
from sim.integrators import INTEGRATORS
from ui import actions
from ui.panel import PanelEdits, PanelState
from ui.plots import PlotHistory


class HeadlessApp:
    """The parts of :class:`ui.app.App` the actions touch, without a window (restart and step as App's)."""

    def __init__(self, scene_name: str, output_dir: str) -> None:
        names = list(INTEGRATORS)
        scene = load_scene(scene_name)
        self.state = PanelState(presets=list_presets(), scene_name=scene.name, integrator_names=names, compared=names)
        self.state.output_dir = output_dir
        self.pending = PanelEdits()
        self.recording = self.session = None
        self.want_screenshot, self.announce_recording = False, False
        actions.load_scene_into_state(self, scene)
        self.restart()

    def restart(self) -> None:
        state = self.state
        setup = Setup(
            self.scene, tuple(self.integrators), state.side_by_side, tuple(state.compared), self.h, state.gyroscopic
        )
        session = Session(setup)
        colors = np.resize(PALETTE_LINEAR, (len(session.plotted), 3))
        self.session, self.history = session, PlotHistory(session.names, colors, session.exact_rows)
        state.error = None
        self.history.append(session.sample(), np.zeros(len(session.plotted)), float("nan"))

    def step(self, count: int) -> int:
        report = self.session.step(count)
        if report.steps:
            self.history.append(self.session.sample(), report.newton_per_step, report.ms_per_step)
        if report.error:
            self.state.error, self.state.paused = report.error, True
        return report.steps


@pytest.fixture
def app(tmp_path):
    return HeadlessApp("t_handle", str(tmp_path))


def apply(app, **fields):
    """Apply one frame's edits: never raises, never warns."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        actions.apply(app, PanelEdits(**fields))


def setup_of(app):
    return app.scene, list(app.integrators), app.h, app.session


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
    message = app.state.body_errors.get(field)
    assert message and message.isprintable() and len(message) <= actions.MAX_MESSAGE
    assert setup_of(app) == before, "the running setup is kept"
    assert app.state.body_texts[field] == text, "what was typed stays, to be corrected"


@pytest.mark.parametrize("field, text", [("omega_body", "-0, -0, -0"), ("orientation", "1e308, 1e308, 0, 0"),
                                         ("moments", "1e-40, 1e-40, 1e-40"), ("omega_body", "1e50, 0, 0")])  # fmt: skip
def test_extreme_but_valid_initial_states_start_a_new_run(app, field, text):
    apply(app, body_text=(field, text), apply_body=field)
    assert field not in app.state.body_errors and not app.state.message_is_error
    assert app.session.t == 0.0
    for _ in range(5):
        apply(app, step=True)
    assert app.session.t > 0.0 or app.state.error, "the new run steps, or its failure is shown"


@pytest.mark.parametrize("text", ["1e308", "-0", "0", "5e-324", "1e-300", "nan", "inf", "-inf", "2", "1/0", "h"])
def test_bad_time_steps_are_refused_beside_the_field(app, text):
    before = setup_of(app)
    apply(app, h_text=text, apply_h=True)
    assert app.state.h_error and setup_of(app) == before and app.state.h_text == text


def test_a_tiny_time_step_is_taken_and_runs(app):
    apply(app, h_text="1e-50", apply_h=True)
    assert app.state.h_error is None and app.session.h == 1e-50
    apply(app, step=True)
    assert app.session.t == 1e-50


def test_a_blow_up_pauses_the_run_with_the_reason_and_raises_nothing(app):
    apply(app, integrator=(0, "euler"), h_text="1", apply_h=True)
    for _ in range(40):
        apply(app, step=True)
    assert app.state.paused and "'handle' (euler)" in app.state.error
    assert np.isfinite(app.session.snapshot.omega_world).all(), "the last good state is kept"
    apply(app, reset=True)
    assert app.state.error is None and app.session.t == 0.0


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
    before, t_before = setup_of(app), app.session.t

    def failing(*args, **kwargs):
        raise failure

    monkeypatch.setattr("scene.samples.References.__init__", failing)
    apply(app, integrator=(0, "euler"))
    assert app.state.message_is_error and type(failure).__name__ in app.state.message
    assert setup_of(app) == before and app.state.integrators == before[1] and app.session.t == t_before
    apply(app, body_text=("omega_body", "0, 3, 0.1"), apply_body="omega_body")
    assert type(failure).__name__ in app.state.body_errors["omega_body"]
    assert setup_of(app) == before
    monkeypatch.undo()
    apply(app, integrator=(0, "euler"))
    assert app.integrators == ["euler"] and app.session.t == 0.0


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
        assert app.state.scene_error and app.state.scene_error.isprintable(), path
        assert setup_of(app) == before and app.state.scene_name == "t_handle"
    assert "cannot run this scene" in _applied(app, scene=str(first_step)).scene_error
    apply(app, scene="compare")
    assert app.state.scene_error is None and app.state.scene_name == "compare"


def _applied(app, **fields):
    apply(app, **fields)
    return app.state


@pytest.mark.parametrize(
    "target, why",
    [("missing/dir/x.toml", "does not exist"), ("x.txt", ".toml"), (".", ".toml"), ("", ".toml")],
)
def test_saving_a_scene_to_a_bad_place_is_shown(app, tmp_path, target, why):
    apply(app, save_text=str(tmp_path / target) if target else "", save_scene=True)
    assert app.state.message_is_error and why in app.state.message
    assert sorted(p.name for p in tmp_path.iterdir()) == [], "nothing is left behind"


def test_output_faults_are_shown_and_leave_nothing(app, tmp_path, monkeypatch):
    apply(app, output_dir=str(tmp_path / "missing"), export_csv=True)
    assert app.state.message_is_error and "does not exist" in app.state.message
    apply(app, toggle_record=True)
    assert app.state.message_is_error and "cannot record" in app.state.message and app.recording is None

    def full_disk(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("scene.atomic_file.open", full_disk, raising=False)
    apply(app, output_dir=str(tmp_path), export_csv=True)
    assert app.state.message_is_error and "the disk is full" in app.state.message
    assert list(tmp_path.iterdir()) == []
    monkeypatch.undo()
    apply(app, export_csv=True)
    assert not app.state.message_is_error, app.state.message
    (csv_file,) = tmp_path.iterdir()
    header, *rows = csv_file.read_text().splitlines()
    assert rows and all("nan" not in row and "inf" not in row for row in rows), "every number written is finite"


def test_attempt_is_the_one_place_draw_time_actions_fail(app):
    def disk_full():
        raise OutputError("cannot be written: the disk is full", path="shot.png")

    assert not actions.attempt(app, disk_full, failed="screenshot not saved")
    assert app.state.message == "screenshot not saved: shot.png: cannot be written: the disk is full"
    assert app.state.message_is_error
    assert actions.attempt(app, lambda: None)
    with pytest.raises(KeyboardInterrupt):  # an interrupt is not a failure of the action: it ends the window
        actions.attempt(app, lambda: (_ for _ in ()).throw(KeyboardInterrupt()))
