"""Run spinlab's command line on one input and say everything that is wrong with what it did.

:func:`invoke` calls ``main.main(argv)`` in this process (about 100× cheaper than a new interpreter, which
loads numba's cache) with what a real run has: the default numpy error state and warning filters, an
environment without ``SPINLAB_NO_LIMITS`` or ``DISPLAY``, the output folder as working directory, stdout and
stderr captured at both the Python and the file-descriptor level (so C libraries' messages are seen), and the
signal handlers main installs put back afterwards. ``SPINLAB_DEBUG=1`` makes an internal error escape as the
exception it is, so a failure shows its traceback. A watchdog (tests/hang.py) turns a hang into a failure; the
work of each case is bounded by its inputs (steps × bodies, tests/fuzz/cases.py), never by the clock.
:func:`invoke_subprocess` runs the real ``python main.py`` for comparison and for the GUI.

:func:`problems` checks an :class:`Outcome` against the contract (design.md) and returns
``(class, detail)`` pairs; an empty list means the input was handled well.
"""

from __future__ import annotations

import contextlib
import csv
import io
import math
import os
import re
import signal
import subprocess
import sys
import tempfile
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tests.hang import HANG_S, hang_message

ROOT = Path(__file__).resolve().parents[2]
TRACE_FIELDS = "t,body,qw,qx,qy,qz,wx,wy,wz,Lx,Ly,Lz,energy".split(",")
HANG_SECONDS = HANG_S  # a watchdog, not a time limit: a busy machine takes its time, a hang waits for ever
SILENT_WARNINGS = (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning)
_NONFINITE = re.compile(r"(?<![A-Za-z0-9_])[-+]?(nan|inf|infinity)(?![A-Za-z0-9_])", re.IGNORECASE)

__all__ = [
    "Outcome", "Hang", "invoke", "invoke_subprocess", "problems", "check_trace", "table_problems", "ROOT",
    "HANG_SECONDS", "project_frame",
]  # fmt: skip


class Hang(BaseException):
    """Raised by the watchdog; a BaseException so that main's ``except Exception`` does not swallow it."""


@dataclass
class Outcome:
    """What one command did: exit ``status`` (``None`` for a hang or an escaped exception), its output streams,
    the warnings raised, and the escaped exception's traceback text."""

    argv: list[str]
    status: int | None
    stdout: str
    stderr: str
    warnings: list[str] = field(default_factory=list)
    escaped: str | None = None
    escaped_type: str | None = None
    escaped_where: str | None = None
    hung: bool = False


def _on_alarm(_signum, _frame):
    raise Hang()


@contextlib.contextmanager
def _captured_fds():
    """Point file descriptors 1 and 2 at temporary files; yields a function that reads what they got."""
    files = [tempfile.TemporaryFile(), tempfile.TemporaryFile()]
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        with contextlib.suppress(Exception):
            stream.flush()
    saved = [os.dup(1), os.dup(2)]
    os.dup2(files[0].fileno(), 1)
    os.dup2(files[1].fileno(), 2)

    def read() -> tuple[str, str]:
        texts = []
        for file in files:
            file.seek(0)
            texts.append(file.read().decode("utf-8", "replace"))
        return texts[0], texts[1]

    try:
        yield read
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for descriptor in saved:
            os.close(descriptor)
        for file in files:
            file.close()


def project_frame(error: BaseException) -> str:
    """``file:function`` of the innermost frame of the project (not a library) where ``error`` was raised."""
    frames = traceback.extract_tb(error.__traceback__)
    mine = [f for f in frames if str(ROOT) in f.filename and not any(p in f.filename for p in ("/.venv/", "/tests/"))]
    frame = (mine or frames or [None])[-1]
    if frame is None:
        return "?"
    return f"{os.path.relpath(frame.filename, ROOT)}:{frame.name}"


