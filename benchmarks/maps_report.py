"""The maps' text: the run's markdown tables, and ``docs/maps.md``, which sets them against seed 003's figures."""

from __future__ import annotations

import math
import pathlib
from typing import Any

from spinlab import checkout_folder
from spinlab.benchmarks.maps_measures import KANTOROVICH_CONSTANT, SETTINGS
from spinlab.scene.files.atomic_file import write_atomically

__all__ = ["format_table", "write_docs", "SEED_CLAIMS"]

SEED_CLAIMS = {
    "midpoint_worst_energy_change": 3e-3,  # §11: "the largest value being around 0.3%"
    "object_trapezoidal_worst_energy_change": 1e-5,  # §11: "under 10^-5 of the magnitude"
    "fixed_point": "does not seem to converge except for a small area of values close to the origin (§8)",
    "newton": "converges for most of the values and much faster (§8)",
}


def _count(updates: float | None) -> str:
    """A number of updates, or a dash where none converged (``None``)."""
    return "–" if updates is None else f"{updates:g}"


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
            median = _count(s["median_iterations"])
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


def write_docs(result: dict[str, Any], root: pathlib.Path | None = None) -> None:
    """Write ``docs/maps.md`` in ``root`` (default: the source checkout): the tables, the images and the comparison
    with seed 003's figures."""
    root = root if root is not None else checkout_folder()
    (root / "docs").mkdir(exist_ok=True)
    write_atomically(root / "docs" / "maps.md", _note(result).encode("utf-8"))


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
        f"{zoom['fixed_point']['converged_fraction']:.1%}), median {_count(fixed['median_iterations'])} updates"
    )
    difference = big["max_difference_where_both_converge"]
    agreement = (
        f"Where the two iterations both converge their roots agree to {difference:.1g} rad."
        if difference is not None
        else "The two iterations never both converge on this grid."
    )
    newton_median = _count(newton["median_iterations"])
    row_newton = f"converges on {newton['converged_fraction']:.1%}, median {newton_median} updates"
    row_kantorovich = (
        rf"the disc h\|ℓ\| ≤ (√3 − 1) I_min holds {big['disc_fraction']:.2%} of the grid, the same "
        f"theorem with exact β, η at each ℓ {big['pointwise_fraction']:.2%}; Newton converges at every "
        f"point of both, in at most {newton['max_iterations_in_disc']} updates in the disc"
    )
    return rf"""# Seed 003's maps, reproduced

Written by `python -m spinlab.benchmarks.maps --docs`; `python main.py bench` redraws the images. Every number here is
from that run (docstrings of `benchmarks/maps.py` and `maps_measures.py`: the body, the grids, the tests, the
Kantorovich condition).

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

{agreement}
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
