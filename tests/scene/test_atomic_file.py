"""scene/files/atomic_file.py's bytes writer: the file is whole or untouched, and nothing is left beside it."""

import errno
import os
import threading
import time

import pytest

from spinlab.scene.files.atomic_file import atomic_output, umask, write_atomically
from spinlab.sim.errors import InputError, OutputError


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


def _reader_later(fifo, seconds: float) -> threading.Thread:
    """Open ``fifo`` for reading after ``seconds`` (a writer waiting for one then goes on), then close it."""

    def read() -> None:
        time.sleep(seconds)
        os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


def test_a_fifo_nobody_reads_is_refused_at_once(tmp_path):
    # open() waited for a reader: saving the scene to a FIFO named *.toml froze the window.
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    reader = _reader_later(fifo, 3.0)  # what the old writer waited for
    started = time.monotonic()
    with pytest.raises(OutputError, match="no process is reading this FIFO"):
        with atomic_output(fifo) as file:
            file.write("t\n")
    assert time.monotonic() - started < 2.0
    reader.join()


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
        reader = _reader_later(target, 3.0)
    else:
        target = "/dev/zero"
    with pytest.raises(InputError, match="is not a regular file"):
        write_atomically(target, b"x")
    if kind == "fifo":
        reader.join()


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
