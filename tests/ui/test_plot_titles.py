"""Plot titles fit their plots (ui/plot_titles.py): the full title where there is room, else a short one naming
the same measure, else an ellipsis; the ImGui id is the full title whatever is shown. ImPlot's mouse position text
is shown only in a plot that holds it whole."""

import pytest
from imgui_bundle import imgui, implot

from spinlab.ui.plot_titles import (
    AXES_LABELS_PX,
    MOUSE_TEXT_PADDING_PX,
    MOUSE_TEXT_WIDEST,
    SHORT_TITLES,
    TITLE_MARGIN_PX,
    fitted_text,
    fitted_title,
    mouse_text_flags,
)
from spinlab.ui.plots import PLOT_TITLES


def _width(text: str) -> float:
    return imgui.calc_text_size(text).x


@pytest.mark.parametrize("title", list(PLOT_TITLES.values()) + ["accuracy vs cost"])
def test_a_title_is_whole_where_it_fits_and_fits_where_it_does_not(imgui_window, title):
    roomy = _width(title) + TITLE_MARGIN_PX + AXES_LABELS_PX
    assert fitted_text(title, roomy) == title
    assert fitted_title(title, roomy) == f"{title}###{title}"
    for width in (roomy - 1.0, 0.75 * roomy, 0.5 * roomy, 60.0):
        text = fitted_text(title, width)
        assert text != title
        assert text and (_width(text) <= width - TITLE_MARGIN_PX - AXES_LABELS_PX or len(text) == 1)
        assert fitted_title(title, width) == f"{text}###{title}"
        # What is shown is the short title, or the start of it and an ellipsis.
        short = SHORT_TITLES.get(title, title)
        assert text == short or (text.endswith("…") and short.startswith(text[:-1]))


@pytest.mark.parametrize("y_axes", [1, 2])
def test_the_mouse_text_is_shown_only_where_it_fits_whole(imgui_window, y_axes):
    fits = _width(MOUSE_TEXT_WIDEST) + y_axes * AXES_LABELS_PX + 2 * MOUSE_TEXT_PADDING_PX
    assert mouse_text_flags(fits, y_axes) == 0
    assert mouse_text_flags(fits - 1.0, y_axes) == implot.Flags_.no_mouse_text


def test_at_1280_by_720_the_window_shows_every_plot_title_whole_or_short_never_cut(app, monkeypatch):
    from spinlab.ui import plot_titles, plots

    shown = {}

    def spy(title, width, **options):
        shown[title] = fitted_text(title, width, **options)
        return shown[title]

    monkeypatch.setattr(plot_titles, "fitted_text", spy)
    monkeypatch.setattr(plots, "fitted_text", spy)
    assert app.window.get_size() == (1280, 720)
    for _ in range(2):
        app.window.dispatch_events()
        app.frame(1 / 60)
    assert set(shown) == set(PLOT_TITLES.values()) - {PLOT_TITLES["integrators"]} | {"accuracy vs cost"}
    for title, text in shown.items():
        assert text in (title, SHORT_TITLES.get(title)), (title, text)


def test_the_narrow_plots_show_no_mouse_text_and_an_enlarged_one_does(app, monkeypatch):
    from spinlab.ui import plots

    flags_of: dict[str, int] = {}
    begin = plots.implot.begin_plot

    def spy(title, size, flags=0):
        flags_of[title.split("###")[-1]] = int(flags)
        return begin(title, size, flags)

    monkeypatch.setattr(plots.implot, "begin_plot", spy)
    for focus in (plots.ALL_PLOTS, "energy"):
        app.state.plots.focus = focus
        flags_of.clear()
        for _ in range(2):
            app.plots_layer.refresh()
            app.window.dispatch_events()
            app.frame(1 / 60)
        hidden = {title: bool(flags & implot.Flags_.no_mouse_text) for title, flags in flags_of.items()}
        if focus == plots.ALL_PLOTS:
            assert len(hidden) >= 6 and all(hidden.values()), hidden  # ~125 px each at 1280×720
        else:
            assert hidden == {PLOT_TITLES["energy"]: False}, hidden
    app.state.plots.focus = plots.ALL_PLOTS


def test_a_title_without_a_y_axis_beside_it_takes_the_whole_width(imgui_window):
    title = PLOT_TITLES["orientation"]
    width = _width(title) + TITLE_MARGIN_PX
    assert fitted_text(title, width, y_axis=False) == title
    assert fitted_text(title, width) != title
