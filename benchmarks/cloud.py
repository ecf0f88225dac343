"""A cloud of T-handles spun near their intermediate axis: the ``cloud`` preset's generator, and the scenes of the
scaling benchmark (benchmarks/scaling.py).

Every handle is seed 003's (principal moments (1.3, 1.4, 2.5) along body x, y, z, as in the ``t_handle`` preset),
at rest in orientation, spun at ``SPIN`` rad/s about a direction of the body frame tilted from the intermediate
axis (body y) by ``tilt`` towards a direction of the body x–z plane. The separatrix is where
``g = Σ Iᵢ (Iᵢ − I₂) Ωᵢ² = 0``, i.e. at ±12.3° from body x and from −x: a sweep uniform in azimuth would put only a
tenth of the handles on the minor axis' side. So the directions are swept uniformly in ``ψ``, the angle of
``(√(I₁ (I₂ − I₁)) Ωx, √(I₃ (I₃ − I₂)) Ωz)``, for which ``g ∝ −cos 2ψ``: the separatrix is at ψ = 45°, 135°, 225°
and 315°, half the handles on each side. On one side a handle's ω circulates about the minor axis (x), on the other
about the major axis (z), and every one of them flips over, with a period that grows like the logarithm of
1 / tilt and without bound towards the separatrix.

The handles stand in a grid in the world's x–z plane, ``SPACING`` m apart (more than a handle's reach, so none
overlap as they tumble): one column per ``ψ``, the full circle in ``columns`` steps (none on the separatrix), and
one row per tilt, geometric from ``TILT_RANGE[0]`` (bottom) to ``TILT_RANGE[1]`` (top): a live picture of the
separatrix.

Colours (scene/model/palette.py's :func:`~scene.model.palette.flip_colors`): blue for the handles circulating about the
minor axis, orange about the major one, each paler the longer its flip period (the closed form's, sim/euler_poinsot.py,
computed here once from the state written to the file), so the separatrix is the pale seam between the two.

``python -m spinlab.benchmarks.cloud`` writes assets/scenes/cloud.toml (1000 handles: 25 tilts × 40 directions);
``--bodies N`` and ``--out PATH`` make another.
"""

from __future__ import annotations

import argparse
import math
import pathlib
import sys

import numpy as np

from spinlab.scene.files.scene_file import PRESET_DIR
from spinlab.scene.model.palette import flip_colors
from spinlab.sim.euler_poinsot import EulerPoinsot

__all__ = [
    "MOMENTS",
    "SPIN",
    "SPACING",
    "TILT_RANGE",
    "PRESET_PATH",
    "grid_shape",
    "cloud_state",
    "flip_periods",
    "cloud_toml",
    "main",
]

MOMENTS = (1.3, 1.4, 2.5)  # kg m², along body x, y, z: ascending, so principal axes are the body axes
SPIN = 5.0  # rad/s, as the t_handle preset
SPACING = 1.6  # m between neighbours: a handle reaches at most 0.8 m from its centre of mass
TILT_RANGE = (0.01, 0.6)  # rad from body y, bottom row to top row
PRESET_PATH = PRESET_DIR / "cloud.toml"
PRESET_BODIES = 1000


def grid_shape(n: int) -> tuple[int, int]:
    """(rows, columns) of the grid of ``n`` ≥ 1 handles: about 1.6 columns a row (1000 → 25 × 40); the last row
    may be short."""
    columns = max(1, round(math.sqrt(1.6 * n)))
    return math.ceil(n / columns), columns


