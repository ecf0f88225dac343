"""A frame lays each label out once: the views' room, the cached panels' key and the text drawn all ask for the same
boxes' layouts (render/run_view.py, render/viewports.py), and the overlay remembers them. Counted, not timed."""

import numpy as np

from spinlab.render.text import TextBox, TextOverlay

SIZE = (320, 180)
BOXES = [
    TextBox(10, 10, ("euler", "t = 1.15 s    |ΔE|/E = 2.4e-05", "flips 0 (exact 0)"), ((0.9, 0.5, 0.4),)),
    TextBox(170, 10, ("exact", "t = 1.15 s    |ΔE|/E = 0.0e+00", "flips 0 (exact 0)"), ((0.9, 0.9, 0.9),)),
]


def _drawn(text: TextOverlay, ctx, boxes) -> np.ndarray:
    target = ctx.simple_framebuffer(SIZE)
    try:
        target.use()
        target.clear(0.0, 0.0, 0.0, 1.0)
        text.draw(target, SIZE, boxes, 0.5)
        return np.frombuffer(target.read(components=4), dtype=np.uint8)
    finally:
        target.release()


def test_a_frame_lays_each_label_out_once(gl_context, monkeypatch):
    text = TextOverlay(gl_context)
    measured = []
    measure_at = TextOverlay._measure_at
    monkeypatch.setattr(
        TextOverlay, "_measure_at", lambda self, box, scale: (measured.append(box), measure_at(self, box, scale))[1]
    )
    try:
        first = text.panel_rects(SIZE, BOXES, 0.5)
        again = text.panel_rects(SIZE, BOXES, 0.5)
        _drawn(text, gl_context, BOXES)
    finally:
        text.release()
    assert first == again
    assert len(measured) == len(BOXES), measured


def test_remembered_layouts_draw_the_same_pixels(gl_context):
    remembered, fresh = TextOverlay(gl_context), TextOverlay(gl_context)
    try:
        remembered.panel_rects(SIZE, BOXES, 0.5)
        assert np.array_equal(_drawn(remembered, gl_context, BOXES), _drawn(fresh, gl_context, BOXES))
        # A box of another scale, or with other lines, is laid out anew.
        moved = [TextBox(10, 10, ("euler", "t = 1.16 s    |ΔE|/E = 2.5e-05", "flips 0 (exact 0)"))]
        assert remembered.panel_rects(SIZE, moved, 0.5) == fresh.panel_rects(SIZE, moved, 0.5)
        assert remembered.panel_rects(SIZE, BOXES, 0.75) == fresh.panel_rects(SIZE, BOXES, 0.75)
    finally:
        remembered.release()
        fresh.release()


def test_a_box_holding_a_list_is_measured_without_being_remembered(gl_context):
    text = TextOverlay(gl_context)
    try:
        box = TextBox(10, 10, ["euler", "t = 0.00 s"])  # type: ignore[arg-type]  # a list where a tuple belongs
        assert text.panel_rects(SIZE, [box], 0.5) == text.panel_rects(
            SIZE, [TextBox(10, 10, ("euler", "t = 0.00 s"))], 0.5
        )
    finally:
        text.release()
