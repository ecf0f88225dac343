"""The interpreter taken in turns by the window's thread and a thread that works in the background (issue 22).

CPython runs one thread's Python at a time. Two threads that both want it swap every switch interval, so while the
kernel loader's thread (ui/kernel_loader.py) imported numba and loaded kernels, each of the window's frames took
about twice as long: 0.10-0.14 s gaps between frames in a start's first seconds.

With :class:`Turns` the background thread runs Python only in turns the window lends it between frames
(:meth:`Turns.lend`: a share of the frame just drawn, or the frame cap's sleep if that is longer; the window waits
for it meanwhile). Inside :meth:`Turns.taking` a profile hook on that thread alone (``sys.setprofile``: ~25 % slower
there) parks it at its first call of a Python or C function past its turn's end: it gives the interpreter back
itself, so that the window finds it free rather than asking a thread that the cores' other work may have put aside
for it (a 20 ms turn took 64 ms that way). A C call that releases the interpreter (numba's LLVM, file reads) goes on
meanwhile. It never parks while an import looks for its module: that holds the interpreter's import lock, which
every import of the window's thread takes.

Parked, it goes on at once while the window's thread is in an import (which may wait for a module the background
thread is importing, whose lock it holds); and once a frame has lasted :data:`STUCK_S` (the window waiting for some
other thing the background thread holds): at worst a slow frame, never a deadlock.
"""

from __future__ import annotations

import contextlib
import math
import sys
import threading
import time
from collections.abc import Iterator

__all__ = ["Turns", "turn_seconds", "STUCK_S"]

STUCK_S = 0.25  # a frame this long lets the background thread run on
# A frame and the turn lent after it, together, when the frame leaves room: with the hand-overs, within 0.1 s (at
# 0.09, frames of 60 ms on the numpy paths gave 0.10-0.11 s gaps).
FRAME_TARGET_S = 0.075
TURN_SHARE = 0.5  # at most this share of the frame's own time is lent after it
MIN_TURN_S = 0.004  # at least this is lent after any frame, so the background work always goes on
PARKED_LOOK_S = 0.005  # parked, the background thread looks this often whether the window waits in an import


def turn_seconds(frame_s: float) -> float:
    """How long to lend the background thread after a frame that took ``frame_s`` seconds: half the frame's time,
    cut so that the two together stay within :data:`FRAME_TARGET_S`, and never under :data:`MIN_TURN_S` (a 20 ms
    frame lends 10 ms; a 60 ms one, 15 ms; a 100 ms one, 4 ms)."""
    return max(MIN_TURN_S, min(TURN_SHARE * frame_s, FRAME_TARGET_S - frame_s))


class Turns:
    """Which thread runs Python now: the window's (from :meth:`close` on) or the background's (for the seconds
    :meth:`lend` gives it). Until the window's first :meth:`close`, and after :meth:`end`, the background thread runs
    freely; so it does once a frame has lasted ``stuck_s``."""

    def __init__(self, *, stuck_s: float = STUCK_S) -> None:
        self.stuck_s = stuck_s
        # Read by the hook at every call: plain attributes, the cheapest reads there are.
        self.lent = True
        self.lent_until = math.inf  # the turn ends then: the background thread parks itself, the interpreter free
        self._turn = threading.Condition()  # notified when a turn begins
        self._closed_at = 0.0
        self._window_thread = threading.get_ident()  # the thread of the last close()
        self._ended = False
        self._idle = threading.Event()  # set while no background work is under way
        self._idle.set()
        self._parked = threading.Event()  # set when the background thread parks or its work ends

    # -- the window's side ---------------------------------------------------------------------------------------

    def close(self) -> None:
        """A frame begins: the background thread stops at its next call until the next :meth:`lend`."""
        if self._ended:
            return
        self._closed_at = time.perf_counter()
        self._window_thread = threading.get_ident()
        self.lent = False

    def lend(self, seconds: float) -> None:
        """Between frames: the background thread may run for ``seconds``, then parks itself at its next call (so the
        window finds the interpreter free, not held by a thread the cores' other work may have put aside). When it
        has work under way, wait until it parks or its work ends."""
        if self._ended:
            return
        self._parked.clear()
        with self._turn:
            self.lent_until = time.perf_counter() + seconds
            self.lent = True
            self._turn.notify_all()
        if not self._idle.is_set():
            self._parked.wait(seconds + PARKED_LOOK_S)

    def end(self) -> None:
        """No more frames (the window closes): the background thread runs freely from now on."""
        self._ended = True
        with self._turn:
            self.lent_until = math.inf
            self.lent = True
            self._turn.notify_all()

    @property
    def busy(self) -> bool:
        """Whether background work is under way (:meth:`taking`)."""
        return not self._idle.is_set()

    # -- the background thread's side ----------------------------------------------------------------------------

    @contextlib.contextmanager
    def taking(self) -> Iterator[None]:
        """Run the block on this (background) thread in the window's turns only."""
        clock = time.perf_counter

        def hook(frame, event, arg) -> None:
            if (not self.lent or clock() > self.lent_until) and not _in_importlib(frame, _LOOKING):
                self._park()

        self._idle.clear()
        sys.setprofile(hook)
        try:
            yield
        finally:
            sys.setprofile(None)
            self._idle.set()
            self._parked.set()

    def _park(self) -> None:
        """Wait for the window's next turn; or go on at once while the window's thread is in an import (it may wait
        for a module this thread is importing), or once its frame has lasted ``stuck_s``."""
        self._parked.set()
        with self._turn:
            while not (self.lent and time.perf_counter() <= self.lent_until):
                # Since the window took the interpreter: at its frame's beginning, or at the end of the last turn.
                since = self._closed_at if math.isinf(self.lent_until) else max(self._closed_at, self.lent_until)
                stuck_for = time.perf_counter() - since
                window = sys._current_frames().get(self._window_thread)
                if stuck_for >= self.stuck_s or _in_importlib(window, _IMPORTING):
                    return
                self._turn.wait(min(self.stuck_s - stuck_for, PARKED_LOOK_S))


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