def invoke(argv: list[str], cwd: Path, *, timeout: float = HANG_SECONDS, debug: bool = True) -> Outcome:
    """``main.main(argv)`` in this process, in ``cwd``; see the module docstring."""
    from spinlab.commands import cli

    handled = [s for s in ("SIGTERM", "SIGHUP", "SIGXFSZ", "SIGINT", "SIGPIPE") if hasattr(signal, s)]
    saved_handlers = {name: signal.getsignal(getattr(signal, name)) for name in handled}
    saved_env = {k: os.environ.get(k) for k in ("SPINLAB_NO_LIMITS", "DISPLAY", "WAYLAND_DISPLAY", "SPINLAB_DEBUG")}
    saved_cwd = os.getcwd()
    out, err = io.StringIO(), io.StringIO()
    status, escaped, escaped_type, escaped_where, hung = None, None, None, None, False
    caught: list[warnings.WarningMessage] = []
    for key in ("SPINLAB_NO_LIMITS", "DISPLAY", "WAYLAND_DISPLAY"):
        os.environ.pop(key, None)
    if debug:
        os.environ["SPINLAB_DEBUG"] = "1"
    else:
        os.environ.pop("SPINLAB_DEBUG", None)
    previous_alarm = signal.signal(signal.SIGALRM, _on_alarm)
    try:
        os.chdir(cwd)
        with (
            _captured_fds() as read_fds,
            warnings.catch_warnings(record=True) as caught,
            np.errstate(divide="warn", over="warn", under="ignore", invalid="warn"),
        ):
            warnings.simplefilter("always")
            try:
                with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                    signal.setitimer(signal.ITIMER_REAL, timeout)
                    try:
                        status = cli.main(list(argv))
                    finally:
                        signal.setitimer(signal.ITIMER_REAL, 0.0)
            except SystemExit as exit_:
                status = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
            except Hang:
                hung = True
            except BaseException as error:  # noqa: BLE001 - an escape from main is exactly what is looked for
                escaped = "".join(traceback.format_exception(error))[-4000:]
                escaped_type, escaped_where = type(error).__name__, project_frame(error)
            fd_out, fd_err = read_fds()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0.0)
        signal.signal(signal.SIGALRM, previous_alarm)
        os.chdir(saved_cwd)
        for name, handler in saved_handlers.items():
            if handler is not None:
                signal.signal(getattr(signal, name), handler)
        for key, value in saved_env.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    shown = [
        f"{w.category.__name__}: {w.message} ({os.path.relpath(w.filename, ROOT)}:{w.lineno})"
        for w in caught
        if not issubclass(w.category, SILENT_WARNINGS)
    ]
    return Outcome(list(argv), status, out.getvalue() + fd_out, err.getvalue() + fd_err, shown, escaped,
                   escaped_type, escaped_where, hung)  # fmt: skip


