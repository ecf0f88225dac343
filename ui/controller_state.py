"""What the window's controller holds, with no window: the person's choices (held once), the panel's form around
them, and the edits a frame asks for.

:class:`Choices` is the one model of what a person chose: the scene with its edited initial states, an integrator
per body, side by side and the compared integrators, ``h``, the gyroscopic term, pause, time scale, the selected
body, the views. The panel reads it and the window draws from it; nothing keeps a copy. :class:`Form` is what the
panel shows around it: the text typed into its fields (kept as typed, to be corrected), why a value was refused,
the last message, the measurements. :class:`PanelEdits` is what a frame asks for (from the panel or the keys);
ui/controller.py applies it. Nothing here imports GL, pyglet or ImGui.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from spinlab.scene.files.scene_file import SceneSpec
from spinlab.scene.model.camera_path import CameraDirector
from spinlab.scene.model.failures import DEFAULT_DIVERGENCE
from spinlab.scene.model.run_changes import InForce
from spinlab.scene.model.run_model import Setup

__all__ = ["Choices", "Form", "PanelEdits", "Status", "TEXT_SCALES", "next_text_scale"]

# The panel's and plots' text sizes a person steps through (+ and −, or the View section): 1 on a laptop, larger
# for a projector or a video call.
TEXT_SCALES = (1.0, 1.25, 1.5, 1.75, 2.0)


def next_text_scale(scale: float, steps: int) -> float:
    """The text size ``steps`` places along :data:`TEXT_SCALES` from the one nearest ``scale``, kept in range."""
    nearest = min(range(len(TEXT_SCALES)), key=lambda index: abs(TEXT_SCALES[index] - scale))
    return TEXT_SCALES[min(max(nearest + steps, 0), len(TEXT_SCALES) - 1)]


@dataclass
class Choices:
    """The person's chosen setup and how it is shown, held once. ``integrators`` has one name per body of
    ``scene`` (``None``: a kinematic body); ``compared`` are the integrators run side by side; ``h`` s.
    ``error`` is the numerical failure that paused the run. ``render`` and ``plots`` are the 3D view's and the
    plots' options (render/renderer.py's ``RenderOptions``, ui/plots.py's ``PlotOptions``): the window sets them
    and draws with them, the controller only stores what the panel asks for."""

    scene: SceneSpec
    integrators: list[str | None]
    compared: list[str]
    h: float
    side_by_side: bool = False
    gyroscopic: bool = True  # the term a restart starts with (the panel shows the run's in force: Form.in_force)
    time_scale_exp: int = 0
    paused: bool = False
    error: str | None = None
    selected_body: int = 0
    split_views: bool = True  # one view per integrator (side by side, or the compare preset)
    show_plots: bool = True
    show_panel: bool = True
    record_window: bool = False
    output_dir: str = "."
    render: Any = None
    plots: Any = None
    divergence: float = DEFAULT_DIVERGENCE  # the energy gain ΔE/E past which a view of a comparison is frozen
    initial_axis: str = "intermediate"  # the principal axis the panel measures ω's angle from (ui/kick_controls.py)
    show_key_help: bool = False  # the key-help overlay over the 3D view (F1 or ?)
    follow: bool = False  # each view's camera follows its copy of the selected body (F)
    # The scene's camera keys, played (a toggle) unless a person holds the cameras (scene/model/camera_path.py).
    camera: CameraDirector = field(default_factory=CameraDirector)
    text_scale: float = 1.0  # the panel's and plots' text size, for a projector (+ and −; one of TEXT_SCALES)

    @property
    def scene_name(self) -> str:
        return self.scene.name

    @property
    def scene_description(self) -> str:
        return self.scene.description

    @property
    def body_names(self) -> list[str]:
        return [body.name for body in self.scene.bodies]

    def setup(self) -> Setup:
        """The :class:`~scene.model.run_model.Setup` a run of these choices starts from."""
        return Setup(
            self.scene, tuple(self.integrators), self.side_by_side, tuple(self.compared), self.h, self.gyroscopic,
            self.divergence,
        )  # fmt: skip


@dataclass
class Status:
    """Measurements the panel reports: simulated and wall seconds since the reset, frame time and steps per frame
    (over the last second or so), the achieved speed over the requested one (< 1 when stepping lags) and the frame's
    budget: the mean milliseconds of each part of a frame the window timed (ui/status.py's ``FRAME_PARTS``)."""

    sim_t: float = 0.0
    wall_t: float = 0.0
    frame_ms: float = 0.0
    steps_per_frame: float = 0.0
    speed_ratio: float = 1.0
    parts_ms: dict[str, float] = field(default_factory=dict)


@dataclass
class Form:
    """What the panel shows around the :class:`Choices`: what it offers (``presets``, ``integrator_names``), the
    text typed into its fields, the ``*_error`` beside a field whose value was refused, the last ``message``
    (red when ``message_is_error``), the recording in progress and the :class:`Status`."""

    presets: list[str]
    integrator_names: list[str]
    scene_text: str = ""
    scene_error: str | None = None
    h_text: str = "1/60"
    h_error: str | None = None
    body_texts: dict[str, str] = field(default_factory=dict)
    body_errors: dict[str, str] = field(default_factory=dict)
    save_text: str = ""
    save_confirm: str | None = None  # the existing file a second press of Save replaces
    message: str | None = None
    message_is_error: bool = False
    recording: bool = False
    record_seconds: float = 0.0
    status: Status = field(default_factory=Status)
    failures: list[str] = field(default_factory=list)  # the frozen views, "label: diverged at t = … s: why"
    integrator_table: Any = (
        None  # the running session's integrators now (ui/integrator_table.py's IntegratorTable), for the cost table
    )
    kick_text: str = "0, 2, 0"  # the "Kick" section's angular impulse, N·m·s world, as typed
    kick_error: str | None = None
    omega_polar_drag: tuple[float, float, float] | None = None  # (|ω| rad/s, angle °, azimuth °) while dragged
    run: Any = None  # the run shown (scene/model/timeline.py's Timeline), whose switches in force the panel shows

    @property
    def in_force(self) -> InForce | None:
        """The gyroscopic term and the divergence threshold the run takes the step after the one shown with
        (scene/model/run_changes.py: its setup, its scripted changes and its switches), looking back too; ``None``
        without a run."""
        return None if self.run is None else self.run.in_force


@dataclass
class PanelEdits:
    """What the person asked for this frame; ``None``/``False`` fields ask for nothing."""

    scene: str | None = None  # a preset name or a .toml path to load
    loaded: Any = None  # that scene, read, checked and its run made in the background (ui/scene_load.py's SceneLoad)
    scene_text: str | None = None
    side_by_side: bool | None = None
    compare: tuple[str, bool] | None = None  # run this integrator side by side, or not
    integrator: tuple[int | None, str] | None = None  # (body index, or None for every dynamic body; name)
    h_text: str | None = None
    apply_h: bool = False
    gyroscopic: bool | None = None
    time_scale_exp: int | None = None
    toggle_pause: bool = False
    step: bool = False  # one step on (through the run's history when looking back), paused
    step_back: bool = False  # show the step before the one shown, paused (scene/model/step_record.py)
    seek: int | None = None  # show the run at this step (the timeline), paused
    to_present: bool = False  # show the run now again (End)
    branch: bool = False  # go on from the step shown as a second run beside the original (B); again: end it
    back_to_original: bool = False  # branched: go on with the original alone, the branch forgotten
    reset: bool = False
    select_body: int | None = None
    body_text: tuple[str, str] | None = None  # (field, text) being typed
    apply_body: str | None = None  # the field to apply
    render: Any = None  # new RenderOptions
    plot_shown: tuple[str, bool] | None = None
    plot_focus: str | None = None  # the plot enlarged ("": every shown plot side by side; ui/plot_focus.py)
    show_plots: bool | None = None
    split_views: bool | None = None
    follow: bool | None = None
    camera_keys: bool | None = None  # play the scene's camera keys, or not
    text_scale: float | None = None
    reset_view: bool = False
    output_dir: str | None = None
    save_text: str | None = None
    save_scene: bool = False
    screenshot: bool = False
    toggle_record: bool = False
    record_window: bool | None = None
    export_csv: bool = False
    divergence: float | None = None  # a new divergence threshold, |ΔE|/E
    kick_text: str | None = None
    # Kick body (index into the scene) and its copies now: with this angular impulse (N·m·s, world), or with the
    # typed one (None).
    kick: tuple[int, tuple[float, float, float] | None] | None = None
    clear_kicks: bool = False  # forget the scene's kicks (scripted and live) and restart
    initial_axis: str | None = None  # major | intermediate | minor
    omega_polar: tuple[float, float, float] | None = None  # the selected body's ω as (|ω| rad/s, angle, azimuth rad)
    omega_polar_drag: tuple[float, float, float] | None = None  # the drags' values while dragged (°, not applied)
    toggle_key_help: bool = False
