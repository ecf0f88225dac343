"""Plot titles fit their plots (ui/plot_titles.py): the full title where there is room, else a short one naming
the same measure, else an ellipsis; the ImGui id is the full title whatever is shown."""

import pytest
from imgui_bundle import imgui

from spinlab.ui.plot_titles import AXES_LABELS_PX, SHORT_TITLES, TITLE_MARGIN_PX, fitted_text, fitted_title
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


def test_a_title_without_a_y_axis_beside_it_takes_the_whole_width(imgui_window):
    title = PLOT_TITLES["orientation"]
    width = _width(title) + TITLE_MARGIN_PX
    assert fitted_text(title, width, y_axis=False) == title
    assert fitted_text(title, width) != title
