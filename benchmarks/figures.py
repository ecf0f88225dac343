"""matplotlib for the benchmarks' plots, optional: pyplot on the Agg backend (no display), and figures written
atomically as PNG (:mod:`scene.files.atomic_file`), so a plot in ``docs/images`` is whole or the old one."""

from __future__ import annotations

import pathlib

from spinlab.scene.files.atomic_file import atomic_output

__all__ = ["pyplot", "save_figure"]


def pyplot():
    """matplotlib's pyplot on the Agg backend, or ``None`` when matplotlib is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt


def save_figure(figure, path: pathlib.Path, *, dpi: int) -> None:
    """Write the matplotlib ``figure`` to ``path`` as PNG (its directory made if missing), then close it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_output(path, binary=True) as file:
        figure.savefig(file, format="png", dpi=dpi)
    import matplotlib.pyplot as plt

    plt.close(figure)
