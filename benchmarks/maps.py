"""Seed 003's maps over a grid of body angular momenta, reproduced with this project's Newton and sub-steps.

The body is seed 003's T-handle, principal moments (2.5, 1.4, 1.3) kg m², at the identity orientation, torque-free,
with its body momentum ``ℓ`` in the plane ``z = 0`` (one body per grid point, every grid stepped as one batch):

- **energy maps** (seed 003 §11): the relative energy change ``|E'/E − 1|`` after one step of ``h = 1`` s, ``ℓ``
  from (−50, −50, 0) to (50, 50, 0), for ``implicit_midpoint``, ``trapezoidal`` and ``object_trapezoidal``, each
  with three sub-step rules: the seed's (equal pieces, each inside the Kantorovich condition below: the seed's
  adaptive method takes the largest safe piece), and this project's cap on the turn per converged step
  (``max_step_angle``) at 1 rad and at its default π (:mod:`sim.integrators.newton`).
- **convergence maps** (seed 003 §8, §10): the number of updates that Newton's method (the project's
  :func:`sim.integrators.newton.newton_solve` on :mod:`sim.integrators.implicit_midpoint`'s residual) and the
  simple fixed-point iteration ``v ← h I⁻¹ R(−v/2) ℓ`` need to solve the midpoint equation
  ``F(v) = v − h I⁻¹ R(−v/2) ℓ = 0`` from ``v = 0``, with the same test ``|F(v)| ≤ tolerance · (1 + |v|)``, at most
  10 updates (the seed's cap), ``ℓ`` from (−15, −15, 0) to (15, 15, 0) and zoomed to ±3.

The Kantorovich condition (seed 003 §10), derived again, and every measure at one ``ℓ`` are in
:mod:`benchmarks.maps_measures`; the images in :mod:`benchmarks.maps_images`; the tables and ``docs/maps.md`` in
:mod:`benchmarks.maps_report`. This module runs the grids and gathers the result.

``python -m spinlab.benchmarks.maps [--quick] [--docs]`` prints the table; ``--docs`` also writes ``docs/maps.md``. The
images ``docs/images/maps_energy.png`` and ``maps_newton.png`` are written by every full run (``bench``) and need
matplotlib (skipped with a note without it).
"""

from __future__ import annotations

import math
import pathlib
from collections.abc import Callable
from typing import Any

import numpy as np

from spinlab import checkout_folder, checkout_root
from spinlab.benchmarks.maps_images import write_images
from spinlab.benchmarks.maps_measures import (
    KANTOROVICH_CONSTANT,
    MAX_ITERATIONS,
    METHODS,
    MOMENTS,
    SETTINGS,
    TOLERANCE,
    H,
    energy_change,
    fixed_point_iterations,
    kantorovich_disc,
    kantorovich_pointwise,
    momentum_grid,
    newton_iterations,
)
from spinlab.benchmarks.maps_report import SEED_CLAIMS, format_table, write_docs

__all__ = ["run", "format_table", "write_docs"]

ENERGY_EXTENT, CONVERGENCE_EXTENT, ZOOM_EXTENT = 50.0, 15.0, 3.0  # kg m²/s, half-widths of the grids
GRID, GRID_QUICK = 200, 40  # points a side (even: no point at ℓ = 0, where E = 0)
SWEEP_TOLERANCES = (1e-6, 1e-10, 1e-14)  # the seed's "certain fixed precision" is not given: how much it matters


def _energy_rows(ell_body: np.ndarray, n: int, report) -> tuple[list[dict], dict[str, np.ndarray]]:
    rows, maps = [], {}
    for setting, max_step_angle in SETTINGS:
        for name in METHODS:
            report(f"energy map: {name}, {setting} ...")
            change, iterations, substeps = energy_change(name, ell_body, max_step_angle=max_step_angle)
            worst = int(np.argmax(change))
            maps[f"{setting}/{name}"] = change.reshape(n, n)
            rows.append({"setting": setting, "max_step_angle": max_step_angle, "integrator": name,
                         "worst": float(change[worst]), "worst_at": ell_body[worst, :2].tolist(),
                         "median": float(np.median(change)), "newton_iterations_mean": float(iterations.mean()),
                         "substeps_mean": float(substeps.mean()), "substeps_max": int(substeps.max())})  # fmt: skip
    return rows, maps


