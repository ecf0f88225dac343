"""Trace files (design.md §Trace files): one CSV row per body per step, written atomically.

    t,body,qw,qx,qy,qz,wx,wy,wz,Lx,Ly,Lz,energy

``q`` is the orientation (body → world), ``w`` the world angular velocity (rad/s), ``L`` the world angular momentum
(kg m²/s), ``energy`` the rotational kinetic energy ½ ω·L (J). ``t`` is the step index times ``h``. Floats are the
shortest decimal that reads back to the same double (``repr`` of a Python float), so a trace is byte-for-byte a
function of its inputs.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

import numpy as np

__all__ = ["TRACE_HEADER", "TraceWriter", "format_rows"]

TRACE_HEADER = "t,body,qw,qx,qy,qz,wx,wy,wz,Lx,Ly,Lz,energy"


def format_rows(
    t: float, names: Sequence[str], q: np.ndarray, omega_world: np.ndarray, L_world: np.ndarray, energy: np.ndarray
) -> str:
    """The rows of one instant for N bodies: ``q`` (N, 4), ``omega_world`` and ``L_world`` (N, 3), ``energy`` (N,)."""
    values = np.concatenate([q, omega_world, L_world, energy[:, None]], axis=1).tolist()
    time = repr(float(t))
    # tolist() gives Python floats, whose repr is the shortest round-tripping decimal (numpy 2's scalar repr is not).
    return "".join(f"{time},{name},{','.join(map(repr, row))}\n" for name, row in zip(names, values, strict=True))


class TraceWriter:
    """Writes a trace to a temporary file beside ``path`` and renames it into place on success.

    Use as a context manager: on an exception (including Ctrl-C) the temporary file is removed and ``path`` is
    left as it was, so a trace file is either complete or absent.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._file: TextIO | None = None
        self._temporary: Path | None = None

    def __enter__(self) -> TraceWriter:
        handle, name = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=self.path.parent or ".")
        self._temporary = Path(name)
        self._file = os.fdopen(handle, "w", encoding="utf-8", newline="\n")
        self._file.write(TRACE_HEADER + "\n")
        return self

    def write(self, t: float, names: Sequence[str], q, omega_world, L_world, energy) -> None:
        """Append the rows of one instant (see :func:`format_rows`)."""
        assert self._file is not None, "TraceWriter used outside its with-block"
        self._file.write(format_rows(t, names, q, omega_world, L_world, energy))

    def __exit__(self, exc_type, exc, traceback) -> None:
        assert self._file is not None and self._temporary is not None
        self._file.close()
        if exc_type is None:
            os.replace(self._temporary, self.path)
        else:
            self._temporary.unlink(missing_ok=True)
