"""The one grid layout of N views, the window's and the video's: how many columns, and each cell's viewport."""

from __future__ import annotations

import math

__all__ = ["GAP_PX", "CELL_ASPECT", "grid_columns", "grid_viewports", "grid_viewports_in", "split_side_view"]

GAP_PX = 2
CELL_ASPECT = 4.0 / 3.0


def grid_columns(count: int, width: float, height: float) -> int:
    """The number of columns that makes ``count`` cells in a ``width`` × ``height`` area closest to
    ``CELL_ASPECT`` (4:3)."""
    aspect = width / height
    return min(range(1, count + 1), key=lambda c: abs(math.log(aspect * math.ceil(count / c) / c / CELL_ASPECT)))


def grid_viewports(
    size: tuple[int, int], count: int, columns: int, gap_px: int = GAP_PX
) -> list[tuple[int, int, int, int]]:
    """``count`` viewports of a ``size`` = (width, height) target in ``columns`` columns, row by row from the
    top-left, separated by ``gap_px`` pixels; each is (x, y, width, height) with GL's bottom-left origin."""
    width, height = size
    rows = math.ceil(count / columns)
    cell_width = (width - gap_px * (columns - 1)) // columns
    cell_height = (height - gap_px * (rows - 1)) // rows
    viewports = []
    for index in range(count):
        row, column = divmod(index, columns)
        x = column * (cell_width + gap_px)
        y = height - (row + 1) * cell_height - row * gap_px
        viewports.append((x, y, cell_width, cell_height))
    return viewports


def grid_viewports_in(area: tuple[int, int, int, int], count: int, columns: int) -> list[tuple[int, int, int, int]]:
    """:func:`grid_viewports` of an ``area`` (x, y, width, height; GL's bottom-left origin) of a larger target:
    the cells offset to where the area lies."""
    x0, y0, width, height = area
    return [(x0 + x, y0 + y, w, h) for x, y, w, h in grid_viewports((width, height), count, columns)]


# The share of the width a side view (the Poinsot view) takes beside the grid: half beside a single view, less
# beside many (their cells stay large enough to read).
SIDE_VIEW_SHARE = {1: 0.5, 2: 0.4}
SIDE_VIEW_SHARE_MANY = 0.34


def split_side_view(
    area: tuple[int, int, int, int], count: int, gap_px: int = GAP_PX
) -> tuple[tuple[int, int, int, int], tuple[int, int, int, int]]:
    """``area`` (x, y, width, height, GL's bottom-left origin) split for a grid of ``count`` views on the left and
    a side view on the right: ``(grid area, side viewport)``."""
    x, y, width, height = area
    side = round(width * SIDE_VIEW_SHARE.get(count, SIDE_VIEW_SHARE_MANY))
    grid_width = max(width - side - gap_px, 1)
    return (x, y, grid_width, height), (x + grid_width + gap_px, y, max(side, 1), height)