def invoke_subprocess(argv: list[str], cwd: Path, *, timeout: float = HANG_SECONDS) -> Outcome:
    """The real ``python main.py argv`` in ``cwd``, without a display or the limits lifted."""
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "SPINLAB_NO_LIMITS")}
    env.pop("SPINLAB_DEBUG", None)
    env["PYTHONPATH"] = str(ROOT)
    try:
        result = subprocess.run(
            [sys.executable, str(ROOT / "main.py"), *argv], cwd=cwd, env=env, capture_output=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return Outcome(list(argv), None, "", "", hung=True)
    return Outcome(
        list(argv), result.returncode, result.stdout.decode("utf-8", "replace"),
        result.stderr.decode("utf-8", "replace"),
    )  # fmt: skip


def _finite_number(token: str) -> bool:
    try:
        return math.isfinite(float(token))
    except ValueError:
        return False


def check_trace(path: Path, names: list | None, steps: int | None, h: float | None) -> list[tuple[str, str]]:
    """A trace as any CSV reader sees it: the header, 13 fields a row, finite numbers, known body names, one
    row per body per step (the initial state included), ``t`` = step index × h."""
    try:
        with open(path, newline="", encoding="utf-8") as file:
            rows = list(csv.reader(file, strict=True))
    except (csv.Error, UnicodeDecodeError) as error:
        return [("trace-unreadable", f"{path.name}: {error}")]
    if not rows or rows[0] != TRACE_FIELDS:
        return [("trace-header", f"{path.name}: header {rows[:1]!r}")]
    found = []
    for number, row in enumerate(rows[1:], start=2):
        if len(row) != len(TRACE_FIELDS):
            return [("trace-fields", f"{path.name} line {number}: {len(row)} fields: {row[:3]!r}…")]
        bad = [value for i, value in enumerate(row) if i != 1 and not _finite_number(value)]
        if bad:
            return [("trace-nonfinite", f"{path.name} line {number}: {row!r}")]
        if names is not None and row[1] not in names:
            found.append(("trace-name", f"{path.name} line {number}: body {row[1]!r} is none of {names[:5]!r}"))
            break
    if steps is not None and names is not None and len(rows) - 1 != (steps + 1) * len(names):
        found.append(("trace-rows", f"{path.name}: {len(rows) - 1} rows, expected ({steps} + 1) × {len(names)}"))
    elif steps is not None and h is not None and names:
        last = float(rows[-1][0])
        if not math.isclose(last, steps * h, rel_tol=1e-12, abs_tol=0.0):
            found.append(("trace-time", f"{path.name}: last t = {last!r}, expected {steps} × {h!r} = {steps * h!r}"))
    return found


def table_problems(stdout: str) -> list[tuple[str, str]]:
    """``run``'s table: the first line's figures and the last six columns of each row finite (or "—")."""
    lines = stdout.split("\n")  # not splitlines(): U+0085 or U+2028 in a name is not a line break to a reader
    found = []
    controls = [line for line in lines if any(not c.isprintable() for c in line)]
    if controls:
        found.append(("stdout-control-chars", f"raw in {controls[0][:200]!r}"))
    if lines and _NONFINITE.search(lines[0].split(":", 1)[-1]):
        found.append(("stdout-nonfinite", lines[0]))
    try:
        start = next(i for i, line in enumerate(lines) if line and set(line) == {"-"}) + 1
    except StopIteration:
        return found + [("stdout-table", f"no table in {stdout[:300]!r}")]
    for line in lines[start:]:
        if not line or line.startswith(("note: ", "left out: ", "failed: ")):
            continue
        tokens = line.split()
        numbers = tokens[-6:]
        if len(tokens) < 8 or not all(t == "—" or _finite_number(t) for t in numbers):
            kind = "stdout-nonfinite" if _NONFINITE.search(" ".join(numbers)) else "stdout-table"
            found.append((kind, f"row {line[:200]!r}"))
            break
    return found


def problems(outcome: Outcome, *, allow_stderr: tuple[str, ...] = ("trace written to ",)) -> list[tuple[str, str]]:
    """The contract's violations by ``outcome`` (streams and status only; outputs are checked by the caller)."""
    tail = outcome.stderr[-600:]
    if outcome.hung:
        return [("hang", hang_message(" ".join(outcome.argv[:2])))]
    if outcome.escaped is not None:
        return [(f"escape {outcome.escaped_type} at {outcome.escaped_where}", outcome.escaped[-1500:])]
    found = []
    if outcome.status not in (0, 1, 2):
        found.append(("exit-status", f"status {outcome.status}; stderr: {tail}"))
    if "Traceback" in outcome.stderr:
        found.append(("traceback", tail))
    match = re.search(r"internal error: (\w+)", outcome.stderr)
    if match:
        found.append((f"internal-error {match.group(1)}", tail))
    for message in outcome.warnings:
        category_and_place = re.sub(r": .*\(", " (", message)
        found.append((f"warning {category_and_place}", message))
    if re.search(r"warning", outcome.stderr, re.IGNORECASE):
        found.append(("stderr-warning", tail))
    lines = [line for line in outcome.stderr.splitlines() if not line.startswith(allow_stderr)]
    if outcome.status == 2 and len(lines) != 1:
        found.append(("exit2-lines", f"{len(lines)} lines on stderr: {tail!r}"))
    if outcome.status == 1 and len(lines) > 1:
        found.append(("exit1-lines", f"{len(lines)} lines on stderr: {tail!r}"))
    if outcome.status == 0 and lines:
        found.append(("stderr-extra-line-after-success", f"stderr: {tail!r}"))
    for line in lines:
        if len(line) > 1500:
            found.append(("stderr-long-line", f"{len(line)} characters: {line[:200]!r}…"))
        if any(not c.isprintable() for c in line):
            found.append(("stderr-control-chars", repr(line[:300])))
    return found