def _convergence(ell_body: np.ndarray, n: int, extent: float) -> tuple[dict, dict[str, np.ndarray]]:
    v_newton, ok_newton, it_newton = newton_iterations(ell_body)
    v_fixed, ok_fixed, it_fixed = fixed_point_iterations(ell_body)
    disc, pointwise = kantorovich_disc(ell_body), kantorovich_pointwise(ell_body)
    both = ok_newton & ok_fixed
    summary: dict[str, Any] = {"extent": extent, "grid": n}
    for key, ok, iterations, v in (("newton", ok_newton, it_newton, v_newton), ("fixed_point", ok_fixed, it_fixed,
                                                                                  v_fixed)):  # fmt: skip
        within_pi = ok & (np.linalg.norm(v, axis=-1) <= math.pi)
        summary[key] = {"converged_fraction": float(ok.mean()), "converged_within_pi_fraction": float(within_pi.mean()),
                        "median_iterations": float(np.median(iterations[ok])) if ok.any() else None,
                        "max_iterations": int(iterations[ok].max()) if ok.any() else None,
                        "converged_in_disc": bool(ok[disc].all()), "converged_in_pointwise": bool(ok[pointwise].all()),
                        "max_iterations_in_disc": int(iterations[disc].max()) if disc.any() else None}  # fmt: skip
    summary |= {"disc_fraction": float(disc.mean()), "pointwise_fraction": float(pointwise.mean()),
                "max_difference_where_both_converge": float(np.abs(v_newton - v_fixed)[both].max()) if both.any()
                else None}  # fmt: skip
    maps = {"newton": np.where(ok_newton, it_newton, -1).reshape(n, n),
            "fixed_point": np.where(ok_fixed, it_fixed, -1).reshape(n, n),
            "disc": disc.reshape(n, n), "pointwise": pointwise.reshape(n, n),
            "newton_within_pi": (ok_newton & (np.linalg.norm(v_newton, axis=-1) <= math.pi)).reshape(n, n)}  # fmt: skip
    return summary, maps


def _tolerance_row(ell_body: np.ndarray, tolerance: float) -> dict:
    newton = newton_iterations(ell_body, tolerance=tolerance)
    fixed_point = fixed_point_iterations(ell_body, tolerance=tolerance)
    return {"tolerance": tolerance, "newton_converged_fraction": float(newton[1].mean()),
            "fixed_point_converged_fraction": float(fixed_point[1].mean())}  # fmt: skip


def run(quick: bool, *, progress: Callable[[str], None] | None = None, image_dir: pathlib.Path | None = None) -> dict:
    """Run the benchmark. JSON-serialisable result: ``{"name", "quick", "moments", "h", "energy": {"extent",
    "grid", "rows": [{"setting", "max_step_angle", "integrator", "worst", "worst_at", "median",
    "newton_iterations_mean", "substeps_mean", "substeps_max"}]}, "convergence": {"tolerance", "max_iterations",
    "kantorovich_constant", "disc_radius", "grids": [{"extent", "grid", "newton": {...}, "fixed_point": {...},
    "disc_fraction", "pointwise_fraction", "max_difference_where_both_converge"}], "tolerance_sweep": [{"tolerance",
    "newton_converged_fraction", "fixed_point_converged_fraction"}]}, "seed_claims", "images"}``.

    Images go to ``image_dir`` (default: the checkout's ``docs/images`` on a full run; none on a quick one, or when
    spinlab is installed); ``images`` lists the files written, or says why there are none.
    """
    report = progress if progress is not None else (lambda message: None)
    n = GRID_QUICK if quick else GRID
    _, ell_energy = momentum_grid(ENERGY_EXTENT, n)
    energy_rows, energy_maps = _energy_rows(ell_energy, n, report)
    grids, convergence_maps = [], []
    for extent in (CONVERGENCE_EXTENT, ZOOM_EXTENT):
        report(f"convergence map ±{extent:g} ...")
        summary, maps = _convergence(momentum_grid(extent, n)[1], n, extent)
        grids.append(summary)
        convergence_maps.append(maps)
    report("convergence against the tolerance ...")
    sweep = [_tolerance_row(momentum_grid(CONVERGENCE_EXTENT, n)[1], tolerance) for tolerance in SWEEP_TOLERANCES]
    result = {"name": "maps", "quick": quick, "moments": MOMENTS, "h": H,
              "energy": {"extent": ENERGY_EXTENT, "grid": n, "rows": energy_rows},
              "convergence": {"tolerance": TOLERANCE, "max_iterations": MAX_ITERATIONS,
                              "kantorovich_constant": KANTOROVICH_CONSTANT,
                              "disc_radius": KANTOROVICH_CONSTANT * min(MOMENTS) / H, "grids": grids,
                              "tolerance_sweep": sweep},
              "seed_claims": SEED_CLAIMS}  # fmt: skip
    if image_dir is None and not quick and checkout_root() is not None:
        image_dir = checkout_folder("docs", "images")
    if image_dir is None:
        result["images"] = (
            "not written on a quick run" if quick else "not written: spinlab is installed, not a checkout"
        )
    else:
        report("images ...")
        result["images"] = write_images(result, energy_maps, convergence_maps, pathlib.Path(image_dir))
    return result


if __name__ == "__main__":
    import sys

    arguments = sys.argv[1:]
    outcome = run("--quick" in arguments, progress=lambda message: print(message, file=sys.stderr))
    print(format_table(outcome))
    if "--docs" in arguments:
        write_docs(outcome)
