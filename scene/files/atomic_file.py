"""Outputs written whole or not at all: a temporary file beside the target, renamed over it on success.

Every file spinlab writes for a person (traces, videos, JSON, images) goes through here, so that each of them:

- is complete or absent: on any failure, an interrupt included, the temporary file is removed and a file already
  at the target name is kept as it was;
- (a device or a FIFO at the target, such as ``/dev/stdout``, is written in place by :func:`atomic_output`: it
  cannot be renamed over; a FIFO is opened without waiting for a reader, and one that has none is refused; the
  window's whole-file writes, :func:`write_atomically`, take a regular file only)
- a symbolic link at the target is written through: the file it points to is replaced, the link kept (``--trace
  out.csv`` where out.csv links elsewhere writes there, as ``>`` in a shell would);
- leaves nothing behind even when killed outright (SIGKILL, a power cut): the temporary file is named
  ``.spinlab-<pid>-<random>.tmp…`` and the next write to that directory removes those whose process is gone; its
  name is short, so any name the target can have, the temporary file can have too;
- gets ordinary permissions, ``0o666`` less the process's umask, like any file a program creates (``mkstemp``
  alone would give ``0o600``);
- turns an OS fault (disk full, file too large, permission, a closed pipe) into one :class:`OutputError` naming
  the file, which the command line reports in one line with exit status 1.

A file-size limit (``ulimit -f``) normally kills a process with SIGXFSZ; :func:`ignore_file_size_signal` makes
the write fail with EFBIG instead, so that it is reported like a full disk.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import os
import re
import signal
import stat
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from spinlab.scene.process.interrupts import deferred_interrupts
from spinlab.sim.errors import InputError, OutputError, quoted
from spinlab.sim.processes import process_alive

__all__ = [
    "atomic_output",
    "write_atomically",
    "create_temporary",
    "remove_stale_temporaries",
    "commit_temporary",
    "discard_temporary",
    "removed_on_failure",
    "output_error",
    "umask",
    "ignore_file_size_signal",
    "refuse_overwriting",
    "check_output_place",
    "read_only",
    "READ_ONLY",
]


def umask() -> int:
    """The process's file-creation mask (read without changing it for longer than the two calls)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def output_error(error: OSError, path: str | os.PathLike[str]) -> OutputError:
    """One line for an OS fault writing ``path``: ``disk full``, ``file too large``, ``permission denied``…"""
    reasons: dict[int | None, str] = {
        errno.ENOSPC: "cannot be written: the disk is full",
        errno.EDQUOT: "cannot be written: the disk quota is exceeded",
        errno.EFBIG: "cannot be written: the file is too large (a file-size limit)",
        errno.EACCES: "cannot be written: permission denied",
        errno.EPERM: "cannot be written: operation not permitted",
        errno.EROFS: "cannot be written: the file system is read-only",
        errno.EPIPE: "cannot be written: the reader went away (broken pipe)",
        errno.ENXIO: "cannot be written: no process is reading this FIFO",
    }
    reason = reasons.get(error.errno, f"cannot be written: {error.strerror or error}")
    return OutputError(reason, path=os.fspath(path))


_LIVE: set[Path] = set()
"""Temporary files created and neither committed nor discarded yet: removed at exit, whatever ended the process.
(An interrupt can land between creating one and the code that owns its cleanup, e.g. before a ``with`` block
is entered; this is the net under that gap.)"""


@atexit.register
def _remove_live_temporaries() -> None:
    for temporary in list(_LIVE):
        discard_temporary(temporary)


TEMPORARY_PREFIX = ".spinlab-"
"""Every temporary file is ``.spinlab-<pid>-<random><suffix>``: short, so it fits wherever the target's name
does (a name of 255 bytes, the most most file systems take, included), and naming the process that writes it."""
_TEMPORARY_NAME = re.compile(r"\.spinlab-([0-9]+)-[^/]*\.tmp(\.[A-Za-z0-9]+)?")


