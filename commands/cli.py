"""spinlab's command line (design.md §Contracts), behind ``spinlab``, ``python -m spinlab`` and ``python main.py``.

The parser, and what every command's failure becomes; the commands themselves are in commands/, one module each.
Every mistake a user can make ends as one line on stderr and exit status 2, a numerical failure or an output fault
as one line and status 1, an interrupt as status 130; never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import sys

from spinlab.commands import bench, gui, record, run
from spinlab.scene.process.interrupts import EXIT_INTERRUPTED, interrupted_message, pending_stop
from spinlab.sim.errors import InputError, SpinlabError, printable, quoted

EXIT_USAGE = 2
# What float() reads after a minus sign: digits, a point, an exponent, inf, infinity or nan (any case).
_NEGATIVE_NUMBER = re.compile(r"^-(\d[\d_]*\.?[\d_]*|\.\d[\d_]*)([eE][-+]?\d+)?$|^-(inf|infinity|nan)$", re.IGNORECASE)


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (with a pointer to --help) and exit status 2. Every text that
    reads as a negative number (``-1``, ``-1e5``, ``-inf``, ``-nan``) is a value, not an option, so that its type
    refuses it with the reason: argparse's own test takes only ``-1`` and ``-.5``, and ``--dt -inf`` said
    "expected one argument"."""

    # argparse makes a formatter at every add_argument only to check the metavar against nargs, and a formatter's
    # default width is the terminal's, which imports shutil (with the compression modules it imports: a cost at every
    # command's start). That check takes a formatter of a given width; help and usage the terminal's, as before.
    _checking_metavar = False

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = _NEGATIVE_NUMBER

    def add_argument(self, *args, **kwargs):
        self._checking_metavar = True
        try:
            return super().add_argument(*args, **kwargs)
        finally:
            self._checking_metavar = False

    def _get_formatter(self) -> argparse.HelpFormatter:
        if self._checking_metavar:
            return self.formatter_class(prog=self.prog, width=80)  # type: ignore[call-arg]  # HelpFormatter takes it
        return super()._get_formatter()

    def error(self, message: str) -> None:  # type: ignore[override]
        message = printable(message)  # what a person typed, control characters and all, is quoted as escapes
        if len(message) > 300:
            message = message[:299] + "…"
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="spinlab",
        description="Spinning rigid bodies in real time, and why the numerics matter.",
        epilog="Run 'spinlab COMMAND --help' for the options of a command.",
    )
    # prog given (argparse would format the usage of the positionals before COMMAND, none, to find it: a formatter)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser, prog=parser.prog)
    for command in (gui, run, record, bench):
        command.add_parser(commands)
    return parser


def install_signal_handlers() -> None:
    """Ctrl-C, SIGTERM and SIGHUP stop a command the same way (:mod:`scene.process.interrupts`): a recording is
    finalised, a half-written output removed, and the exit status is 130. A write past ``ulimit -f`` fails (EFBIG)
    instead of killing the process."""
    from spinlab.scene.files.atomic_file import ignore_file_size_signal
    from spinlab.scene.process.interrupts import install_handlers

    install_handlers()
    ignore_file_size_signal()


def _report(command: str, message: str) -> None:
    """One line on stderr (a closed stderr is not worth a second error)."""
    prefix = f"spinlab {printable(command)[:40]}".rstrip()
    with contextlib.suppress(OSError, ValueError):
        print(f"{prefix}: {printable(message)}", file=sys.stderr, flush=True)


def _silence_stdout() -> None:
    """After a broken pipe, point stdout at /dev/null so the interpreter's final flush does not complain."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


def main(argv: list[str] | None = None) -> int:
    command = ""  # until the arguments are parsed
    try:
        install_signal_handlers()
        parser = build_parser()
        args = parser.parse_args(argv)
        if args.command is None:
            # design.md: plain `spinlab` (`python main.py`) opens the window on the integrator-comparison demo.
            args = parser.parse_args(["gui"])
        command = args.command
        status = args.handler(args)
        sys.stdout.flush()
        return status
    except InputError as error:
        _report(command, f"error: {error}")
        return EXIT_USAGE
    except SpinlabError as error:
        _report(command, str(error))
        return 1
    except BrokenPipeError:
        _silence_stdout()
        _report(command, "stopped: the output was closed (broken pipe)")
        return 1
    except OSError as error:
        where = f"{quoted(str(error.filename))}: " if error.filename else ""
        _report(command, f"{where}{error.strerror or error}")
        return 1
    except MemoryError:
        _report(command, "out of memory")
        return 1
    except KeyboardInterrupt as interrupt:
        _report(command, interrupted_message(interrupt))
        return EXIT_INTERRUPTED
    except Exception as error:  # noqa: BLE001 - a bug: one line, with a way to see the traceback
        stop = pending_stop()
        if stop is not None:  # a stop signal came, and surfaced as this (see pending_stop)
            _report(command, interrupted_message(stop))
            return EXIT_INTERRUPTED
        if os.environ.get("SPINLAB_DEBUG"):
            raise
        _report(command, f"internal error: {type(error).__name__}: {error} (SPINLAB_DEBUG=1 shows the traceback)")
        return 1


if __name__ == "__main__":
    sys.exit(main())
