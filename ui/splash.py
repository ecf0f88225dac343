"""The first start's splash: while a worker thread compiles the kernels (scene/warm_up.py), the window that will hold
the app says so, with what is being compiled and a progress bar, instead of staying black or absent.

:class:`Warmup` runs the work on a daemon thread and keeps its progress; :func:`show_splash` draws it in an open
window (moderngl and the text overlay of render/text.py, ImGui's own font: nothing the system must provide) about
ten times a second until the work ends or the person closes the window. numba's compiler holds the GIL most of the
time, but Python hands it over every few milliseconds, which is plenty for a frame of two rectangles and a label.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import moderngl

from spinlab.render.text import TextBox, TextOverlay
from spinlab.ui.theme import PANEL_BG_RGB
from spinlab.ui.window import clear_gl_errors, window_framebuffer

__all__ = ["Warmup", "show_splash", "SPLASH_FRAME_S"]

SPLASH_FRAME_S = 0.1
BAR_TRACK_RGBA = (0.16, 0.18, 0.22, 1.0)
BAR_RGBA = (0.35, 0.62, 0.95, 1.0)
BAR_WIDTH = 0.5  # of the window's width
BAR_HEIGHT_PX = 10


class Warmup:
    """``work(report)`` on a daemon thread; ``report(done, total, what)`` (scene/warm_up.py) updates
    :attr:`progress`. :attr:`error` is what the work raised, if anything."""

    def __init__(self, work: Callable[[Callable[[int, int, str], None]], None]) -> None:
        self.progress: tuple[int, int, str] = (0, 1, "")
        self.error: BaseException | None = None
        self.started = time.perf_counter()
        self._thread = threading.Thread(target=self._run, args=(work,), name="spinlab-warm-up", daemon=True)
        self._thread.start()

    def _run(self, work) -> None:
        try:
            work(self._report)
        except BaseException as error:  # handed to the main thread, which reports it
            self.error = error

    def _report(self, done: int, total: int, what: str) -> None:
        self.progress = (done, total, what)

    def wait(self, seconds: float | None = None) -> bool:
        """Wait up to ``seconds`` (``None``: until it ends); whether it has ended."""
        self._thread.join(seconds)
        return not self._thread.is_alive()

    @property
    def done(self) -> bool:
        return not self._thread.is_alive()

    def result(self) -> None:
        """Raise what the work raised (after it ended)."""
        if self.error is not None:
            raise self.error


def splash_lines(progress: tuple[int, int, str], elapsed_s: float) -> tuple[str, ...]:
    """The splash's label: a title, why there is a wait, and how far it got."""
    done, total, what = progress
    now = f"compiling {what}" if what else "starting"
    return (
        "spinlab",
        "First start: compiling the numerical kernels (cached for every later start).",
        f"{done} of {total} ready · {now} · {elapsed_s:.1f} s",
    )


def show_splash(window, warmup: Warmup) -> bool:
    """Draw ``warmup``'s progress in ``window`` until it ends; returns ``False`` if the person closed the window
    first. The GL objects it makes are freed before it returns."""
    ctx = moderngl.create_context()
    clear_gl_errors(ctx)
    text = TextOverlay(ctx)
    try:
        while not warmup.done:
            window.dispatch_events()
            if window.has_exit:
                return False
            _draw(ctx, text, window, warmup)
            window.flip()
            warmup.wait(SPLASH_FRAME_S)
        return True
    finally:
        text.release()


def _draw(ctx: moderngl.Context, text: TextOverlay, window, warmup: Warmup) -> None:
    width, height = window.get_framebuffer_size()
    screen = window_framebuffer(ctx, (width, height))
    screen.use()
    screen.clear(*PANEL_BG_RGB, 1.0)
    scale = max(height / 720.0, 0.5)
    done, total, _ = warmup.progress
    bar_w, bar_h = int(BAR_WIDTH * width), max(int(BAR_HEIGHT_PX * scale), 2)
    x, y = (width - bar_w) // 2, height // 2 - 2 * bar_h  # y from the bottom, as GL counts
    screen.clear(*BAR_TRACK_RGBA, viewport=(x, y, bar_w, bar_h))
    filled = int(bar_w * done / max(total, 1))
    if filled:
        screen.clear(*BAR_RGBA, viewport=(x, y, filled, bar_h))
    lines = splash_lines(warmup.progress, time.perf_counter() - warmup.started)
    box = TextBox(width / 2, height / 2 - 1.0 * bar_h, lines, anchor="bottom_left")
    # Centre the label over the bar: measure it, then place its left edge.
    _, _, box_w, _ = text.panel_rects((width, height), [box], scale)[0]
    box = TextBox(width / 2 - box_w / 2, height / 2 - 1.0 * bar_h, lines, anchor="bottom_left")
    text.draw(screen, (width, height), [box], scale)