def create_temporary(path: str | os.PathLike[str], suffix: str = ".tmp") -> Path:
    """An empty temporary file ``.spinlab-<pid>-<random><suffix>`` beside ``path`` (same directory, so the rename
    is atomic), with the umask's permissions. The temporary files a killed process left in that directory go
    first (:func:`remove_stale_temporaries`). Raises :class:`OutputError` when it cannot be created."""
    import tempfile  # here: it imports shutil and random, a cost every command would pay, most write nothing

    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    remove_stale_temporaries(directory)
    prefix = f"{TEMPORARY_PREFIX}{os.getpid()}-"
    with deferred_interrupts():  # from the moment the file exists it is in _LIVE, and its descriptor is closed
        try:
            handle, name = tempfile.mkstemp(prefix=prefix, suffix=suffix, dir=directory)
        except OSError as error:
            raise output_error(error, target) from None
        _LIVE.add(Path(name))
        try:
            os.fchmod(handle, 0o666 & ~umask())
        finally:
            os.close(handle)
    return Path(name)


def remove_stale_temporaries(directory: str | os.PathLike[str]) -> list[Path]:
    """Remove the temporary files in ``directory`` whose process is gone (a SIGKILL, a power cut: nothing of that
    process was left to clean up); return them. A file of a live process is kept (a writer at work, in this
    process or another; sim/processes.py's ``process_alive``), as is every file not named as :func:`create_temporary`
    names them. Never raises."""
    removed = []
    with contextlib.suppress(OSError), os.scandir(directory) as entries:
        for entry in entries:
            match = _TEMPORARY_NAME.fullmatch(entry.name) if entry.name.startswith(TEMPORARY_PREFIX) else None
            # _LIVE holds mkstemp's absolute names; ``directory`` may be relative (a target named "clip.mp4")
            if match is None or Path(os.path.abspath(entry.path)) in _LIVE or process_alive(int(match[1])):
                continue
            with contextlib.suppress(OSError):
                if entry.is_file(follow_symlinks=False):
                    os.unlink(entry.path)
                    removed.append(Path(entry.path))
    return removed


def commit_temporary(temporary: Path, path: str | os.PathLike[str]) -> None:
    """Rename ``temporary`` over ``path``; on failure remove it and raise :class:`OutputError` (an interrupt
    during the rename removes it too, and is raised as it was)."""
    with removed_on_failure(temporary, path):
        os.replace(temporary, path)
    _LIVE.discard(Path(temporary))


@contextlib.contextmanager
def removed_on_failure(temporary: Path, path: str | os.PathLike[str]) -> Iterator[None]:
    """Anything raised inside removes ``temporary``: an ``OSError`` raised as an :class:`OutputError` naming
    ``path`` (the target, not the temporary), anything else (an interrupt too) as it is."""
    try:
        yield
    except OSError as error:
        discard_temporary(temporary)
        raise output_error(error, path) from None
    except BaseException:
        discard_temporary(temporary)
        raise


def discard_temporary(temporary: Path | None) -> None:
    """Remove ``temporary`` if it exists (never raises)."""
    if temporary is not None:
        with contextlib.suppress(OSError):
            Path(temporary).unlink(missing_ok=True)
        _LIVE.discard(Path(temporary))


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike[str], *, binary: bool = False) -> Iterator[IO]:
    """``with atomic_output(path) as file:`` write ``file``; it replaces ``path`` when the block ends normally.

    Text files are UTF-8 with ``\\n`` line ends. Any exception in the block (or in writing, flushing or renaming)
    removes the temporary file and leaves ``path`` as it was; an ``OSError`` is raised as :class:`OutputError`.
    """
    mode = "wb" if binary else "w"
    encoding = None if binary else "utf-8"
    newline = None if binary else "\n"
    if _is_stream(path):
        # A device or a pipe (/dev/stdout, /dev/full, a FIFO) cannot be replaced by a rename: written in place.
        try:
            with open(_open_stream(path), mode, encoding=encoding, newline=newline) as file:
                yield file
        except OSError as error:
            raise output_error(error, path) from None
        return
    target = _through_links(path)
    temporary = None
    try:
        with deferred_interrupts():  # an interrupt comes before the file exists or once it is ours to remove
            temporary = create_temporary(target)
        with open(temporary, mode, encoding=encoding, newline=newline) as file:
            yield file
    except OSError as error:
        discard_temporary(temporary)
        raise output_error(error, path) from None
    except BaseException:
        discard_temporary(temporary)
        raise
    commit_temporary(temporary, target)


