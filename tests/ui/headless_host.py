"""A window-free :class:`~ui.controller.Host` for the controller's tests: the controller's timeline runs real runs
(scene/model/timeline.py) and this host follows them with real plots (ui/plot_series.py's ``PlotFeed``), and keeps
a record of what the controller asked the window to show, record or capture. No GL, no display, no ImGui."""

from pathlib import Path

from spinlab.scene.files.scene_file import load_scene
from spinlab.ui.controller import Controller
from spinlab.ui.plot_series import PlotFeed


class SessionHost(PlotFeed):
    """The plots of the controller's runs, and what it asked of the window, counted."""

    def __init__(self) -> None:
        super().__init__()
        self.plots = self
        self.form = None  # the controller's, set by :func:`headless_controller`
        self.split_views: list[bool] = []
        self.render_options: list[object] = []
        self.view_resets = 0
        self.screenshots = 0
        self.recording: Path | None = None
        self.videos: list[Path] = []

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
    host.form = controller.form
    controller.start()
    return controller, host
