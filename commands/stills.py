"""Still pictures for the README and talks, rendered offscreen: ``python -m spinlab.commands.stills [OUT_DIR]``.

Writes ``t_handle.png`` (the Dzhanibekov flip half-way, with every overlay and a legend) and ``compare.png``
(the compare preset at t = 20 s, one view per integrator) at 1280×720 with 4× MSAA into ``OUT_DIR``
(default ``docs/images``), through :mod:`scene.png` (zlib alone, no imaging library).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from spinlab import checkout_folder, checkout_root
from spinlab.render.look import linear_to_srgb
from spinlab.render.offscreen import OffscreenTarget, create_offscreen_context
from spinlab.render.renderer import Renderer
from spinlab.render.text import TextOverlay
from spinlab.render.viewports import View, push_trails, render_grid, session_views
from spinlab.scene.png import save_png
from spinlab.scene.run_model import Session, Setup, default_integrators, view_labels
from spinlab.scene.scene_file import load_scene

__all__ = ["render_t_handle", "render_compare", "main"]

SIZE = (1280, 720)
T_HANDLE_SECONDS = 5.2  # mid-flip: the handle is across its spin axis
COMPARE_SECONDS = 20.0  # after the flip, when the integrators have parted


def _run(target: OffscreenTarget, name: str, seconds: float) -> tuple[Session, Renderer]:
    """The preset ``name`` run (scene/run_model.py) for ``seconds``, every step pushed to the renderer's trails."""
    scene = load_scene(name)
    session = Session(Setup(scene, default_integrators(scene), h=scene.h))
    renderer = Renderer(target.ctx, session.scene)
    push_trails(renderer, session.latest)
    steps = round(seconds / session.h)
    session.step(steps)
    push_trails(renderer, session.latest)
    return session, renderer


def render_t_handle(target: OffscreenTarget, text: TextOverlay) -> np.ndarray:
    """The t_handle preset at ``T_HANDLE_SECONDS``, labelled, with the legend."""
    session, renderer = _run(target, "t_handle", T_HANDLE_SECONDS)
    ((integrator, *details),) = view_labels(session, session.groups)
    label = ("T-handle spun near its intermediate axis", "    ".join([integrator, *details]))
    color = tuple(float(c) for c in linear_to_srgb(renderer.layout.colors_rgba[0, :3]))
    view = View(renderer, session.drawable(), label=label, accent=color)
    render_grid(target.framebuffer, target.size, [view], text, legend=True)
    renderer.release()
    return target.read()


def render_compare(target: OffscreenTarget, text: TextOverlay) -> np.ndarray:
    """The compare preset at ``COMPARE_SECONDS``, one labelled view per integrator."""
    session, renderer = _run(target, "compare", COMPARE_SECONDS)
    views = session_views(renderer, session, session.groups)
    render_grid(target.framebuffer, target.size, views, text, legend=True)
    renderer.release()
    return target.read()


def main(argv: list[str] | None = None) -> int:
    """Render both stills into the directory given (default: the source checkout's ``docs/images``)."""
    arguments = sys.argv[1:] if argv is None else argv
    if not arguments and checkout_root() is None:
        print("stills: spinlab is installed, not a checkout: give the folder to write into", file=sys.stderr)
        return 2
    out_dir = Path(arguments[0]) if arguments else checkout_folder("docs", "images")
    out_dir.mkdir(parents=True, exist_ok=True)
    ctx = create_offscreen_context()
    target = OffscreenTarget(ctx, *SIZE, samples=4)
    text = TextOverlay(ctx)
    try:
        for name, render in (("t_handle", render_t_handle), ("compare", render_compare)):
            save_png(out_dir / f"{name}.png", render(target, text))
            print(f"wrote {out_dir / f'{name}.png'}")
    finally:
        text.release()
        target.release()
        ctx.release()
    return 0


if __name__ == "__main__":
    sys.exit(main())
