"""A GL context for the render tests: offscreen through EGL (no display). Tests that need it skip, saying why,
when EGL or a GL 3.3 core context is not available; the numpy-only tests run anyway."""

import pytest


@pytest.fixture(scope="session")
def gl_context():
    try:
        from render.offscreen import create_offscreen_context

        ctx = create_offscreen_context()
    except Exception as error:  # moderngl raises plain Exceptions for a missing libEGL or driver
        pytest.skip(f"no offscreen OpenGL 3.3 context through EGL: {error}")
    yield ctx
    ctx.release()
