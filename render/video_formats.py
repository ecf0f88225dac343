"""The containers and codecs render/video.py's writer encodes into, one per format, all through PyAV (no ffmpeg).

- ``mp4``: H.264 (libx264), yuv420p, BT.709 limited range, tagged (what players assume for HD).
- ``webm``: VP9 (libvpx-vp9), yuv420p, BT.709 tagged, libvpx's real-time mode (``cpu-used`` 8, rows in parallel):
  ~2-3x x264 ultrafast's CPU a frame here, where its "good" mode takes ~10x more.
- ``gif``: 256 colours from one palette for the whole file (FFmpeg's palettegen over the frames it is given, else
  the first frame), error-diffusion dithered by paletteuse, which re-dithers only the rectangle that changed from
  the frame before, so a still backdrop stays still and costs nothing; the GIF muxer then stores only that
  rectangle. A frame's delay is in hundredths of a second: at most :data:`GIF_MAX_FPS` frames per second.

The colour conversion to yuv420p is render/yuv.py's (the same bytes as its tests check); a GIF's frames go in as
RGB. Each :class:`Encoding` takes (H, W, 3|4) uint8 frames, rows top-down or bottom-up (GL's order), and returns
the packets to mux.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import av
import av.filter
import numpy as np
from av.video.reformatter import ColorPrimaries, ColorRange, ColorTrc

from spinlab.sim.errors import InputError

__all__ = ["FORMATS", "GIF_MAX_FPS", "format_of", "check_gif_rate", "Encoding", "encoding_for", "CONTAINER_OPTIONS"]

FORMATS = ("mp4", "webm", "gif")
GIF_MAX_FPS = 50  # a GIF frame's delay is a whole number of hundredths of a second, and players take 2 as the least
AVCOL_SPC_BT709 = 1  # FFmpeg's AVColorSpace for BT.709; PyAV's Colorspace enum holds swscale's numbers instead
VP9_CRF = 30  # libvpx-vp9 quality (0-63), real-time mode: PSNR ~40 dB on rendered frames at 640x360, as MP4
RGB24 = av.VideoFormat("rgb24")
CONTAINER_OPTIONS = {
    "mp4": {"movflags": "+faststart"},  # the index at the front: a browser starts playing before the download ends
    "webm": {},
    "gif": {"loop": "0"},  # loop for ever, as a slide's animation does
}


def format_of(path: Path) -> str | None:
    """The format a file name's suffix names (``.mp4``, ``.webm``, ``.gif``, any case), or ``None``."""
    suffix = path.suffix.lower().lstrip(".")
    return suffix if suffix in FORMATS else None


def check_gif_rate(fps: float | Fraction, where: str, key: str | None = None) -> None:
    """Refuse a GIF's frame rate above :data:`GIF_MAX_FPS` (:class:`InputError` naming ``where`` and ``key``)."""
    if fps > GIF_MAX_FPS:
        raise InputError(
            f"a GIF shows at most {GIF_MAX_FPS} frames per second (its delays are hundredths of a second)",
            where=where, key=key, value=fps,
        )  # fmt: skip


class Encoding:
    """One format's stream in ``container``: :meth:`encode` a frame, :meth:`flush` at the end (packets to mux)."""

    def __init__(self, container, width: int, height: int, fps: Fraction) -> None:
        self.width, self.height, self.time_base = width, height, 1 / fps
        self.palette_images: list[np.ndarray] = []  # a GIF's palette is made from these (GifEncoding)

    def encode(self, pixels: np.ndarray, bottom_up: bool, index: int) -> list:
        raise NotImplementedError

    def flush(self) -> list:
        raise NotImplementedError


class YuvEncoding(Encoding):
    """H.264 (mp4) or VP9 (webm) from yuv420p frames converted by render/yuv.py.

    Every frame is converted into the same yuv420p frame: the encoders copy a frame's pixels in as they take it
    (x264 and libvpx into their own look-ahead frames; libavcodec lets go of its reference before ``encode``
    returns), and a new 1080p frame a time cost ~0.75 ms of page faults."""

    def __init__(self, container, width: int, height: int, fps: Fraction, codec: str, options: dict[str, str]):
        super().__init__(container, width, height, fps)
        self._frame: av.VideoFrame | None = None
        self._planes: list[np.ndarray] = []
        stream = self.stream = container.add_stream(codec, rate=fps)
        stream.width, stream.height, stream.pix_fmt = width, height, "yuv420p"
        context = stream.codec_context
        context.time_base = self.time_base
        # Tag BT.709 limited range, matching render/yuv.py's conversion, so every player decodes the same colours.
        context.colorspace = AVCOL_SPC_BT709
        context.color_primaries = ColorPrimaries.BT709
        context.color_trc = ColorTrc.BT709
        context.color_range = ColorRange.MPEG
        if codec == "libx264":
            context.thread_type = "FRAME"  # stack.md §4: +20-60 % on 2 cores
        else:
            context.thread_count = 2  # libvpx's threads (with row-mt): it takes no FFmpeg frame threads
        stream.options = options

    def encode(self, pixels: np.ndarray, bottom_up: bool, index: int) -> list:
        # Compiled once its kernels are loaded, numpy's loops until then (render/yuv.py): never numba's compiler.
        from spinlab.render.yuv import rgb_to_yuv420p_bt709

        if self._frame is None:
            self._frame = av.VideoFrame(self.width, self.height, "yuv420p")
            # A plane has the buffer protocol (its stub does not say so).
            self._planes = [
                np.frombuffer(plane, np.uint8).reshape(plane.height, plane.line_size)  # type: ignore[call-overload]
                for plane in self._frame.planes
            ]
        frame = self._frame
        rgb_to_yuv420p_bt709(pixels, *self._planes, flip=bottom_up)
        frame.pts = index
        frame.time_base = self.time_base
        return self.stream.encode(frame)

    def flush(self) -> list:
        return self.stream.encode(None)


