"""The interpreter taken in turns by the window's thread and a thread that works in the background (issue 22).

CPython runs one thread's Python at a time. Two threads that both want it swap every switch interval, so while the
kernel loader's thread (ui/kernel_loader.py) imported numba and loaded kernels, each of the window's frames took
about twice as long: 0.10-0.14 s gaps between frames in a start's first seconds.

With :class:`Turns` the background thread runs Python only in turns the window lends it: from the end of one frame
(:meth:`Turns.lend`, which waits a share of the frame for it) until the next frame begins (:meth:`Turns.close`), the
window's own sleep between frames included. Inside :meth:`Turns.taking` a profile hook on that thread alone
(``sys.setprofile``: ~25 % slower there) parks it at its next call of a Python or C function once the window takes
the interpreter back; a C call that releases the interpreter (numba's LLVM, file reads) goes on meanwhile. It never
parks while an import looks for its module: that holds the interpreter's import lock, which every import of the
window's thread takes.

Parked, it goes on at once while the window's thread is in an import (which may wait for a module the background
thread is importing, whose lock it holds); and once a frame has lasted :data:`STUCK_S` (the window waiting for some
other thing the background thread holds): at worst a slow frame, never a deadlock.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Iterator

__all__ = ["Turns", "turn_seconds", "STUCK_S"]

STUCK_S = 0.25  # a frame this long lets the background thread run on
FRAME_TARGET_S = 0.09  # a frame and the turn lent after it, together, when the frame leaves room
TURN_SHARE = 0.5  # at most this share of the frame's own time is lent after it
MIN_TURN_S = 0.004  # at least this is lent after any frame, so the background work always goes on
PARKED_LOOK_S = 0.005  # parked, the background thread looks this often whether the window waits in an import


def turn_seconds(frame_s: float) -> float:
    """How long to lend the background thread after a frame that took ``frame_s`` seconds: half the frame's time,
    cut so that the two together stay within :data:`FRAME_TARGET_S`, and never under :data:`MIN_TURN_S` (a 20 ms
    frame lends 10 ms; an 80 ms one, 10 ms; a 100 ms one, 4 ms)."""
    return max(MIN_TURN_S, min(TURN_SHARE * frame_s, FRAME_TARGET_S - frame_s))


class Turns:
    """Which thread runs Python now: the window's (between :meth:`close` and the next :meth:`lend`) or the
    background's (otherwise). Until the window's first :meth:`close`, and after :meth:`end`, the background thread
    runs freely; so it does once a frame has lasted ``stuck_s``."""

    def __init__(self, *, stuck_s: float = STUCK_S) -> None:
        self.stuck_s = stuck_s
        self.lent = True  # read by the hook at every call: a plain attribute, the cheapest read there is
        self._lent = threading.Event()
        self._lent.set()
        self._closed_at = 0.0
        self._window_thread = threading.get_ident()  # the thread of the last close()
        self._ended = False
        self._idle = threading.Event()  # set while no background work is under way
        self._idle.set()

    # -- the window's side ---------------------------------------------------------------------------------------

    def close(self) -> None:
        """A frame begins: the background thread stops at its next call until the next :meth:`lend`."""
        if self._ended:
            return
        self._closed_at = time.perf_counter()
        self._window_thread = threading.get_ident()
        self.lent = False
        self._lent.clear()

    def lend(self, seconds: float) -> None:
        """A frame has ended: the background thread may run until the next :meth:`close`. When it has work under
        way, wait up to ``seconds`` (less if it finishes), so it gets that much of the interpreter."""
        self.lent = True
        self._lent.set()
        if not self._idle.is_set():
            self._idle.wait(seconds)

    def end(self) -> None:
        """No more frames (the window closes): the background thread runs freely from now on."""
        self._ended = True
        self.lent = True
        self._lent.set()

    @property
    def busy(self) -> bool:
        """Whether background work is under way (:meth:`taking`)."""
        return not self._idle.is_set()

    # -- the background thread's side ----------------------------------------------------------------------------

    @contextlib.contextmanager
    def taking(self) -> Iterator[None]:
        """Run the block on this (background) thread in the window's turns only."""

        def hook(frame, event, arg) -> None:
            if not self.lent and not _in_importlib(frame, _LOOKING):
                self._park()

        self._idle.clear()
        sys.setprofile(hook)
        try:
            yield
        finally:
            sys.setprofile(None)
            self._idle.set()

    def _park(self) -> None:
        """Wait for the window's next turn; or go on at once while the window's thread is in an import (it may wait
        for a module this thread is importing), or once its frame has lasted ``stuck_s``."""
        while not self.lent:
            stuck_for = time.perf_counter() - self._closed_at
            window = sys._current_frames().get(self._window_thread)
            if stuck_for >= self.stuck_s or _in_importlib(window, _IMPORTING):
                return
            self._lent.wait(min(self.stuck_s - stuck_for, PARKED_LOOK_S))


_LOOKING = frozenset({"_find_spec"})  # calls the finders holding the interpreter's import lock
_IMPORTING = frozenset({"_find_and_load"})  # holds (or waits for) the module's own lock


def _in_importlib(frame, names: frozenset[str]) -> bool:
    """Whether ``frame`` is inside one of importlib's functions ``names``. Walked only when a thread is about to
    park, or parked."""
    while frame is not None:
        code = frame.f_code
        if code.co_name in names and code.co_filename.startswith("<frozen importlib"):
            return True
        frame = frame.f_back
    return False
