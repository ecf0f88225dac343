"""Captions in the real window (Xvfb): drawn over the views at their time, where the view's pixels then differ from the
same frame with the panel's "captions" box unticked and nowhere else; marked on the timeline by a bar over their
steps; the PAUSED badge keeps clear of them."""

import dataclasses

import numpy as np

from spinlab.ui.capture import read_pixels
from spinlab.ui.controller_state import PanelEdits
from spinlab.ui.view3d import Rect
from tests.scene.test_run_changes import changed_scene
from tests.ui.window_frames import FRAME_S, run_frames, start_running

CAPTIONS = """
[[caption]]
time = 0.5
duration = 1.0
text = "The handle spins about its middle axis"

[[caption]]
time = 0.5
duration = 1.0
text = "this one"
position = "handle"
"""


def _views(app) -> np.ndarray:
    """The window's pixels (top-down) of the frame drawn now, before it is shown."""
    app.frame(FRAME_S)
    pixels = read_pixels(app.window_frame.framebuffer, (0, 0, *app.window.get_framebuffer_size()))
    app.window.flip()
    return pixels


def test_captions_are_drawn_at_their_time_and_marked_on_the_timeline(app, tmp_path, monkeypatch):
    from spinlab.ui import timeline

    bars: list = []
    monkeypatch.setattr(timeline, "_bars", bars.append)
    start_running(app, str(changed_scene(tmp_path, CAPTIONS).path), time_scale_exp=2)
    try:
        run_frames(app, 2)
        assert app.view.caption_rects == [] and bars[-1] == [], "none before its time, nor on the timeline yet"
        while app.timeline.session.t < 0.75:
            run_frames(app, 1)
        app.state.paused = True
        run_frames(app, 1)
        shown = _views(app)
        placed = app.view.caption_rects
        assert len(placed) == 1, "the bottom caption placed; the body's beside the body"
        # The timeline's bar runs from the caption's first step (30) to the run now.
        last = app.timeline.record.last_step
        assert bars[-1] and bars[-1][0][0] == 30 / last and bars[-1][0][1] == 1.0, (bars[-1], last)
        badge = app.state_badge
        x, y, width, height = placed[0]
        assert badge is not None and not badge.overlaps(Rect(x, y, width, height)), "PAUSED clear of the caption"

        app.pending = PanelEdits(render=dataclasses.replace(app.state.render, show_captions=False))
        run_frames(app, 1)
        assert app.view.caption_rects == []
        plain = _views(app)
        badges = [badge, app.state_badge]  # the badge goes back to the middle: apart from the captions, it moved
        view = app.window_layout().view
        rows, columns = slice(int(view.y), int(view.y + view.height)), slice(int(view.x), int(view.x + view.width))
        apart = np.abs(shown.astype(int) - plain.astype(int)).max(axis=2)[rows, columns] > 40
        ys, xs = np.nonzero(apart)
        assert ys.size > 300, "the captions' text"
        inside = np.zeros_like(apart)
        top, left = int(view.y), int(view.x)
        inside[int(y) - top : int(y + height) - top, int(x) - left : int(x + width) - left] = True
        for moved in badges:
            apart[int(moved.y) - top : int(moved.y + moved.height) + 1 - top,
                  int(moved.x) - left : int(moved.x + moved.width) + 1 - left] = False  # fmt: skip
        assert apart[inside].sum() > 150, "the bottom caption's text in its panel"
        # The rest is the body's caption beside the body, up and to the right of the middle of the view.
        outside_y, outside_x = np.nonzero(apart & ~inside)
        assert outside_y.size > 50
        assert np.median(outside_x) > 0.5 * view.width and np.median(outside_y) < 0.5 * view.height
    finally:
        app.state.render = dataclasses.replace(app.state.render, show_captions=True)
        app.pending = PanelEdits(scene="compare", reset=True)
        run_frames(app, 1)
