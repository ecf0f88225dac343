"""``spinlab gui [SCENE]`` (and plain ``spinlab``): the window's whole life (:func:`run_gui`) around ui/app.py's
:class:`~ui.app.App`.

A scene that would not run is refused before the window opens; an interrupt (Ctrl-C, or SIGTERM and SIGHUP, which
main.py raises as ``KeyboardInterrupt``), the window going from outside (ui/window.py) and any unexpected error in
the frame loop all end the same way: a recording in progress is finalised as a playable MP4, the window is closed,
and one line says why (exit status 130, 1, 1). The window going from outside ends the process where the loss is
found, often inside the GL driver (:func:`_end_at_once`): it is not closed then, nor is anything freed. pyglet,
moderngl and imgui are imported only when the window opens.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import threading
from functools import partial
from typing import TYPE_CHECKING, NoReturn

from spinlab.commands.arguments import lazy_epilog
from spinlab.scene.process.interrupts import EXIT_INTERRUPTED, STOP_SIGNALS, interrupted_message
from spinlab.sim.errors import printable

if TYPE_CHECKING:
    from spinlab.ui.app import App

__all__ = ["add_parser", "gui_command", "run_gui", "DEFAULT_SCENE", "RECORD_AT_START_VARIABLE", "EXIT_WINDOW_GONE"]

DEFAULT_SCENE = "compare"
# Set (to anything but "" or "0"), the window starts recording at once and, when the first frame is in the video,
# prints "recording to PATH" on stdout: a way to record from the first frame, and the tests' way to know when.
RECORD_AT_START_VARIABLE = "SPINLAB_GUI_RECORD"
EXIT_WINDOW_GONE = 1  # the window went from outside (its recording finalised): as any failure the command reports


def run_gui(scene: str | None, *, size: tuple[int, int] | None = None, fullscreen: bool = False) -> int:
    """Open the window on ``scene`` (a preset name or a .toml path; ``None``: the compare preset), of ``size``
    (width, height) pixels (default: ui/app.py's ``WINDOW_SIZE``) or full screen, and run until it is closed;
    returns the exit status.

    Before the app starts, the scene is loaded and started on a throwaway copy for one step (on the numpy paths:
    nothing waits for numba): a bad scene raises :class:`~sim.errors.InputError` and one that fails on its first
    step :class:`~sim.errors.NumericalError`, both before any window opens; no display raises
    :class:`~sim.errors.SpinlabError`. Once the
    window is open nothing escapes as a traceback: closing the window returns 0; an interrupt finalises a recording
    in progress, closes the window, says so on stderr and returns 130; the window going from outside finalises
    likewise, says so and ends the process with :data:`EXIT_WINDOW_GONE` there and then (:func:`_end_at_once`;
    :class:`WindowGone` if the frame loop noticed first); any other error finalises likewise and is raised again for
    the command line to report in one line.
    """
    from spinlab.scene.files.scene_file import load_scene
    from spinlab.ui.app import WINDOW_SIZE, App
    from spinlab.ui.capacity import check_window_holds
    from spinlab.ui.window import WindowGone, end_when_gone, window_gone

    spec = load_scene(scene or DEFAULT_SCENE)
    check_window_holds(spec)  # before any run of it is made
    size = size or WINDOW_SIZE
    # Nothing waits for numba to compile: the kernels compile in a worker process and load between frames while the
    # window steps without them (sim/compiled.py, ui/kernel_loader.py); the first step is checked so.
    from spinlab.scene.model.run_model import check_scene_runs
    from spinlab.scene.process.collector import freeze_survivors
    from spinlab.sim import compiled
    from spinlab.ui.kernel_loader import KernelLoader

    compiled.start_on_numpy()
    try:
        check_scene_runs(spec)
    except KeyboardInterrupt as interrupt:
        _say(interrupted_message(interrupt))
        return EXIT_INTERRUPTED
    loader = KernelLoader(scene or DEFAULT_SCENE, spec)
    try:
        app = App(spec, size=size, fullscreen=fullscreen)
    except BaseException:
        loader.close()
        raise
    app.kernel_loader = loader
    end_when_gone(app.window, partial(_end_at_once, app))
    freeze_survivors()  # what the window imported and made, out of the collector's reach (no full collection over them)
    if os.environ.get(RECORD_AT_START_VARIABLE, "") not in ("", "0"):
        app.pending.toggle_record, app.recorder.announce = True, True
    try:
        app.run()
    except KeyboardInterrupt as interrupt:
        with _interrupts_held():
            note = _close_after_failure(app)
        _say(interrupted_message(interrupt) + (f"; {note}" if note else ""))
        return EXIT_INTERRUPTED
    except BaseException:
        with _interrupts_held():
            note = _close_after_failure(app)
        gone = window_gone(app.window)
        if gone is not None:
            raise WindowGone(gone + (f"; {note}" if note else "")) from None
        raise
    with _interrupts_held() as came:
        app.close()
    if came:
        _say(f"interrupted ({signal.Signals(came[0]).name})")
        return EXIT_INTERRUPTED
    return 0


def _close_after_failure(app: App) -> str | None:
    """Finalise the recording, then free what can be freed: the window is ending for another reason, which is
    the one reported (a GL or X call left half-done by an interrupt can make the teardown fail too)."""
    note = app.finish_recording()
    with contextlib.suppress(Exception):
        app.release()
    return note


def _end_at_once(app: App, why: str) -> NoReturn:
    """The window went from outside (``why``), found inside an X call (ui/window.py's :func:`end_when_gone`):
    finalise the recording, end the kernels' worker, say so in one line and end the process with
    :data:`EXIT_WINDOW_GONE`, without returning. Returning would hand the GL driver a failed request on a window
    that is not there (it then sizes the window's buffers from uninitialised memory), and an ordinary exit would
    free GL objects and the window on a display that is gone: neither happens."""
    try:
        with _interrupts_held():
            note = app.finish_recording()
            if app.kernel_loader is not None:
                app.kernel_loader.close()
        _say(why + (f"; {note}" if note else ""))
        with contextlib.suppress(OSError, ValueError):
            sys.stdout.flush()
    finally:
        os._exit(EXIT_WINDOW_GONE)


def _say(message: str) -> None:
    """One line on stderr, as the command line writes its messages (a closed stderr is not worth an error)."""
    with contextlib.suppress(OSError, ValueError):
        print(f"spinlab gui: {printable(message)}", file=sys.stderr, flush=True)


@contextlib.contextmanager
def _interrupts_held():
    """Hold Ctrl-C, SIGTERM and SIGHUP back while a video is finalised and the window closed, so that a second
    signal cannot leave a half-written file. Yields the list of the signals that came meanwhile."""
    came: list[int] = []
    previous = {}
    if threading.current_thread() is threading.main_thread():
        for name in STOP_SIGNALS:
            number = getattr(signal, name, None)
            if number is not None and signal.getsignal(number) is not None:
                previous[number] = signal.signal(number, lambda signum, _frame: came.append(signum))
    try:
        yield came
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def gui_command(args: argparse.Namespace) -> int:
    from spinlab.render.record import parse_size

    return run_gui(args.scene, size=parse_size(args.size), fullscreen=args.fullscreen)


KEYS_HEADING = "keys and mouse in the window:"


def keys_epilog() -> str:
    """Every key and mouse gesture of the window, one a line: ui/help_texts.py's ``KEY_HELP``, the list the window's
    key-help overlay shows (and a test holds to the keys the controller handles), so the two cannot differ."""
    from spinlab.ui.help_texts import KEY_HELP

    width = max(len(key) for key, _ in KEY_HELP)
    return "\n".join([KEYS_HEADING, *(f"  {key:<{width}}  {action}" for key, action in KEY_HELP)])


def add_parser(commands) -> None:
    """Add ``gui`` to the ``commands`` of main.py's parser."""
    gui = commands.add_parser(
        "gui",
        help="open the window (the default command)",
        description="Open the spinlab window on SCENE (a preset name or a .toml path; default: compare, one "
        "T-handle per integrator). Its keys and mouse gestures are listed below; F1 or ? in the window shows the same "
        "list.",
    )
    lazy_epilog(gui, KEYS_HEADING, keys_epilog)
    gui.add_argument("scene", nargs="?", metavar="SCENE", help="a preset name or a .toml path (default: compare)")
    gui.add_argument("--size", default="1280x720", metavar="WxH", help="window pixels (default: 1280x720)")
    gui.add_argument("--fullscreen", action="store_true", help="open the window full screen (--size is then ignored)")
    gui.set_defaults(handler=gui_command)
