"""The one grid layout of N views, the window's and the video's: how many columns, and each cell's viewport."""

from __future__ import annotations

import math

__all__ = ["GAP_PX", "CELL_ASPECT", "grid_columns", "grid_viewports"]

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
