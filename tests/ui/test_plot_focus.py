"""Plots that can be enlarged (ui/plot_focus.py): side by side while each is wide enough, one at a time under tabs
when not (larger text for a projector), and a plot enlarged by a click on its title, in the real window."""

from spinlab.ui.plot_focus import ALL_PLOTS, MIN_PLOT_EM, arrangement
from spinlab.ui.plots import PLOT_TITLES
from tests.ui.test_app import fresh, run_frames

SHOWN = list(PLOT_TITLES)


def test_plots_side_by_side_while_each_is_wide_enough():
    font, spacing = 15.0, 8.0
    wide_enough = len(SHOWN) * MIN_PLOT_EM * font + (len(SHOWN) - 1) * spacing
    assert arrangement(SHOWN, ALL_PLOTS, wide_enough, spacing, font) == (SHOWN, True)
    assert arrangement(SHOWN, ALL_PLOTS, wide_enough - 1.0, spacing, font) == (SHOWN[:1], False)
    assert arrangement(SHOWN, "polhode", wide_enough, spacing, font) == (["polhode"], True)
    assert arrangement(SHOWN[2:], "energy", wide_enough, spacing, font) == (SHOWN[2:], True), "not shown: all"
    assert arrangement([], ALL_PLOTS, 100.0, spacing, font) == ([], True)


def _plots_frame(app, spy):
    spy.clear()
    app.plots_layer.refresh()  # laid out, not shown from the layer (ui/plots_layer.py)
    run_frames(app, 1)
    return list(spy)


def _spy_plots(monkeypatch):
    """The (title, size) of every plot ImPlot begins."""
    from imgui_bundle import implot

    begun = []
    real = implot.begin_plot

    def spy(title, size, *args, **kwargs):
        begun.append((title, size.x, size.y))
        return real(title, size, *args, **kwargs)

    monkeypatch.setattr(implot, "begin_plot", spy)
    return begun


def test_a_click_on_a_plots_title_enlarges_it_and_another_puts_them_back(app, monkeypatch):
    from pyglet.window import mouse

    fresh(app, "t_handle")
    run_frames(app, 2)
    spy = _spy_plots(monkeypatch)
    side_by_side = _plots_frame(app, spy)
    assert len(side_by_side) >= 4, side_by_side  # the time plots and the curves (an empty plot is no ImPlot)
    narrow = side_by_side[0][1]
    plots = app.window_layout().plots
    # The energy plot's title: the first plot's, somewhere under the legend row (tried down from it, as a
    # person's eye would find it).
    x = plots.x + 0.1 * plots.width / len(SHOWN) + 20.0
    for y_down in range(int(plots.y) + 20, int(plots.y) + 90, 4):
        app.window.dispatch_event("on_mouse_motion", x, app.window.height - y_down, 0, 0)
        run_frames(app, 1)
        app.window.dispatch_event("on_mouse_press", x, app.window.height - y_down, mouse.LEFT, 0)
        run_frames(app, 3)
        app.window.dispatch_event("on_mouse_release", x, app.window.height - y_down, mouse.LEFT, 0)
        run_frames(app, 2)
        if app.state.plots.focus:
            break
    assert app.state.plots.focus == "energy"
    enlarged = _plots_frame(app, spy)
    assert len(enlarged) == 1 and enlarged[0][1] > 4 * narrow
    assert app.window_layout().plots.height > plots.height, "the strip is taller with a plot enlarged"
    app.pending.plot_focus = ALL_PLOTS
    assert len(_plots_frame(app, spy)) == len(side_by_side)


def test_larger_text_puts_the_plots_under_tabs(app, monkeypatch):
    fresh(app, "t_handle")
    spy = _spy_plots(monkeypatch)
    app.state.text_scale = 2.0
    try:
        run_frames(app, 2)
        (title, width, _), *others = _plots_frame(app, spy)
        assert not others and width > 0.8 * app.window_layout().plots.width
    finally:
        app.state.text_scale = 1.0
        run_frames(app, 1)
