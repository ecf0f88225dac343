"""The plots that explain themselves: the herpolhode and polhode from every step's sample (no
cap of 150 points a curve), the herpolhode with equal axes, time tick labels that never overlap (also right after
a reset), the exact reference named in the legend row and a tooltip per plot. ImGui without a window."""

import numpy as np
import pytest
from imgui_bundle import imgui, implot

from spinlab.ui import tips as ui_tips
from spinlab.ui.help_texts import PLOT_TOOLTIPS
from spinlab.ui.plots import CHAR_PX, EXACT_LEGEND, MIN_TIME_SPAN_S, TICK_GAP_PX, PlotOptions, draw_plots, linear_ticks
from tests.ui.test_plot_series import filled
from tests.ui.test_plots import plots_window

OLD_CAP = 150  # points a curve had at most before


def test_the_curves_draw_every_step_of_a_busy_window_not_150_points(imgui_window, monkeypatch):
    """3600 noisy samples (a minute at 60 steps/s, or 7.5 s at 8×): the on-screen thinning keeps what it needs,
    which for a path that turns at every step is far more than the old cap."""
    drawn, flags = {}, {}
    monkeypatch.setattr(implot, "plot_line", lambda label, xs, ys, spec: drawn.setdefault(label, []).append(len(xs)))
    begin = implot.begin_plot

    def begin_plot(title, size, plot_flags=0):
        flags[title.split("###")[-1]] = plot_flags  # the id: the full title, whatever is shown (ui/plot_titles.py)
        return begin(title, size, plot_flags)

    monkeypatch.setattr(implot, "begin_plot", begin_plot)
    history = filled(3600, capacity=3600)
    with plots_window():
        draw_plots(history, PlotOptions(shown={"herpolhode": True, "polhode": True}, seconds=1e9), (1260.0, 280.0))
    # a, b and c each: herpolhode then polhode; the noisy samples keep most of their points
    assert all(max(counts) > 4 * OLD_CAP for counts in (drawn["a"], drawn["b"]))
    assert flags["herpolhode"] & implot.Flags_.equal


def test_the_legend_row_names_the_exact_reference(imgui_window, monkeypatch):
    texts, tips = [], []
    monkeypatch.setattr(imgui, "text", lambda text: texts.append(text))
    monkeypatch.setattr(ui_tips, "item_tip", lambda text: tips.append(text))
    with plots_window():
        draw_plots(filled(30), PlotOptions(), (1260.0, 280.0))
    assert EXACT_LEGEND in texts and any("closed form" in tip for tip in tips)


def test_each_plot_has_its_tooltip_over_its_title(imgui_window, monkeypatch):
    shown = []
    monkeypatch.setattr(imgui, "is_mouse_hovering_rect", lambda low, high: True)
    monkeypatch.setattr(imgui, "is_window_hovered", lambda *flags: True)
    monkeypatch.setattr(ui_tips, "tip", lambda text: shown.append(text))
    with plots_window():
        draw_plots(filled(30), PlotOptions(), (1260.0, 280.0))
    # Each plot's own text, then how to enlarge it (ui/plot_focus.py).
    tips = [text.split("\n(Click")[0] for text in shown if "\n(Click the title" in text]
    assert tips == list(PLOT_TOOLTIPS.values())


SPANS = [(0.0, 0.0), (0.0, 1e-6), (0.0, 1 / 60), (0.0, MIN_TIME_SPAN_S), (2.0, 21.7), (980.0, 1000.0),
         (12345.0, 12365.0), (0.0, 0.37), (99.9, 100.4)]  # fmt: skip


@pytest.mark.parametrize("first, last", SPANS)
@pytest.mark.parametrize("width", [60.0, 110.0, 160.0, 300.0, 900.0])
def test_time_tick_labels_never_overlap(first, last, width):
    last = max(last, first + MIN_TIME_SPAN_S)  # as the plots draw the axis (right after a reset: t = 0)
    ticks = linear_ticks(first, last, width)
    assert len(ticks) >= 1
    if len(ticks) < 2:
        return
    pixels = np.diff(ticks) * width / (last - first)
    widest = max(len(f"{tick:g}") for tick in ticks) * CHAR_PX
    assert pixels.min() >= widest + TICK_GAP_PX - 1e-9, (ticks, pixels.min(), widest)
    assert not any(f"{tick:g}".startswith("-0") or "e-" in f"{tick:g}" for tick in ticks)
