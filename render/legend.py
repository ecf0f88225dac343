"""The key to the overlays drawn in the 3D view, one function for the window (ui/view3d.py) and the video
(render/viewports.py's ``render_grid``): each overlay a line after a dot of its colour (sRGB), shown only while
its :class:`~render.renderer.RenderOptions` flag is on; and where it goes (:func:`key_place`), never over a body.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from types import SimpleNamespace

from spinlab.render.grid import grid_columns, grid_viewports
from spinlab.render.look import MOMENTUM_LINEAR, OMEGA_LINEAR, PLANE_LINEAR, TRAIL_LINEAR, linear_to_srgb
from spinlab.render.meshes import AXES_LINEAR
from spinlab.render.text import TextBox, row_height_px
from spinlab.scene.model.palette import rgb_triple

__all__ = [
    "legend_box",
    "legend_entries",
    "GHOST_SRGB",
    "EVERY_OVERLAY",
    "KeyPlace",
    "key_place",
    "WIDE_CELL_ASPECT",
]

# A cell at least this much wider than high frames its bodies in its middle and leaves its bottom-right corner
# free for the key (a single view in the window: 940 × 460 px); narrower cells of a full grid have none.
WIDE_CELL_ASPECT = 1.8
LONG_NAMES_PX = 330.0  # the width the key's long names take at size 1 ("invariable plane  ω·L/|L| = 2E/|L|")

GHOST_SRGB = (0.85, 0.88, 0.92)  # the exact ghost is a translucent pale copy of the body


def _srgb(linear) -> tuple[float, float, float]:
    return rgb_triple(linear_to_srgb(linear))


# (the option that shows it, its line, its short name along an edge, its sRGB colour)
_ENTRIES = [
    ("show_omega", "ω  angular velocity", "ω  angular velocity", _srgb(OMEGA_LINEAR)),
    ("show_momentum", "L  angular momentum", "L  angular momentum", _srgb(MOMENTUM_LINEAR)),
    ("show_herpolhode", "herpolhode: the path of ω's tip", "herpolhode", _srgb(TRAIL_LINEAR)),
    ("show_invariable_plane", "invariable plane  ω·L/|L| = 2E/|L|", "invariable plane", _srgb(PLANE_LINEAR)),
    ("show_axes", "axis of least moment", "least axis", _srgb(AXES_LINEAR[0])),
    ("show_axes", "axis of middle moment", "middle axis", _srgb(AXES_LINEAR[1])),
    ("show_axes", "axis of greatest moment", "greatest axis", _srgb(AXES_LINEAR[2])),
    ("show_ghost", "exact solution (ghost)", "exact (ghost)", GHOST_SRGB),
]
# Options with every overlay on: the key at its largest, whose room a strip keeps (so that turning an overlay on or
# off does not move the views).
EVERY_OVERLAY = SimpleNamespace(**{name: True for name, *_ in _ENTRIES})


def legend_entries(options, planes: bool = True, short: bool = False) -> list[tuple[str, tuple[float, float, float]]]:
    """``(line, sRGB colour)`` of every overlay ``options`` shows, in the legend's order; ``planes``: whether
    any body has an invariable plane (a torque-free one) to show; ``short``: the names a key along an edge
    takes. An option the renderer does not have (yet) counts as off (``show_ghost``, the exact ghost)."""
    shown = [entry for entry in _ENTRIES if getattr(options, entry[0], False)]
    return [
        (brief if short else line, color)
        for name, line, brief, color in shown
        if planes or name != "show_invariable_plane"
    ]


def legend_box(
    options,
    x_px: float,
    y_px: float,
    anchor: str,
    size: float = 1.0,
    *,
    planes: bool = True,
    row: bool = False,
    max_width_px: float = math.inf,
    max_height_px: float = math.inf,
) -> TextBox:
    """A key to the overlays that ``options`` shows, as a :class:`~render.text.TextBox` whose ``anchor`` corner
    is at ``(x_px, y_px)`` (pixels from the target's top-left), ``size`` times the labels' scale; no lines when
    every overlay is off. With ``row``, the short names side by side; made smaller to fit ``max_width_px`` and
    ``max_height_px``."""
    # The short names along a strip, and where the long ones would be made small: a narrow empty cell.
    short = row or max_width_px < LONG_NAMES_PX * size
    shown = legend_entries(options, planes, short=short)
    lines, colors = tuple(line for line, _ in shown), tuple(color for _, color in shown)
    return TextBox(x_px, y_px, lines, colors, False, anchor, size, row, max_width_px, max_height_px)


@dataclass(frozen=True)
class KeyPlace:
    """Where the key goes beside a grid of views: ``grid``, the area (x, y, width, height; GL's bottom-left origin)
    left to the views; the key's ``anchor`` corner at ``(x_px, y_px)`` (pixels from the target's top-left); with
    ``row``, along the bottom strip the grid leaves; at most ``max_width_px`` wide and ``max_height_px`` high (an
    empty cell's room)."""

    grid: tuple[int, int, int, int]
    x_px: float
    y_px: float
    anchor: str
    row: bool = False
    max_width_px: float = math.inf
    max_height_px: float = math.inf

    def box(self, options, size: float = 1.0, *, planes: bool = True) -> TextBox:
        """The key to ``options``' overlays at this place (:func:`legend_box`)."""
        return legend_box(
            options,
            self.x_px,
            self.y_px,
            self.anchor,
            size,
            planes=planes,
            row=self.row,
            max_width_px=self.max_width_px,
            max_height_px=self.max_height_px,
        )


def key_place(
    area: tuple[int, int, int, int],
    target_height: int,
    count: int,
    margin: float,
    scale: float,
    columns: int | None = None,
    *,
    row_scale: float | None = None,
) -> KeyPlace:
    """Where the overlays' key goes over a grid of ``count`` views filling ``area`` (GL's bottom-left origin, in a
    target ``target_height`` pixels high), clear of every body: at the top left of the grid's first empty cell when
    it has one; in the bottom-right corner of a single row of wide cells (:data:`WIDE_CELL_ASPECT`: their bodies
    are framed in the middle); else on one line along a strip the grid leaves at the bottom of ``area`` (cells of
    a full grid are narrower than a 4:3 body framing needs, so the strip costs the bodies nothing). ``margin`` (px)
    in from the edges; ``scale``: the key's text scale (its labels' scale times its size), ``row_scale`` in a strip
    (by default the same); ``columns``: the grid's (by default :func:`render.grid.grid_columns`', which a strip may
    change)."""
    x0, y0, width, height = area
    columns = columns or grid_columns(count, width, height)
    rows = math.ceil(count / columns)
    cells = grid_viewports((width, height), rows * columns, columns)
    if len(cells) > count:
        x, y, cell_width, cell_height = cells[count]
        top = target_height - (y0 + y + cell_height) + margin
        room = max(cell_width - 2.0 * margin, 1.0), max(cell_height - 2.0 * margin, 1.0)
        return KeyPlace(area, x0 + x + margin, top, "top_left", False, *room)
    if rows == 1 and cells[0][2] >= WIDE_CELL_ASPECT * cells[0][3]:
        return KeyPlace(area, x0 + width - margin, target_height - y0 - margin, "bottom_right")
    strip = math.ceil(row_height_px(scale if row_scale is None else row_scale) + margin)
    grid = (x0, y0 + strip, width, max(height - strip, 1))
    bottom = target_height - y0 - 0.5 * margin
    return KeyPlace(grid, x0 + width - margin, bottom, "bottom_right", True, max(width - 2.0 * margin, 1.0))
