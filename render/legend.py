"""The key to the overlays drawn in the 3D view, one function for the window (ui/view3d.py) and the video
(render/viewports.py's ``render_grid``): each overlay a line after a dot of its colour (sRGB), shown only while
its :class:`~render.renderer.RenderOptions` flag is on."""

from __future__ import annotations

from spinlab.render.look import MOMENTUM_LINEAR, OMEGA_LINEAR, PLANE_LINEAR, TRAIL_LINEAR, linear_to_srgb
from spinlab.render.meshes import AXES_LINEAR
from spinlab.render.text import TextBox

__all__ = ["legend_box", "legend_entries", "GHOST_SRGB"]

GHOST_SRGB = (0.85, 0.88, 0.92)  # the exact ghost is a translucent pale copy of the body


def _srgb(linear) -> tuple[float, float, float]:
    return tuple(float(c) for c in linear_to_srgb(linear))


def legend_entries(options, planes: bool = True) -> list[tuple[str, tuple[float, float, float]]]:
    """``(line, sRGB colour)`` of every overlay ``options`` shows, in the legend's order; ``planes``: whether
    any body has an invariable plane (a torque-free one) to show. An option the renderer does not have (yet)
    counts as off (``show_ghost``, the exact ghost)."""
    entries = [
        ("show_omega", "ω  angular velocity", _srgb(OMEGA_LINEAR)),
        ("show_momentum", "L  angular momentum", _srgb(MOMENTUM_LINEAR)),
        ("show_herpolhode", "herpolhode: the path of ω's tip", _srgb(TRAIL_LINEAR)),
        ("show_invariable_plane", "invariable plane  ω·L/|L| = 2E/|L|", _srgb(PLANE_LINEAR)),
        ("show_axes", "axis of least moment", _srgb(AXES_LINEAR[0])),
        ("show_axes", "axis of middle moment", _srgb(AXES_LINEAR[1])),
        ("show_axes", "axis of greatest moment", _srgb(AXES_LINEAR[2])),
        ("show_ghost", "exact solution (ghost)", GHOST_SRGB),
    ]
    shown = [(name, line, color) for name, line, color in entries if getattr(options, name, False)]
    return [(line, color) for name, line, color in shown if planes or name != "show_invariable_plane"]


def legend_box(options, x_px: float, y_px: float, anchor: str, size: float = 1.0, *, planes: bool = True) -> TextBox:
    """A key to the overlays that ``options`` shows, as a :class:`~render.text.TextBox` whose ``anchor`` corner
    is at ``(x_px, y_px)`` (pixels from the target's top-left), ``size`` times the labels' scale; no lines when
    every overlay is off."""
    shown = legend_entries(options, planes)
    lines, colors = tuple(line for line, _ in shown), tuple(color for _, color in shown)
    return TextBox(x_px, y_px, lines, colors, False, anchor, size)