class GifEncoding(Encoding):
    """A GIF of one palette, made from ``palette_images`` when given (before the first frame), else from the first
    frame; see the module docstring."""

    def __init__(self, container, width: int, height: int, fps: Fraction) -> None:
        super().__init__(container, width, height, fps)
        self.stream = container.add_stream("gif", rate=fps)
        self.stream.width, self.stream.height, self.stream.pix_fmt = width, height, "pal8"
        self._graph: av.filter.Graph | None = None
        self._frames: av.filter.context.FilterContext | None = None

    def encode(self, pixels: np.ndarray, bottom_up: bool, index: int) -> list:
        rgb = np.ascontiguousarray((pixels[::-1] if bottom_up else pixels)[..., :3])
        if self._graph is None:
            self._start(self.palette_images or [rgb])
        frame = av.VideoFrame.from_ndarray(rgb, format="rgb24")
        frame.pts, frame.time_base = index, self.time_base
        assert self._frames is not None, "made with the graph"
        self._frames.push(frame)
        return self._pull()

    def flush(self) -> list:
        packets = []
        if self._frames is not None:
            self._frames.push(None)
            packets = self._pull()
        return packets + list(self.stream.encode(None))

    def _start(self, images: list[np.ndarray]) -> None:
        """The paletteuse graph, its palette from ``images`` (all of one width, stacked for palettegen)."""
        palette = _palette(np.concatenate([image[..., :3] for image in images]), self.time_base)
        graph = self._graph = av.filter.Graph()
        frames = self._frames = graph.add_buffer(
            width=self.width, height=self.height, format=RGB24, time_base=self.time_base
        )
        palettes = graph.add_buffer(width=palette.width, height=palette.height, format=palette.format,
                                    time_base=self.time_base)  # fmt: skip
        use = graph.add("paletteuse", "dither=sierra2_4a:diff_mode=rectangle")
        sink = graph.add("buffersink")
        frames.link_to(use, 0, 0)
        palettes.link_to(use, 0, 1)
        use.link_to(sink)
        graph.configure()
        palettes.push(palette)
        palettes.push(None)  # paletteuse keeps the last palette for every frame after

    def _pull(self) -> list:
        assert self._graph is not None, "pulled after a push"
        packets = []
        for frame in _pulled(self._graph):
            packets += self.stream.encode(frame)
        return packets


def _pulled(graph: av.filter.Graph) -> list:
    """The frames ``graph`` has ready."""
    frames = []
    while True:
        try:
            frames.append(graph.pull())
        except (av.BlockingIOError, av.EOFError):
            return frames


def _palette(image: np.ndarray, time_base: Fraction) -> av.VideoFrame:
    """FFmpeg's palettegen (256 colours, none kept for transparency) of the RGB ``image``."""
    graph = av.filter.Graph()
    source = graph.add_buffer(width=image.shape[1], height=image.shape[0], format=RGB24, time_base=time_base)
    generate = graph.add("palettegen", "stats_mode=full:max_colors=256:reserve_transparent=0")
    sink = graph.add("buffersink")
    source.link_to(generate)
    generate.link_to(sink)
    graph.configure()
    frame = av.VideoFrame.from_ndarray(np.ascontiguousarray(image), format="rgb24")
    frame.pts = 0
    source.push(frame)
    source.push(None)
    return _pulled(graph)[0]


def encoding_for(kind: str, container, width: int, height: int, fps: Fraction, crf: float, preset: str) -> Encoding:
    """The :class:`Encoding` of format ``kind`` in ``container``; ``crf`` and ``preset`` are x264's (mp4 only)."""
    if kind == "mp4":
        return YuvEncoding(container, width, height, fps, "libx264", {"crf": f"{crf:g}", "preset": preset})
    if kind == "webm":
        options = {"deadline": "realtime", "cpu-used": "8", "row-mt": "1", "crf": str(VP9_CRF), "b": "0"}
        return YuvEncoding(container, width, height, fps, "libvpx-vp9", options)
    return GifEncoding(container, width, height, fps)
