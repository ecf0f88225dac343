"""scene/files/atomic_file.py's bytes writer: the file is whole or untouched, and nothing is left beside it."""

import contextlib
import errno
import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from spinlab.scene.files.atomic_file import atomic_output, umask, write_atomically
from spinlab.sim.errors import InputError, OutputError
from tests.hang import HANG_S, hang_message

ROOT = Path(__file__).resolve().parents[2]


def test_a_write_replaces_the_file_and_leaves_nothing_else(tmp_path):
    assert write_atomically(tmp_path / "a.txt", b"one") == tmp_path / "a.txt"
    write_atomically(tmp_path / "a.txt", b"two")
    assert (tmp_path / "a.txt").read_bytes() == b"two"
    assert [p.name for p in tmp_path.iterdir()] == ["a.txt"]
    assert (tmp_path / "a.txt").stat().st_mode & 0o777 == 0o666 & ~umask()


def test_a_relative_path_is_written_in_the_current_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_atomically("b.bin", b"\x00\x01")
    assert (tmp_path / "b.bin").read_bytes() == b"\x00\x01"


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "kept.txt"
    target.write_bytes(b"old")

    class FullDisk:
        def __init__(self, name, *args, **kwargs):
            self.file = open(name, "wb")  # closed in __exit__

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.file.close()

        def write(self, data):
            self.file.write(data[:1])  # part of it reached the temporary file, then the disk filled
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("spinlab.scene.files.atomic_file.open", FullDisk, raising=False)
    with pytest.raises(OutputError, match="the disk is full") as raised:
        write_atomically(target, b"new contents")
    assert str(target) in str(raised.value)
    monkeypatch.undo()
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["kept.txt"]


def test_an_interrupt_keeps_the_old_file_and_leaves_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "kept.txt"
    target.write_bytes(b"old")

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_atomically(target, b"new")
    monkeypatch.undo()
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["kept.txt"]


@pytest.mark.parametrize(
    "where, why", [("missing/a.txt", "directory '.*missing' does not exist"), (".", "is a directory")]
)
def test_a_bad_place_is_an_input_error_naming_it(tmp_path, where, why):
    with pytest.raises(InputError, match=why):
        write_atomically(tmp_path / where, b"")
    assert list(tmp_path.iterdir()) == []


@contextlib.contextmanager
def _reader_after_refusal(fifo, what: str):
    """A reader for ``fifo`` that comes only after the block, or at the watchdog: a writer that waits for a reader
    (a hang) is freed by it, and the block fails saying so."""
    done, rescued = threading.Event(), []

    def read() -> None:
        if not done.wait(HANG_S):
            rescued.append(True)
        os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
        assert not rescued, hang_message(what)


def test_a_fifo_nobody_reads_is_refused_at_once(tmp_path):
    # open() waited for a reader: saving the scene to a FIFO named *.toml froze the window.
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    with _reader_after_refusal(fifo, "a write to a FIFO nobody reads"):
        with pytest.raises(OutputError, match="no process is reading this FIFO"):
            with atomic_output(fifo) as file:
                file.write("t\n")


def test_a_fifo_that_has_a_reader_is_written_in_place(tmp_path):
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        with atomic_output(fifo) as file:
            file.write("t,body\n")
        assert os.read(reader, 100) == b"t,body\n"
    finally:
        os.close(reader)


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_whole_file_is_written_to_a_regular_file_only(tmp_path, kind):
    target = tmp_path / "scene.toml"
    if kind == "fifo":
        os.mkfifo(target)
    else:
        target = "/dev/zero"
    with _reader_after_refusal(target, "a whole-file write to a FIFO") if kind == "fifo" else contextlib.nullcontext():
        with pytest.raises(InputError, match="is not a regular file"):
            write_atomically(target, b"x")


@pytest.mark.parametrize("name, why", [("a\0b.toml", "NUL character"), ("x" * 300 + ".toml", "File name too long")])
def test_an_odd_name_is_one_line_naming_it(tmp_path, name, why):
    # A NUL byte gave "ValueError: embedded null byte", a long name Python's OSError text with a temporary path.
    with pytest.raises(InputError, match=why) as raised:
        write_atomically(tmp_path / name, b"x")
    assert str(raised.value).startswith(str(tmp_path / name)[:40].replace("\0", "\\x00"))
    assert list(tmp_path.iterdir()) == []


