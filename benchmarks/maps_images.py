"""The maps' two images, drawn with matplotlib: ``docs/images/maps_energy.png`` (the energy change per step, one
panel per integrator and sub-step rule) and ``maps_newton.png`` (the updates Newton and the fixed-point iteration
take, with the Kantorovich regions). Written by every full ``bench`` run, skipped with a note without matplotlib.
"""

from __future__ import annotations

import pathlib

import numpy as np

from spinlab import checkout_root
from spinlab.benchmarks.figures import pyplot, save_figure
from spinlab.benchmarks.maps_measures import MAX_ITERATIONS, METHODS, MOMENTS, SETTINGS, TOLERANCE, momentum_grid

__all__ = ["write_images", "IMAGES"]

IMAGES = ("maps_energy.png", "maps_newton.png")


def write_images(result: dict, energy_maps: dict, convergence_maps: list[dict], image_dir: pathlib.Path):
    """Draw the energy maps (``energy_maps``: ``"setting/integrator"`` → (n, n) changes) and the convergence maps
    (one dict of (n, n) arrays per grid of ``result["convergence"]["grids"]``) into ``image_dir``; returns the
    paths written (relative to the repository when inside it), or a note when matplotlib is missing."""
    plt = pyplot()
    if plt is None:
        return "skipped: matplotlib is not installed (pip install matplotlib, or the 'peers' extra)"
    from matplotlib.colors import BoundaryNorm, ListedColormap, LogNorm
    from matplotlib.lines import Line2D

    worst = {(r["setting"], r["integrator"]): r["worst"] for r in result["energy"]["rows"]}
    extent = result["energy"]["extent"]
    box = (-extent, extent, -extent, extent)
    rows = {"kantorovich": "seed's sub-steps (Kantorovich pieces)", "cap_1rad": "turn per sub-step ≤ 1 rad",
            "cap_pi": "turn per sub-step ≤ π (default)"}  # fmt: skip
    # Two log scales: the rounding-level changes of object_trapezoidal would flatten the others' on one scale.
    norms = (LogNorm(1e-6, 1e-1, clip=True), LogNorm(1e-17, 1e-13, clip=True))
    figure, axes = plt.subplots(3, 3, figsize=(13, 12), layout="constrained", sharex=True, sharey=True)
    for i, (setting, _) in enumerate(SETTINGS):
        for j, name in enumerate(METHODS):
            norm = norms[name == "object_trapezoidal"]
            assert norm.vmin is not None, "made with its floor (above)"
            change = np.maximum(energy_maps[f"{setting}/{name}"], norm.vmin)  # a zero change is drawn at the floor
            images = axes[i, j].imshow(change, origin="lower", extent=box, cmap="magma", norm=norm)
            axes[i, j].set_title(f"{name}: worst {worst[setting, name]:.2g}", fontsize=10)
            if i == 2:
                axes[i, j].set_xlabel("ℓ_x (kg m²/s)")
            if j == 0:
                axes[i, j].set_ylabel(f"{rows[setting]}\n\nℓ_y (kg m²/s)")
            if (i, j) == (2, 1):
                label = "|ΔE|/E after one step (midpoint, trapezoidal)"
                figure.colorbar(images, ax=axes[:, :2], shrink=0.5, label=label)
    figure.colorbar(images, ax=axes[:, 2], shrink=0.5, label="|ΔE|/E after one step (object_trapezoidal)")
    figure.suptitle(f"Energy change per step, moments {tuple(MOMENTS)} kg m², body momentum ℓ in the xy-plane")
    written = [image_dir / IMAGES[0]]
    save_figure(figure, written[0], dpi=100)

    greys = plt.get_cmap("Greys")(np.linspace(0.05, 0.95, MAX_ITERATIONS + 1))
    cmap = ListedColormap(np.vstack([[1.0, 0.85, 0.0, 1.0], greys]))  # yellow: not converged
    levels = BoundaryNorm(np.arange(-1.5, MAX_ITERATIONS + 1), cmap.N)
    figure, axes = plt.subplots(2, 2, figsize=(12, 11), layout="constrained")
    for i, maps in enumerate(convergence_maps):
        grid = result["convergence"]["grids"][i]
        box = (-grid["extent"], grid["extent"], -grid["extent"], grid["extent"])
        axis_values = momentum_grid(grid["extent"], grid["grid"])[0]
        for j, (key, label) in enumerate((("fixed_point", "simple fixed-point iteration"), ("newton", "Newton"))):
            axis = axes[i, j]
            image = axis.imshow(maps[key], origin="lower", extent=box, cmap=cmap, norm=levels, interpolation="nearest")
            contours = [("disc", "tab:green", "solid"), ("pointwise", "tab:cyan", "solid")]
            if key == "newton" and not maps["newton_within_pi"].all():
                contours.append(("newton_within_pi", "tab:red", "dashed"))
            for mask, colour, style in contours:
                axis.contour(axis_values, axis_values, maps[mask].astype(float), levels=[0.5], colors=colour,
                             linewidths=1.8, linestyles=style)  # fmt: skip
            axis.set_title(f"{label}: updates from v = 0, ±{grid['extent']:g}\nconverged on "
                           f"{grid[key]['converged_fraction']:.1%} of the grid", fontsize=10)  # fmt: skip
            axis.set_xlabel("ℓ_x (kg m²/s)")
            axis.set_ylabel("ℓ_y (kg m²/s)")
    handles = [
        Line2D([], [], color="tab:green", label="Kantorovich disc h|ℓ| ≤ (√3−1) I_min"),
        Line2D([], [], color="tab:cyan", label="Kantorovich, exact β and η at each ℓ"),
        Line2D([], [], color="tab:red", linestyle="dashed", label="Newton's root turns by ≤ π inside"),
    ]
    axes[0, 1].legend(handles=handles, loc="upper right", fontsize=8, framealpha=0.9)
    bar = figure.colorbar(image, ax=axes, shrink=0.6, ticks=np.arange(-1, MAX_ITERATIONS + 1))
    bar.ax.set_yticklabels(["not converged"] + [str(k) for k in range(MAX_ITERATIONS + 1)])
    bar.set_label(f"updates to |F(v)| ≤ {TOLERANCE:g}·(1 + |v|), at most {MAX_ITERATIONS}")
    figure.suptitle("Solving the implicit midpoint equation at h = 1 s, moments (2.5, 1.4, 1.3) kg m²")
    written.append(image_dir / IMAGES[1])
    save_figure(figure, written[1], dpi=100)
    root = checkout_root()
    return [str(path.relative_to(root)) if root and path.is_relative_to(root) else str(path) for path in written]
