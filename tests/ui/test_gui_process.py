"""``main.py gui`` as a person runs it, in a subprocess: bad scene files refused before any window opens, and a
window that ends from outside (a signal, the X server going, the window destroyed) finalising its recording.

The window is started recording at once (``SPINLAB_GUI_RECORD``), and says so on stdout when the first frame is
in the video; only then is it stopped. Each test runs its own Xvfb, which some of them kill.
"""

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from spinlab.commands.gui import EXIT_WINDOW_GONE, RECORD_AT_START_VARIABLE
from spinlab.render.video import decode_frames, read_video_info
from spinlab.scene.files.scene_file import load_scene
from spinlab.sim.errors import InputError
from spinlab.ui.xvfb import start_xvfb, stop_xvfb, xvfb_available
from tests.hang import HANG_S
from tests.ui.x_loss_driver import DRIVER, X_WATCH_LINE, build_x_watch

MAIN = Path(__file__).resolve().parents[2] / "main.py"

BAD_FILES = {
    "syntax.toml": b"[[body]\nshape = 'box'\n",
    "binary.toml": b"\x00\xff\xfe\x1b[31m junk \x00",
    "unknown_key.toml": b'[[body]]\nshape = "box"\nspin = 3\n',
    "negative_mass.toml": b'[[body]]\nshape = "box"\nmass = -1.0\n',
    "triangle.toml": b'[[body]]\nshape = "box"\ninertia = [1.0, 1.0, 5.0]\n',
    "zero_quaternion.toml": b'[[body]]\nshape = "box"\norientation = [0.0, 0.0, 0.0, 0.0]\n',
    "nan.toml": b'[[body]]\nshape = "box"\nangular_velocity = [nan, 0.0, 0.0]\n',
    "huge.toml": b'[[body]]\nshape = "box"\nangular_velocity = [1e308, 0.0, 0.0]\n',
    "tiny_dt.toml": b'[scene]\ndt = 1e-300\n[[body]]\nshape = "box"\n',
    "deep.toml": b"x = " + b"[" * 5000 + b"]" * 5000 + b"\n",
    "no_bodies.toml": b"[scene]\n",
}
# Loads, but its first step fails: a numerical failure, refused before the window with exit status 1.
FIRST_STEP_FAILS = b'[scene]\ndt = 1.0\n[[body]]\nshape = "box"\ninertia = [1, 2, 2.9]\nangular_velocity = [1e10, 1, 1]\nintegrator = "implicit_midpoint"\n'  # noqa: E501


def _environment(**changes):
    environment = {key: value for key, value in os.environ.items() if key not in ("DISPLAY", "SPINLAB_DEBUG")}
    environment.update(changes)
    return environment


def _assert_one_line(stderr: str) -> str:
    assert "Traceback" not in stderr and "Warning" not in stderr, stderr
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("spinlab gui: "), stderr
    return lines[0]


def _bad_files(folder: Path) -> dict[str, Path | str]:
    paths: dict[str, Path | str] = {}
    for name, data in BAD_FILES.items():
        paths[name] = folder / name
        paths[name].write_bytes(data)
    os.mkfifo(folder / "fifo.toml")
    paths.update(fifo=folder / "fifo.toml", directory=folder, missing=folder / "missing.toml", device="/dev/zero")
    return paths


def test_every_file_run_refuses_is_refused_before_a_window(tmp_path, monkeypatch):
    """In process, with no display: run_gui refuses each file as `run` does (InputError), before any window."""
    from spinlab.commands.gui import run_gui

    monkeypatch.delenv("DISPLAY", raising=False)
    for path in _bad_files(tmp_path).values():
        with pytest.raises(InputError) as refused:
            load_scene(path)  # what `run` does first
        with pytest.raises(InputError) as refused_by_gui:
            run_gui(str(path))
        assert str(refused_by_gui.value) == str(refused.value)


