"""A window-free :class:`~ui.controller.Host` for the controller's tests: real runs (a
:class:`~scene.model.run_model.Session` and its plots, restarted all or nothing and stepped as the window does), and a
record of what the controller asked the window to show, record or capture. No GL, no display, no ImGui."""

from pathlib import Path

import numpy as np

from spinlab.render.look import PALETTE_LINEAR
from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.model.run_model import Session, Setup
from spinlab.ui.controller import Controller
from spinlab.ui.cost_history import failure_lines
from spinlab.ui.plot_history import PlotHistory, new_history


class SessionHost:
    """What :class:`ui.app.App` does for the controller, less the drawing."""

    def __init__(self) -> None:
        self.session: Session | None = None
        self.history: PlotHistory | None = None
        self.choices = self.form = None  # the controller's, set by :func:`headless_controller`
        self.split_views: list[bool] = []
        self.render_options: list[object] = []
        self.view_resets = 0
        self.screenshots = 0
        self.recording: Path | None = None
        self.videos: list[Path] = []
        self.shown: int | None = None  # the step looked back at (None: the run now)
        self.branches = 0  # branches asked for

    def restart(self, setup: Setup) -> None:
        session = Session(setup, history=True)
        self.shown = None
        history = new_history(session, np.resize(PALETTE_LINEAR, (len(session.scene.bodies), 3)))
        history.append(session.latest.sample, np.zeros(len(session.plotted)), float("nan"))
        self.session, self.history = session, history
        if self.form is not None:
            self.form.failures, self.form.live = [], history.live

    def step(self, count: int) -> int:
        report = self.session.step(count)
        if report.steps:
            self.history.append(self.session.latest.sample, report.newton_per_step, report.ms_per_step)
        if report.error:
            self.choices.error, self.choices.paused = report.error, True
        if report.failed:
            self.form.failures = failure_lines(self.session)
        return report.steps

    @property
    def shown_step(self) -> int:
        return self.session.simulation.step_index if self.shown is None else self.shown

    def seek(self, step: int) -> None:
        history = self.session.history
        step = min(max(int(step), history.first_step), history.last_step)
        self.shown = None if step == history.last_step else step

    def branch(self) -> None:
        self.branches += 1

    def go_on_from_shown(self) -> None:
        if self.shown is not None:
            self.session, self.shown = self.session.at_step(self.shown), None

    def show_views(self, split: bool) -> None:
        self.split_views.append(split)

    def set_render_options(self, options: object) -> None:
        self.render_options.append(options)

    def reset_view(self) -> None:
        self.view_resets += 1

    def request_screenshot(self) -> None:
        self.screenshots += 1

    def start_recording(self, path: Path) -> None:
        self.recording = path

    def paths_in_use(self) -> frozenset[Path]:
        return frozenset()

    def stop_recording(self) -> str:
        self.videos.append(self.recording)
        self.recording, self.form.recording = None, False
        return f"video saved to {self.videos[-1]}"


def headless_controller(scene_name: str, output_dir: str) -> tuple[Controller, SessionHost]:
    """A controller on the preset ``scene_name``, its run started, writing its files to ``output_dir``."""
    host = SessionHost()
    controller = Controller(load_scene(scene_name), host, output_dir=output_dir)
    host.choices, host.form = controller.choices, controller.form
    controller.start()
    return controller, host
