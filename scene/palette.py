"""The colours a run's bodies are told apart by: the default palette and each integrator's colour side by side.

Given in sRGB as a designer picks them and kept in linear RGB (what the renderer lights); render/look.py holds
the rest of the look and re-exports these.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "srgb_to_linear",
    "hex_srgb",
    "PALETTE_LINEAR",
    "INTEGRATOR_COLORS",
    "integrator_color",
    "FLIP_RAMPS",
    "flip_colors",
]


def srgb_to_linear(srgb: np.ndarray) -> np.ndarray:
    """The sRGB transfer function's inverse, elementwise on values in [0, 1]."""
    c = np.asarray(srgb, dtype=float)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def hex_srgb(code: str) -> np.ndarray:
    """(3,) sRGB in [0, 1] of ``"#rrggbb"``."""
    return np.array([int(code[i : i + 2], 16) for i in (1, 3, 5)]) / 255.0


# Bodies without a scene colour take these in turn: muted, distinct, readable on the dark background.
PALETTE_LINEAR = srgb_to_linear(
    np.array([hex_srgb(c) for c in ("#e07a5f", "#4f8fd6", "#81b29a", "#f2cc8f", "#a77fd6", "#5fb3b3", "#d4779d")])
)

# Side by side, each integrator's copy has its colour (linear RGB); others take the palette's in turn.
INTEGRATOR_COLORS = {
    "euler": (0.85, 0.3, 0.25),
    "euler_body": (0.75, 0.25, 0.55),
    "magnus": (0.9, 0.65, 0.2),
    "implicit_midpoint": (0.35, 0.7, 0.35),
    "trapezoidal": (0.3, 0.55, 0.85),
    "object_trapezoidal": (0.6, 0.4, 0.8),
}


def integrator_color(integrator: str, number: int) -> tuple[float, float, float]:
    """The linear RGB colour of the ``number``-th copy side by side, run with ``integrator``."""
    return INTEGRATOR_COLORS.get(integrator, tuple(float(c) for c in PALETTE_LINEAR[number % len(PALETTE_LINEAR)]))


# A body spun near its intermediate axis circulates about its minor axis (principal index 0) or its major one (2):
# each family a ramp (sRGB) from a short flip period to a long one, the two meeting pale at the separatrix.
FLIP_RAMPS = {0: ("#2f5fd0", "#d6ebff"), 2: ("#d0502a", "#ffe9bd")}


def flip_colors(periods: np.ndarray, axes: np.ndarray) -> np.ndarray:
    """(N, 3) linear RGB of N bodies by their flip periods (s, ``inf`` on the separatrix) and the principal index
    (0 or 2) their ω circulates about: :data:`FLIP_RAMPS`' ramp of that family, at the period's place between the
    shortest and the longest finite period of the set on a log scale (an infinite one at the pale end)."""
    periods = np.asarray(periods, dtype=float)
    finite = periods[np.isfinite(periods) & (periods > 0.0)]
    low, high = (np.log(finite.min()), np.log(finite.max())) if finite.size else (0.0, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        place = (np.log(periods) - low) / max(high - low, 1e-12)
    place = np.clip(np.nan_to_num(place, nan=1.0, posinf=1.0), 0.0, 1.0)[:, None]
    short, long = (np.array([srgb_to_linear(hex_srgb(FLIP_RAMPS[a][end])) for a in (0, 2)]) for end in (0, 1))
    family = (np.asarray(axes) == 2).astype(np.intp)
    return (1.0 - place) * short[family] + place * long[family]
