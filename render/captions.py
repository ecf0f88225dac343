"""Captions over a run's views (scene/model/captions.py says which, at the step drawn), in the window and in a video
alike: each on a translucent dark panel (render/text.py's :class:`TextBox`), its text sized with the target's
height (a 4K frame's readable from the back of a room, a 320×180 one's still fitting), "bottom" and "top" ones centred
across the views clear of their labels and key, and one naming a body beside that body in every view that shows
it, a leader line from the panel to it (render/leader_lines.py).

Pixels here are the target's from its top-left corner, y down, as the text's; areas and viewports are GL's
(bottom-left origin), as render/run_view.py gives them.
"""

from __future__ import annotations

import dataclasses
import math
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import moderngl
import numpy as np

from spinlab.render.camera import OrbitCamera
from spinlab.render.leader_lines import LeaderLines
from spinlab.render.text import BODY_PX, TextBox, TextOverlay
from spinlab.scene.model.captions import Caption

__all__ = ["CaptionLayer", "PointedView", "caption_scale", "CAPTION_SIZE", "WRAP_CHARS"]

CAPTION_SIZE = 1.3  # a caption's text against the labels' body text at the same scale
BESIDE_SIZE = 1.15  # a caption beside a body, against its view's labels' body text: a grid's views are small
HEIGHT_SHARE = 0.45  # of the views' height a placed caption takes at most
MIN_CAPTION_PX = 9.0  # the smallest caption text, px: legible on a 320×180 frame
WRAP_CHARS = 56  # a longer line goes on below, at a space
MARGIN_PX = 14.0  # from the views' edges and between captions, at scale 1
WIDTH_SHARE = 0.92  # of the views' width a caption's panel takes at most (then its text is made smaller)
GAP = 0.85  # the panel's corner this many of the body's on-screen (bounding) radii from its centre
REACH = 0.3  # the leader line's end this many from it: on the body, whatever its shape
MAX_PANELS = 256  # captions' panels remembered (forgotten all at once when full)
Rect = tuple[float, float, float, float]  # x, y, width, height from the top-left


@dataclass(frozen=True)
class PointedView:
    """A view a caption may point into: its ``viewport`` (GL's) and ``camera``."""

    viewport: tuple[int, int, int, int]
    camera: OrbitCamera


def caption_scale(text_scale: float) -> float:
    """The scale (render/text.py's) captions are drawn at over views labelled at ``text_scale``."""
    return max(CAPTION_SIZE * text_scale, MIN_CAPTION_PX / BODY_PX)


def wrapped(lines: Sequence[str]) -> tuple[str, ...]:
    """``lines`` with each longer than :data:`WRAP_CHARS` broken at spaces."""
    return tuple(part for line in lines for part in (textwrap.wrap(line, WRAP_CHARS) or [""]))