def test_a_symbolic_link_is_written_through(tmp_path):
    # design.md: an output that is a symbolic link is written where it points, the link kept (a --trace link was
    # replaced by a file).
    (tmp_path / "data").mkdir()
    target = tmp_path / "data" / "trace.csv"
    target.write_text("old\n")
    link = tmp_path / "trace.csv"
    link.symlink_to(target)
    with atomic_output(link) as file:
        file.write("new\n")
    assert link.is_symlink() and target.read_text() == "new\n"
    dangling = tmp_path / "new.csv"
    dangling.symlink_to(tmp_path / "data" / "made.csv")
    write_atomically(dangling, b"made\n")
    assert dangling.is_symlink() and (tmp_path / "data" / "made.csv").read_bytes() == b"made\n"
    assert sorted(p.name for p in (tmp_path / "data").iterdir()) == ["made.csv", "trace.csv"]


_KILLED_WRITER = """
import sys, time
from spinlab.scene.files.atomic_file import create_temporary
print(create_temporary(sys.argv[1], suffix=".tmp.mp4"), flush=True)
time.sleep(1e6)
"""


def _writer_process(target):
    """A process that has made a temporary file for ``target`` and waits; returns it and the file's path."""
    process = subprocess.Popen(
        [sys.executable, "-c", _KILLED_WRITER, str(target)], stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    return process, Path(process.stdout.readline().strip())


def test_the_temporary_files_of_a_killed_run_are_removed_by_the_next_write_there(tmp_path):
    # SIGKILL runs no cleanup: a hidden .tmp.mp4 of every killed `record` stayed beside the output for ever.
    alive, working = _writer_process(tmp_path / "other.mp4")
    killed, stale = _writer_process(tmp_path / "video.mp4")
    killed.kill()
    killed.wait()
    try:
        assert stale.parent == tmp_path and stale.exists() and working.exists()
        write_atomically(tmp_path / "trace.csv", b"t\n")
        assert not stale.exists(), "the file of a process that is gone is removed"
        assert working.exists(), "the file of a process at work is kept"
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["trace.csv", working.name])
    finally:
        alive.kill()
        alive.wait()


def test_a_file_that_only_looks_temporary_is_kept(tmp_path):
    kept = [".spinlab-notapid-x.tmp", ".spinlab-1-x.txt", "spinlab-999999999-x.tmp", ".other-999999999-x.tmp"]
    for name in kept:
        (tmp_path / name).write_bytes(b"mine")
    (tmp_path / ".spinlab-999999999-dir.tmp").mkdir()  # a directory is nobody's temporary file
    write_atomically(tmp_path / "a.csv", b"")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*kept, ".spinlab-999999999-dir.tmp", "a.csv"])


@pytest.mark.parametrize("suffix", [".csv", ".mp4"])
def test_a_name_of_the_most_bytes_a_file_system_takes_is_written(tmp_path, suffix):
    # The temporary name was the target's plus 14 bytes: a legal name of 242 to 255 bytes failed after the run.
    from spinlab.render.video import VideoWriter

    longest = os.pathconf(tmp_path, "PC_NAME_MAX")
    target = tmp_path / ("é" * ((longest - len(suffix)) // 2) + "x" * ((longest - len(suffix)) % 2) + suffix)
    assert len(os.fsencode(target.name)) == longest
    if suffix == ".csv":
        write_atomically(target, b"t\n")
    else:
        with VideoWriter(target, 32, 32, 30) as video:
            video.write(np.zeros((32, 32, 3), np.uint8))
    assert [p.name for p in tmp_path.iterdir()] == [target.name] and target.stat().st_size > 0


def test_a_read_only_file_is_refused_not_replaced(tmp_path):
    target = tmp_path / "kept.toml"
    target.write_bytes(b"protected")
    target.chmod(0o444)
    with pytest.raises(InputError, match="is read-only") as refused:
        write_atomically(target, b"new")
    assert str(refused.value).startswith(str(target)) and len(str(refused.value).splitlines()) == 1
    assert target.read_bytes() == b"protected" and [p.name for p in tmp_path.iterdir()] == ["kept.toml"]
