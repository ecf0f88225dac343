"""Seed 003's maps over a grid of body angular momenta, reproduced (issue 16, point 4).

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

The Kantorovich condition (seed 003 §10; the seed's inequality was an image and is lost, so it is derived again
here the way the seed describes, from ``v₀ = 0`` with simple bounds). With ``a = h |ℓ| / I_min`` (``I_min`` the
smallest principal moment, ``|I⁻¹| = 1/I_min``): ``|F(0)| ≤ a``; ``F'(0) = 1 − ½ h I⁻¹ [ℓ]`` so
``|F'(0)⁻¹| ≤ β = 1/(1 − a/2)``; ``F'(v) = 1 − ½ h I⁻¹ R(u) [ℓ] Jr(u)`` at ``u = −v/2``, and ``R`` and ``Jr`` are
Lipschitz with constants 1 and ½ (``|Jr| ≤ 1``), so ``F'`` is Lipschitz with ``K = ½ · ½ · (1 + ½) a = 3a/8``.
Kantorovich's ``β K η ≤ ½`` with ``η = β a`` reads ``(3/4) a² ≤ (1 − a/2)²``, that is

    h |ℓ| ≤ (√3 − 1) I_min                    (a disc of radius 0.95 kg m²/s at h = 1 for this body)

and every Newton iterate stays within ``2η ≤ 2.3`` rad of 0. The same theorem with ``β`` and ``η`` computed
exactly at each ``ℓ`` (``‖F'(0)⁻¹‖₂`` and ``|F'(0)⁻¹ F(0)|``) gives a larger, ``ℓ``-dependent region, drawn too.

``python -m benchmarks.maps [--quick] [--docs]`` prints the table; ``--docs`` also writes ``docs/maps.md``. The
images ``docs/images/maps_energy.png`` and ``maps_newton.png`` are written by every full run (``bench``) and need
matplotlib (skipped with a note without it).
"""

from __future__ import annotations

import math
import pathlib
from collections.abc import Callable
from typing import Any

import numpy as np

from sim.integrators import INTEGRATORS
from sim.integrators.checks import MAX_STEP_ANGLE
from sim.integrators.implicit_midpoint import residual, residual_jacobian
from sim.integrators.newton import NewtonOptions, newton_solve
from sim.integrators.state import BodyParams, BodyState, energy

__all__ = [
    "run", "format_table", "write_docs", "momentum_grid", "energy_change", "kantorovich_pieces",
    "kantorovich_disc", "kantorovich_pointwise", "newton_iterations", "fixed_point_iterations", "KANTOROVICH_CONSTANT",
]  # fmt: skip

MOMENTS = (2.5, 1.4, 1.3)  # kg m²
H = 1.0  # s
ENERGY_EXTENT, CONVERGENCE_EXTENT, ZOOM_EXTENT = 50.0, 15.0, 3.0  # kg m²/s, half-widths of the grids
GRID, GRID_QUICK = 200, 40  # points a side (even: no point at ℓ = 0, where E = 0)
METHODS = ("implicit_midpoint", "trapezoidal", "object_trapezoidal")
SETTINGS = (("kantorovich", None), ("cap_1rad", 1.0), ("cap_pi", MAX_STEP_ANGLE))  # (name, max_step_angle)
TOLERANCE, MAX_ITERATIONS = 1e-10, 10  # the convergence maps' test; the seed's 10 updates
SWEEP_TOLERANCES = (1e-6, 1e-10, 1e-14)  # the seed's "certain fixed precision" is not given: how much it matters
KANTOROVICH_CONSTANT = math.sqrt(3.0) - 1.0
SEED_CLAIMS = {
    "midpoint_worst_energy_change": 3e-3,  # §11: "the largest value being around 0.3%"
    "object_trapezoidal_worst_energy_change": 1e-5,  # §11: "under 10^-5 of the magnitude"
    "fixed_point": "does not seem to converge except for a small area of values close to the origin (§8)",
    "newton": "converges for most of the values and much faster (§8)",
}
ROOT = pathlib.Path(__file__).resolve().parent.parent
IMAGES = ("maps_energy.png", "maps_newton.png")


