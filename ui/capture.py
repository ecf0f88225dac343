"""Pixels out of the window: read a rectangle of the frame being drawn (off screen: render/window_frame.py), save it
as a screenshot, record a video of it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import moderngl
import numpy as np

from spinlab.render.offscreen import finish
from spinlab.scene.files.png import save_png
from spinlab.sim.errors import SpinlabError
from spinlab.ui.files import timestamped_path

if TYPE_CHECKING:
    from spinlab.render.video import VideoWriter

__all__ = ["read_pixels", "save_screenshot", "Recording", "RECORD_FPS"]

RECORD_FPS = 60


def read_pixels(framebuffer: moderngl.Framebuffer, viewport: tuple[int, int, int, int]) -> np.ndarray:
    """(height, width, 3) uint8 RGB of ``viewport`` = (x, y, width, height) of ``framebuffer`` (GL's bottom-left
    origin), rows top-down."""
    _, _, width, height = viewport
    data = framebuffer.read(viewport=viewport, components=3, alignment=1)
    return np.frombuffer(data, dtype=np.uint8).reshape(height, width, 3)[::-1]


class Recording:
    """An MP4 being written at ``RECORD_FPS`` from a rectangle of the window, one :meth:`add` per frame. The
    rectangle's size is fixed by the first frame (trimmed to even numbers, as H.264 in yuv420p needs);
    :meth:`finish` finalises a playable file."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.writer: VideoWriter | None = None
        self.size: tuple[int, int] | None = None

    @property
    def frames(self) -> int:
        return 0 if self.writer is None else self.writer.frames_written

    @property
    def seconds(self) -> float:
        """Length of the video so far, s."""
        return self.frames / RECORD_FPS

    def add(self, framebuffer: moderngl.Framebuffer, viewport: tuple[int, int, int, int]) -> bool:
        """Append ``viewport`` (x, y, width, height, GL's origin) of ``framebuffer``, the frame being drawn. Returns
        ``False``, adding nothing, when its size differs from the first frame's (the window was resized)."""
        # The video writer's module (PyAV: ~40 ms of imports) when a recording starts, not before the window's first
        # frame; the kernel loader imports it between frames, as one of its stages (ui/kernel_loader.py).
        from spinlab.render.video import ENCODER_NICENESS, VideoWriter, even_size

        x, y, width, height = viewport
        size = even_size(width, height)
        if self.writer is None:
            # The encoder a little behind the window's frames in the cores' queue (render/video.py).
            self.writer, self.size = VideoWriter(self.path, *size, RECORD_FPS, niceness=ENCODER_NICENESS), size
        elif size != self.size:
            return False
        finish()  # the wait for the rasteriser without the GIL (render/offscreen.py): the encoder's thread runs on
        data = framebuffer.read(viewport=(x, y, *size), components=4, alignment=1)  # RGBA: GL's fastest read
        pixels = np.frombuffer(data, dtype=np.uint8).reshape(size[1], size[0], 4)
        self.writer.write(pixels, bottom_up=True, copy=False)
        return True

    def finish(self) -> Path:
        """Flush and finalise the file; returns its path. Raises :class:`SpinlabError` when no frame was added
        (leaving no file), or the writer's error (leaving no file either)."""
        if self.writer is None:
            raise SpinlabError("no frame was recorded, so no video was written")
        try:
            self.writer.close()
        except BaseException:
            self.writer.abort()
            raise
        return self.path

    def abort(self) -> None:
        """Stop and leave no file."""
        if self.writer is not None:
            self.writer.abort()


def save_screenshot(framebuffer: moderngl.Framebuffer, folder: str, name: str) -> Path:
    """The frame being drawn into ``framebuffer``, all of it, saved as a timestamped PNG named after ``name`` in
    ``folder``; returns its path."""
    return save_png(timestamped_path(folder, name, ".png"), read_pixels(framebuffer, (0, 0, *framebuffer.size)))
