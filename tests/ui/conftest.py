"""The window tests' fixtures: one real :class:`~ui.app.App` window per test module, on the session's private X
display (``x_display``, tests/conftest.py); and an ImGui frame without any window.

A window test never uses the caller's display: its screen size, its other windows and its person's work are no
test's to use, and a window test there once ran on a desktop. Without Xvfb the window tests skip, saying why;
``.ci/run`` installs it with ``apt-get install -y xvfb xauth``.
"""

import pytest
from imgui_bundle import imgui, implot


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
