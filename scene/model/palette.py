"""The colours a run's bodies are told apart by: the default palette and each integrator's colour side by side.

Given in sRGB as a designer picks them and kept in linear RGB (what the renderer lights); render/look.py holds
the rest of the look and re-exports these.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from spinlab.sim.integrators.registry import FAMILIES, RECORDS

__all__ = [
    "srgb_to_linear",
    "hex_srgb",
    "rgb_triple",
    "PALETTE_LINEAR",
    "INTEGRATOR_SRGB",
    "ENGINE_SRGB",
    "AXES_SRGB",
    "CANDIDATES_SRGB",
    "pick_colour",
    "INTEGRATOR_COLORS",
    "cielab",
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


def cielab(srgb: np.ndarray) -> np.ndarray:
    """(..., 3) CIELAB (L*, a*, b*; D65 white) of sRGB colours in [0, 1]: what colour distances (ΔE*76, the
    Euclidean distance) are measured in."""
    linear = srgb_to_linear(srgb)
    to_xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
    xyz = linear @ to_xyz.T / np.array([0.95047, 1.0, 1.08883])
    delta = 6.0 / 29.0
    f = np.where(xyz > delta**3, np.cbrt(xyz), xyz / (3.0 * delta**2) + 4.0 / 29.0)
    return np.stack([116.0 * f[..., 1] - 16.0, 500.0 * (f[..., 0] - f[..., 1]), 200.0 * (f[..., 1] - f[..., 2])], -1)


# Side by side, each integrator's copy has its colour, declared in its record (sim/integrators/record.py), told apart
# from every other of its family in the window's plots and views: picked from qualitative palettes designed for it
# (Kelly's, Tableau's, Okabe & Ito's, d3's, ColorBrewer's) as the set with the largest smallest CIELAB distance
# between two of them (ΔE*76 > 30 within each family, the engines' and the axes' with the exact solution,
# tests/scene/test_palette.py), all bright enough for the dark background (L* 50–85). The maths' methods that drift
# are warm, the symplectic ones green and blue; the engines' one family of hues an engine where that allows (Bullet
# warm, MuJoCo blue to violet, PhysX green, Jolt pink), each engine's gyroscopic switch the lighter or darker twin,
# and a float32 twin in its double-precision step's colour (the two are compared by name, not side by side).
CANDIDATES_SRGB = (
    "#f3c300", "#875692", "#f38400", "#a1caf1", "#be0032", "#c2b280", "#848482", "#008856", "#e68fac", "#0067a5",
    "#f99379", "#604e97", "#f6a600", "#b3446c", "#dcd300", "#882d17", "#8db600", "#654522", "#e25822",  # Kelly
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
    "#a0cbe8", "#ffbe7d", "#8cd17d", "#b6992d", "#f1ce63", "#86bcb6", "#ff9d9a", "#79706e", "#d37295", "#fabfd2",
    "#d4a6c8", "#d7b5a6",  # Tableau 10 and 20
    "#e69f00", "#56b4e9", "#009e73", "#f0e442", "#0072b2", "#d55e00", "#cc79a7",  # Okabe & Ito
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
    "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94", "#f7b6d2", "#c7c7c7", "#dbdb8d", "#9edae5",
    "#66c2a5", "#fc8d62", "#8da0cb", "#e78ac3", "#a6d854", "#ffd92f", "#e5c494", "#b3b3b3",  # d3, ColorBrewer Set2
)  # fmt: skip
"""Where an integrator whose record gives no colour gets one (:func:`pick_colour`)."""
LIGHTNESS = (50.0, 85.0)  # L*: readable on the views' and plots' dark backgrounds (L* ~ 8–27)


def pick_colour(taken: Iterable[str]) -> str:
    """The candidate (:data:`CANDIDATES_SRGB`, within :data:`LIGHTNESS`) farthest in CIELAB from every colour of
    ``taken`` (``"#rrggbb"``): the largest smallest distance, as the declared colours were chosen; the first such
    candidate on a tie. A method added without a colour gets one so, told apart from its family's."""
    taken_lab = np.array([cielab(hex_srgb(code)) for code in taken]).reshape(-1, 3)
    best, best_distance = CANDIDATES_SRGB[0], -1.0
    for code in CANDIDATES_SRGB:
        lab = cielab(hex_srgb(code))
        if not LIGHTNESS[0] <= lab[0] <= LIGHTNESS[1]:
            continue
        distance = float(np.min(np.linalg.norm(taken_lab - lab, axis=-1))) if len(taken_lab) else np.inf
        if distance > best_distance:
            best, best_distance = code, distance
    return best


def _integrator_srgb() -> dict[str, str]:
    """Each integrator's colour: its record's, or :func:`pick_colour`'s among its family's and the exact
    solution's (the methods compared side by side with it)."""
    colours = {name: record.colour for name, record in RECORDS.items() if record.colour is not None}
    for name, record in RECORDS.items():
        if record.colour is None:
            family = [colours[other] for other in (*FAMILIES[record.family], "exact") if other in colours]
            colours[name] = pick_colour(family)
    return {name: colours[name] for name in RECORDS}


INTEGRATOR_SRGB = _integrator_srgb()
ENGINE_SRGB = {name: INTEGRATOR_SRGB[name] for name in FAMILIES["engines"]}
AXES_SRGB = {name: INTEGRATOR_SRGB[name] for name in FAMILIES["axes"]}


def rgb_triple(color: Iterable[float]) -> tuple[float, float, float]:
    """A colour's three channels, as Python floats (from an array row, a list, a tuple)."""
    red, green, blue = (float(c) for c in color)
    return red, green, blue


INTEGRATOR_COLORS = {name: rgb_triple(srgb_to_linear(hex_srgb(code))) for name, code in INTEGRATOR_SRGB.items()}
"""Each integrator's colour side by side, linear RGB; an integrator without one takes the palette's in turn."""


def integrator_color(integrator: str, number: int) -> tuple[float, float, float]:
    """The linear RGB colour of the ``number``-th copy side by side, run with ``integrator``."""
    return INTEGRATOR_COLORS.get(integrator, rgb_triple(PALETTE_LINEAR[number % len(PALETTE_LINEAR)]))


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