def cloud_state(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The first ``n`` handles of the grid, row by row: positions (n, 3) m, body angular velocities (n, 3) rad/s
    (before :func:`cloud_toml` rounds them to 6 significant digits), tilts (n,) rad and the sweep's angles ψ (n,)
    rad. Vectorised: the scaling benchmark builds MuJoCo's bodies from it."""
    rows, columns = grid_shape(n)
    tilts = np.geomspace(*TILT_RANGE, rows) if rows > 1 else np.array([TILT_RANGE[0]])
    psis = 2.0 * np.pi * (np.arange(columns) + 0.5) / columns
    row, column = np.divmod(np.arange(n), columns)
    tilt, psi = tilts[row], psis[column]
    i1, i2, i3 = MOMENTS
    x, z = np.cos(psi) / math.sqrt(i1 * (i2 - i1)), np.sin(psi) / math.sqrt(i3 * (i3 - i2))
    norm = np.hypot(x, z)
    omega = SPIN * np.stack([np.sin(tilt) * x / norm, np.cos(tilt), np.sin(tilt) * z / norm], axis=-1)
    position = np.zeros((n, 3))
    position[:, 0] = (column - 0.5 * (columns - 1)) * SPACING
    position[:, 2] = (row - 0.5 * (rows - 1)) * SPACING
    return position, omega, tilt, psi


def flip_periods(omega_body: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each handle's flip period (s, the period of Ω(t); ``inf`` on the separatrix) and the principal index its
    ω circulates about (0 minor, 2 major), from the closed form: one solve a handle, for generating files only."""
    moments = np.array(MOMENTS)
    motions = [EulerPoinsot.solve(moments, w) for w in np.asarray(omega_body, dtype=float)]
    return np.array([m.flip_period for m in motions]), np.array([m.spin_axis for m in motions])


def cloud_toml(n: int, *, colors: bool = True, description: str | None = None) -> str:
    """The scene file of the first ``n`` handles of the cloud; ``colors``: each coloured by its flip period
    (one closed-form solve a handle; the scaling benchmark leaves them out at 10⁵ handles)."""
    position, omega, tilt, _ = cloud_state(n)
    omega = np.array([float(_number(w)) for w in omega.ravel()]).reshape(n, 3)  # as the file holds them
    rows, columns = grid_shape(n)
    if description is None:
        description = (
            f"{n} T-handles spun {math.degrees(TILT_RANGE[0]):.2g}°–{math.degrees(tilt.max()):.3g}° off their "
            "intermediate axis, every way round: the separatrix, coloured by flip period"
        )
    lines = [
        f"# Generated by `python -m spinlab.benchmarks.cloud --bodies {n}` (benchmarks/cloud.py says how): {rows}",
        f"# rows of tilt from body y × {columns} columns of direction round it. Blue: ω circulates about the minor",
        "# axis (x); orange: about the major axis (z); paler: a longer flip period (the closed form's).",
        "",
        "[scene]",
        f'description = "{description}"',
        "gravity = [0.0, 0.0, 0.0]",
    ]
    rgb = None
    if colors and n:
        periods, axes = flip_periods(omega)
        rgb = flip_colors(periods, axes)
    inertia = "[" + ", ".join(repr(m) for m in MOMENTS) + "]"
    width = len(str(max(n - 1, 0)))
    for i in range(n):
        lines += [
            "",
            "[[body]]",
            f'name = "h{i:0{width}d}"',
            'shape = "t_handle"',
            f"inertia = {inertia}",
            f"position = [{_number(position[i, 0])}, 0.0, {_number(position[i, 2])}]",
            f"body_angular_velocity = [{', '.join(_number(w) for w in omega[i])}]",
        ]
        if rgb is not None:
            lines.append(f"color = [{rgb[i, 0]:.3f}, {rgb[i, 1]:.3f}, {rgb[i, 2]:.3f}]")
    return "\n".join(lines) + "\n"


def _number(value: float) -> str:
    """A float as TOML reads it back (always with a point or an exponent), to 6 significant digits."""
    return repr(float(f"{float(value):.6g}"))


def main(argv: list[str] | None = None) -> int:
    """``python -m spinlab.benchmarks.cloud [--bodies N] [--out PATH]``: write a cloud scene (default: the preset)."""
    parser = argparse.ArgumentParser(prog="python -m spinlab.benchmarks.cloud", description=__doc__.splitlines()[0])
    parser.add_argument("--bodies", type=int, default=PRESET_BODIES, help=f"handles (default {PRESET_BODIES})")
    parser.add_argument("--out", type=pathlib.Path, default=PRESET_PATH, help="where to write the scene")
    parser.add_argument("--no-colors", action="store_true", help="leave the colours to the renderer")
    arguments = parser.parse_args(argv)
    if arguments.bodies < 1:
        parser.error("--bodies must be at least 1")
    from spinlab.scene.files.atomic_file import write_atomically

    write_atomically(arguments.out, cloud_toml(arguments.bodies, colors=not arguments.no_colors).encode())
    print(f"wrote {arguments.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
