"""Draw a scene's bodies, their ω and L arrows, principal axes, herpolhodes and invariable planes.

:class:`Renderer` takes a ``moderngl.Context`` and a :class:`SceneSpec`, and draws a :class:`Snapshot` into any
framebuffer (a window's, an offscreen one) inside viewport rectangles, sized from that framebuffer at every draw.
Per frame it computes every instance's model matrix from the snapshot in one batch (render/frame_instances.py) and
draws each unit-mesh kind (cylinder, cone, box, sphere, disc, line set) with one instanced call per level of detail
(round meshes come with several numbers of segments, chosen per instance by its projected radius); nothing is drawn
per body or per view.

What it holds, by lifetime:

- per GL context: the programs and unit meshes (render/gpu_resources.py), shared by every renderer on the context,
  so a GUI reset or a new scene compiles and builds nothing;
- per scene: the body layout (render/body_layout.py), the backdrop cache (render/backdrop.py), the trail line set
  (render/trail_lines.py) and the herpolhode samples (render/trail.py), whose run :meth:`push_trail` feeds;
- per frame: the views (render/views.py) and the instance rows of the snapshot drawn.

Frames: ``q`` is body → world, (w, x, y, z); world z is up; a body is drawn around its centre of mass. Lighting
is linear RGB and every program writes sRGB (render/look.py). The order of a frame: the backdrop (the sky's gradient
and the floor grid, or a copy from its cache), contact shadows, the solids (depth-tested), their
anti-aliased silhouette fringes, then the translucent invariable planes and the lines (depth-tested, no depth
writes), and last the exact ghosts (render/ghost.py: their depth, then their colour blended where they are
nearest). Several views (a grid, one per integrator) go into the same draws (:meth:`Renderer.draw_views`).

Multisampling multiplies a frame's cost on a CPU rasteriser (llvmpipe), resolve included; the solids' silhouettes are
the only hard edges of a frame (lines, disc rims, grid and text anti-alias themselves), so instead of MSAA each
silhouette edge gets a thin fading fringe (assets/shaders/edge.*.glsl), which shades a few pixels along the outline
rather than every pixel again.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Literal

import moderngl
import numpy as np

from spinlab.render.backdrop import Backdrop, BackdropLook, Underlay
from spinlab.render.body_layout import BodyLayout
from spinlab.render.camera import OrbitCamera
from spinlab.render.frame_instances import FrameInstances, frame_instances
from spinlab.render.ghost import Ghost
from spinlab.render.gpu import InstancedDraw
from spinlab.render.gpu_resources import REFERENCE_HEIGHT_PX, ROUND_SEGMENTS, SMOOTH_FRINGES_SEGMENTS, GpuResources
from spinlab.render.poinsot import PoinsotTraces
from spinlab.render.poinsot_view import PoinsotView
from spinlab.render.shaders import BLEND_OVER, MAX_VIEWS, uniform
from spinlab.render.trail import HerpolhodeTrail
from spinlab.render.trail_lines import TRAIL_CAPACITY, TrailLines
from spinlab.render.view_rows import ViewRows, view_rows
from spinlab.render.views import Viewport, ViewSet, clip_to_views, write_view_uniforms
from spinlab.scene.files.scene_file import SceneSpec
from spinlab.scene.running.simulation import Snapshot

__all__ = ["Renderer", "RenderOptions", "Viewport", "REFERENCE_HEIGHT_PX", "MAX_VIEWS"]

AXES_WIDTH_PX = 2.0  # at REFERENCE_HEIGHT_PX
# The default camera looks this far round from L, so the invariable plane is seen neither edge-on nor face-on.
VIEW_FROM_MOMENTUM_DEG = 40.0
# Silhouette fringes: how far outside the edge they reach, and their opacity at the edge (falling to 0 there).
FRINGE_PX = 1.0
FRINGE_EDGE_ALPHA = 1.0
# Beyond this many bodies the overlays start off (RenderOptions.for_bodies): a thousand arrows, axes, trails and
# planes hide the bodies and their colours, which then say what each body does (e.g. the cloud preset).
MANY_BODIES = 100


@dataclass
class RenderOptions:
    """What to draw besides the bodies; the panel edits these fields."""

    show_omega: bool = True
    show_momentum: bool = True
    show_axes: bool = True
    show_herpolhode: bool = True
    show_invariable_plane: bool = True
    show_floor: bool = True
    # Anti-aliased fringes on the solids' silhouettes (edge.geom.glsl); not drawn into a multisampled framebuffer.
    antialias: bool = True
    # The exact ghost (render/ghost.py): a translucent copy of each torque-free body turned by its closed form.
    show_ghost: bool = True
    # The Poinsot construction of one torque-free body (render/poinsot_view.py), in a view of its own.
    show_poinsot: bool = False
    # The scene's captions over the views (render/captions.py), the window's and a video's.
    show_captions: bool = True

    @classmethod
    def for_bodies(cls, count: int) -> RenderOptions:
        """The defaults for a scene of ``count`` bodies: every overlay, or none but the floor beyond
        :data:`MANY_BODIES`."""
        if count <= MANY_BODIES:
            return cls()
        return cls(**dict.fromkeys(_PER_BODY_OVERLAYS, False))

    def for_scene_of(self, before: int, count: int) -> RenderOptions:
        """These options for a scene of ``count`` bodies loaded after one of ``before``: as they are, unless the
        scene crosses :data:`MANY_BODIES`, which sets the overlays drawn per body to the new size's defaults (a
        cloud of 1000 handles with every overlay draws 1000 arrows, axes, trails and ghosts: several times the
        frame; a T-handle after it would show none)."""
        if (before > MANY_BODIES) == (count > MANY_BODIES):
            return self
        defaults = RenderOptions.for_bodies(count)
        return dataclasses.replace(self, **{name: getattr(defaults, name) for name in _PER_BODY_OVERLAYS})


_PER_BODY_OVERLAYS = ("show_omega", "show_momentum", "show_axes", "show_herpolhode", "show_invariable_plane",
                      "show_ghost")  # fmt: skip


def _quiet_numpy(method):
    """Run ``method`` with numpy's overflow and invalid-value warnings off. The simulation checks every state it
    reports for finiteness; a huge but finite one (|ω| up to 1e50 is a valid scene) overflows float32 or a norm
    while being drawn, which only draws nothing there, and must not print a warning."""

    @functools.wraps(method)
    def quiet(*args, **kwargs):
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            return method(*args, **kwargs)

    return quiet


class Renderer:
    """Draws :class:`Snapshot` s of ``scene`` (see the module docstring). ``trail_capacity`` is the number of
    :meth:`push_trail` samples each herpolhode keeps. Building one on a context where another renderer lives
    compiles no program and builds no mesh (:class:`GpuResources`)."""

    @_quiet_numpy
    def __init__(
        self,
        ctx: moderngl.Context,
        scene: SceneSpec,
        *,
        options: RenderOptions | None = None,
        trail_capacity: int = TRAIL_CAPACITY,
    ) -> None:
        self.ctx = ctx
        self.scene = scene
        self.options = options or RenderOptions.for_bodies(len(scene.bodies))
        self.layout = BodyLayout(scene)
        self.trail = HerpolhodeTrail(len(scene.bodies), trail_capacity)
        self.resources = GpuResources.acquire(ctx)
        try:
            self.backdrop = Backdrop(self.resources)
            self.trail_lines = TrailLines(self.resources)
        except BaseException:
            self.resources.drop()
            raise
        self._released = False
        self._floor: tuple[float, float] | None = None  # (height, fade radius), fixed at the first draw
        # The instance rows of the last snapshot drawn or prepared (frame_instances).
        self._frame: FrameInstances | None = None
        # The last frame's rows per views (render/view_rows.py): the frame, its ghost, the views and options, rows.
        self._held_rows: tuple[FrameInstances, Ghost | None, tuple, ViewRows] | None = None
        self.ghost: Ghost | None = None  # the closed form's orientations (set_ghost), drawn at their time only
        # The Poinsot view's traces (render/viewports.py's follow_session; False: the run has no body for it) and
        # its drawing, made at its first draw.
        self.poinsot_traces: PoinsotTraces | None | Literal[False] = None
        self._poinsot_view: PoinsotView | None = None

    @property
    def _backdrop_cache(self) -> moderngl.Framebuffer | None:
        """The backdrop cache's framebuffer (``None`` before the first draw that needs it): tests check its size."""
        return self.backdrop.framebuffer

    @_quiet_numpy
    def prepare(
        self,
        snapshot: Snapshot,
        viewports: Sequence[Viewport] = (),
        cameras: Sequence[OrbitCamera] = (),
        bodies: Sequence[np.ndarray | None] | None = None,
    ) -> None:
        """Compute now (no GL) what drawing ``snapshot`` will need, so that :meth:`draw_views` does less later: e.g.
        while the rasteriser still works on the previous frame. With the ``viewports`` and ``cameras`` (and
        ``bodies``) it will be drawn with, the herpolhode trails' thinned segments too. Optional; drawing computes
        what is missing, and what no longer matches (a camera moved since) is computed again."""
        frame = self._frame_instances(snapshot)
        if not viewports or len(viewports) > MAX_VIEWS or self._floor is None:
            return
        bodies = [None] * len(viewports) if bodies is None else list(bodies)
        views = ViewSet.of(
            viewports, cameras, [self._select(selection) for selection in bodies], len(self.scene.bodies)
        )
        self._view_rows(frame, views)
        if self.options.show_herpolhode and self.trail.count > 1:
            self.trail_lines.segments(self.trail, id(frame), snapshot.position, self.layout.omega_scale, views)

    @_quiet_numpy
    def push_trail(self, snapshot: Snapshot) -> None:
        """Append ``snapshot``'s ω of every body to its herpolhode trail: once per simulation step (a copy of N × 3
        floats into a ring buffer, no GL)."""
        self.trail.push(snapshot.omega_world)

    def set_ghost(self, ghost: Ghost | None) -> None:
        """The exact ghosts to draw (render/ghost.py) over a snapshot at ``ghost.t``; ``None`` for none."""
        self.ghost = ghost

    @_quiet_numpy
    def draw_poinsot(self, framebuffer: moderngl.Framebuffer, viewport: Viewport, camera: OrbitCamera) -> bool:
        """Draw the Poinsot view (render/poinsot_view.py) of :attr:`poinsot_traces` into ``viewport``; returns
        False (drawing nothing) when there are none."""
        if not isinstance(self.poinsot_traces, PoinsotTraces):
            return False
        if self._poinsot_view is None:
            self._poinsot_view = PoinsotView(self.ctx, self.layout.colors_rgba[self.poinsot_traces.body])
        self._poinsot_view.draw(framebuffer, viewport, camera, self.poinsot_traces)
        return True

    @_quiet_numpy
    def default_camera(
        self, snapshot: Snapshot, bodies: np.ndarray | None = None, aspect: float = 16 / 9, top_clear: float = 0.0
    ) -> OrbitCamera:
        """A camera that frames ``bodies`` (all by default) with their L arrows, below the top ``top_clear`` of
        the view's height (its label's band), and looks at the invariable planes obliquely: its azimuth is
        ``VIEW_FROM_MOMENTUM_DEG`` round from the horizontal part of their L."""
        selected = self._select(bodies)
        camera = OrbitCamera()
        momentum = snapshot.L_world[selected].sum(axis=0)
        if np.hypot(momentum[0], momentum[1]) > 0.1 * np.linalg.norm(momentum):
            camera.azimuth_deg = float(np.degrees(np.arctan2(momentum[1], momentum[0]))) - VIEW_FROM_MOMENTUM_DEG
        centers, radii = self.layout.enclosing_spheres(snapshot.position, snapshot.L_world, selected)
        camera.fit_spheres(centers, radii, aspect, top_clear)
        return camera

    def draw(
        self,
        framebuffer: moderngl.Framebuffer,
        viewport: Viewport,
        camera: OrbitCamera,
        snapshot: Snapshot,
        bodies: np.ndarray | None = None,
    ) -> None:
        """Draw ``snapshot`` (its ``bodies``, all by default) into ``viewport`` of ``framebuffer``, over whatever
        was there: :meth:`draw_views` with one view."""
        self.draw_views(framebuffer, snapshot, [viewport], [camera], [bodies])

    @_quiet_numpy
    def draw_views(
        self,
        framebuffer: moderngl.Framebuffer,
        snapshot: Snapshot,
        viewports: Sequence[Viewport],
        cameras: Sequence[OrbitCamera],
        bodies: Sequence[np.ndarray | None] | None = None,
        *,
        background: tuple[float, float, float] | None = None,
        underlay: Callable[[moderngl.Framebuffer], None] | None = None,
        underlay_key: Hashable = None,
    ) -> bool:
        """Draw ``snapshot`` into each of ``viewports`` (which must not overlap) of ``framebuffer``, over whatever
        was there, from its camera of ``cameras``, showing its ``bodies`` (all by default). Every view goes into the
        same instanced draws (assets/shaders/views.glsl), one per mesh kind and level of detail, in batches of
        ``MAX_VIEWS`` views. With a ``background`` (sRGB) the rest of the framebuffer may be filled with it: then
        when no camera moved the whole backdrop is one copy from the cache, and ``underlay`` (e.g. the labels'
        panels), which draws into a framebuffer of the same size, goes into that cache once per ``underlay_key``.
        Returns whether the frame came from the cache, underlay included (else the caller draws it). Leaves the
        depth test on, blending off, the depth mask on and no scissor."""
        bodies = [None] * len(viewports) if bodies is None else list(bodies)
        if not len(viewports) == len(cameras) == len(bodies):
            raise ValueError("draw_views needs one camera and one body selection per viewport")
        if len(viewports) > MAX_VIEWS and background is not None:
            framebuffer.use()
            framebuffer.scissor = None  # type: ignore[assignment]  # None (no scissor test) is allowed; the stub omits it
            framebuffer.clear(*background, 1.0, depth=1.0)
            background = None  # the next batch must not paint over the first
        cached = False
        for first in range(0, len(viewports), MAX_VIEWS):
            batch = slice(first, first + MAX_VIEWS)
            selected = [self._select(chosen) for chosen in bodies[batch]]
            cameras_batch, viewports_batch = list(cameras[batch]), list(viewports[batch])
            cached = self._draw_batch(
                framebuffer, snapshot, viewports_batch, cameras_batch, selected, background, (underlay, underlay_key)
            )
        return cached and underlay is not None

    def _draw_batch(
        self,
        framebuffer: moderngl.Framebuffer,
        snapshot: Snapshot,
        viewports: list[Viewport],
        cameras: list[OrbitCamera],
        selected: list[np.ndarray],
        background: tuple[float, float, float] | None,
        underlay: Underlay,
    ) -> bool:
        """:meth:`draw_views` for at most ``MAX_VIEWS`` views; ``selected`` are their bodies' indices. Returns
        whether the backdrop (with the underlay) came from the whole-frame cache."""
        ctx, options = self.ctx, self.options
        if self._floor is None:
            floor_z, scene_radius = self.layout.floor(snapshot.position)
            self._floor = floor_z, 3.0 * max(1.5 * scene_radius, 2.0 * self.layout.size)
        views = ViewSet.of(viewports, cameras, selected, len(self.scene.bodies))
        frame = self._frame_instances(snapshot)
        write_view_uniforms(self.resources, views)
        rows = self._view_rows(frame, views)
        shadows = rows.shadows
        framebuffer.use()
        # The whole frame's backdrop from the cache holds the contact shadows too (they move only with the bodies'
        # centres, which in most scenes stay put).
        look = BackdropLook(*self._floor, self.layout.grid_cell, options.show_floor)
        shadow_pass = None if shadows is None else (shadows, self._draw_clipped_shadows)
        whole = self.backdrop.draw(framebuffer, views, look, background, shadow_pass, underlay)

        clip_to_views(ctx, True)
        if shadows is not None and not whole:
            self._draw_shadows(shadows)
        ctx.blend_func = BLEND_OVER  # type: ignore[assignment]  # colour and alpha factors: the stub allows 2 of 4
        ctx.enable_only(moderngl.DEPTH_TEST | moderngl.CULL_FACE)
        self._draw_solids(rows.solids)
        ctx.enable_only(moderngl.DEPTH_TEST | moderngl.BLEND)
        framebuffer.depth_mask = False
        if options.antialias and not framebuffer.samples:
            self._draw_fringes(rows.solids)
        if rows.planes is not None:
            for draw, planes in zip(self.resources.planes, rows.planes, strict=True):
                self._draw_discs(draw, 0, planes)
        self._draw_lines(frame, views, rows.axes)
        if rows.ghosts:
            self._draw_ghosts(framebuffer, rows.ghosts)
        clip_to_views(ctx, False)
        framebuffer.depth_mask = True
        framebuffer.scissor = None  # type: ignore[assignment]  # None (no scissor test) is allowed; the stub omits it
        ctx.enable_only(moderngl.DEPTH_TEST)
        return whole

    def _draw_shadows(self, rows: np.ndarray) -> None:
        """The contact shadows ``rows`` (instance rows with their views), blended over what is there, no depth."""
        self.ctx.enable_only(moderngl.BLEND)
        self.ctx.blend_func = BLEND_OVER  # type: ignore[assignment]  # colour and alpha factors: the stub allows 2 of 4
        self._draw_discs(self.resources.shadows, 1, rows)

    def _draw_clipped_shadows(self, rows: np.ndarray) -> None:
        """:meth:`_draw_shadows` kept to the views' rectangles (into the backdrop cache)."""
        clip_to_views(self.ctx, True)
        self._draw_shadows(rows)
        clip_to_views(self.ctx, False)

    def _view_rows(self, frame: FrameInstances, views: ViewSet) -> ViewRows:
        """What ``views`` draw of ``frame`` (render/view_rows.py), made once per frame, views and options (by
        :meth:`prepare` when it was given the views the draw then uses)."""
        options, ghost = self.options, self.ghost
        if not (options.show_ghost and ghost is not None and ghost.applies_to(frame.snapshot.t)):
            ghost = None
        key = (
            views.chosen.tobytes(),
            np.asarray(views.view_projections).tobytes(),
            tuple(views.viewports),
            options.show_floor,
            options.show_invariable_plane,
            options.show_axes,
        )
        held = self._held_rows
        if held is not None and held[0] is frame and held[1] is ghost and held[2] == key:
            return held[3]
        rows = view_rows(
            frame,
            self.layout,
            self.trail,
            views,
            floor=options.show_floor,
            planes=options.show_invariable_plane,
            axes=options.show_axes,
            ghost_q=None if ghost is None else ghost.q,
        )
        self._held_rows = frame, ghost, key, rows
        return rows

    def _select(self, bodies: np.ndarray | None) -> np.ndarray:
        return np.arange(len(self.scene.bodies)) if bodies is None else np.asarray(bodies, dtype=np.intp)

    def _frame_instances(self, snapshot: Snapshot) -> FrameInstances:
        """The instance rows of every body of ``snapshot``: computed at the first draw of a snapshot (and trail
        sample, and set of overlays), then only selected from by each view of it."""
        options = self.options
        key = (self.trail.version, options.show_omega, options.show_momentum, self._floor)
        frame = self._frame
        if frame is None or frame.snapshot is not snapshot or frame.key != key:
            floor_z = None if self._floor is None else self._floor[0]
            frame = self._frame = frame_instances(
                self.layout,
                snapshot,
                key,
                show_omega=options.show_omega,
                show_momentum=options.show_momentum,
                floor_z=floor_z,
            )
        return frame

    def _draw_solids(self, solids: dict[str, list[np.ndarray]], *, written: bool = False) -> None:
        """Draw the ``solids``: per kind, their instance rows per level of detail (render/view_rows.py); uploaded,
        or when ``written`` from the instance buffers the last call of the same solids filled."""
        for kind, levels in solids.items():
            for draw, rows in zip(self.resources.solids[kind], levels, strict=True):
                if written:
                    draw.draw_written(len(rows))
                else:
                    draw.draw(rows)

    def _draw_ghosts(self, framebuffer: moderngl.Framebuffer, ghosts: dict[str, list[np.ndarray]]) -> None:
        """The exact ghosts' solids (render/ghost.py; per kind, rows per level of detail): their depth, then their
        colour blended where it is the nearest. Leaves blending on, the depth mask off and the depth test ``<``."""
        ctx = self.ctx
        ctx.enable_only(moderngl.DEPTH_TEST | moderngl.CULL_FACE)
        framebuffer.depth_mask = True
        framebuffer.color_mask = False, False, False, False
        framebuffer.use()  # applies the masks (a setter alone does not while another framebuffer object is bound)
        self._draw_solids(ghosts)
        framebuffer.color_mask = True, True, True, True
        framebuffer.depth_mask = False
        framebuffer.use()
        ctx.depth_func = "<="
        ctx.enable_only(moderngl.DEPTH_TEST | moderngl.CULL_FACE | moderngl.BLEND)
        ctx.blend_func = BLEND_OVER  # type: ignore[assignment]  # colour and alpha factors: the stub allows 2 of 4
        self._draw_solids(ghosts, written=True)  # the rows the depth pass uploaded
        ctx.depth_func = "<"
        ctx.enable_only(moderngl.DEPTH_TEST | moderngl.BLEND)

    def _draw_fringes(self, solids: dict[str, list]) -> None:
        """The silhouette fringes (edge.geom.glsl) of the ``solids`` just drawn (:meth:`_draw_solids`' rows per
        level, which the solids' instance buffers still hold), over them: blended, depth-tested, no depth writes, no
        culling (the caller's state)."""
        program = self.resources.programs["edge"]
        uniform(program, "u_fringe_px").value = FRINGE_PX
        uniform(program, "u_edge_alpha").value = FRINGE_EDGE_ALPHA
        for kind, levels in solids.items():
            for segments, draw, rows in zip(ROUND_SEGMENTS, self.resources.edges[kind], levels, strict=True):
                # A solid at the coarsest levels is under ~2 px in radius: only the smooth edges of a round one (a
                # cylinder's long sides) take fringes there, not the creases (the rims of caps a few pixels
                # across), which are two thirds of a thin cylinder's edges and of the geometry shader's work.
                smooth = draw.smooth_vertices if segments <= SMOOTH_FRINGES_SEGMENTS else 0
                draw.draw_written(len(rows), vertices=smooth or -1)

    def _draw_discs(self, draw: InstancedDraw, mode: int, rows: np.ndarray) -> None:
        uniform(self.resources.programs["disc"], "u_mode").value = mode
        draw.draw(rows)

    def _draw_lines(self, frame: FrameInstances, views: ViewSet, axes: np.ndarray | None) -> None:
        """The principal ``axes`` (their rows, ``None``: not shown) and the herpolhode trails of the bodies
        ``views.chosen`` in each view."""
        options = self.options
        if axes is not None:
            uniform(self.resources.programs["line"], "u_width_px").value = AXES_WIDTH_PX
            self.resources.axes.draw(axes)
        if options.show_herpolhode and self.trail.count > 1 and views.chosen.any():
            # self._frame holds frame, so its id is not reused while the trail lines are keyed on it.
            position = frame.snapshot.position
            self.trail_lines.draw(self.trail, id(frame), position, self.layout.omega_scale, views)

    def release(self) -> None:
        """Free this renderer's GL objects (its backdrop cache and trail line set), and the programs and meshes it
        shares when no other renderer on the context holds them (:meth:`GpuResources.drop`). Once; a second call
        does nothing."""
        if self._released:
            return
        self._released = True
        if self._poinsot_view is not None:
            self._poinsot_view.release()
        self.trail_lines.release()
        self.backdrop.release()
        self.resources.drop()