def momentum_grid(extent: float, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Pixel centres ``(n,)`` from −extent to extent, and the body momenta ``(n·n, 3)`` over them, row-major with
    ``ℓ_y`` the row (so ``reshape(n, n)`` is an image with ``ℓ_x`` across)."""
    half_pixel = extent / n
    axis = np.linspace(-extent + half_pixel, extent - half_pixel, n)
    ell_y, ell_x = np.meshgrid(axis, axis, indexing="ij")
    return axis, np.stack([ell_x.ravel(), ell_y.ravel(), np.zeros(n * n)], axis=-1)


def _bodies(ell_body: np.ndarray) -> tuple[BodyState, BodyParams]:
    """Identity orientations, so the world momentum is ``ℓ`` and ``ω = I⁻¹ ℓ``."""
    n_bodies = len(ell_body)
    q = np.tile([1.0, 0.0, 0.0, 0.0], (n_bodies, 1))
    params = BodyParams.from_inertia(np.broadcast_to(np.diag(MOMENTS), (n_bodies, 3, 3)))
    return BodyState(q, ell_body / np.asarray(MOMENTS), ell_body), params


def kantorovich_disc(ell_body: np.ndarray, h: float = H, moments=MOMENTS) -> np.ndarray:
    """(N,) bool: the condition ``h |ℓ| ≤ (√3 − 1) I_min`` (module docstring) for body momenta ``(N, 3)``."""
    return h * np.linalg.norm(ell_body, axis=-1) <= KANTOROVICH_CONSTANT * min(moments)


def kantorovich_pieces(ell_body: np.ndarray, h: float = H, moments=MOMENTS) -> np.ndarray:
    """(N,) int: the fewest equal pieces of ``h`` that each satisfy :func:`kantorovich_disc`."""
    a = h * np.linalg.norm(ell_body, axis=-1) / (KANTOROVICH_CONSTANT * min(moments))
    return np.maximum(1, np.ceil(a - 1e-12)).astype(np.int64)


def kantorovich_pointwise(ell_body: np.ndarray, h: float = H, moments=MOMENTS) -> np.ndarray:
    """(N,) bool: Kantorovich's ``β K η ≤ ½`` with ``β = ‖F'(0)⁻¹‖₂``, ``η = |F'(0)⁻¹ F(0)|`` exact and
    ``K = (3/8) h |ℓ| / I_min`` (module docstring)."""
    inverse = np.diag(1.0 / np.asarray(moments))
    n_bodies = len(ell_body)
    h_vec = np.full(n_bodies, h)
    args = (ell_body, np.broadcast_to(inverse, (n_bodies, 3, 3)), h_vec)
    v0 = np.zeros((n_bodies, 3))
    J_inv = np.linalg.inv(residual_jacobian(v0, *args))
    beta = np.linalg.norm(J_inv, 2, axis=(-2, -1))
    eta = np.linalg.norm(np.einsum("nij,nj->ni", J_inv, residual(v0, *args)), axis=-1)
    lipschitz = 0.375 * h * np.linalg.norm(ell_body, axis=-1) / min(moments)
    return beta * lipschitz * eta <= 0.5


def energy_change(name: str, ell_body: np.ndarray, h: float = H, *, max_step_angle: float | None = MAX_STEP_ANGLE):
    """One step of ``h`` with integrator ``name`` from body momenta ``(N, 3)`` (one batch; with
    ``max_step_angle=None``, :func:`kantorovich_pieces` equal steps instead, one batch per piece count). Returns
    ``(|E'/E − 1|, Newton updates, sub-steps)``, each (N,)."""
    state, params = _bodies(ell_body)
    step = INTEGRATORS[name]
    if max_step_angle is not None:
        new_state, cost = step(state, params, h, newton=NewtonOptions(max_step_angle=max_step_angle))
        iterations, substeps = cost.newton_iterations, cost.substeps
    else:
        pieces = kantorovich_pieces(ell_body, h)
        q, omega_world, L_world = state.q.copy(), state.omega_world.copy(), state.L_world.copy()
        iterations, substeps = np.zeros(len(state), dtype=np.int64), np.zeros(len(state), dtype=np.int64)
        for count in np.unique(pieces):
            group = np.flatnonzero(pieces == count)
            piece_state, piece_params = state[group], params[group]
            for _ in range(count):
                piece_state, cost = step(piece_state, piece_params, h / count)
                iterations[group] += cost.newton_iterations
                substeps[group] += cost.substeps
            q[group], omega_world[group], L_world[group] = piece_state.q, piece_state.omega_world, piece_state.L_world
        new_state = BodyState(q, omega_world, L_world)
    return np.abs(energy(new_state) / energy(state) - 1.0), iterations, substeps


def _midpoint_args(ell_body: np.ndarray, h: float):
    n_bodies = len(ell_body)
    inverse = np.broadcast_to(np.diag(1.0 / np.asarray(MOMENTS)), (n_bodies, 3, 3))
    return (np.ascontiguousarray(ell_body, dtype=np.float64), inverse, np.full(n_bodies, h))


def newton_iterations(ell_body, h: float = H, *, tolerance: float = TOLERANCE, max_iterations: int = MAX_ITERATIONS):
    """Newton's method on the midpoint equation from ``v = 0`` (the project's solver, no turn limit, no
    sub-steps). Returns ``(v (N, 3), converged (N,), updates (N,))``."""
    args = _midpoint_args(ell_body, h)
    with np.errstate(all="ignore"):  # a diverging iterate is reported as not converged
        options = NewtonOptions(tolerance=tolerance, max_iterations=max_iterations, max_step_angle=math.inf)
        return newton_solve(residual, residual_jacobian, np.zeros((len(ell_body), 3)), args, options=options)


def fixed_point_iterations(
    ell_body, h: float = H, *, tolerance: float = TOLERANCE, max_iterations: int = MAX_ITERATIONS
):
    """The simple iteration ``v ← h I⁻¹ R(−v/2) ℓ`` (seed 003 §8) from ``v = 0``, that is ``v ← v − F(v)``, with
    Newton's stopping test. Returns ``(v (N, 3), converged (N,), updates (N,))``."""
    args = _midpoint_args(ell_body, h)
    v = np.zeros((len(ell_body), 3))
    converged = np.zeros(len(v), dtype=bool)
    iterations = np.zeros(len(v), dtype=np.int64)
    active = np.ones(len(v), dtype=bool)
    with np.errstate(all="ignore"):
        for iteration in range(max_iterations + 1):
            F = residual(v, *args)
            size = np.linalg.norm(F, axis=-1)
            done = active & (size <= tolerance * (1.0 + np.linalg.norm(v, axis=-1)))
            converged |= done
            active &= ~done & np.isfinite(size)
            if iteration == max_iterations or not active.any():
                break
            v[active] -= F[active]
            iterations[active] += 1
    return v, converged, iterations


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
    summary = {"extent": extent, "grid": n}
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

    Images go to ``image_dir`` (default: ``docs/images`` on a full run, none on a quick one); ``images`` lists the
    files written, or says why there are none.
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
    if image_dir is None and not quick:
        image_dir = ROOT / "docs" / "images"
    if image_dir is None:
        result["images"] = "not written on a quick run"
    else:
        report("images ...")
        result["images"] = _write_images(result, energy_maps, convergence_maps, pathlib.Path(image_dir))
    return result


def _row(result: dict, setting: str, name: str) -> dict:
    return next(r for r in result["energy"]["rows"] if (r["setting"], r["integrator"]) == (setting, name))


def format_table(result: dict[str, Any]) -> str:
    """Markdown tables: the energy change per method and sub-step rule, then the iteration counts."""
    energy_part, convergence = result["energy"], result["convergence"]
    extent, n = energy_part["extent"], energy_part["grid"]
    lines = [f"Body moments {tuple(result['moments'])} kg m², identity orientation, torque-free, one step of h = "
             f"{result['h']:g} s, body momentum ℓ on a {n}×{n} grid over [−{extent:g}, {extent:g}]² × {{0}} kg m²/s.",
             "", "| sub-steps | integrator | worst \\|ΔE\\|/E | at ℓ (x, y) | median | Newton updates (mean) "
             "| sub-steps (mean / max) |", "|---|---|---:|---|---:|---:|---:|"]  # fmt: skip
    labels = {"kantorovich": "seed: Kantorovich pieces", "cap_1rad": "cap 1 rad", "cap_pi": "cap π (default)"}
    for r in energy_part["rows"]:
        at = f"({r['worst_at'][0]:.3g}, {r['worst_at'][1]:.3g})"
        substeps = f"{r['substeps_mean']:.3g} / {r['substeps_max']}"
        lines.append(f"| {labels[r['setting']]} | {r['integrator']} | {r['worst']:.3g} | {at} | {r['median']:.3g} | "
                     f"{r['newton_iterations_mean']:.3g} | {substeps} |")  # fmt: skip
    lines += ["", f"Solving the midpoint equation from v = 0 to |F(v)| ≤ {convergence['tolerance']:g}·(1 + |v|) in at "
              f"most {convergence['max_iterations']} updates. Kantorovich disc: h|ℓ| ≤ (√3 − 1)·I_min, radius "
              f"{convergence['disc_radius']:.3f} kg m²/s.", "",
              "| grid | iteration | converged | of which \\|v\\| ≤ π | median updates | max updates "
              "| all converge in disc / pointwise region |", "|---|---|---:|---:|---:|---:|---|"]  # fmt: skip
    for grid in convergence["grids"]:
        for key, label in (("fixed_point", "fixed point"), ("newton", "Newton")):
            s = grid[key]
            median = "–" if s["median_iterations"] is None else f"{s['median_iterations']:g}"
            largest = "–" if s["max_iterations"] is None else str(s["max_iterations"])
            lines.append(f"| ±{grid['extent']:g}, {grid['grid']}² | {label} | {s['converged_fraction']:.2%} | "
                         f"{s['converged_within_pi_fraction']:.2%} | {median} | {largest} | "
                         f"{'yes' if s['converged_in_disc'] else 'no'} / "
                         f"{'yes' if s['converged_in_pointwise'] else 'no'} |")  # fmt: skip
    for grid in convergence["grids"]:
        difference = grid["max_difference_where_both_converge"]
        lines.append(f"\n±{grid['extent']:g}: the Kantorovich disc holds {grid['disc_fraction']:.2%} of the grid, the "
                     f"pointwise region {grid['pointwise_fraction']:.2%}; where both iterations converge their v "
                     f"differ by at most {'–' if difference is None else f'{difference:.2g}'} rad.")  # fmt: skip
    sweep = convergence.get("tolerance_sweep", [])
    if sweep:
        fractions = "; ".join(f"{r['tolerance']:g}: Newton {r['newton_converged_fraction']:.2%}, fixed point "
                              f"{r['fixed_point_converged_fraction']:.2%}" for r in sweep)  # fmt: skip
        lines.append(f"\nConverged on the ±{convergence['grids'][0]['extent']:g} grid by tolerance: {fractions}.")
    images = result["images"]
    lines.append("\nImages: " + (", ".join(images) if isinstance(images, list) else images) + ".")
    return "\n".join(lines)


def _save(figure, path: pathlib.Path) -> None:
    from scene.atomic_file import atomic_output

    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_output(path, binary=True) as file:
        figure.savefig(file, format="png", dpi=100)


def _write_images(result: dict, energy_maps: dict, convergence_maps: list[dict], image_dir: pathlib.Path):
    """Draw the energy and the convergence maps; returns the paths written, or a note when matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.colors import BoundaryNorm, ListedColormap, LogNorm
        from matplotlib.lines import Line2D
    except ImportError:
        return "skipped: matplotlib is not installed (pip install matplotlib, or the 'peers' extra)"
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
            change = np.maximum(energy_maps[f"{setting}/{name}"], norm.vmin)  # a zero change is drawn at the floor
            images = axes[i, j].imshow(change, origin="lower", extent=box, cmap="magma", norm=norm)
            axes[i, j].set_title(f"{name}: worst {_row(result, setting, name)['worst']:.2g}", fontsize=10)
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
    _save(figure, written[0])
    plt.close(figure)

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
    _save(figure, written[1])
    plt.close(figure)
    return [str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path) for path in written]


def write_docs(result: dict[str, Any], root: pathlib.Path = ROOT) -> None:
    """Write ``docs/maps.md``: the tables, the images and the comparison with seed 003's figures."""
    from scene.atomic_file import atomic_output

    (root / "docs").mkdir(exist_ok=True)
    with atomic_output(root / "docs" / "maps.md") as file:
        file.write(_note(result))


def _note(result: dict[str, Any]) -> str:
    """docs/maps.md: the comparison with seed 003's figures, written from ``result``'s numbers."""
    worst = {(r["setting"], r["integrator"]): r["worst"] for r in result["energy"]["rows"]}
    substeps = {(r["setting"], r["integrator"]): r for r in result["energy"]["rows"]}
    mid, trap, ot = (worst[(setting, name)] for setting, name in
                     (("kantorovich", "implicit_midpoint"), ("kantorovich", "trapezoidal"),
                      ("kantorovich", "object_trapezoidal")))  # fmt: skip
    mid_1, mid_pi = worst[("cap_1rad", "implicit_midpoint")], worst[("cap_pi", "implicit_midpoint")]
    ot_all = max(worst[(setting, "object_trapezoidal")] for setting, _ in SETTINGS)
    seed_mid, seed_ot = (
        SEED_CLAIMS["midpoint_worst_energy_change"],
        SEED_CLAIMS["object_trapezoidal_worst_energy_change"],
    )
    turn = KANTOROVICH_CONSTANT  # the largest turn of a seed piece: |I⁻¹ ℓ| h/n ≤ h|ℓ|/(n I_min) ≤ √3 − 1 rad
    big, zoom = result["convergence"]["grids"]
    newton, fixed = big["newton"], big["fixed_point"]
    ot_pi, mid_pi_row = substeps[("cap_pi", "object_trapezoidal")], substeps[("cap_pi", "implicit_midpoint")]
    images = result["images"]
    energy_image = "![energy change per step](images/maps_energy.png)" if isinstance(images, list) else images
    newton_image = "![iterations, fixed point and Newton](images/maps_newton.png)" if isinstance(images, list) else ""
    row_mid = (
        f"{mid:.2%} with the seed's pieces ({mid / seed_mid:.2f}×); {mid_1:.2%} capped at 1 rad "
        f"({mid_1 / seed_mid:.2f}×); {mid_pi:.2%} at the default cap π ({mid_pi / seed_mid:.1f}×)"
    )
    row_ot = f"at most {ot_all:.1e} under every rule ({seed_ot / ot_all:.0e}× below the seed's bound)"
    row_trap = f"{trap:.2%} against {mid:.2%} with the seed's pieces ({trap / mid:.1f}×)"
    row_bounded = r"yes under every rule: the worst is set by the largest turn a piece may make, not by \|ℓ\|"
    row_fixed = (
        f"converges on {fixed['converged_fraction']:.2%} of the grid (±{zoom['extent']:g}: "
        f"{zoom['fixed_point']['converged_fraction']:.1%}), median {fixed['median_iterations']:g} updates"
    )
    row_newton = f"converges on {newton['converged_fraction']:.1%}, median {newton['median_iterations']:g} updates"
    row_kantorovich = (
        rf"the disc h\|ℓ\| ≤ (√3 − 1) I_min holds {big['disc_fraction']:.2%} of the grid, the same "
        f"theorem with exact β, η at each ℓ {big['pointwise_fraction']:.2%}; Newton converges at every "
        f"point of both, in at most {newton['max_iterations_in_disc']} updates in the disc"
    )
    return rf"""# Seed 003's maps, reproduced

Written by `python -m benchmarks.maps --docs`; `python main.py bench` redraws the images. Every number here is from
that run (module docstring of `benchmarks/maps.py`: the body, the grids, the tests, the Kantorovich condition).

## Energy change per step at h = 1 (seed 003 §11)

{energy_image}

Rows: how a step is split. The seed's final method splits each step into pieces that satisfy its Kantorovich
condition, and its §11 picture is drawn with it: that is the seed's setting (top row; equal pieces here, the seed
takes the largest safe piece and a remainder). The project's integrators split a step only when Newton fails or
when the converged step turns by more than `max_step_angle` (halving): 1 rad (middle row) and the default π
(bottom row). Two colour scales: the object-space rule's changes are at rounding level.

| claim (seed 003 §11) | here |
|---|---|
| implicit midpoint: largest change "around 0.3 %" | {row_mid} |
| object-space trapezoidal: "under 10⁻⁵" | {row_ot} |
| trapezoidal: "similar energy fluctuations to the implicit midpoint" | {row_trap} |
| the relative error stays bounded as \|L\| (or h) grows | {row_bounded} |

Why they differ:

- **The cap sets the worst change.** A second-order method's energy change per piece grows about as the square of
  the piece's turn. The seed's pieces turn by at most h\|ℓ\|/(n I_min) ≤ √3 − 1 = {turn:.2f} rad; the project's
  by at most the cap. (1/{turn:.2f})² = {(1 / turn) ** 2:.1f} and (π/{turn:.2f})² = {(math.pi / turn) ** 2:.1f}
  against the measured ratios {mid_1 / mid:.1f} and {mid_pi / mid:.1f}. The default cap π is the project's
  choice for cost (mean sub-steps {mid_pi_row["substeps_mean"]:.3g} against
  {substeps[("kantorovich", "implicit_midpoint")]["substeps_mean"]:.3g} with the seed's pieces), and it costs a
  {mid_pi / mid:.0f}× larger worst energy change at h = 1; a 1 rad cap is within {abs(mid_1 / seed_mid - 1):.0%}
  of the seed's figure. The issue quotes about 0.36 % at 1 rad and 3 % at π; here {mid_1:.2%} and {mid_pi:.1%}:
  the worst sits on thin ridges, so it depends on where the grid samples them (200² pixel centres here).
- **Against the seed's own 0.3 %,** its rule gives {mid:.2%} here, {1 - mid / seed_mid:.0%} less. The seed's
  inequality was an image and is lost; √3 − 1 is re-derived from the seed's description (v₀ = 0, simple bounds).
  The worst change goes as the square of that constant, so a constant {math.sqrt(seed_mid / mid):.2f}× ours
  ({turn * math.sqrt(seed_mid / mid):.2f}) would give 0.3 %; the seed's number is also read off a grey image
  ("around").
- **The object-space rule conserves the energy exactly** when torque-free (proof in
  `sim/integrators/object_trapezoidal.py`): what is left is float64 rounding over up to
  {substeps[("kantorovich", "object_trapezoidal")]["substeps_max"]} pieces and Newton's stopping test (10⁻¹⁴). The
  seed's "under 10⁻⁵" is an upper bound from a float32 shader (ε = 6·10⁻⁸), consistent with it. Its other claim, a
  much smaller Newton convergence region, shows in the sub-steps at the default cap: mean
  {ot_pi["substeps_mean"]:.3g} and max {ot_pi["substeps_max"]} against the midpoint rule's
  {mid_pi_row["substeps_mean"]:.3g} and {mid_pi_row["substeps_max"]}.

## Newton against the simple iteration, and the Kantorovich region (seed 003 §8, §10)

{newton_image}

Both solve the midpoint equation F(v) = v − h I⁻¹ R(−v/2) ℓ = 0 from v = 0 (the start of the seed's Kantorovich
analysis; the integrators start at h I⁻¹ ℓ, one simple iteration further) with the same test
\|F(v)\| ≤ {result["convergence"]["tolerance"]:g}·(1 + \|v\|) and at most 10 updates (the seed's cap; its
precision is not given, so the table below also varies it). Yellow: not converged.

| claim (seed 003 §8, §10) | here, ℓ over ±{big["extent"]:g} |
|---|---|
| the simple iteration "doesn't seem to converge except for a small area close to the origin" | {row_fixed} |
| Newton "converges for most of the values and converges much faster" | {row_newton} |
| the Kantorovich region (green) is "rather conservative" | {row_kantorovich} |

Where the two iterations both converge their roots agree to {big["max_difference_where_both_converge"]:.1g} rad.
One thing the seed's map does not show: of Newton's {newton["converged_fraction"]:.1%}, only
{newton["converged_within_pi_fraction"]:.1%} of the grid (inside the red dashed line) is a root that turns by at
most π. Beyond it Newton finds roots outside the ball where exponential coordinates are a chart, a step that wraps
around; the seed's map counts them as converged, and so does this one for the comparison, but the integrators
reject them and sub-step (`sim/integrators/newton.py`). Measured against that region, the Kantorovich disc holds
{big["disc_fraction"] / newton["converged_within_pi_fraction"]:.0%} of where Newton really converges: conservative
indeed.

## The run's tables

{format_table(result)}
"""


if __name__ == "__main__":
    import sys

    arguments = sys.argv[1:]
    outcome = run("--quick" in arguments, progress=lambda message: print(message, file=sys.stderr))
    print(format_table(outcome))
    if "--docs" in arguments:
        write_docs(outcome)
