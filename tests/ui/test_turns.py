"""The interpreter in turns (ui/turns.py): background work runs no Python inside the window's frames, and always
gets on between them; a window stuck in a frame, or gone, never holds it for good."""

import contextlib
import threading
import time

import pytest

from spinlab.ui.turns import Turns, turn_seconds
from tests.hang import HANG_S


class Counting:
    """A background thread counting, one Python call per count, inside ``turns.taking()`` until told to stop."""

    def __init__(self, turns: Turns) -> None:
        self.turns = turns
        self.count = 0
        self.stop = False
        self.started = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        assert self.started.wait(HANG_S), "the counting thread started"

    def _run(self) -> None:
        with self.turns.taking():
            self.started.set()
            while not self.stop:
                self._tick()

    def _tick(self) -> None:
        self.count += 1

    def finish(self) -> None:
        self.stop = True
        self.turns.end()
        self.thread.join(HANG_S)
        assert not self.thread.is_alive(), "the counting thread ended"


@contextlib.contextmanager
def counting_closed(stuck_s: float):
    """A counting thread in new turns, just closed: yields it and its count once it has parked (it may finish the
    call under way when the window took the interpreter, then parks at its next call)."""
    turns = Turns(stuck_s=stuck_s)
    counting = Counting(turns)
    try:
        turns.close()
        time.sleep(0.02)
        yield counting, counting.count
    finally:
        counting.finish()


def test_closed_the_background_runs_no_python_and_lent_it_does():
    with counting_closed(stuck_s=60.0) as (counting, parked_at):
        time.sleep(0.1)  # the window "draws": nothing of the background runs meanwhile
        assert counting.count == parked_at
        counting.turns.lend(0.05)  # returns once the turn is over: the background thread has counted meanwhile
        assert counting.count > parked_at
        time.sleep(0.02)  # the turn over, it has parked again
        parked_at = counting.count
        time.sleep(0.1)
        assert counting.count == parked_at


def test_a_frame_stuck_longer_than_the_limit_lets_the_background_run_on():
    # The window may be stuck waiting for a lock the background thread holds (an import's): no deadlock.
    with counting_closed(stuck_s=0.05) as (counting, closed_at):
        deadline = time.monotonic() + HANG_S
        while counting.count == closed_at and time.monotonic() < deadline:
            time.sleep(0.01)
        assert counting.count > closed_at


def test_lend_waits_for_the_background_only_while_it_works():
    turns = Turns(stuck_s=60.0)
    turns.close()
    turns.lend(30.0)  # nothing under way: returns at once (a 30 s wait would fail the suite's time)
    assert not turns.busy
    done = threading.Event()

    def work() -> None:
        with turns.taking():
            for _ in range(1000):
                sum(range(10))
        done.set()

    turns.close()
    worker = threading.Thread(target=work, daemon=True)
    worker.start()
    turns.lend(30.0)  # returns as the work ends, long before 30 s
    assert done.wait(HANG_S)
    worker.join(HANG_S)
    assert not turns.busy


def test_the_hook_is_the_background_threads_alone_and_removed_after():
    import sys

    turns = Turns(stuck_s=60.0)
    seen: list = []

    def work() -> None:
        with turns.taking():
            seen.append(sys.getprofile() is not None)
        seen.append(sys.getprofile() is None)

    worker = threading.Thread(target=work)
    worker.start()
    worker.join(HANG_S)
    assert seen == [True, True]
    assert sys.getprofile() is None  # this (the window's) thread was never hooked


@pytest.mark.parametrize(
    ("frame_s", "expected_s"),
    [(0.02, 0.01), (0.06, 0.015), (0.1, 0.004), (0.001, 0.004), (0.05, 0.025)],
)
def test_a_turn_is_half_the_frame_within_the_frame_target(frame_s, expected_s):
    assert turn_seconds(frame_s) == pytest.approx(expected_s)


