"""The session's GL context still draws after a window test in the same process (tests/render/conftest.py): with
pytest-xdist a worker runs render and window test files in any order. These tests run in file order."""


def test_the_session_context_is_made(gl_context):
    from spinlab.render.offscreen import OffscreenTarget

    OffscreenTarget(gl_context, 8, 8)


def test_a_window_opens_and_closes_in_this_process(x_display, tmp_path):
    from spinlab.scene.files.scene_file import load_scene
    from spinlab.ui.app import App

    App(load_scene("t_handle"), vsync=False, output_dir=str(tmp_path)).close()  # as tests/ui/conftest.py's app


def test_the_session_context_still_makes_a_framebuffer_after_the_window(gl_context):
    from spinlab.render.offscreen import OffscreenTarget

    target = OffscreenTarget(gl_context, 8, 8)
    assert target.size == (8, 8)
