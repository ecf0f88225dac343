"""The window's plots of a run, drawn with matplotlib for a notebook or a paper (spinlab/runs.py's ``Run.plot`` and
``Comparison.plot``): the energy error, |ΔL|/|L| and the orientation error against time on log scales, and the
herpolhode (world ω in the invariable plane's axes, the exact solution dashed), each integrator in its colour of
the window's palette (scene/model/palette.py) on the window's dark plots. matplotlib is imported here only: the
``notebook`` extra installs it.
"""

from __future__ import annotations

__docformat__ = "restructuredtext"  # pdoc: the ``literals`` and :class:`roles` of the docstrings

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from spinlab.sim.errors import InputError

if TYPE_CHECKING:
    from matplotlib.artist import Artist
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from spinlab.runs import Run

__all__ = ["PLOTS", "plot_runs"]

PLOTS = {
    "energy": "energy error |ΔE|/E",
    "momentum": "L error |ΔL|/|L|",
    "orientation": "orientation error (rad)",
    "herpolhode": "herpolhode (ω in the invariable plane, rad/s)",
}
"""The plots :func:`plot_runs` draws, by name, with their titles (the window's, ui/plots.py)."""

BACKGROUND = "#1b1d21"  # the window's panel and plots (ui/theme.py's PANEL_BG_RGB)
FOREGROUND = "#d6d9de"
EXACT = "#ebedf2"  # the exact solution, dashed (ui/plots.py's EXACT_RGBA)
FLOOR = 1e-17  # an exact zero on a log scale (scene/model/samples.py's ERROR_FLOOR)


def plot_runs(runs: Mapping[str, Run], what: Sequence[str] | None = None, *, body: int | str = 0) -> Figure:
    """A figure of ``body`` (index or name) in every run of ``runs`` (name → run), one axes per plot of ``what``
    (names of :data:`PLOTS`, all by default), side by side; each axes titled as the window's plot is."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError("plots need matplotlib: pip install 'spinlab[notebook]'") from None
    from spinlab.scene.model.palette import integrator_color

    names = list(PLOTS) if what is None else list(what)
    for name in names:
        if name not in PLOTS:
            raise InputError(f"no such plot (plots: {', '.join(PLOTS)})", where="what", value=name)
    figure = Figure(figsize=(4.2 * len(names), 3.6), facecolor=BACKGROUND, layout="constrained")
    axes = figure.subplots(1, len(names), squeeze=False)[0]
    for number, (label, run) in enumerate(runs.items()):
        index = _body_index(run, body)
        color = _hex(integrator_color(run.integrator, number))
        for ax, name in zip(axes, names, strict=True):
            if name == "herpolhode":
                ax.plot(*run.herpolhode[:, index].T, color=color, lw=1.0, label=label)
                if number == 0 and run.exact is not None:
                    ax.plot(*run.exact.herpolhode[:, index].T, "--", color=EXACT, lw=0.8, label="exact")
            else:
                values = getattr(run.errors, name)[:, index]
                ax.semilogy(run.t, np.maximum(values, FLOOR), color=color, lw=1.0, label=label)
    for ax, name in zip(axes, names, strict=True):
        _styled(ax, PLOTS[name], "ω₁" if name == "herpolhode" else "t (s)", "ω₂" if name == "herpolhode" else "")
        if name == "herpolhode":
            ax.set_aspect("equal", adjustable="datalim")
    legend: dict[str, Artist] = {}  # one entry a line label, across the axes (the exact herpolhode's too)
    for ax in axes:
        legend.update((label, handle) for handle, label in zip(*ax.get_legend_handles_labels(), strict=True))
    figure.legend(list(legend.values()), list(legend), loc="outside right upper", facecolor=BACKGROUND,
                  edgecolor="#40444b", labelcolor=FOREGROUND, fontsize=8)  # fmt: skip
    return figure


def _body_index(run: Run, body: int | str) -> int:
    """The index of ``body`` (an index or a name) among ``run``'s bodies, or :class:`InputError`."""
    if isinstance(body, str):
        if body not in run.names:
            raise InputError(f"no body of that name (bodies: {', '.join(run.names)})", where="body", value=body)
        return run.names.index(body)
    if not -len(run.names) <= body < len(run.names):
        raise InputError(f"no body of that index ({len(run.names)} bodies)", where="body", value=body)
    return int(body)


def _styled(ax: Axes, title: str, xlabel: str, ylabel: str) -> None:
    """``ax`` on the window's dark plot background, its text and frame in the window's colours."""
    ax.set_facecolor(BACKGROUND)
    ax.set_title(title, color=FOREGROUND, fontsize=10)
    ax.set_xlabel(xlabel, color=FOREGROUND)
    ax.set_ylabel(ylabel, color=FOREGROUND)
    ax.tick_params(colors=FOREGROUND, labelsize=8)
    for spine in ax.spines.values():
        spine.set_color("#40444b")
    ax.grid(True, color="#2c2f35", lw=0.5)


def _hex(linear: tuple[float, float, float]) -> str:
    """``"#rrggbb"`` of the linear RGB colour ``linear`` (the palette's, which the renderer lights): the sRGB
    transfer function, then 8 bits a channel."""
    c = np.clip(np.asarray(linear, dtype=float), 0.0, 1.0)
    srgb = np.where(c <= 0.0031308, 12.92 * c, 1.055 * c ** (1 / 2.4) - 0.055)
    return "#" + "".join(f"{round(float(v) * 255):02x}" for v in srgb)
