"""The look of a frame: colours, lights, sizes of overlays. Colours are given in sRGB (as a designer picks them)
and converted to linear RGB for lighting, except where a name ends in ``_SRGB``."""

from __future__ import annotations

import numpy as np

from spinlab.scene.model.palette import PALETTE_LINEAR, hex_srgb, rgb_triple, srgb_to_linear

__all__ = [
    "srgb_to_linear",
    "linear_to_srgb",
    "hex_srgb",
    "PALETTE_LINEAR",
    "BACKGROUND_TOP_SRGB",
    "BACKGROUND_BOTTOM_SRGB",
    "SEPARATOR_SRGB",
    "OMEGA_LINEAR",
    "MOMENTUM_LINEAR",
    "TRAIL_LINEAR",
    "PLANE_LINEAR",
    "GRID_LINE_SRGB",
    "KEY_DIRECTION_CAMERA",
    "FILL_DIRECTION_CAMERA",
    "LIGHTING",
]


def linear_to_srgb(linear: np.ndarray) -> np.ndarray:
    """The sRGB transfer function (common.glsl's ``linear_to_srgb``), elementwise, clamped to [0, 1]."""
    c = np.clip(np.asarray(linear, dtype=float), 0.0, 1.0)
    return np.where(c <= 0.0031308, 12.92 * c, 1.055 * c ** (1.0 / 2.4) - 0.055)


BACKGROUND_TOP_SRGB = hex_srgb("#3a3f47")
BACKGROUND_BOTTOM_SRGB = hex_srgb("#15171b")
SEPARATOR_SRGB = rgb_triple(hex_srgb("#0b0c0e"))

OMEGA_LINEAR = srgb_to_linear(hex_srgb("#ffd23f"))
MOMENTUM_LINEAR = srgb_to_linear(hex_srgb("#ee5fb5"))
TRAIL_LINEAR = srgb_to_linear(hex_srgb("#ffe066"))
PLANE_LINEAR = srgb_to_linear(hex_srgb("#9cc8ff"))
GRID_LINE_SRGB = hex_srgb("#8d96a3")

# Lights are fixed to the camera (x right, y up, z towards the viewer), so the shading reads the same from every
# orbit angle: a key light above-left, a dim fill from the right.
KEY_DIRECTION_CAMERA = np.array([-0.45, 0.7, 0.55])
FILL_DIRECTION_CAMERA = np.array([0.7, -0.1, 0.45])

LIGHTING = {
    "u_key_color": (0.85, 0.82, 0.77),
    "u_fill_color": (0.22, 0.26, 0.34),
    "u_sky_color": (0.2, 0.22, 0.27),
    "u_ground_color": (0.06, 0.055, 0.05),
    "u_shininess": 48.0,
    "u_specular": 0.3,
    "u_rim": 0.35,
}
