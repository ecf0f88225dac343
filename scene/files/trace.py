"""Trace files (design.md §Trace files): one CSV row per body per step, written atomically.

    t,body,qw,qx,qy,qz,wx,wy,wz,Lx,Ly,Lz,energy

``q`` is the orientation (body → world), ``w`` the world angular velocity (rad/s), ``L`` the world angular momentum
(kg m²/s), ``energy`` the rotational kinetic energy ½ ω·L (J). ``t`` is the step index times ``h``. Floats are the
shortest decimal that reads back to the same double (``repr`` of a Python float), so a trace is byte-for-byte a
function of its inputs.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import IO

import numpy as np

from spinlab.scene.files.atomic_file import atomic_output, output_error

__all__ = ["TRACE_HEADER", "TraceWriter", "format_rows", "csv_field"]

TRACE_HEADER = "t,body,qw,qx,qy,qz,wx,wy,wz,Lx,Ly,Lz,energy"


def csv_field(text: str) -> str:
    """``text`` as one CSV field (RFC 4180): as it is, or in double quotes (inner ones doubled) when it holds a
    comma, a quote, a line break or surrounding spaces, so any CSV reader reads the same name back."""
    if any(c in text for c in ',"\r\n') or text != text.strip():
        return '"' + text.replace('"', '""') + '"'
    return text


def format_rows(
    t: float, names: Sequence[str], q: np.ndarray, omega_world: np.ndarray, L_world: np.ndarray, energy: np.ndarray
) -> str:
    """The rows of one instant for N bodies: ``q`` (N, 4), ``omega_world`` and ``L_world`` (N, 3), ``energy`` (N,).
    ``names`` are CSV fields already (see :func:`csv_field`)."""
    values = np.concatenate([q, omega_world, L_world, energy[:, None]], axis=1).tolist()
    time = repr(float(t))
    # tolist() gives Python floats, whose repr is the shortest round-tripping decimal (numpy 2's scalar repr is not).
    return "".join(f"{time},{name},{','.join(map(repr, row))}\n" for name, row in zip(names, values, strict=True))


class TraceWriter:
    """Writes a trace to a temporary file beside ``path`` and renames it into place on success
    (:func:`scene.files.atomic_file.atomic_output`).

    Use as a context manager: on an exception (including Ctrl-C and a full disk, which is raised as
    :class:`~sim.errors.OutputError`) the temporary file is removed and ``path`` is left as it was, so a trace
    file is either complete or absent.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._output: contextlib.AbstractContextManager[IO] | None = None
        self._file: IO | None = None
        self._fields: dict[str, str] = {}

    def __enter__(self) -> TraceWriter:
        self._output = atomic_output(self.path)
        self._file = self._output.__enter__()
        try:
            self._file.write(TRACE_HEADER + "\n")
        except OSError as error:
            self.__exit__(*sys.exc_info())
            raise output_error(error, self.path) from None
        return self

    def write(self, t: float, names: Sequence[str], q, omega_world, L_world, energy) -> None:
        """Append the rows of one instant (see :func:`format_rows`); ``names`` are the bodies' names."""
        assert self._file is not None, "TraceWriter used outside its with-block"
        fields = [self._fields.get(name) or self._fields.setdefault(name, csv_field(name)) for name in names]
        try:
            self._file.write(format_rows(t, fields, q, omega_world, L_world, energy))
        except OSError as error:  # a full disk, a file-size limit: reported with the file's name
            raise output_error(error, self.path) from None

    def __exit__(self, exc_type, exc, traceback) -> None:
        assert self._output is not None
        output, self._output, self._file = self._output, None, None
        if exc_type is None:
            output.__exit__(None, None, None)
        else:
            with contextlib.suppress(BaseException):
                output.__exit__(exc_type, exc, traceback)
