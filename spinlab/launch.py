"""Where every way of starting spinlab begins: the ``spinlab`` command, ``python -m spinlab`` and ``python main.py``.

Four things are settled here before the rest of the program is imported, so that they hold from its first import on:

- the stop signals (Ctrl-C, SIGTERM, SIGHUP) take their one path (scene/process/interrupts.py, which needs only the
  standard library): a signal during the imports ends the command as one at any other time does, in one line and
  exit status 130, where Python's own Ctrl-C printed a traceback of the import it cut short;
- stdout and stderr write UTF-8 whatever the locale says (``LC_ALL=C``, ``PYTHONIOENCODING=ascii``, a C locale
  that Python does not coerce): the run table's "Δ" and a body's name come out as the same bytes everywhere, where
  an ASCII stdout ended ``run`` in "internal error: UnicodeEncodeError". A character UTF-8 cannot encode (a file
  name's undecodable byte, kept by Python as a lone surrogate) is written as its backslash escape;
- a crash in native code (a fault in a C library: a segmentation fault, an abort) says where on stderr, the Python
  traceback of every thread (``faulthandler``), where the process ended with no word of what it was doing;
- numpy's OpenBLAS runs on one thread (``OPENBLAS_NUM_THREADS=1``, unless set): spinlab's linear algebra is on
  stacks of 3×3 matrices, which OpenBLAS never splits over threads, but its threads start with numpy's import and
  spin there, a large share of a short run's CPU time, and beside the window's frames on 2 cores. The kernels' own
  threads are numba's (sim/integrators/threads.py).
"""

from __future__ import annotations

import contextlib
import faulthandler
import os
import sys

__all__ = ["main", "utf8_output", "one_blas_thread"]


def utf8_output() -> None:
    """Make ``sys.stdout`` and ``sys.stderr`` write UTF-8 (backslash escapes for what it cannot encode), whatever
    the locale's encoding; a stream that is missing or cannot be reconfigured is left as it is."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(OSError, ValueError):
                reconfigure(encoding="utf-8", errors="backslashreplace")


def one_blas_thread() -> None:
    """Ask numpy's OpenBLAS for one thread, unless the person chose (read at numpy's import: call it before)."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def main(argv: list[str] | None = None) -> int:
    """Install the stop signals' handlers, UTF-8 output and the crash report, ask OpenBLAS for one thread, then run
    the command line (commands/cli.py) on ``argv`` (default ``sys.argv[1:]``); returns the exit status."""
    from spinlab.scene.process.interrupts import (
        EXIT_INTERRUPTED,
        ignore_stop_signals,
        install_handlers,
        interrupted_message,
        pending_stop,
    )

    install_handlers()
    utf8_output()
    with contextlib.suppress(OSError, ValueError, AttributeError):  # a stderr without a file descriptor: none
        faulthandler.enable(all_threads=True)
    one_blas_thread()
    try:
        from spinlab.commands.cli import main as command_line
    except BaseException as error:
        # A stop signal while the command line itself was being imported, raised as such or surfaced as another
        # error (see pending_stop); anything else is a bug, with its traceback.
        interrupt = error if isinstance(error, KeyboardInterrupt) else pending_stop()
        if interrupt is None:
            raise
        with contextlib.suppress(OSError, ValueError):
            print(f"spinlab: {interrupted_message(interrupt)}", file=sys.stderr, flush=True)
        status = EXIT_INTERRUPTED
    else:
        status = command_line(argv)
    # The outcome is decided and said: a stop signal during the interpreter's exit would otherwise meet the default
    # action that Python restores as it shuts down, and end the process by the signal instead of this status.
    ignore_stop_signals()
    return status


if __name__ == "__main__":
    sys.exit(main())
