"""scene/atomic_file.py's bytes writer: the file is whole or untouched, and nothing is left beside it."""

import errno
import os

import pytest

from spinlab.scene.atomic_file import umask, write_atomically
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

    monkeypatch.setattr("spinlab.scene.atomic_file.open", FullDisk, raising=False)
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
