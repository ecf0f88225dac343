"""Still pictures for the README and talks, rendered offscreen: ``python -m render.stills [OUT_DIR]``.

Writes ``t_handle.png`` (the Dzhanibekov flip half-way, with every overlay and a legend) and ``compare.png``
(the compare preset at t = 20 s, one view per integrator) at 1280×720 with 4× MSAA into ``OUT_DIR``
(default ``docs/images``), through :mod:`scene.png` (zlib alone, no imaging library).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from render.look import linear_to_srgb
from render.offscreen import OffscreenTarget, create_offscreen_context
from render.renderer import Renderer
from render.text import TextOverlay
from render.viewports import View, compare_views, energy_error_text, render_grid
from scene.png import save_png
from scene.scene_file import load_scene
from scene.simulation import Simulation

__all__ = ["render_t_handle", "render_compare", "main"]

SIZE = (1280, 720)
DEFAULT_DIR = Path(__file__).resolve().parent.parent / "docs" / "images"
T_HANDLE_SECONDS = 5.2  # mid-flip: the handle is across its spin axis
COMPARE_SECONDS = 20.0  # after the flip, when the integrators have parted


def _run(simulation: Simulation, renderer: Renderer, seconds: float) -> None:
    while simulation.t < seconds - 0.5 * simulation.h:
        simulation.step()
        renderer.push_trail(simulation.snapshot())


def render_t_handle(target: OffscreenTarget, text: TextOverlay) -> np.ndarray:
    """The t_handle preset at ``T_HANDLE_SECONDS``, labelled, with the legend."""
    scene = load_scene("t_handle")
    simulation = Simulation(scene)
    energy_initial = simulation.snapshot().energy[0]
    renderer = Renderer(target.ctx, scene)
    _run(simulation, renderer, T_HANDLE_SECONDS)
    snapshot = simulation.snapshot()
    energy_error = energy_error_text(snapshot.energy[0], energy_initial)
    label = (
        "T-handle spun near its intermediate axis",
        f"{simulation.body_integrators[0]}    t = {snapshot.t:.2f} s    {energy_error}",
    )
    color = tuple(float(c) for c in linear_to_srgb(renderer.layout.colors_rgba[0, :3]))
    render_grid(
        target.framebuffer, target.size, [View(renderer, snapshot, label=label, accent=color)], text, legend=True
    )
    renderer.release()
    return target.read()


def render_compare(target: OffscreenTarget, text: TextOverlay) -> np.ndarray:
    """The compare preset at ``COMPARE_SECONDS``, one labelled view per integrator."""
    scene = load_scene("compare")
    simulation = Simulation(scene)
    energy_initial = simulation.snapshot().energy
    renderer = Renderer(target.ctx, scene)
    _run(simulation, renderer, COMPARE_SECONDS)
    views = compare_views(renderer, simulation.snapshot(), energy_initial, simulation.body_integrators)
    render_grid(target.framebuffer, target.size, views, text)
    renderer.release()
    return target.read()


def main(argv: list[str] | None = None) -> int:
    """Render both stills into the directory given (default ``docs/images``)."""
    arguments = sys.argv[1:] if argv is None else argv
    out_dir = Path(arguments[0]) if arguments else DEFAULT_DIR
    out_dir.mkdir(parents=True, exist_ok=True)
    ctx = create_offscreen_context()
    target = OffscreenTarget(ctx, *SIZE, samples=4)
    text = TextOverlay(ctx)
    for name, render in (("t_handle", render_t_handle), ("compare", render_compare)):
        save_png(out_dir / f"{name}.png", render(target, text))
        print(f"wrote {out_dir / f'{name}.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
