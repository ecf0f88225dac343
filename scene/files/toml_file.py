"""A scene file's text and its TOML: the file's kind and size checked before reading, then parsed.

Files over ``RTOML_BYTES`` are parsed by ``rtoml`` (Rust, a few times tomllib's speed on a large file) when it
is installed; whenever it refuses a file, tomllib parses it, so a syntax error is
always reported in tomllib's words. Both give equal documents, the types of every value included (tested on
every preset and on generated scenes); the caller re-reads with tomllib before reporting a mistake in a
document rtoml gave, so that every message quotes values exactly as it always has.
"""

from __future__ import annotations

import os
import re
import stat
import tomllib
from pathlib import Path
from types import ModuleType
from typing import Any

from spinlab.scene.files.limits import MAX_SCENE_BYTES, check_count, limits_lifted
from spinlab.scene.files.validation import fail

try:
    import rtoml
except ImportError:  # pragma: no cover - a dependency; without it every file takes tomllib
    rtoml = None  # type: ignore[assignment]  # checked for None where it is used

__all__ = ["read_text", "parse_toml", "body_pieces", "FAST_PARSE_BYTES", "RTOML_BYTES", "PIECE_BYTES"]

# Files over this are read in pieces (scene/files/scene_file.py).
FAST_PARSE_BYTES = 1 << 20
# Files over this take rtoml: below it tomllib takes well under a millisecond and there is nothing to gain (rtoml is
# imported anyway); above it rtoml is the faster.
RTOML_BYTES = 4 << 10
# A large scene file is parsed in pieces of about this many bytes (:func:`body_pieces`), each read into bodies and
# freed before the next: a whole parsed document holds kilobytes of Python objects a body (and rtoml as much again
# while making them), most of a gigabyte at 10^5 bodies.
PIECE_BYTES = 2 << 20
_HEADER = "\n[[body]]"


def read_text(path: Path, where: str) -> str:
    """The text of ``path``: a regular file of at most ``MAX_SCENE_BYTES`` of UTF-8 (a byte-order mark is
    accepted). A FIFO, a device or a directory is refused without being opened, so nothing blocks or reads
    forever."""
    try:
        status = path.stat()
    except FileNotFoundError:
        fail(where, None, "no such file")
    except OSError as error:
        fail(where, None, f"cannot be read: {error.strerror}")
    if stat.S_ISDIR(status.st_mode):
        fail(where, None, "is a directory, not a scene file")
    if not stat.S_ISREG(status.st_mode):
        fail(where, None, "is not a regular file (a FIFO, a device or a socket); give a .toml file")
    check_count(status.st_size, MAX_SCENE_BYTES, "bytes of scene file", where=where)
    try:
        # O_NONBLOCK: should the path have become a FIFO since the check, opening it does not wait for a writer.
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(descriptor, "rb") as file:
            # As many bytes as the file has and one more, to see whether it grew since: a read of the limit itself
            # would reserve the limit's bytes (32 MB) for a file of any size.
            limit = -1 if limits_lifted() else MAX_SCENE_BYTES + 1
            data = file.read(status.st_size + 1 if limit < 0 else min(status.st_size + 1, limit))
            if len(data) > status.st_size:
                data += file.read(limit if limit < 0 else max(limit - len(data), 0))
    except OSError as error:
        fail(where, None, f"cannot be read: {error.strerror}")
    check_count(len(data), MAX_SCENE_BYTES, "bytes of scene file", where=where)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        fail(where, None, f"is not UTF-8 text (byte {error.start})")


def parse_toml(text: str, where: str, *, fast: bool = True) -> tuple[dict[str, Any], ModuleType]:
    """The document ``text`` holds, and the parser that read it (rtoml for a large file when ``fast``)."""
    if fast and rtoml is not None and len(text) > RTOML_BYTES:
        try:
            return rtoml.loads(text), rtoml
        except Exception:  # noqa: BLE001 - any refusal: tomllib decides, and words the error
            pass
    try:
        return tomllib.loads(text), tomllib
    except tomllib.TOMLDecodeError as error:
        # Python 3.11's message ends in "(at line L, column C)"; show that line as the value.
        message = str(error)
        found = re.search(r"at line (\d+)", message)
        lines = text.splitlines()
        line = lines[int(found.group(1)) - 1] if found and int(found.group(1)) <= len(lines) else None
        fail(where, None, f"TOML syntax error: {message}", line)
    except RecursionError:
        fail(where, None, "arrays or tables are nested too deeply to read")


def body_pieces(text: str, piece_bytes: int = PIECE_BYTES) -> list[str] | None:
    """``text`` cut into pieces of about ``piece_bytes`` at lines that are exactly ``[[body]]``, each piece after the
    first starting with one, or ``None`` when it cannot be cut so (no such line past ``piece_bytes``; a multi-line
    string, inside which such a line would be text).

    Parsed apart, the pieces give the document the whole text gives when the first piece's document holds the
    root's keys and every later one only ``body`` and ``kick`` arrays of tables, which the caller checks: outside a
    multi-line string, a line ``[[body]]`` is always a table header (a value cannot be written so), and a piece then
    holds every key of its ``[[body]]`` tables, their subtables included. Any other document (``[scene]`` again,
    ``[kick.x]`` in a later piece) or any mistake is for the whole text to report."""
    if '"""' in text or "'''" in text:
        return None
    cuts = [0]
    while True:
        found = text.find(_HEADER, cuts[-1] + piece_bytes)
        while found >= 0 and not text.startswith(("\n", "\r\n"), found + len(_HEADER)):
            found = text.find(_HEADER, found + 1)
        if found < 0:
            break
        cuts.append(found + 1)
    if len(cuts) == 1:
        return None
    return [text[start:end] for start, end in zip(cuts, [*cuts[1:], len(text)], strict=True)]