class LoaderStandIn:
    """What the window's loop reads of its kernel loader: its turns, and close."""

    def __init__(self) -> None:
        self.turns = Turns(stuck_s=60.0)  # a test window's first frame may take longer than STUCK_S

    def close(self) -> None:
        self.turns.end()


def test_the_windows_frames_run_no_background_python(app):
    """In the real window's loop: between a frame's update and the end of its draw the background thread counts at
    most once (the call it was in when the frame began), and between frames it gets on. (After two frames: the
    window's first frames import modules, during which the background thread goes on.)"""
    app.run(frames=2)
    loader = LoaderStandIn()
    app.kernel_loader = loader
    update, draw = app.update, app.draw
    during: list[int] = []

    def counted_update(wall_dt):
        during.append(-counting.count)
        update(wall_dt)

    def counted_draw():
        draw()
        during[-1] += counting.count

    counting = Counting(loader.turns)
    app.update, app.draw = counted_update, counted_draw
    try:
        before = counting.count
        app.run(frames=20)
        after = counting.count
    finally:
        del app.update, app.draw
        app.kernel_loader = None
        counting.finish()
    assert len(during) == 20
    assert max(during) <= 1
    assert after > before


def test_parked_the_background_never_holds_the_windows_imports(tmp_path, monkeypatch):
    # An import looks for its module holding the interpreter's import lock, calling the finders (Python): parked
    # there, the background thread held every import of the window's thread until the frame was stuck. Here the
    # window's frame begins while the background thread's import is in a finder.
    import importlib
    import sys

    for name in ("turns_background_module", "turns_window_module"):
        (tmp_path / f"{name}.py").write_text("VALUE = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    turns = Turns(stuck_s=60.0)

    class FrameBeginsMidImport:
        def find_spec(self, name, path, target=None):
            if name == "turns_background_module":
                turns.close()
                sum(range(3))  # a call: the hook's chance to park, under the import lock
            return None

    monkeypatch.setattr(sys, "meta_path", [FrameBeginsMidImport(), *sys.meta_path])
    _window_imports_while_parked_in_an_import(turns, "turns_background_module", "turns_window_module")
    for name in ("turns_background_module", "turns_window_module"):
        sys.modules.pop(name, None)


def _import_in_turns(turns: Turns, name: str) -> None:
    import importlib

    with turns.taking():
        importlib.import_module(name)


def _window_imports_while_parked_in_an_import(turns: Turns, background_module: str, window_module: str) -> None:
    """The background thread imports ``background_module`` in ``turns`` (whose import closes them on the way);
    once it is parked, the window's thread imports ``window_module``, which must not wait for it."""
    import importlib

    background = threading.Thread(target=_import_in_turns, args=(turns, background_module), daemon=True)
    background.start()
    deadline = time.monotonic() + HANG_S
    while turns.lent and time.monotonic() < deadline:
        time.sleep(0.005)
    time.sleep(0.05)  # the background thread parks
    window = threading.Thread(target=importlib.import_module, args=(window_module,), daemon=True)
    window.start()
    window.join(HANG_S)
    assert not window.is_alive(), "the window's import waited for the parked background thread"
    turns.end()
    background.join(HANG_S)
    assert not background.is_alive()


def test_parked_in_a_modules_import_the_background_lets_the_window_import_it(tmp_path, monkeypatch):
    # Parked while it runs a module's code, the background thread holds that module's import lock: the window's
    # import of the same module waits for it. The background thread then goes on at once, not after stuck_s.
    import importlib
    import sys
    import types

    gate = types.ModuleType("turns_test_gate")
    turns = Turns(stuck_s=60.0)
    gate.TURNS = turns  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "turns_test_gate", gate)
    (tmp_path / "turns_shared_module.py").write_text(
        "import turns_test_gate\nturns_test_gate.TURNS.close()\nsum(range(3))\nVALUE = 1\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    _window_imports_while_parked_in_an_import(turns, "turns_shared_module", "turns_shared_module")
    sys.modules.pop("turns_shared_module", None)