def _open_stream(path: str | os.PathLike[str]) -> int:
    """A descriptor open for writing on the device or FIFO ``path``. A FIFO is opened without waiting for a reader
    (``O_NONBLOCK``; the descriptor then blocks as usual): one nobody reads raises ``ENXIO``, which
    :func:`output_error` words, where a plain ``open`` waited for ever (saving to a FIFO froze the window)."""
    descriptor = os.open(path, os.O_WRONLY | getattr(os, "O_NONBLOCK", 0))
    if hasattr(os, "set_blocking"):
        os.set_blocking(descriptor, True)
    return descriptor


def _through_links(path: str | os.PathLike[str]) -> Path:
    """The file ``path`` names once its symbolic links are followed (``path`` itself when it is none): the one
    a write replaces, beside which its temporary file is made."""
    return Path(os.path.realpath(path)) if os.path.islink(path) else Path(path)


def write_atomically(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write the bytes ``data`` to ``path`` through :func:`atomic_output` and return ``path``.

    The place is checked first, for a person's mistake rather than the OS's: ``path`` being a directory, or its
    directory missing, raises :class:`InputError` naming ``path`` (exit 2); the OS refusing the write (disk full,
    permission) raises :class:`OutputError` (exit 1), with ``path`` as it was and no temporary file left.
    """
    path = check_output_place(path)
    with atomic_output(path, binary=True) as file:
        file.write(data)
    return path


def check_output_place(path: str | os.PathLike[str]) -> Path:
    """``path`` as a :class:`Path` when a file can be written whole there; else :class:`InputError` naming it,
    one line whatever the OS said: a NUL character or a name too long, a directory, a missing directory, a
    read-only file (:func:`read_only`), or an existing FIFO, device or socket (a regular file only: a FIFO waits
    for a reader, ``/dev/zero`` swallows all)."""
    path = Path(path)
    where = str(path)
    try:
        status = os.stat(path)
    except ValueError:
        raise InputError("is not a file name: it holds a NUL character", where=where) from None
    except (FileNotFoundError, NotADirectoryError):
        status = None  # a new file, if its directory is one (below)
    except OSError as error:
        raise InputError(f"cannot be used: {error.strerror or error}", where=where) from None
    if status is None:
        directory = Path(os.path.realpath(path)).parent if os.path.islink(path) else path.parent
        if not directory.is_dir():
            raise InputError(f"directory {quoted(str(directory))} does not exist", where=where)
    elif stat.S_ISDIR(status.st_mode):
        raise InputError("is a directory, not a file", where=where)
    elif not stat.S_ISREG(status.st_mode):
        raise InputError("is not a regular file (a FIFO, a device or a socket); choose a file name", where=where)
    elif read_only(path, status):
        raise InputError(READ_ONLY, where=where)
    return path


READ_ONLY = "is read-only: a protected file is not replaced; make it writable (chmod u+w) or choose another name"


def read_only(path: str | os.PathLike[str], status: os.stat_result) -> bool:
    """Whether the existing file ``path`` (``status`` its ``os.stat``) is protected from writing: no write
    permission for this user, or none for anyone (``chmod 444``: a superuser, whom permissions do not stop, is
    stopped by that too). A write would replace it by a rename all the same, which only the directory's permission
    governs, so writers check this first."""
    return not (status.st_mode & 0o222) or not os.access(path, os.W_OK)


def _is_stream(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` names an existing character device or FIFO."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)


def refuse_overwriting(output: str | os.PathLike[str] | None, source: str | os.PathLike[str] | None, option: str):
    """Raise :class:`InputError` (exit 2) when ``output`` is the file ``source`` being read, by any spelling,
    symbolic or hard link: writing it would destroy the input. ``option`` names the argument (``--trace``)."""
    if output is None or source is None:
        return
    try:
        same = os.path.samefile(output, source)
    except OSError:  # one of them does not exist (yet): not the same file
        return
    if same:
        raise InputError(
            f"is the scene file being read ({source}); choose another file", where=option, value=os.fspath(output)
        )


def ignore_file_size_signal() -> None:
    """Make a write past ``ulimit -f`` fail with EFBIG (reported) instead of killing the process (SIGXFSZ)."""
    if hasattr(signal, "SIGXFSZ") and threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
