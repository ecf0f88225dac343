"""A GL context for the render tests: offscreen through EGL (no display). Tests that need it skip, saying why,
when EGL or a GL 3.3 core context is not available; the numpy-only tests run anyway."""

import pytest


def _offscreen_context():
    try:
        from spinlab.render.offscreen import create_offscreen_context

        return create_offscreen_context()
    except Exception as error:  # moderngl raises plain Exceptions for a missing libEGL or driver
        pytest.skip(f"no offscreen OpenGL 3.3 context through EGL: {error}")


@pytest.fixture(scope="session")
def gl_context():
    ctx = _offscreen_context()
    yield ctx
    ctx.release()


@pytest.fixture
def fresh_gl_context():
    """A context of the test's own: what the test builds and frees on it touches no other test's."""
    ctx = _offscreen_context()
    yield ctx
    ctx.release()
