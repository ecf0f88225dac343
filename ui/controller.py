"""The window's controller, with no window: a frame's :class:`~ui.controller_state.PanelEdits` (from the panel or
the keys) applied to the person's :class:`~ui.controller_state.Choices`.

The run over time is the controller's :class:`~scene.model.timeline.Timeline` (started, stepped, looked back at,
taken back, branched); what needs GL is injected: the :class:`Display` (ui/run_display.py's ``RunDisplay``) follows
the timeline (its views and plots made for each run, all or nothing, and fed each step) and the :class:`Host` (the
window, ui/app.py's ``App``) records and captures what it draws; a test's window-free stand-in is both. The
controller imports no GL, no pyglet window and no ImGui.

Anything a person can get wrong (a scene file, a value, a folder), and anything else an edit raises, ends as a red
message in the panel, never as an exception: :meth:`Controller.apply` for a frame's edits and
:meth:`Controller.attempt` for the actions carried out while a frame is drawn (screenshots, video frames) are where
that is caught. A failed edit leaves the setup as it was, unless a new run had already started, which then stays.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any, Protocol, cast

from spinlab.scene.files.scene_file import SceneSpec, list_presets, load_scene
from spinlab.scene.files.scene_toml import check_body, save_scene
from spinlab.scene.model.run_model import check_scene_runs, default_integrators
from spinlab.scene.model.timeline import Follower, Timeline
from spinlab.sim.errors import InputError, SpinlabError, printable
from spinlab.sim.integrators import INTEGRATORS, METHODS
from spinlab.ui.capacity import check_window_holds, steps_per_call
from spinlab.ui.controller_state import Choices, Form, PanelEdits, next_text_scale
from spinlab.ui.edits import body_texts, edited_body, parse_impulse, parse_time_step
from spinlab.ui.files import timestamped_path
from spinlab.ui.integrator_table import failure_lines
from spinlab.ui.kick_controls import AXES, alike_bodies, live_kicks, omega_from_polar
from spinlab.ui.picking import default_body
from spinlab.ui.plot_series import PlotFeed, export_csv, marked

__all__ = ["Controller", "Host", "Display", "failure_text", "step_text", "KEYS", "KEY_HELP_KEYS", "MAX_MESSAGE"]

MAX_MESSAGE = 300  # characters of a message in the panel
# pyglet's key symbols (pyglet/window/key.py; importing it needs a display): space, →, ←, Home, End, R, V, P, H, F12.
KEYS = {
    "space": 0x020, "right": 0xFF53, "left": 0xFF51, "home": 0xFF50, "end": 0xFF57, "b": 0x062, "r": 0x072, "v": 0x076,
    "p": 0x070, "h": 0x068, "f": 0x066, "f9": 0xFFC6,
    "f12": 0xFFC9, "plus": 0x02B, "equal": 0x03D, "minus": 0x02D, "num_add": 0xFFAB, "num_subtract": 0xFFAD,
}  # fmt: skip
LARGER_TEXT_KEYS = (KEYS["plus"], KEYS["equal"], KEYS["num_add"])  # "+" is Shift+= on most layouts
SMALLER_TEXT_KEYS = (KEYS["minus"], KEYS["num_subtract"])
# The key-help overlay: F1, and "?" (pyglet's QUESTION, or SLASH: "?" is Shift+/ on most layouts).
KEY_HELP_KEYS = (0xFFBE, 0x03F, 0x02F)


class Display(Follower, Protocol):
    """What shows the run: it follows the controller's timeline (scene/model/timeline.py's
    :class:`~scene.model.timeline.Follower`: the views and the plots of each run, ``plots``) and shows it as asked."""

    plots: PlotFeed

    def show_views(self, split: bool) -> None:
        """Show the run in one view per group (``split``) or in one view."""

    def set_render_options(self, options: Any) -> None: ...

    def reset_view(self) -> None: ...


class Host(Protocol):
    """What the controller asks of the window: to capture and record what it draws."""

    def request_screenshot(self) -> None:
        """Save a screenshot of the frame being drawn."""

    def start_recording(self, path: Path) -> None: ...

    def stop_recording(self) -> str:
        """Stop recording and finalise the video (now, or in the background and say so), say where it is in the
        panel and return that message (raises if it cannot be finalised, leaving no file); the form's
        ``recording`` is ``False`` after it either way."""

    def paths_in_use(self) -> frozenset[Path]:
        """Files about to be written (videos being finalised): a new one must not take their names."""


def failure_text(error: BaseException) -> str:
    """What went wrong, in one line of at most ~300 characters: a domain error's own message, else the kind of
    error and its text (a bug or a fault the code did not foresee)."""
    text = str(error) if isinstance(error, SpinlabError) else f"{type(error).__name__}: {error}".rstrip(": ")
    text = printable(text)
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 1] + "…"


def step_text(h: float) -> str:
    """``"1/60"`` when ``h`` is the reciprocal of a whole number (to rounding), else the number."""
    rate = round(1.0 / h)
    return f"1/{rate}" if rate > 0 and 1.0 / rate == h else f"{h:.10g}"


# The choices put back when a frame's edits fail before a new run started (what was typed is kept, to be
# corrected; the view's options and the time scale are not part of the setup).
_SETUP_CHOICES = ("scene", "integrators", "side_by_side", "compared", "h", "gyroscopic", "selected_body", "paused",
                  "error", "split_views")  # fmt: skip


class Controller:
    """The person's :class:`Choices` and the panel's :class:`Form` for ``scene``, and the run's :attr:`timeline`,
    which ``display`` follows (by default ``host``, which captures and records). Call :meth:`start` once the display
    can follow a run; then :meth:`apply` each frame's edits (the keys' gather in ``pending`` meanwhile:
    :meth:`key`)."""

    def __init__(self, scene: SceneSpec, host: Host, *, output_dir: str = ".", display: Display | None = None) -> None:
        names = list(INTEGRATORS)
        self.host = host
        self.display: Display = display if display is not None else cast(Display, host)
        self.timeline = Timeline(self.display)
        # Side by side, the maths' methods by default; the engines' steps are ticked in the list (or the engines
        # preset runs them).
        self.choices = Choices(scene, list(default_integrators(scene)), compared=list(METHODS), h=scene.h)
        self.choices.output_dir = output_dir
        self.form = Form(presets=list_presets(), integrator_names=names, run=self.timeline)
        self.pending = PanelEdits()  # what keys asked for since the last frame
        self.runs = 0  # runs started
        self.load(scene)

    # -- the setup ---------------------------------------------------------------------------------------------

    def load(self, scene: SceneSpec) -> None:
        """Make ``scene`` the current one as its file sets it up (no run starts): its integrators and time step, the
        gyroscopic term on and running, whatever the last scene had (a scene that blows up without the term must
        blow up); the comparison, the speed and the view are the person's and stay (but for the overlays drawn per
        body, set to the new size's defaults when it crosses render/renderer.py's ``MANY_BODIES``). The save name
        becomes this scene's own, so that Save never writes over the scene loaded before."""
        choices, form = self.choices, self.form
        if choices.render is not None and choices.scene is not None:  # the window's options (render/renderer.py)
            choices.render = choices.render.for_scene_of(len(choices.scene.bodies), len(scene.bodies))
        choices.scene, choices.integrators, choices.h = scene, list(default_integrators(scene)), scene.h
        choices.gyroscopic, choices.paused = True, False
        choices.camera.load(scene.camera)
        form.h_text, form.h_error = step_text(scene.h), None
        form.save_text, form.save_confirm = f"{scene.name}-edited.toml", None
        self.select_body(default_body(scene))

    def select_body(self, index: int) -> None:
        self.choices.selected_body = index
        self.form.omega_polar_drag = None
        self.form.body_texts = body_texts(self.choices.scene.bodies[index])
        self.form.body_errors = {}

    def start(self, loaded=None) -> None:
        """Start the chosen setup from its initial state (all or nothing: the host's views and plots of it are
        made first); ``loaded``: a scene loaded in the background (ui/scene_load.py), whose run is this one if it
        was made for the same choices."""
        setup = self.choices.setup()
        self.timeline.restart(setup, None if loaded is None else loaded.run_for(setup))
        self.choices.error = None
        self.form.failures, self.form.integrator_table = [], self.display.plots.series.integrator_table
        self.form.status.wall_t = 0.0
        self.runs += 1

    def step(self, count: int, budget_s: float = float("inf")) -> int:
        """Take up to ``count`` steps now, within ``budget_s`` wall seconds; a numerical failure pauses the run and
        shows why, a view of a comparison frozen is listed. Returns the steps taken."""
        timeline = self.timeline
        stepped = timeline.step(count, budget_s, steps_per_call(len(timeline.session.scene.bodies)))
        if stepped.error:
            self.choices.error, self.choices.paused = stepped.error, True
        if stepped.failed:  # the others go on
            self.form.failures = failure_lines(timeline.session)
        return stepped.steps

    def _go_on_from_shown(self) -> str | None:
        """Looking back, the run goes on from the step shown first (an edit applies from there) and its later steps
        stay there to go back to: it becomes a branch from there, beside the run as it was (the original, its
        future and all). Already branched, the branch goes back there, its later steps forgotten (the original
        keeps its own). What it did, in a line for the panel (``None``: the run now, nothing to do)."""
        timeline = self.timeline
        if timeline.moment is None:
            return None
        h = timeline.session.h
        t, later = f"{timeline.shown_step * h:.4g}", f"{(timeline.record.last_step - timeline.shown_step) * h:.4g}"
        if timeline.original is not None:
            timeline.go_on_from_shown()
            self._took_back()
            return f"changed at t = {t} s: the branch's {later} s after it are forgotten (the original keeps its own)"
        timeline.branch()
        self._took_back()
        return (
            f"changed at t = {t} s as a branch: the run as it was, {later} s further, goes on beside it (left); "
            "'end branch…', 'keep the original' undoes it"
        )

    def _took_back(self) -> None:
        """The run taken back goes on from its state there (the panel shows its switches in force there)."""
        self.choices.error = None
        self.form.failures = failure_lines(self.timeline.session)

    def _back_to_original(self) -> None:
        """Branched, go on with the original alone, the branch forgotten."""
        timeline = self.timeline
        if timeline.original is None:
            return
        timeline.back_to_original()
        self._took_back()
        self.tell(f"back to the original at t = {timeline.shown_step * timeline.session.h:.4g} s: the branch is gone")

    def _branch(self) -> None:
        """Go on from the step shown as a second run beside the original (scene/model/branch.py); branched
        already, end the branch and go on with the branch's run alone."""
        timeline = self.timeline
        if timeline.original is not None:
            timeline.end_branch()
            self.tell("branch ended: the branch's run goes on alone")
            return
        original = timeline.branch()
        self._took_back()
        self.tell(
            f"branched at t = {original.step * timeline.session.h:.4g} s: the original on the left, the branch on "
            "the right; a change now applies to the branch"
        )

    # -- messages ---------------------------------------------------------------------------------------------

    def tell(self, message: str, *, error: bool = False) -> None:
        """Show ``message`` at the top of the panel (red when ``error``)."""
        self.form.message, self.form.message_is_error = message, error

    def _tell_if(self, message: str | None) -> None:
        if message is not None:
            self.tell(message)

    def attempt(self, action, *args, failed: str = "not done") -> bool:
        """Run ``action(*args)``, the one place where what is done while a frame is drawn can fail: anything it
        raises (a :class:`SpinlabError`, or any other ``Exception``: a ``ValueError``, an arithmetic or
        linear-algebra error, an ``OSError``) is shown in red in the panel as ``"<failed>: <why>"``, and the window
        goes on. Returns whether it succeeded."""
        try:
            action(*args)
        except Exception as error:  # noqa: BLE001 - every failure of an action ends here, as a message
            self.tell(f"{failed}: {failure_text(error)}", error=True)
            return False
        return True

    # -- keys -------------------------------------------------------------------------------------------------

    def key(self, symbol: int) -> bool:
        """Turn a key (pyglet's symbol) into a pending edit, or show or hide the panel at once; returns whether
        the key means something here."""
        pending = self.pending
        if symbol == KEYS["space"]:
            pending.toggle_pause = not pending.toggle_pause
        elif symbol == KEYS["right"]:
            pending.step = True
        elif symbol == KEYS["left"]:
            pending.step_back = True
        elif symbol == KEYS["home"]:
            pending.seek = 0
        elif symbol == KEYS["end"]:
            pending.to_present = True
        elif symbol == KEYS["b"]:
            pending.branch = True
        elif symbol == KEYS["r"]:
            pending.reset = True
        elif symbol == KEYS["f12"]:
            pending.screenshot = True
        elif symbol == KEYS["f"]:
            pending.follow = not self.choices.follow
        elif symbol == KEYS["f9"]:
            pending.toggle_record = not pending.toggle_record
        elif symbol == KEYS["v"]:
            pending.reset_view = True
        elif symbol == KEYS["p"]:
            pending.show_plots = not self.choices.show_plots
        elif symbol == KEYS["h"]:
            self.choices.show_panel = not self.choices.show_panel
        elif symbol in LARGER_TEXT_KEYS or symbol in SMALLER_TEXT_KEYS:
            current = self.choices.text_scale if pending.text_scale is None else pending.text_scale
            pending.text_scale = next_text_scale(current, 1 if symbol in LARGER_TEXT_KEYS else -1)
        elif symbol in KEY_HELP_KEYS:
            self.choices.show_key_help = not self.choices.show_key_help
        else:
            return False
        return True

    def take_pending(self) -> PanelEdits:
        """The keys' edits since the last call (and none pending after it)."""
        pending, self.pending = self.pending, PanelEdits()
        return pending

    # -- a frame's edits --------------------------------------------------------------------------------------

    def apply(self, edits: PanelEdits) -> None:
        """Carry out ``edits`` (see :class:`PanelEdits`). This is the one place edits are applied, and so where
        they fail: whatever an edit raises is shown in red (beside the field it came from, if any, else at the top
        of the panel), and the run goes on from its last good state: the setup is put back unless a new run had
        already started, which then stays."""
        form, choices = self.form, self.choices
        for name in ("scene_text", "save_text", "h_text", "kick_text"):
            if getattr(edits, name) is not None:
                setattr(form, name, getattr(edits, name))
        if edits.save_text is not None:
            form.save_confirm = None
        if edits.output_dir is not None:
            choices.output_dir = edits.output_dir
        if edits.body_text is not None:
            field, text = edits.body_text
            form.body_texts = {**form.body_texts, field: text}
        before = {name: getattr(choices, name) for name in _SETUP_CHOICES}
        before["integrators"] = list(choices.integrators)
        body_texts_before, runs_before, was_recording = form.body_texts, self.runs, form.recording
        try:
            self._apply_setup_edits(edits)
            self._apply_run_edits(edits)
            self._apply_kick_edits(edits)
            self._apply_view_edits(edits)
            self._apply_file_edits(edits)
        except Exception as error:  # noqa: BLE001 - the one place an edit's failure is caught (see above)
            if self.runs == runs_before:
                for name, value in before.items():
                    setattr(choices, name, value)
                form.body_texts = body_texts_before
            self._show_failure(edits, failure_text(error), was_recording)

    def _show_failure(self, edits: PanelEdits, message: str, was_recording: bool) -> None:
        """Put ``message`` beside the field the failed edit came from, or at the top of the panel."""
        form = self.form
        if edits.scene is not None:
            form.scene_error = message
        elif edits.apply_h:
            form.h_error = message
        elif edits.apply_body is not None:
            form.body_errors = {**form.body_errors, edits.apply_body: message}
        else:
            self.tell(f"{_what_failed(edits, was_recording)}: {message}", error=True)

    def _apply_setup_edits(self, edits: PanelEdits) -> None:
        """Edits that change the setup, then one restart if any did."""
        choices, form = self.choices, self.form
        if edits.scene is not None:
            if edits.loaded is not None:  # done in the background (ui/scene_load.py)
                if edits.loaded.error is not None:
                    raise edits.loaded.error
                scene = edits.loaded.scene
            else:
                scene = load_scene(edits.scene)
                check_window_holds(scene)
                check_scene_runs(scene)
            form.scene_error = None
            off = not self.timeline.in_force.gyroscopic  # as the panel's box shows it
            switched = [what for what, was in (("gyroscopic term on again", off), ("running", choices.paused)) if was]
            self.load(scene)
            self.start(edits.loaded)
            self.tell(f"loaded {scene.name}" + (f" ({', '.join(switched)}, as the scene sets up)" if switched else ""))
        restart = False
        if edits.side_by_side is not None:
            choices.side_by_side, restart = edits.side_by_side, True
        if edits.compare is not None:
            name, on = edits.compare
            chosen = [
                other
                for other in form.integrator_names
                if (other == name and on) or (other != name and other in choices.compared)
            ]
            if chosen:  # at least one
                choices.compared, restart = chosen, True
        if edits.integrator is not None:
            index, name = edits.integrator
            integrators = list(choices.integrators)
            if index is None:  # every dynamic body (a kinematic one has none)
                integrators = [None if old is None else name for old in integrators]
            else:
                integrators[index] = name
            choices.integrators, restart = integrators, True
        if edits.apply_h:
            h = parse_time_step(form.h_text)
            form.h_error, restart = None, restart or h != choices.h
            choices.h = h
        if edits.apply_body is not None:
            self._apply_body_edit(edits.apply_body)
            restart = True
        if edits.initial_axis in AXES:
            choices.initial_axis = edits.initial_axis
        if edits.omega_polar_drag is not None:
            form.omega_polar_drag = edits.omega_polar_drag
        if edits.omega_polar is not None:
            form.omega_polar_drag = None
            self._apply_omega_polar(edits.omega_polar)
            restart = True
        if edits.clear_kicks and choices.scene.kicks:
            choices.scene, restart = dataclasses.replace(choices.scene, kicks=()), True
        if edits.select_body is not None:
            self.select_body(edits.select_body)
        if restart or edits.reset:
            self.start()

    def _apply_body_edit(self, field: str) -> None:
        """The selected body with ``field`` set from its text, checked as a scene file's body is."""
        choices, form = self.choices, self.form
        index = choices.selected_body
        bodies = list(choices.scene.bodies)
        # In a comparison, every copy that started alike gets the edit (ui/kick_controls.py).
        for other in alike_bodies(choices.setup(), index, field):
            body = edited_body(choices.scene.bodies[other], field, form.body_texts.get(field, ""))
            check_body(body, choices.integrators[other])
            bodies[other] = body
        choices.scene = dataclasses.replace(choices.scene, bodies=tuple(bodies))
        form.body_errors = {key: value for key, value in form.body_errors.items() if key != field}

    def _apply_omega_polar(self, polar: tuple[float, float, float]) -> None:
        """The selected body's (and its alike copies') initial ω from (|ω|, angle off the chosen principal axis,
        azimuth), through the typed field's path, so it is checked and shared alike."""
        choices = self.choices
        body = choices.scene.bodies[choices.selected_body]
        omega = omega_from_polar(*polar, body.inertia_com, choices.initial_axis)
        text = ", ".join(f"{float(value):.17g}" for value in omega)
        self.form.body_texts = {**self.form.body_texts, "omega_body": text}
        self._apply_body_edit("omega_body")
        self.form.body_texts = body_texts(choices.scene.bodies[choices.selected_body])  # shown as typed values are

    def _apply_kick_edits(self, edits: PanelEdits) -> None:
        """A kick struck now on a body and every copy that started alike: at the running simulation's next step
        boundary, added to the scene (a reset replays it, a save writes it) and to the running simulation."""
        if edits.kick is None:
            return
        choices, form = self.choices, self.form
        index, impulse = edits.kick
        if choices.scene.bodies[index].kinematic:
            form.kick_error = "a kinematic body's motion is prescribed: select a dynamic body to kick"
            return
        try:
            impulse = parse_impulse(form.kick_text if impulse is None else impulse)
        except InputError as error:
            form.kick_error = failure_text(error)
            return
        setup = choices.setup()
        bodies = alike_bodies(setup, index, "omega_body")
        branched = self._go_on_from_shown()  # struck at the step shown
        simulation = self.timeline.session.simulation
        choices.scene, run_kicks = live_kicks(setup, bodies, impulse, simulation.step_index, simulation.h)
        for kick in run_kicks:
            simulation.kicks.add(kick)
        marked(self.display.plots.series, self.timeline.session)
        form.kick_error = None
        shown = ", ".join(f"{value:.3g}" for value in impulse)
        where = f"{len(run_kicks)} bodies" if len(run_kicks) > 1 else f"'{choices.scene.bodies[index].name}'"
        kicked = f"kick [{shown}] N·m·s on {where} at t = {run_kicks[0].time:.4g} s"
        self.tell(kicked if branched is None else f"{branched}; {kicked}")

    def _apply_run_edits(self, edits: PanelEdits) -> None:
        """The run's switches (from the step shown: looking back, the run goes back there first), pause, and
        moving through its step record."""
        choices, timeline = self.choices, self.timeline
        if edits.gyroscopic is not None:
            self._tell_if(self._go_on_from_shown())
            choices.gyroscopic = edits.gyroscopic
            timeline.session.set_gyroscopic(edits.gyroscopic)
            marked(self.display.plots.series, timeline.session)
        if edits.time_scale_exp is not None:
            choices.time_scale_exp = edits.time_scale_exp
        if edits.divergence is not None:  # the run goes on; views beyond it are frozen from the next step
            self._tell_if(self._go_on_from_shown())
            choices.divergence = edits.divergence
            timeline.session.set_divergence(edits.divergence)
        if edits.seek is not None or edits.step_back:
            choices.paused = True
            timeline.seek(edits.seek if edits.seek is not None else timeline.shown_step - 1)
        if edits.to_present:
            timeline.seek(timeline.session.simulation.step_index)
        if edits.branch:
            self._branch()
        if edits.back_to_original:
            self._back_to_original()
        if edits.toggle_pause and not choices.error:
            choices.paused = not choices.paused
        if edits.step:
            choices.paused = True
            if timeline.moment is not None:
                timeline.seek(timeline.shown_step + 1)  # the recorded step
            elif not choices.error:
                self.step(1)

    def _apply_view_edits(self, edits: PanelEdits) -> None:
        choices = self.choices
        if edits.render is not None:
            choices.render = edits.render
            self.display.set_render_options(edits.render)
        if edits.plot_shown is not None:
            name, on = edits.plot_shown
            choices.plots.shown[name] = on
        if edits.plot_focus is not None:
            choices.plots.focus = edits.plot_focus
        if edits.show_plots is not None:
            choices.show_plots = edits.show_plots
        if edits.reset_view:
            self.display.reset_view()
        if edits.toggle_key_help:
            choices.show_key_help = not choices.show_key_help
        if edits.split_views is not None:
            choices.split_views = edits.split_views
            self.display.show_views(edits.split_views)
        if edits.follow is not None:
            choices.follow = edits.follow
        if edits.camera_keys is not None:
            choices.camera.playing = edits.camera_keys
        if edits.text_scale is not None:
            choices.text_scale = next_text_scale(edits.text_scale, 0)

    def _apply_file_edits(self, edits: PanelEdits) -> None:
        choices, form = self.choices, self.form
        if edits.record_window is not None:
            choices.record_window = edits.record_window
        if edits.screenshot:
            self.host.request_screenshot()
        if edits.toggle_record:
            self.host.stop_recording() if form.recording else self._start_recording()
        if edits.export_csv:
            path = export_csv(
                self.display.plots.series, timestamped_path(choices.output_dir, choices.scene_name, ".csv")
            )
            self.tell(f"plotted series saved to {path}")
        if edits.save_scene:
            self._save_scene()

    def _save_scene(self) -> None:
        """Save the setup under the typed name, in the output folder unless the name is an absolute path (as the
        screenshots, videos and CSV); a file of that name is replaced only at a second press, the button then saying
        "Overwrite" (an edit of the name asks again)."""
        choices, form = self.choices, self.form
        name = form.save_text.strip()
        target = os.path.join(choices.output_dir, os.path.expanduser(name)) if name else name
        if os.path.isfile(target) and form.save_confirm != name:
            form.save_confirm = name
            self.tell(f"'{name}' exists: press Overwrite to replace it, or change the name", error=True)
            return
        # The run's gyroscopic switches go with it, so that the file gives the run shown again (a branch's too).
        scene = dataclasses.replace(choices.scene, changes=self.timeline.session.scripted_changes())
        path = save_scene(target, scene, tuple(choices.integrators), choices.h)
        form.save_confirm = None
        self.tell(f"scene saved to {path}")

    def _start_recording(self) -> None:
        directory = self.choices.output_dir
        if not os.path.isdir(directory):
            raise InputError(f"folder '{directory}' does not exist")
        path = timestamped_path(directory, self.choices.scene_name, ".mp4", taken=self.host.paths_in_use())
        self.host.start_recording(path)
        self.form.recording = True
        self.tell(f"recording to {path}")


def _what_failed(edits: PanelEdits, was_recording: bool) -> str:
    """What a person asked for, as the start of the message saying it failed."""
    if edits.export_csv:
        return "plots not exported"
    if edits.save_scene:
        return "scene not saved"
    if edits.toggle_record:
        return "video not saved" if was_recording else "cannot record"
    if edits.step:
        return "cannot step"
    if edits.reset or edits.integrator or edits.compare or edits.side_by_side is not None:
        return "cannot restart"
    return "not done"
