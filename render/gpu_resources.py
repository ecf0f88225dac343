"""The GL objects every renderer on one ``moderngl.Context`` shares: programs, unit meshes, their vertex arrays.

They depend on the context only, not on a scene or a run, so they are built once per context and every
:class:`render.renderer.Renderer` on it draws with them: a GUI reset or a new scene (a new renderer made before the
old one is released) compiles no program and builds no mesh. They are held by the renderers that use them
(:meth:`GpuResources.acquire`, :meth:`GpuResources.drop`) and freed when the last one is released, so that a closed
window leaves none behind in the GL objects its context shared (pyglet's windows share them with a hidden one); a
released context frees them too.

Each :class:`InstancedDraw` here has its own instance buffer, written right before each of its draws: renderers that
share it draw one after the other, so none sees another's rows. What a renderer keeps from frame to frame on the
GPU (its trail line set, its backdrop cache) is its own (render/trail_lines.py, render/backdrop.py).
"""

from __future__ import annotations

import moderngl

from spinlab.render import meshes
from spinlab.render.gpu import InstancedDraw
from spinlab.render.look import LIGHTING
from spinlab.render.shaders import load_program, uniform

__all__ = [
    "GpuResources",
    "ROUND_SEGMENTS",
    "SMOOTH_FRINGES_SEGMENTS",
    "PLANE_SEGMENTS",
    "SHADOW_SEGMENTS",
    "REFERENCE_HEIGHT_PX",
    "PROGRAMS",
]

PROGRAMS = ("mesh", "edge", "line", "disc", "sky", "floor", "copy")
# Levels of detail of the round meshes, finest first: each instance takes the fewest segments around that keep its
# silhouette within a fraction of a pixel of the circle (render/views.py, levels_of_detail). On a CPU rasteriser
# every triangle costs set-up and binning, so a thin arrow shaft of 6 segments instead of 40 matters, and a cloud of
# handles under a pixel in radius (4 segments, within 0.25 px up to 0.85 px) draws a third fewer than at 6.
ROUND_SEGMENTS = (64, meshes.SEGMENTS, 24, 12, 6, 4)
# Levels of at most this many segments are under ~2 px in radius: their silhouette fringes come from the smooth edges
# only (a cylinder's sides), not the creases (the rims of caps a few pixels across; render/renderer.py).
SMOOTH_FRINGES_SEGMENTS = 6
PLANE_SEGMENTS = (96, 24)  # an invariable plane's rim is a visible circle: finer for near bodies, coarser for far
SHADOW_SEGMENTS = 12  # a shadow fades to nothing before its polygon's edge
# Line widths are given at a 720-pixel-high viewport; they scale with the viewport's height, down to MIN_LINE_SCALE.
REFERENCE_HEIGHT_PX = 720.0
MIN_LINE_SCALE = 0.75
TINT_ATTRIBUTES = ("in_model", "in_tint", "in_view")  # the line program's per-instance inputs
_EXTRA_KEY = "spinlab.gpu_resources"  # where a context keeps its resources (moderngl's ``Context.extra``)


class GpuResources:
    """The programs (``programs[name]`` for each of ``PROGRAMS``, their active uniforms' names in ``uniforms``) and
    the instanced unit meshes: ``solids[kind]`` and ``edges[kind]`` (silhouette fringes) one per ``ROUND_SEGMENTS``,
    ``planes`` one per ``PLANE_SEGMENTS``, ``shadows``, ``axes``, and the attribute-less passes
    ``sky``, ``floor`` and ``copy``. ``views_key`` is what the per-view uniforms last written hold (render/views.py);
    ``users`` how many holders (renderers) have acquired them and not dropped them yet."""

    def __init__(self, ctx: moderngl.Context) -> None:
        self.ctx = ctx
        self.programs = {name: load_program(ctx, name) for name in PROGRAMS}
        mesh, edge, line, disc = (self.programs[name] for name in ("mesh", "edge", "line", "disc"))
        self.solids = {
            kind: [InstancedDraw(ctx, mesh, meshes.unit_mesh(kind, segments)) for segments in ROUND_SEGMENTS]
            for kind in meshes.UNIT_MESHES
        }
        # A solid's fringes are drawn right after it, from the rows it uploaded (no second copy of them a frame for
        # the driver to hold and copy).
        self.edges = {
            kind: [
                InstancedDraw(ctx, edge, meshes.unit_mesh(kind, segments), edges=True, instances=solid.instances)
                for segments, solid in zip(ROUND_SEGMENTS, self.solids[kind], strict=True)
            ]
            for kind in meshes.UNIT_MESHES
        }
        self.planes = [
            InstancedDraw(ctx, disc, meshes.disc(segments), with_normals=False) for segments in PLANE_SEGMENTS
        ]
        self.shadows = InstancedDraw(ctx, disc, meshes.disc(SHADOW_SEGMENTS), with_normals=False)
        self.axes = InstancedDraw(ctx, line, meshes.axes_lines(), instance_attributes=TINT_ATTRIBUTES)
        self.sky = ctx.vertex_array(self.programs["sky"], [])
        self.floor = ctx.vertex_array(self.programs["floor"], [])
        self.copy = ctx.vertex_array(self.programs["copy"], [])
        # The uniforms each program has (the compiler drops those a program does not use).
        self.uniforms = {
            name: {member for member in program if isinstance(program[member], moderngl.Uniform)}
            for name, program in self.programs.items()
        }
        for name in ("mesh", "edge"):
            for uniform_name, value in LIGHTING.items():
                if uniform_name in self.uniforms[name]:
                    uniform(self.programs[name], uniform_name).value = value
        uniform(line, "u_reference_height_px").value = REFERENCE_HEIGHT_PX
        uniform(line, "u_min_width_scale").value = MIN_LINE_SCALE
        self.views_key: tuple | None = None
        self.users = 0

    @classmethod
    def of(cls, ctx: moderngl.Context) -> GpuResources:
        """The resources of ``ctx``, built at the first call on it (kept in ``ctx.extra``; a context whose ``extra``
        holds something else gets them built afresh each time)."""
        extra = ctx.extra if isinstance(ctx.extra, dict) else None
        resources = extra.get(_EXTRA_KEY) if extra is not None else None
        if resources is None:
            resources = cls(ctx)
            if ctx.extra is None:
                ctx.extra = extra = {}
            if extra is not None:
                extra[_EXTRA_KEY] = resources
        return resources

    @classmethod
    def acquire(cls, ctx: moderngl.Context) -> GpuResources:
        """:meth:`of` ``ctx``, held by one more user until it calls :meth:`drop`."""
        resources = cls.of(ctx)
        resources.users += 1
        return resources

    def drop(self) -> None:
        """One user of :meth:`acquire` is done: the last frees the GL objects (:meth:`release`)."""
        self.users -= 1
        if self.users <= 0:
            self.release()

    def solid_draws(self) -> list[InstancedDraw]:
        return [draw for levels in (*self.solids.values(), *self.edges.values()) for draw in levels]

    def release(self) -> None:
        """Free the GL objects now, whoever holds them, and forget them: the next :meth:`of` on the context builds
        them again."""
        for draw in (*self.solid_draws(), *self.planes, self.shadows, self.axes):
            draw.release()
        self.sky.release()
        self.floor.release()
        self.copy.release()
        for program in self.programs.values():
            program.release()
        if isinstance(self.ctx.extra, dict) and self.ctx.extra.get(_EXTRA_KEY) is self:
            del self.ctx.extra[_EXTRA_KEY]
