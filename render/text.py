"""Crisp text labels over a rendered frame, with ImGui's font rasteriser and draw lists, drawn by moderngl.

ImGui (imgui-bundle) bakes glyphs from a TrueType font at the exact pixel size asked for and lays the text out
into a draw list; this module uploads ImGui's font atlas to moderngl textures and draws the list's triangles into
any framebuffer. It keeps a private ImGui context and restores the caller's current one, so it runs headless
(record, tests) and beside the window's own ImGui context alike. Colours are sRGB (they are not lit).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

import moderngl
from imgui_bundle import imgui

from spinlab.render.imgui_draw import ImGuiDraw

__all__ = ["TextBox", "TextOverlay", "FONT_DIR", "ANCHORS", "panel_height_px", "row_height_px"]

# The fonts imgui-bundle ships (its package data), as the panel uses them.
FONT_DIR = Path(str(resources.files("imgui_bundle").joinpath("assets", "fonts", "Roboto")))
TITLE_FONT = FONT_DIR / "Roboto-Bold.ttf"
BODY_FONT = FONT_DIR / "Roboto-Regular.ttf"
# At a 720-pixel-high target: the title and body text sizes, padding and corner radius of a label's panel.
TITLE_PX = 24.0
BODY_PX = 19.0
MIN_FONT_PX = 1.0  # the smallest font size drawn, px
PADDING_PX = 10.0
CORNER_PX = 6.0
SWATCH_PX = 12.0
PANEL_RGBA = (0.05, 0.055, 0.065, 0.72)
PANEL_WIDTH_STEP_PX = 12.0  # panel widths are whole steps (see TextOverlay.panel_rects)
TITLE_RGBA = (1.0, 1.0, 1.0, 1.0)
BODY_RGBA = (0.82, 0.85, 0.9, 1.0)
MAX_MEASURED_LINES = 4096  # text sizes remembered (forgotten all at once when full)
MAX_MEASURED_BOXES = 256  # boxes' layouts remembered (forgotten all at once when full)


Color = tuple[float, float, float]
ANCHORS = ("top_left", "top_right", "bottom_left", "bottom_right")


@dataclass(frozen=True)
class TextBox:
    """A label: ``lines`` on a dark rounded panel whose ``anchor`` corner is at ``(x_px, y_px)`` from the
    target's top-left corner (y down). With ``title`` the first line is larger and bold. ``accents`` are sRGB
    colours shown as a dot before the line of the same index (``None`` or a missing entry: no dot). ``size``
    multiplies the overlay's scale for this box. With ``row`` the lines are entries side by side on one line (a
    key along an edge). A box is made smaller as a whole when it would be wider than ``max_width_px`` or higher
    than ``max_height_px``. Its panel is at least as wide as ``width_of`` in body text would need: a label whose
    numbers change length from frame to frame (an energy error of 0, then of 2.0e-16) then keeps one panel, which
    a cache of the panels (render/viewports.py) can keep too."""

    x_px: float
    y_px: float
    lines: tuple[str, ...]
    accents: tuple[Color | None, ...] = ()
    title: bool = True
    anchor: str = "top_left"
    size: float = 1.0  # times the overlay's scale (a legend smaller than the labels)
    row: bool = False
    max_width_px: float = math.inf
    max_height_px: float = math.inf
    width_of: str = ""


class TextOverlay:
    """Draws :class:`TextBox` es; ``scale`` multiplies every size (1 at a 720-pixel-high target)."""

    def __init__(self, ctx: moderngl.Context) -> None:
        self.ctx = ctx
        self._draw = ImGuiDraw(ctx)
        # (line, font, pixels): its size. A frame measures each label twice (its panel's key, then its text) and
        # most lines (the titles) stay the same from frame to frame.
        self._text_sizes: dict[tuple, tuple[float, float]] = {}
        # (box, scale): its layout (:meth:`_measure`). A frame lays each label out three times (the views' room,
        # the cached panels' key, the text drawn), every one the same.
        self._layouts: dict[tuple[TextBox, float], tuple] = {}
        previous = imgui.get_current_context()
        self._imgui = imgui.create_context()
        try:
            io = imgui.get_io()
            io.set_ini_filename("")
            io.backend_flags |= imgui.BackendFlags_.renderer_has_textures
            self._title_font = io.fonts.add_font_from_file_ttf(str(TITLE_FONT), TITLE_PX)
            self._body_font = io.fonts.add_font_from_file_ttf(str(BODY_FONT), BODY_PX)
        finally:
            _restore_context(previous)

    def draw(
        self,
        framebuffer: moderngl.Framebuffer,
        size: tuple[int, int],
        boxes: Sequence[TextBox],
        scale: float = 1.0,
        *,
        panels: bool = True,
        text: bool = True,
    ) -> None:
        """Draw ``boxes`` over the whole ``framebuffer`` of ``size`` = (width, height) pixels: their ``panels``
        (the dark rounded rectangles) and their ``text`` (lines and colour dots). Drawing the panels once into a
        cached backdrop and the text every frame gives the same picture where nothing passes under a label."""
        with self._frame(size):
            draw_list = imgui.get_foreground_draw_list()
            for box in boxes:
                self._layout(draw_list, box, scale, panels, text)
            imgui.render()
            self._draw.render(framebuffer, imgui.get_draw_data())

    def panel_rects(
        self, size: tuple[int, int], boxes: Sequence[TextBox], scale: float = 1.0
    ) -> tuple[tuple[float, float, float, float], ...]:
        """Each box's panel ``(x, y, width, height)`` in pixels from the top-left: what a cache of the panels is
        keyed on (widths are whole ``PANEL_WIDTH_STEP_PX``, so a label whose digits change keeps its panel)."""
        try:
            layouts = [self._layouts.get((box, scale)) for box in boxes]
        except TypeError:  # a box holding a list or an array: measured in a frame
            layouts = [None]
        if all(layouts):  # all laid out already: no ImGui frame needed
            return tuple(layout[0] for layout in layouts if layout is not None)
        with self._frame(size):
            rects = tuple(self._measure(box, scale)[0] for box in boxes)
            imgui.end_frame()
        return rects

    @contextmanager
    def _frame(self, size: tuple[int, int]) -> Iterator[None]:
        """An ImGui frame of the private context, the caller's context restored after."""
        previous = imgui.get_current_context()
        imgui.set_current_context(self._imgui)
        try:
            io = imgui.get_io()
            io.display_size = imgui.ImVec2(float(size[0]), float(size[1]))
            io.delta_time = 1.0 / 60.0
            imgui.new_frame()
            yield
        finally:
            _restore_context(previous)

    def _measure(self, box: TextBox, scale: float) -> tuple[tuple[float, float, float, float], list, list, float]:
        """``(panel (x, y, width, height), line styles, each line's (x, y) from the panel's corner, scale)`` of
        ``box``: ``scale`` times its size, and smaller for a box larger than its ``max_width_px`` or
        ``max_height_px`` (a row's entries first go on as many lines as its width needs). Remembered: inside an ImGui
        frame of the private context when it is not."""
        key = box, scale
        try:
            layout = self._layouts.get(key)
        except TypeError:  # a box holding a list or an array: not remembered
            return self._measure_anew(box, scale)
        if layout is None:
            if len(self._layouts) >= MAX_MEASURED_BOXES:
                self._layouts.clear()
            layout = self._layouts[key] = self._measure_anew(box, scale)
        return layout

    def _measure_anew(self, box: TextBox, scale: float) -> tuple[tuple[float, float, float, float], list, list, float]:
        scale *= box.size
        panel, styles, places = self._measure_at(box, scale)
        shrink = min(box.max_width_px / panel[2], box.max_height_px / panel[3])
        if shrink < 1.0:
            scale *= shrink * (1.0 - 1e-3)  # the panel's width is rounded up to a whole step
            panel, styles, places = self._measure_at(box, scale)
        return panel, styles, places, scale

    def drawn_scale(self, size: tuple[int, int], box: TextBox, scale: float = 1.0) -> float:
        """The scale ``box``'s text is drawn at over a target of ``size`` (body text is ``BODY_PX`` times it): the
        overlay's ``scale`` times the box's size, less when the box is made smaller to fit its room."""
        with self._frame(size):
            drawn = self._measure(box, scale)[3]
            imgui.end_frame()
        return drawn

    def _measure_at(self, box: TextBox, scale: float) -> tuple[tuple[float, float, float, float], list, list]:
        pad, swatch, gap = PADDING_PX * scale, SWATCH_PX * scale, 0.2 * PADDING_PX * scale
        # ImGui asserts a font size > 0: a frame too small for text (16×16) still gets one-pixel text.
        body = (self._body_font, max(BODY_PX * scale, MIN_FONT_PX), BODY_RGBA)
        title = (self._title_font, max(TITLE_PX * scale, MIN_FONT_PX), TITLE_RGBA)
        styles = [title if box.title else body] + [body] * (len(box.lines) - 1)
        indent = 1.6 * swatch if any(accent is not None for accent in box.accents) else 0.0
        sizes = [self._text_size(line, font, pixels) for line, (font, pixels, _) in zip(box.lines, styles, strict=True)]
        step = PANEL_WIDTH_STEP_PX * scale
        # Each line's place from the text's corner: one under another, or in a row entries side by side (each after
        # its dot, a pad apart), going on below when the next would pass the room's width (less the step a panel's
        # width is rounded up by).
        room = box.max_width_px - 2 * pad - step if box.row else math.inf
        places: list[tuple[float, float]] = []
        x, y, content, line_height = 0.0, 0.0, 0.0, 0.0
        for width, height in sizes:
            if places and (not box.row or x + indent + width > room):
                x, y, line_height = 0.0, y + line_height + gap, 0.0
            places.append((x, y))
            content, line_height = max(content, x + indent + width), max(line_height, height)
            x += indent + width + pad
        height = 2 * pad + y + line_height
        if box.width_of:
            content = max(content, indent + self._text_size(box.width_of, body[0], body[1])[0])
        # A panel's width is its text's alone (and its ``width_of``'s), so that a past moment of a run is drawn again
        # as it was first (scene/model/step_record.py); in whole steps, and Roboto's digits are all as wide, so a
        # label whose numbers change from frame to frame keeps one panel, which a cache of the panels can then keep.
        width = math.ceil((2 * pad + content) / step) * step
        x = box.x_px - (width if box.anchor.endswith("right") else 0.0)
        y = box.y_px - (height if box.anchor.startswith("bottom") else 0.0)
        return (float(x), float(y), float(width), float(height)), styles, places

    def _text_size(self, line: str, font: imgui.ImFont, pixels: float) -> tuple[float, float]:
        """``line``'s (width, height) in pixels in ``font`` at ``pixels`` (inside a frame of the private context)."""
        key = line, id(font), pixels
        size = self._text_sizes.get(key)
        if size is None:
            if len(self._text_sizes) >= MAX_MEASURED_LINES:
                self._text_sizes.clear()
            imgui.push_font(font, pixels)
            measured = imgui.calc_text_size(line)
            imgui.pop_font()
            size = self._text_sizes[key] = (measured.x, measured.y)
        return size

    def _layout(self, draw_list: imgui.ImDrawList, box: TextBox, scale: float, panel: bool, text: bool) -> None:
        (x, y, width, height), styles, places, scale = self._measure(box, scale)
        pad, swatch = PADDING_PX * scale, SWATCH_PX * scale
        accents = [*box.accents, *[None] * len(box.lines)][: len(box.lines)]
        indent = 1.6 * swatch if any(accent is not None for accent in accents) else 0.0
        if panel:
            draw_list.add_rect_filled(
                imgui.ImVec2(x, y), imgui.ImVec2(x + width, y + height), _u32(PANEL_RGBA), CORNER_PX * scale
            )
        if not text:
            return
        for line, (font, pixels, rgba), accent, (dx, dy) in zip(box.lines, styles, accents, places, strict=True):
            left, top = x + pad + dx, y + pad + dy
            if accent is not None:
                centre = imgui.ImVec2(left + 0.5 * swatch, top + 0.5 * self._text_size(line, font, pixels)[1])
                draw_list.add_circle_filled(centre, 0.5 * swatch, _u32((*accent, 1.0)), 24)
            draw_list.add_text(font, pixels, imgui.ImVec2(round(left + indent), round(top)), _u32(rgba), line)

    def release(self) -> None:
        """Free the GL objects and the private ImGui context."""
        self._draw.release()
        imgui.destroy_context(self._imgui)


