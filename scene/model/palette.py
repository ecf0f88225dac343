"""The colours a run's bodies are told apart by: the default palette and each integrator's colour side by side.

Given in sRGB as a designer picks them and kept in linear RGB (what the renderer lights); render/look.py holds
the rest of the look and re-exports these.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

__all__ = [
    "srgb_to_linear",
    "hex_srgb",
    "rgb_triple",
    "PALETTE_LINEAR",
    "INTEGRATOR_SRGB",
    "ENGINE_SRGB",
    "AXES_SRGB",
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

# Side by side, each integrator's copy has its colour, told apart from every other in the window's plots and views:
# picked from qualitative palettes designed for it (Kelly's, Tableau's, Okabe & Ito's, d3's) as the set of 14 with
# the largest smallest CIELAB distance between two of them (ΔE*76 > 30, tests/scene/test_palette.py), all bright
# enough for the dark background (L* 50–85). The methods that drift are warm, the symplectic ones green and blue.
INTEGRATOR_SRGB = {
    "euler": "#e15759",
    "euler_body": "#ff7f0e",
    "magnus": "#f3c300",
    "implicit_midpoint": "#8db600",
    "trapezoidal": "#56b4e9",
    "object_trapezoidal": "#c5b0d5",
    "im4": "#2ca02c",
    "im6": "#98df8a",
    "ot4": "#e377c2",
    "rkmk4": "#76b7b2",
    "exact": "#e5c494",
    "split2": "#009e73",
    "split4": "#9c755f",
    "split6": "#ff9da7",
}
# The engines' steps (docs/engines.md) are compared with one another and the exact solution (the engines preset):
# their own 12, picked the same way from the same palettes with the exact solution's colour fixed (worst pair
# ΔE*76 31, tests/scene/test_palette.py), one family of hues an engine where that allows: Bullet warm, MuJoCo blue
# to violet, PhysX green, Jolt pink, with each engine's gyroscopic switch the lighter or darker twin.
ENGINE_SRGB = {
    "bullet_explicit": "#d55e00",
    "bullet_implicit_world": "#f6a600",
    "bullet_implicit_body": "#9c755f",
    "mujoco_euler": "#17becf",
    "mujoco_implicitfast": "#aec7e8",
    "mujoco_rk4": "#9467bd",
    "physx": "#2ca02c",
    "physx_gyro": "#98df8a",
    "jolt": "#f7b6d2",
    "jolt_gyro": "#e15759",
    "godot": "#bcbd22",
    "catto2015": "#009e73",
}
INTEGRATOR_SRGB.update(ENGINE_SRGB)
# The rotations about the principal axes (the family "axes", compared side by side with the exact solution): four
# of the same palettes (Tableau's, Okabe & Ito's) picked the same way, worst pair ΔE*76 64, each ≥ 46 from exact's.
AXES_SRGB = {"axes2": "#d37295", "axes4": "#f28e2b", "axes6": "#59a14f", "axes8": "#56b4e9"}
INTEGRATOR_SRGB.update(AXES_SRGB)


def rgb_triple(color: Iterable[float]) -> tuple[float, float, float]:
    """A colour's three channels, as Python floats (from an array row, a list, a tuple)."""
    red, green, blue = (float(c) for c in color)
    return red, green, blue


# An engine's float32 twin (sim/integrators/engine_steps.py's float32_twins) in its double-precision step's colour:
# the two are compared by name, not side by side in one family.
INTEGRATOR_SRGB.update({f"{name}_f32": code for name, code in ENGINE_SRGB.items() if not name.startswith("mujoco")})
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


def cielab(srgb: np.ndarray) -> np.ndarray:
    """(..., 3) CIELAB (L*, a*, b*; D65 white) of sRGB colours in [0, 1]: what colour distances (ΔE*76, the
    Euclidean distance) are measured in."""
    linear = srgb_to_linear(srgb)
    to_xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
    xyz = linear @ to_xyz.T / np.array([0.95047, 1.0, 1.08883])
    delta = 6.0 / 29.0
    f = np.where(xyz > delta**3, np.cbrt(xyz), xyz / (3.0 * delta**2) + 4.0 / 29.0)
    return np.stack([116.0 * f[..., 1] - 16.0, 500.0 * (f[..., 0] - f[..., 1]), 200.0 * (f[..., 1] - f[..., 2])], -1)