def test_gui_exits_2_with_one_line_before_any_window_opens(tmp_path):
    """``main.py gui BADFILE`` with no display at all: the refusal comes before the window would fail to open; a
    file that fails on its first step is a numerical failure (exit status 1)."""
    paths = _bad_files(tmp_path)
    first_step = tmp_path / "first_step.toml"
    first_step.write_bytes(FIRST_STEP_FAILS)
    chosen = {name: paths[name] for name in ("syntax.toml", "nan.toml", "fifo")} | {"first_step": first_step}
    runs = {
        name: subprocess.Popen(
            [sys.executable, str(MAIN), "gui", str(path)],
            env=_environment(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name, path in chosen.items()
    }
    for name, process in runs.items():
        stdout, stderr = process.communicate(timeout=HANG_S)
        line = _assert_one_line(stderr)
        assert "no display" not in line, f"{name}: the window was tried before the file was checked"
        assert process.returncode == (1 if name == "first_step" else 2), f"{name}: {line}"
        assert stdout == ""
    assert "cannot run this scene" in line and "first_step.toml" in line


needs_xvfb = pytest.mark.skipif(not xvfb_available(), reason="no Xvfb (apt-get install -y xvfb xauth)")


class _Window:
    """``main.py gui t_handle`` (or ``command``, a Python script and its arguments, with ``changes`` to the
    environment) on a private Xvfb, recording into ``folder`` from its first frame."""

    def __init__(self, folder: Path, command: list[str] | None = None, **changes: str) -> None:
        self.folder = folder
        self.display, self.server = start_xvfb()
        environment = _environment(
            DISPLAY=self.display, XVFB_PID=str(self.server.pid), **{RECORD_AT_START_VARIABLE: "1"}, **changes
        )
        self.stdout = ""
        self.process = subprocess.Popen(
            [sys.executable, *(command or [str(MAIN), "gui", "t_handle"])],
            cwd=folder,
            env=environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        if command is not None:
            return  # the driver takes X away itself
        ready, _, _ = select.select([self.process.stdout], [], [], HANG_S)
        line = self.process.stdout.readline() if ready else ""
        if not line.startswith("recording to "):
            self.process.kill()
            pytest.fail(f"the window did not start recording: {line!r} {self.process.communicate()}")

    def end(self) -> tuple[int, str]:
        """Wait for the process to end; its exit status and stderr."""
        try:
            self.stdout, stderr = self.process.communicate(timeout=HANG_S)
        finally:
            if self.process.poll() is None:
                self.process.kill()
            stop_xvfb(self.server)
        return self.process.returncode, stderr

    def assert_video_finalised(self, line: str) -> int:
        """The one video in the folder is whole, and ``line`` names it; its frames."""
        files = sorted(self.folder.iterdir())
        assert len(files) == 1 and files[0].suffix == ".mp4", f"a temporary file was left: {files}"
        frames, width, height, fps = read_video_info(files[0])
        assert frames >= 1 and fps == 60 and width > 0 and height > 0
        assert decode_frames(files[0], [frames - 1])[0].shape == (height, width, 3)
        assert f"video saved to {files[0].name} ({frames} frames" in line
        return frames


@needs_xvfb
@pytest.mark.parametrize("signal_name", ["SIGTERM", "SIGHUP", "SIGINT"])
def test_a_signal_finalises_the_recording_and_exits_130(tmp_path, signal_name):
    window = _Window(tmp_path)
    time.sleep(0.2)  # some frames into the video (the test holds whatever the count)
    window.process.send_signal(getattr(signal, signal_name))
    status, stderr = window.end()
    line = _assert_one_line(stderr)
    assert status == 130 and "interrupted" in line, (status, line)
    window.assert_video_finalised(line)


@pytest.fixture(scope="module")
def x_watch(tmp_path_factory):
    """tests/ui/x_loss_driver.py's X_WATCH_C built, or ``None`` without a C compiler."""
    return build_x_watch(tmp_path_factory.mktemp("x_watch"))


# At the draw after this many recorded frames: the first frames, while the kernels' stages still load (one a frame),
# and a recording some way in.
FIRST_FRAMES, MID_RECORDING = 1, 40


@needs_xvfb
@pytest.mark.parametrize(
    "how, frames, why",
    [
        ("server stops", FIRST_FRAMES, "the display connection was lost"),
        ("server stops", MID_RECORDING, "the display connection was lost"),
        ("XKillClient", MID_RECORDING, "the display connection was lost"),
        ("XDestroyWindow", FIRST_FRAMES, "the window was destroyed from outside"),
        ("XDestroyWindow", MID_RECORDING, "the window was destroyed from outside"),
    ],
)
def test_a_window_gone_from_outside_finalises_the_recording_and_exits_1(tmp_path, x_watch, how, frames, why):
    """X taken away between a frame's swap and its draw (tests/ui/x_loss_driver.py): the window ends where the loss
    is found, the GL driver never handed a failed request on the window (X_WATCH_LINE, when it could be built), with
    one line, exit status 1 and the video of the frames recorded before, and of the frame drawn then: it is drawn off
    screen (render/window_frame.py) and read into the video before its copy into the window finds the loss."""
    environment = {"PYTHONPATH": str(MAIN.parent)}
    if x_watch is not None:
        environment["LD_PRELOAD"] = str(x_watch)
    window = _Window(tmp_path, [str(DRIVER), how, str(frames), "t_handle"], **environment)
    status, stderr = window.end()
    assert X_WATCH_LINE not in stderr, f"the GL driver went on after the loss: {stderr}"
    line = _assert_one_line(stderr)
    assert status == EXIT_WINDOW_GONE and why in line
    recording, taken = window.stdout.splitlines()
    assert recording.startswith("recording to ") and taken.startswith(f"taking X away: {frames} frames recorded, ")
    if frames == FIRST_FRAMES:
        loaded, _, stages = taken.split(", ")[1].split()[:3]
        assert int(loaded) < int(stages), f"the kernels had all loaded: {taken}"
    assert window.assert_video_finalised(line) == frames + 1
