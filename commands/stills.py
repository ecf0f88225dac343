"""Still pictures for the docs and talks, rendered offscreen: ``python -m spinlab.commands.stills [OUT_DIR]``.

Writes ``t_handle.png`` (the Dzhanibekov flip half-way, with every overlay and a legend) and ``compare.png``
(the compare preset at t = 20 s, one view per integrator) at 1280×720 with 4× MSAA into ``OUT_DIR``
(default ``docs/images``), through :mod:`scene.files.png` (zlib alone, no imaging library).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from spinlab import checkout_folder, checkout_root
from spinlab.render.offscreen import OffscreenTarget, create_offscreen_context
from spinlab.render.run_view import RunView, reference_scale
from spinlab.render.text import TextOverlay
from spinlab.scene.files.png import save_png
from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.model.run_model import Session, Setup, default_integrators, view_labels

__all__ = ["render_t_handle", "render_compare", "main"]

SIZE = (1280, 720)
T_HANDLE_SECONDS = 5.2  # mid-flip: the handle is across its spin axis
COMPARE_SECONDS = 20.0  # after the flip, when the integrators have parted


def _run(target: OffscreenTarget, text: TextOverlay, name: str, seconds: float) -> tuple[Session, RunView]:
    """The preset ``name`` run (scene/model/run_model.py) for ``seconds`` and its view, fed every step as a video is."""
    scene = load_scene(name)
    session = Session(Setup(scene, default_integrators(scene), h=scene.h))
    view = RunView(target.ctx, session, text)
    view.feed(session)
    session.step(round(seconds / session.h))
    view.feed(session)
    return session, view


def _draw(target: OffscreenTarget, session: Session, view: RunView, labels=None) -> np.ndarray:
    size = target.size
    view.draw(target.framebuffer, size, (0, 0, *size), session, text_scale=reference_scale(size[1]), labels=labels)
    view.release()
    return target.read()


def render_t_handle(target: OffscreenTarget, text: TextOverlay) -> np.ndarray:
    """The t_handle preset at ``T_HANDLE_SECONDS``, labelled, with the legend."""
    session, view = _run(target, text, "t_handle", T_HANDLE_SECONDS)
    ((integrator, *details),) = view_labels(session, session.groups)
    label = ("T-handle spun near its intermediate axis", "    ".join([integrator, *details]))
    return _draw(target, session, view, [label])


def render_compare(target: OffscreenTarget, text: TextOverlay) -> np.ndarray:
    """The compare preset at ``COMPARE_SECONDS``, one labelled view per integrator."""
    session, view = _run(target, text, "compare", COMPARE_SECONDS)
    return _draw(target, session, view)


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
