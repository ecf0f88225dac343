"""The window's layout: where the panel, the plots and the 3D view go.

Rectangles are in window coordinates (top-left origin, y down, logical pixels, as ImGui and the mouse use);
viewports are in framebuffer pixels with GL's bottom-left origin (on a HiDPI display the framebuffer is larger
than the window by ``pixel_ratio``). The 3D view itself, a run's grid of views with linked cameras, is
render/run_view.py's :class:`~render.run_view.RunView`, as ``record`` draws it.
"""

from __future__ import annotations

from dataclasses import dataclass

from spinlab.render.renderer import Viewport

__all__ = ["Rect", "Layout", "window_layout", "to_viewport", "PANEL_WIDTH", "PLOTS_HEIGHT_FRACTION"]

PANEL_WIDTH = 340.0
PLOTS_HEIGHT_FRACTION = 0.36
ENLARGED_PLOTS_HEIGHT_FRACTION = 0.5  # with one plot enlarged (ui/plot_focus.py): the strip is taller too
MIN_PLOTS_HEIGHT = 200.0


@dataclass(frozen=True)
class Rect:
    """x, y of the top-left corner and the size, in window coordinates."""

    x: float
    y: float
    width: float
    height: float

    def contains(self, x: float, y: float) -> bool:
        return self.x <= x < self.x + self.width and self.y <= y < self.y + self.height

    def overlaps(self, other: Rect) -> bool:
        return (
            self.x < other.x + other.width
            and other.x < self.x + self.width
            and (self.y < other.y + other.height and other.y < self.y + self.height)
        )


@dataclass(frozen=True)
class Layout:
    """Where the panel and the plots go (``None`` when hidden) and the rest, the 3D view."""

    panel: Rect | None
    plots: Rect | None
    view: Rect


def window_layout(
    width: float, height: float, *, panel: bool, plots: bool, ui_scale: float = 1.0, enlarged: bool = False
) -> Layout:
    """The panel down the left side, the plots along the bottom right (taller with a plot ``enlarged``), the 3D
    view above them."""
    panel_width = min(PANEL_WIDTH * ui_scale, 0.5 * width) if panel else 0.0
    fraction = ENLARGED_PLOTS_HEIGHT_FRACTION if enlarged else PLOTS_HEIGHT_FRACTION
    plots_height = max(fraction * height, MIN_PLOTS_HEIGHT * ui_scale) if plots else 0.0
    plots_height = min(plots_height, 0.6 * height)
    return Layout(
        panel=Rect(0.0, 0.0, panel_width, height) if panel else None,
        plots=Rect(panel_width, height - plots_height, width - panel_width, plots_height) if plots else None,
        view=Rect(panel_width, 0.0, width - panel_width, height - plots_height),
    )


def to_viewport(rect: Rect, window_height: float, pixel_ratio: float) -> Viewport:
    """The framebuffer viewport (GL's bottom-left origin) covering ``rect``."""
    x0, x1 = round(rect.x * pixel_ratio), round((rect.x + rect.width) * pixel_ratio)
    y0 = round((window_height - rect.y - rect.height) * pixel_ratio)
    y1 = round((window_height - rect.y) * pixel_ratio)
    return (x0, y0, max(x1 - x0, 1), max(y1 - y0, 1))
