"""A run as a video, for a notebook (spinlab/runs.py's ``Run.video``): rendered by ``record``'s pipeline
(render/video_file.py: offscreen, no window or GPU needed, H.264 MP4 written atomically), and a :class:`Video` that
Jupyter shows inline as a player."""

from __future__ import annotations

__docformat__ = "restructuredtext"  # pdoc: the ``literals`` and :class:`roles` of the docstrings

import base64
import dataclasses
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from spinlab.runs import RunSettings

__all__ = ["Video", "record_video"]

INLINE_MAX_BYTES = 50 * 2**20
"""A video larger than this is linked, not embedded, in a notebook's output (a notebook holds it as base64)."""


@dataclass(frozen=True)
class Video:
    """A video file at ``path`` (MP4, WebM or GIF, as its suffix says): ``frames`` at ``fps`` of ``size`` pixels. In
    Jupyter it shows as a player, a GIF as an image (the file embedded in the output, so the saved notebook keeps
    it)."""

    path: Path
    frames: int
    fps: float
    size: tuple[int, int]

    def _repr_html_(self) -> str:
        width, height = self.size
        if self.path.stat().st_size > INLINE_MAX_BYTES:
            return f'<a href="{self.path}">{self.path.name}</a> ({self.frames} frames)'
        data = base64.b64encode(self.path.read_bytes()).decode("ascii")
        suffix = self.path.suffix.lower()
        if suffix == ".gif":
            return f'<img width="{width}" height="{height}" src="data:image/gif;base64,{data}">'
        mime = "video/webm" if suffix == ".webm" else "video/mp4"
        return (
            f'<video width="{width}" height="{height}" controls loop>'
            f'<source src="data:{mime};base64,{data}" type="{mime}"></video>'
        )


def record_video(
    settings: RunSettings,
    path: str | os.PathLike[str] | None,
    *,
    size: tuple[int, int],
    fps: float,
    ghost: bool,
    poinsot: bool,
) -> Video:
    """Render the run ``settings`` describe to ``path`` (a new temporary folder's ``SCENE.mp4`` when ``None``) as
    ``record SCENE --out PATH --duration T --integrator NAME`` does, at the run's ``h``. Raises
    :class:`~spinlab.sim.errors.InputError` for a bad path, size or frame rate, as ``record`` does."""
    from spinlab.render.video_file import record_scene

    scene = dataclasses.replace(settings.scene, h=settings.h)
    out = Path(tempfile.mkdtemp(prefix="spinlab-")) / f"{scene.name}.mp4" if path is None else Path(path)
    result = record_scene(
        scene, out, duration=settings.duration, fps=fps, size=size, integrator=settings.integrator,
        gyroscopic=settings.gyroscopic, ghost=ghost, poinsot=poinsot,
    )  # fmt: skip
    return Video(result.path, result.frames, result.fps, result.size)
