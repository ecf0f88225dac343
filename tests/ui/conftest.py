"""The window tests' fixtures: an X display (a private Xvfb when it is installed, else the session's
``DISPLAY``) and one real :class:`~ui.app.App` window per test module; and an ImGui frame without any window.

Tests skip, saying why, only when no X display can be had. ``.ci/run`` installs Xvfb with
``apt-get install -y xvfb xauth``.
"""

import os

import pytest
from imgui_bundle import imgui, implot

from spinlab.ui.xvfb import virtual_display, xvfb_available


@pytest.fixture(scope="session")
def x_display():
    """``DISPLAY`` of a running X server for the whole session."""
    if not xvfb_available():
        if not os.environ.get("DISPLAY"):
            pytest.skip("no X display for the window tests: install Xvfb (apt-get install -y xvfb xauth)")
        yield os.environ["DISPLAY"]
        return
    try:
        with virtual_display() as name:
            yield name
    except RuntimeError as error:
        pytest.skip(f"no X display for the window tests: {error}")


@pytest.fixture(scope="module")
def app(x_display, tmp_path_factory):
    """A 1280×720 window on the compare preset, writing its files to a temporary folder."""
    from spinlab.scene.files.scene_file import load_scene
    from spinlab.ui.app import App

    window_app = App(load_scene("compare"), vsync=False, output_dir=str(tmp_path_factory.mktemp("captures")))
    yield window_app
    window_app.close()


@pytest.fixture
def imgui_window():
    """Inside an ImGui window of a 1280×720 frame with no display and no GL (ImGui lays out and tessellates
    without a renderer); the frame is rendered and the contexts destroyed afterwards."""
    context = imgui.create_context()
    implot.create_context()
    io = imgui.get_io()
    io.set_ini_filename("")
    io.display_size = imgui.ImVec2(1280.0, 720.0)
    io.backend_flags |= imgui.BackendFlags_.renderer_has_textures
    imgui.new_frame()
    imgui.begin("test window")
    yield
    imgui.end()
    imgui.render()
    implot.destroy_context()
    imgui.destroy_context(context)
