"""The sizes spinlab refuses before starting work it could not finish, and the range of every number it reads.

A scene file or an argument that asks for more than these is almost always a typo (``dt = 1e-9``, ``--duration
1e9``) that would otherwise run for days, fill the disk or exhaust memory; it is refused at once with one line
naming the key and the value. A person who really means it sets ``SPINLAB_NO_LIMITS=1`` in the environment,
which lifts the size limits below (never the numeric range, which guards against overflow, not patience).

Why these figures (2 cores, 24 GiB; a body costs ~7 KB and a step ~1–20 µs a body):

- ``MAX_STEPS`` 10⁷ steps of a run: ~3 min for one body with the costliest integrator, 46 h of simulation at
  1/60 s. A trace of that many rows is ~2 GB.
- ``MAX_TRACE_ROWS`` 5·10⁷ rows (steps × bodies) in a trace: ~10 GB of CSV.
- ``MAX_BODIES`` 10⁶ bodies in a scene: ~7 GB of memory, and the largest scale bench measures is 10⁵.
- ``MAX_DEPTH`` 10⁵ levels of parents: the scene graph is walked without recursion, in time linear in its size.
- ``MAX_FRAMES`` 10⁶ video frames: 4.6 h at 60 frames/s.
- ``MAX_SCENE_BYTES`` 32 MiB of scene file: 10⁵ bodies with every key written out take ~20 MB; TOML parsing
  takes ~0.25 s and ~12 MB of memory a MB.

Step indices: whatever the limits, no run takes more than ``MAX_STEP_INDEX`` (2⁵²) steps, the last count float64
holds by ones: the clock reads ``t = k h`` and a kick lands on the first ``k`` with ``k h >= time``, which beyond it
cannot be told from ``k ± 1``. A run asking for more is refused (even with the limits lifted: it would never end),
and a kick beyond it lands on ``MAX_STEP_INDEX``, where no run goes (scene/files/kick_table.py).

Numbers: every value a scene gives has magnitude at most ``MAX_MAGNITUDE`` (10⁵⁰), and every one that must be
positive (masses, sizes, moments of inertia, the time step) at least ``MIN_POSITIVE`` (10⁻⁵⁰). A product of up to
six such numbers, as the kinetic energy or a Newton step forms, stays a normal float64 (10^±300), so nothing
the simulation computes from a valid scene overflows or underflows to zero.
"""

from __future__ import annotations

import os

from spinlab.sim.errors import InputError

__all__ = [
    "MAX_STEPS",
    "MAX_TRACE_ROWS",
    "MAX_BODIES",
    "MAX_DEPTH",
    "MAX_FRAMES",
    "MAX_SCENE_BYTES",
    "MAX_MAGNITUDE",
    "MIN_POSITIVE",
    "MAX_STEP_INDEX",
    "NO_LIMITS_VARIABLE",
    "limits_lifted",
    "check_count",
]

MAX_STEPS = 10_000_000
MAX_TRACE_ROWS = 50_000_000
MAX_BODIES = 1_000_000
MAX_DEPTH = 100_000
MAX_FRAMES = 1_000_000
MAX_SCENE_BYTES = 32 * 1024 * 1024
MAX_MAGNITUDE = 1e50
MIN_POSITIVE = 1e-50
MAX_STEP_INDEX = 2**52
NO_LIMITS_VARIABLE = "SPINLAB_NO_LIMITS"


def limits_lifted() -> bool:
    """Whether the person has lifted the size limits (``SPINLAB_NO_LIMITS`` set to anything but ``""``/``0``)."""
    return os.environ.get(NO_LIMITS_VARIABLE, "") not in ("", "0")


def check_count(count: float, limit: int, what: str, *, where: str, key: str | None = None, value: object = None):
    """Raise :class:`InputError` when ``count`` (of steps, frames, bodies…) exceeds ``limit`` and the limits are
    not lifted; the message names what was asked for and how to go past it."""
    if count > limit and not limits_lifted():
        shown = f"{count:.3g}" if isinstance(count, float) else f"{count:,}"
        raise InputError(
            f"asks for {shown} {what}, more than the limit of {limit:,} (set {NO_LIMITS_VARIABLE}=1 to go past it)",
            where=where,
            key=key,
            value=value,
        )
