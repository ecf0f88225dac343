"""Ctrl-C, SIGTERM and SIGHUP: one way to stop, whatever the program is doing when the signal comes.

The handler raises :class:`Interrupted` (a ``KeyboardInterrupt``) at once, which stops a command wherever it is.
A signal that comes once a stop is under way (Ctrl-C pressed twice) is absorbed: the first one's stop finishes
its cleanup (a half-written output removed, a video finalised) and ends in its one line and exit status 130,
where a second exception raised in the middle of that cleanup ended in a traceback (4 of 6 double Ctrl-Cs).
Python swallows an exception raised inside a callback from C (numba's compiler calls back into Python while it
compiles a kernel, and prints "Exception ignored"), so the handler also remembers the signal, and
:func:`raise_if_interrupted`, called at every simulation step, raises it again there.

:func:`deferred_interrupts` holds the raise back while a block creates a resource and records who owns it. It
holds it in the handler, not in the main thread's signal mask: whichever thread the kernel hands a process's
signal to (OpenBLAS's, numba's, llvmpipe's, an encoder's: any that does not block it), Python runs the handler in
the main thread at its next bytecode, so a blocked mask held nothing back once another thread was running.

A C extension's initialisation is held so too (:func:`install_handlers` gives the import system a loader of
extension modules that runs theirs as such a block). Python runs the handler at the next bytecode, and an extension's
initialisation runs Python's (numpy's ``import_array`` imports numpy's core, a Cython module the modules it names):
cut there, numpy's printed a traceback of its own before its ImportError, and C code that does not expect a failed
import may go on with what it did not get. Such inits take milliseconds; the stop comes as they end.
"""

from __future__ import annotations

import contextlib
import importlib.machinery
import signal
import sys
import threading
from collections.abc import Iterator

__all__ = [
    "Interrupted",
    "install_handlers",
    "raise_if_interrupted",
    "deferred_interrupts",
    "STOP_SIGNALS",
    "EXIT_INTERRUPTED",
    "interrupted_message",
    "ignore_stop_signals",
    "pending_stop",
]

STOP_SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP")
EXIT_INTERRUPTED = 130  # the exit status of a command stopped by one of them (128 + SIGINT, as shells report it)

_pending: str | None = None
_deferring = 0  # how many deferred_interrupts blocks the main thread is in: the handler only notes the signal


class Interrupted(KeyboardInterrupt):
    """A stop signal (its name is the message), raised in the main thread like Ctrl-C's KeyboardInterrupt."""


def _on_signal(signum: int, _frame) -> None:
    global _pending
    if _pending is not None:
        return  # a stop is under way: it ends as the first signal began it (raise_if_interrupted stops a step)
    _pending = signal.Signals(signum).name
    if not _deferring:
        raise Interrupted(_pending)  # else deferred_interrupts raises it as its block ends


def interrupted_message(interrupt: BaseException) -> str:
    """What a command stopped by ``interrupt`` says: ``"interrupted (SIGINT)"``, or ``"interrupted"`` for a bare
    ``KeyboardInterrupt``."""
    return f"interrupted ({interrupt})" if str(interrupt) else "interrupted"


def _quiet_about_swallowed_stops(hook):
    """``sys.unraisablehook`` that says nothing of a swallowed :class:`Interrupted` (it is raised again at the next
    step), nor, once a stop signal came, of what the objects it cut short say as they are destroyed (numba's
    compiler, interrupted mid-way, complains from a destructor at exit); it hands everything else to ``hook``."""

    def unraisable(report) -> None:
        if not isinstance(report.exc_value, Interrupted) and _pending is None:
            hook(report)

    unraisable.spinlab = True  # type: ignore[attr-defined]  # a mark on the function: the hook is spinlab's
    return unraisable


class _WholeInitExtensionLoader(importlib.machinery.ExtensionFileLoader):
    """The import system's loader of C extension modules, whose initialisation a stop signal does not cut: it runs
    as a :func:`deferred_interrupts` block (single-phase modules initialise in ``create_module``, multi-phase ones
    in both)."""

    def create_module(self, spec):
        with deferred_interrupts():
            return super().create_module(spec)

    def exec_module(self, module) -> None:
        with deferred_interrupts():
            super().exec_module(module)


def _file_finder_hook():
    """A path hook of the import system's file finder, with :class:`_WholeInitExtensionLoader` for extensions."""
    machinery = importlib.machinery
    return machinery.FileFinder.path_hook(
        (_WholeInitExtensionLoader, machinery.EXTENSION_SUFFIXES),
        (machinery.SourceFileLoader, machinery.SOURCE_SUFFIXES),
        (machinery.SourcelessFileLoader, machinery.BYTECODE_SUFFIXES),
    )


def _load_extensions_whole() -> None:
    """Put :func:`_file_finder_hook` in the place of the import system's file finder hook (once), and forget the
    finders made by the old one, so that every folder's next import finds its extensions with the new loader."""
    hooks = sys.path_hooks
    if any(getattr(hook, "spinlab", False) for hook in hooks):
        return
    standard = [i for i, hook in enumerate(hooks) if getattr(hook, "__name__", "") == "path_hook_for_FileFinder"]
    if not standard:
        return  # an import system arranged otherwise (frozen, embedded): left as it is
    hook = _file_finder_hook()
    hook.spinlab = True  # a mark on the function: the hook is spinlab's
    hooks[standard[0]] = hook
    sys.path_importer_cache.clear()


def install_handlers() -> None:
    """Handle :data:`STOP_SIGNALS` (from the main thread only, where Python runs signal handlers), and load C
    extensions whole (see the module's docstring)."""
    if threading.current_thread() is not threading.main_thread():
        return
    for name in STOP_SIGNALS:
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), _on_signal)
    if not getattr(sys.unraisablehook, "spinlab", False):
        sys.unraisablehook = _quiet_about_swallowed_stops(sys.unraisablehook)
    _load_extensions_whole()


def ignore_stop_signals() -> None:
    """Ignore :data:`STOP_SIGNALS` from now on (the command has ended; the process is exiting)."""
    if threading.current_thread() is not threading.main_thread():
        return
    for name in STOP_SIGNALS:
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_IGN)


def pending_stop() -> Interrupted | None:
    """The stop signal that came (an :class:`Interrupted` of its name), or ``None``. A command that ends in another
    exception after one came was stopped by it: the stop can surface as another error (Python before 3.12 turns an
    exception raised in a descriptor's ``__set_name__``, as an imported module makes a dataclass, into a
    RuntimeError), and what a stop cut short may fail as it unwinds."""
    return None if _pending is None else Interrupted(_pending)


def raise_if_interrupted() -> None:
    """Raise :class:`Interrupted` if a stop signal came and its first exception was swallowed."""
    if _pending is not None:
        raise Interrupted(_pending)


@contextlib.contextmanager
def deferred_interrupts() -> Iterator[None]:
    """Hold stop signals' interrupt back while the block runs (it creates a resource and records who owns it), and
    raise it when the block ends: an interrupt then finds the resource owned and cleans it up, never between the
    two. An exception from the block goes on as it is (the interrupt stays pending: :func:`raise_if_interrupted`)."""
    global _deferring
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _deferring += 1
    try:
        yield
    finally:
        _deferring -= 1
    if not _deferring:
        raise_if_interrupted()
