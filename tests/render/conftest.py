"""A GL context for the render tests: offscreen through EGL (no display). Tests that need it skip, saying why,
when EGL or a GL 3.3 core context is not available; the numpy-only tests run anyway.

The session's context is made current before each render test (setup, call and teardown): a window test run
before it in the same process (a pytest-xdist worker takes the test files in any order) leaves its window's
context current, or none once the window is closed, and moderngl then fails to create anything."""

import pytest

_session_contexts: list = []  # the session's context, once a test asked for it


def _offscreen_context():
    try:
        from spinlab.render.offscreen import create_offscreen_context

        return create_offscreen_context()
    except Exception as error:  # moderngl raises plain Exceptions for a missing libEGL or driver
        pytest.skip(f"no offscreen OpenGL 3.3 context through EGL: {error}")


@pytest.fixture(scope="session")
def gl_context():
    ctx = _offscreen_context()
    _session_contexts.append(ctx)
    yield ctx
    _session_contexts.remove(ctx)
    ctx.release()


@pytest.fixture
def fresh_gl_context():
    """A context of the test's own: what the test builds and frees on it touches no other test's."""
    ctx = _offscreen_context()
    yield ctx
    ctx.release()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    for ctx in _session_contexts:
        ctx.__enter__()  # made current; never left through __exit__, which would restore the window's context
