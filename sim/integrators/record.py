"""One integrator's record: everything spinlab knows about a method, declared in the method's own module.

A module of :mod:`sim.integrators` (or of a subpackage, such as :mod:`sim.integrators.engines`) declares its method
as ``INTEGRATOR = Integrator(...)``, or several as ``VARIANTS = (Integrator(...), ...)``; the registry
(:mod:`sim.integrators.registry`) finds them there and derives every table the program reads from them: the names
of the command line and the panel, the claims the contract tests measure, the families, the colours side by side,
the fallback before a compiled kernel is loaded and the order the kernels are compiled in. Adding a method is
adding one module.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from spinlab.sim.integrators.claims import Claims

__all__ = ["Integrator", "FAMILY_NAMES", "FALLBACKS"]

FAMILY_NAMES = ("all", "axes", "engines", "engines_f32")
"""The families, in the order the registry lists them: ``all`` (the maths' methods, compared side by side by
default), ``axes`` (the splittings into rotations about the principal axes), ``engines`` (the engines' rotation
steps in double precision) and ``engines_f32`` (their float32 twins). Each is also a name ``--integrator`` takes."""

FALLBACKS = ("numpy", "twin", "reference")
"""What steps a method while its compiled kernel is not loaded (sim/compiled.py): ``numpy``, its numpy path, which
computes the kernel's bits (or is its only path: no kernel); ``twin``, ``backend="twin"``, its kernel's own code
run by numpy (sim/integrators/kernel_twins.py), the kernel's bits; ``reference``, its numpy reference, which parts
from the kernel's bits by an ulp or so (a run is recomputed once the kernel is loaded)."""

_COLOUR = re.compile(r"#[0-9a-f]{6}")


@dataclass(frozen=True)
class Integrator:
    """One method.

    - ``name``: what the command line (``--integrator``), the scene files and the panel call it.
    - ``step``: ``step(state, params, h, *, backend, out, ...) -> (BodyState, StepCost)`` over a batch of N
      bodies (sim/integrators/state.py).
    - ``claims``: what the method claims of itself (:class:`sim.integrators.claims.Claims`), measured by the
      contract tests.
    - ``family``: one of :data:`FAMILY_NAMES`.
    - ``place``: where the method stands in its family's lists (the panel's, ``--integrator all``'s, the views
      side by side): ascending, then by name; ``None`` after every placed one.
    - ``kernel``: the name of its compiled kernel in sim/integrators/_kernels.py; ``None``: numpy only.
    - ``fallback``: what steps it before that kernel is loaded, one of :data:`FALLBACKS`.
    - ``colour``: ``"#rrggbb"`` (sRGB), its colour side by side; ``None``: the palette picks one for it, the
      candidate farthest from its family's colours (scene/model/palette.py).
    - ``compile_rank``: the window compiles a scene's own kernels slowest-fallback first (each one loaded takes its
      share off every frame): ascending, ranked by a step of one body on the fallback; ``None`` after those.
    """

    name: str
    step: Callable[..., Any]
    claims: Claims
    family: str = "all"
    place: int | None = None
    kernel: str | None = None
    fallback: str = "numpy"
    colour: str | None = None
    compile_rank: int | None = None

    def __post_init__(self) -> None:
        if not self.name.isidentifier():
            raise ValueError(f"an integrator's name is an identifier, got {self.name!r}")
        if self.family not in FAMILY_NAMES:
            raise ValueError(f"{self.name}: family must be one of {FAMILY_NAMES}, got {self.family!r}")
        if self.fallback not in FALLBACKS:
            raise ValueError(f"{self.name}: fallback must be one of {FALLBACKS}, got {self.fallback!r}")
        if self.fallback == "twin" and self.kernel is None:
            raise ValueError(f"{self.name}: a twin stands in for a compiled kernel; name it")
        if self.colour is not None and not _COLOUR.fullmatch(self.colour):
            raise ValueError(f"{self.name}: colour must be '#rrggbb' (lower case), got {self.colour!r}")