def panel_height_px(line_count: int, scale: float) -> float:
    """The height (px) of a label's panel of ``line_count`` lines (a title, then body lines) at ``scale``, as
    :meth:`TextOverlay.draw` lays it out: each line as high as its font's size."""
    pad, gap = PADDING_PX * scale, 0.2 * PADDING_PX * scale
    if line_count <= 0:
        return 0.0
    return 2 * pad + TITLE_PX * scale + (line_count - 1) * (BODY_PX * scale + gap)


def row_height_px(scale: float) -> float:
    """The height (px) of a row's panel (:attr:`TextBox.row`, body text) at ``scale``."""
    return 2 * PADDING_PX * scale + BODY_PX * scale


def _restore_context(previous: imgui.internal.Context | None) -> None:
    """Make ``previous`` current again. The binding cannot set "no context", but destroying the current context
    does, so for ``None`` a throwaway context is made current and destroyed. Leaving ours current would make a
    later ``imgui.create_context()`` (the window's) not current, as ImGui only switches when there is none."""
    if previous is not None:
        imgui.set_current_context(previous)
        return
    throwaway = imgui.create_context()
    imgui.set_current_context(throwaway)
    imgui.destroy_context(throwaway)


@lru_cache(maxsize=256)  # a few colours, every frame
def _u32(rgba: tuple[float, float, float, float]) -> int:
    """ImGui's packed colour (ABGR bytes) of an sRGB ``rgba`` in [0, 1]."""
    r, g, b, a = (int(round(255 * min(max(c, 0.0), 1.0))) for c in rgba)
    return (a << 24) | (b << 16) | (g << 8) | r
