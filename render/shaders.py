"""Load the GLSL programs in ``assets/shaders/``.

A program ``name`` is the files ``<name>.vert.glsl`` and ``<name>.frag.glsl``, plus ``<name>.geom.glsl`` when it
exists. A line ``#include "<file>"`` is replaced by that file's text (one level, from the same folder), so the
colour helpers in ``common.glsl`` are written once. ``DEFINES`` go after each stage's ``#version`` line: constants
that Python and GLSL share, defined once here.
"""

from __future__ import annotations

import re
from typing import cast

import moderngl

from spinlab.assets import asset_dir

__all__ = ["SHADER_DIR", "load_program", "shader_source", "uniform", "MAX_VIEWS", "BLEND_OVER"]

# Views one draw call can hold (assets/shaders/views.glsl): the uniform arrays' length.
MAX_VIEWS = 16
# Translucent colour over what is there, for ``ctx.blend_func`` (colour factors, then alpha's): a target's alpha
# stays 1 where it was, and over a transparent one the colour is premultiplied by its coverage.
BLEND_OVER = moderngl.SRC_ALPHA, moderngl.ONE_MINUS_SRC_ALPHA, moderngl.ONE, moderngl.ONE_MINUS_SRC_ALPHA
DEFINES = {"MAX_VIEWS": MAX_VIEWS}

SHADER_DIR = asset_dir("shaders")
_INCLUDE = re.compile(r'^\s*#include\s+"([^"]+)"\s*$', re.MULTILINE)
_VERSION = re.compile(r"^\s*#version[^\n]*\n", re.MULTILINE)


def shader_source(file_name: str) -> str:
    """The text of ``assets/shaders/<file_name>`` with its ``#include`` lines expanded."""
    text = (SHADER_DIR / file_name).read_text(encoding="utf-8")
    text = _INCLUDE.sub(lambda found: (SHADER_DIR / found.group(1)).read_text(encoding="utf-8"), text)
    defines = "".join(f"#define {name} {value}\n" for name, value in DEFINES.items())
    return _VERSION.sub(lambda found: found.group(0) + defines, text, count=1)


def load_program(ctx: moderngl.Context, name: str) -> moderngl.Program:
    """Compile and link the program ``name`` (see the module docstring for the file names)."""
    geometry = SHADER_DIR / f"{name}.geom.glsl"
    return ctx.program(
        vertex_shader=shader_source(f"{name}.vert.glsl"),
        fragment_shader=shader_source(f"{name}.frag.glsl"),
        geometry_shader=shader_source(geometry.name) if geometry.is_file() else None,
    )


def uniform(program: moderngl.Program, name: str) -> moderngl.Uniform:
    """The uniform ``name`` of ``program``. moderngl types ``program[name]`` as any of a program's members (uniform,
    uniform block, attribute, varying); the names passed here are the shaders' uniforms."""
    return cast(moderngl.Uniform, program[name])