class CaptionLayer:
    """Draws captions with ``text`` on ``ctx``; its GL objects (the leader lines') are made at the first pointer."""

    def __init__(self, ctx: moderngl.Context, text: TextOverlay) -> None:
        self.ctx, self.text = ctx, text
        self._leaders: LeaderLines | None = None
        # A caption's panel by what sizes it: measuring takes an ImGui frame, and a caption stays for many frames.
        self._panels: dict[tuple, Rect] = {}

    def draw(
        self,
        framebuffer: moderngl.Framebuffer,
        size: tuple[int, int],
        area: tuple[int, int, int, int],
        captions: Sequence[Caption],
        text_scale: float,
        *,
        label_scale: float | None = None,
        avoid: Sequence[Rect] = (),
        bottom_clear_px: float = 0.0,
        views: Sequence[PointedView] = (),
        rows_of: Mapping[int, Sequence[int | None]] | None = None,
        positions: np.ndarray | None = None,
        radii: np.ndarray | None = None,
    ) -> list[Rect]:
        """``captions`` over ``area`` of ``framebuffer`` (``size`` pixels), sized for views labelled at
        ``text_scale``: the placed ones clear of the ``avoid`` panels (the labels, the key) and of a strip
        ``bottom_clear_px`` high at the bottom; one pointing at a body beside it in each of ``views`` (at the size of
        their labels, ``label_scale``, the views' own), clear of the labels where it can be, at the snapshot row
        ``rows_of[body][view]`` (``None``: not in that view), at ``positions`` (N, 3) m world, of bounding radius
        ``radii`` (N,) m. Returns the placed captions' panels."""
        if not captions:
            return []
        scale = caption_scale(text_scale)
        margin = MARGIN_PX * scale
        boxes: list[TextBox] = []
        lines: list[tuple[tuple[float, float], tuple[float, float]]] = []
        x0, y0, width, height = area
        top, bottom = size[1] - (y0 + height), size[1] - y0 - bottom_clear_px
        placed = {place: [c for c in captions if c.position == place] for place in ("top", "bottom")}
        room, high = WIDTH_SHARE * width, HEIGHT_SHARE * height
        taken = list(avoid)
        y = top + margin
        for caption in placed["top"]:
            box, (_, _, box_width, box_height) = self._measured(caption, size, scale, room, high)
            y = _clear_below(x0 + 0.5 * (width - box_width), y, box_width, box_height, taken, margin)
            boxes.append(_moved(box, x0 + 0.5 * (width - box_width), y))
            taken.append((x0 + 0.5 * (width - box_width), y, box_width, box_height))
            y += box_height + margin
        y = bottom - margin
        for caption in reversed(placed["bottom"]):
            box, (_, _, box_width, box_height) = self._measured(caption, size, scale, room, high)
            y = _clear_above(x0 + 0.5 * (width - box_width), y, box_width, box_height, taken, margin)
            boxes.append(_moved(box, x0 + 0.5 * (width - box_width), y - box_height))
            taken.append((x0 + 0.5 * (width - box_width), y - box_height, box_width, box_height))
            y -= box_height + margin
        placed_count = len(taken) - len(avoid)
        labelled = text_scale if label_scale is None else label_scale
        beside = max(BESIDE_SIZE * labelled, MIN_CAPTION_PX / BODY_PX) / scale
        if positions is not None and radii is not None and rows_of is not None:
            for caption in captions:
                if caption.body is None:
                    continue
                for view, row in zip(views, rows_of.get(caption.body, ()), strict=False):
                    if row is not None:
                        where = (view, int(row), positions, radii)
                        self._beside(caption, where, size, scale, beside, taken, boxes, lines)
        if lines:
            if self._leaders is None:
                self._leaders = LeaderLines(self.ctx)
            self._leaders.draw(framebuffer, size, lines, scale)
        self.text.draw(framebuffer, size, boxes, scale)
        return taken[len(avoid) : len(avoid) + placed_count]

    def _measured(
        self,
        caption: Caption,
        size: tuple[int, int],
        scale: float,
        max_width: float,
        max_height: float,
        relative: float = 1.0,
    ) -> tuple[TextBox, Rect]:
        """``caption``'s box at the origin, ``relative`` times ``scale``, and its panel there (made smaller to fit
        ``max_width`` × ``max_height``)."""
        box = TextBox(
            0.0, 0.0, wrapped(caption.lines), title=False, size=relative, max_width_px=max_width,
            max_height_px=max_height,
        )  # fmt: skip
        key = box, size, scale
        if key not in self._panels:
            if len(self._panels) >= MAX_PANELS:
                self._panels.clear()
            self._panels[key] = self.text.panel_rects(size, [box], scale)[0]
        return box, self._panels[key]

    def _beside(
        self, caption: Caption, where: tuple, size: tuple[int, int], scale: float, relative: float,
        taken: list[Rect], boxes: list[TextBox], lines: list,
    ) -> None:  # fmt: skip
        """``caption``'s panel, ``relative`` times ``scale``, beside the body at ``where`` = (view, snapshot row,
        positions, radii): up and to the right of it, else on another side, the first clear of ``taken`` and inside
        the view, with a leader line from the panel's nearest corner to the body; nothing when the body is behind
        the eye."""
        view, row, positions, radii = where
        vx, vy, vw, vh = view.viewport
        if vw <= 0 or vh <= 0:
            return
        with np.errstate(all="ignore"):  # a body far beyond float32's reach is not pointed at, and says nothing
            clip = np.append(positions[row], 1.0) @ view.camera.view_projection(vw / vh).T
            radius = float(radii[row]) * view.camera.projection(vw / vh)[1, 1] * 0.5 * vh / clip[3]
        if not clip[3] > 0.0 or not np.all(np.isfinite(clip)) or not math.isfinite(radius):
            return
        centre_x = vx + (clip[0] / clip[3] + 1.0) * 0.5 * vw
        centre_y = size[1] - (vy + (clip[1] / clip[3] + 1.0) * 0.5 * vh)
        margin = MARGIN_PX * scale * relative
        left, top, right, bottom = vx + margin, size[1] - vy - vh + margin, vx + vw - margin, size[1] - vy - margin
        box, (_, _, box_width, box_height) = self._measured(
            caption, size, scale, max(right - left, 1.0), max(bottom - top, 1.0), relative
        )
        offset = GAP * radius / math.sqrt(2.0) + margin
        sides = [(1, -1), (-1, -1), (1, 1), (-1, 1)]  # right and above first (y down), then the others
        places = [
            (
                min(max(centre_x + offset if across > 0 else centre_x - offset - box_width, left), right - box_width),
                min(max(centre_y + offset if down > 0 else centre_y - offset - box_height, top), bottom - box_height),
            )
            for across, down in sides
        ]
        x, y = next(
            (place for place in places if not any(_overlaps((*place, box_width, box_height), rect) for rect in taken)),
            places[0],
        )
        taken.append((x, y, box_width, box_height))
        boxes.append(_moved(box, x, y))
        corner = (min(max(centre_x, x), x + box_width), min(max(centre_y, y), y + box_height))
        reach = math.hypot(corner[0] - centre_x, corner[1] - centre_y)
        edge = REACH * radius
        if reach > edge + margin:
            along = edge / reach
            end = (centre_x + along * (corner[0] - centre_x), centre_y + along * (corner[1] - centre_y))
            lines.append((corner, end))

    def release(self) -> None:
        if self._leaders is not None:
            self._leaders.release()


def _moved(box: TextBox, x: float, y: float) -> TextBox:
    return dataclasses.replace(box, x_px=x, y_px=y)


def _overlaps(a: Rect, b: Rect) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def _clear_below(x: float, y: float, width: float, height: float, taken: Sequence[Rect], margin: float) -> float:
    """The least ``y`` ≥ the given one where a panel (``x``, ``width``, ``height``) overlaps none of ``taken``."""
    for _ in range(len(taken) + 1):
        hit = [rect for rect in taken if _overlaps((x, y, width, height), rect)]
        if not hit:
            break
        y = max(rect[1] + rect[3] for rect in hit) + margin
    return y


def _clear_above(x: float, y: float, width: float, height: float, taken: Sequence[Rect], margin: float) -> float:
    """The greatest bottom edge ≤ ``y`` where a panel (``x``, ``width``, ``height``) overlaps none of ``taken``."""
    for _ in range(len(taken) + 1):
        hit = [rect for rect in taken if _overlaps((x, y - height, width, height), rect)]
        if not hit:
            break
        y = min(rect[1] for rect in hit) - margin
    return y
