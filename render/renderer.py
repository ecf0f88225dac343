"""Draw a scene's bodies, their ω and L arrows, principal axes, herpolhodes and invariable planes.

:class:`Renderer` takes a ``moderngl.Context`` and a :class:`SceneSpec`, and draws a :class:`Snapshot` into any
framebuffer (a window's, an offscreen one) inside a viewport rectangle. Per frame it computes every instance's
model matrix from the snapshot in one batch and draws each unit-mesh kind (cylinder, cone, box, sphere, disc,
line set) with one instanced call per level of detail (round meshes come with several numbers of segments,
``ROUND_SEGMENTS``, chosen per instance by its projected radius); nothing is drawn per body or per view.

Frames: ``q`` is body → world, (w, x, y, z); world z is up; a body is drawn around its centre of mass. Lighting
is linear RGB and every program writes sRGB (render/look.py). The order of a frame: the backdrop (gradient and
floor grid, one full-screen pass), contact shadows, the solids (depth-tested), their anti-aliased silhouette
fringes, then the translucent invariable planes and the lines (depth-tested, no depth writes).

Several views (a grid, one per integrator) go into the same draws (:meth:`Renderer.draw_views`,
assets/shaders/views.glsl): each instance carries its view's index, and each view's camera and rectangle are
uniform arrays.

Costs on a CPU rasteriser (llvmpipe): the backdrop shader is the dearest pass (~10 ms at 1280×720), and it only
changes with the camera, so it is drawn into a cache framebuffer once per camera and viewport and copied into
the target afterwards; a camera that moved since the last frame gets it shaded straight into the target instead
(no copy, no wait for the cache). When the views fill the whole target (a ``background`` for the rest), the
cache holds the whole frame's backdrop with the contact shadows and the caller's underlay (the labels' panels)
and is copied in one memcpy (~0.1 ms). Multisampling costs 2–3× and its
resolve ~12 ms; the solids' silhouettes are the only hard edges of a frame (lines, disc rims, grid and text
anti-alias themselves), so instead of MSAA each silhouette edge gets a thin fading fringe
(assets/shaders/edge.*.glsl), which shades a few pixels along the outline rather than every pixel again.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field

import moderngl
import numpy as np

from render import meshes, overlays
from render.body_layout import BodyLayout
from render.camera import OrbitCamera
from render.gpu import InstancedDraw
from render.instances import body_model_matrices, instance_rows
from render.look import (
    BACKGROUND_BOTTOM_SRGB,
    BACKGROUND_TOP_SRGB,
    FILL_DIRECTION_CAMERA,
    GRID_LINE_SRGB,
    KEY_DIRECTION_CAMERA,
    LIGHTING,
    MOMENTUM_LINEAR,
    OMEGA_LINEAR,
    PLANE_LINEAR,
    TRAIL_LINEAR,
)
from render.shaders import MAX_VIEWS, load_program
from render.trail import HerpolhodeTrail
from scene.scene_file import SceneSpec
from scene.simulation import Snapshot

__all__ = ["Renderer", "RenderOptions", "Viewport", "REFERENCE_HEIGHT_PX", "MAX_VIEWS"]

# "Over" compositing of straight-alpha colour (the alpha channel accumulates coverage the same way).
BLEND_OVER = moderngl.SRC_ALPHA, moderngl.ONE_MINUS_SRC_ALPHA, moderngl.ONE, moderngl.ONE_MINUS_SRC_ALPHA
GL_CLIP_DISTANCE0 = 0x3000  # the first of the four user clip planes that keep each view in its rectangle
Viewport = tuple[int, int, int, int]  # x, y, width, height in pixels, GL's convention (origin bottom-left)

TRAIL_CAPACITY = 600  # samples: 10 s at 60 frames/s
# Many bodies: the trails are thinned in time to at most this many segments a frame, and the planes' extents are
# measured on at most this many samples.
MAX_TRAIL_SEGMENTS = 40_000
MAX_PLANE_SAMPLES = 50_000
# On screen a trail's consecutive samples are often less than a pixel apart, and a CPU rasteriser pays per segment:
# each view's trails keep the samples that make segments of at most TRAIL_SEGMENT_PX pixels of path, with no
# dropped sample farther than TRAIL_ERROR_PX from the line drawn, by strides of up to TRAIL_MAX_STRIDE samples
# anchored to the samples' absolute indices (overlays.trail_keep). TRAIL_SEGMENT_PX = 0 keeps every sample.
TRAIL_SEGMENT_PX = 4.0
TRAIL_ERROR_PX = 0.5
TRAIL_MAX_STRIDE = 64
# Line widths at a 720-pixel-high viewport; they scale with the viewport's height, down to MIN_LINE_SCALE.
REFERENCE_HEIGHT_PX = 720.0
MIN_LINE_SCALE = 0.75
AXES_WIDTH_PX = 2.0
TRAIL_WIDTH_PX = 3.0
TRAIL_ALPHA = 0.95
AXES_ALPHA = 0.85
PLANE_ALPHA = 0.09
PLANE_MARGIN = 1.2  # the disc reaches this far beyond the farthest trail point from its centre
SHADOW_ALPHA = 0.5
MOMENTUM_THICKNESS = 0.6  # L's arrow is slimmer than ω's: ω circles the conserved L closely
# The default camera looks this far round from L, so the invariable plane is seen neither edge-on nor face-on.
VIEW_FROM_MOMENTUM_DEG = 40.0
# Levels of detail of the round meshes: a body whose bounding sphere projects to at least this many pixels of
# radius takes the mesh with this many segments around (a polygon's silhouette is then within a pixel or so).
# A round mesh of N segments about its axis departs from the circle of radius r pixels by r (1 − cos(π/N)) at most:
# each instance takes the fewest segments that keep its silhouette within SILHOUETTE_ERROR_PX of the true one.
# On a CPU rasteriser every triangle costs set-up and binning, so a thin arrow shaft of 6 segments instead of 40
# matters.
ROUND_SEGMENTS = (64, meshes.SEGMENTS, 24, 12, 6)
SILHOUETTE_ERROR_PX = 0.25
PLANE_SEGMENTS = (96, 24)
SHADOW_SEGMENTS = 12  # a shadow fades to nothing before its polygon's edge
GRID_MAJOR_EVERY = 4.0
GRID_MINOR_ALPHA = 0.1
GRID_MAJOR_ALPHA = 0.24
# Silhouette fringes: how far outside the edge they reach, and their opacity at the edge (falling to 0 there).
FRINGE_PX = 1.0
FRINGE_EDGE_ALPHA = 1.0


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
    :meth:`push_trail` samples each herpolhode keeps."""

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
        self.options = options or RenderOptions()
        self.layout = BodyLayout(scene)
        self.trail = HerpolhodeTrail(len(scene.bodies), trail_capacity)
        self._floor: tuple[float, float] | None = None  # (height, fade radius), fixed at the first draw
        self._programs = {
            name: load_program(ctx, name) for name in ("mesh", "edge", "line", "disc", "backdrop", "copy")
        }
        mesh, line, disc = self._programs["mesh"], self._programs["line"], self._programs["disc"]
        self._solids = {
            kind: [InstancedDraw(ctx, mesh, meshes.unit_mesh(kind, segments)) for segments in ROUND_SEGMENTS]
            for kind in meshes.UNIT_MESHES
        }
        self._edges = {
            kind: [
                InstancedDraw(ctx, self._programs["edge"], meshes.unit_mesh(kind, segments), edges=True)
                for segments in ROUND_SEGMENTS
            ]
            for kind in meshes.UNIT_MESHES
        }
        # An invariable plane's rim is a visible circle: a finer polygon for near bodies, a coarser for far ones.
        self._planes = [
            InstancedDraw(ctx, disc, meshes.disc(segments), with_normals=False) for segments in PLANE_SEGMENTS
        ]
        self._shadows = InstancedDraw(ctx, disc, meshes.disc(SHADOW_SEGMENTS), with_normals=False)
        tint = ("in_model", "in_tint", "in_view")
        self._axes = InstancedDraw(ctx, line, meshes.axes_lines(), instance_attributes=tint)
        self._trails = InstancedDraw(ctx, line, meshes.axes_lines(), instance_attributes=tint, vertex_views=True)
        self._backdrop = ctx.vertex_array(self._programs["backdrop"], [])
        self._copy = ctx.vertex_array(self._programs["copy"], [])
        # The backdrop cache: a colour framebuffer of the target's size, and the camera etc. each viewport's
        # region of it was drawn for.
        self._backdrop_cache: moderngl.Framebuffer | None = None
        self._backdrop_keys: dict[Viewport, tuple] = {}
        # The key each viewport's backdrop was last asked for: a camera that moves every frame gets its backdrop
        # shaded straight into the target (see _draw_backdrop).
        self._backdrop_requests: dict[Viewport, tuple] = {}
        # The same for a whole frame of views (_draw_whole_backdrop): the key the cache holds, the key last asked.
        self._whole_backdrop_key: tuple | None = None
        self._whole_backdrop_request: tuple | None = None
        # The uniforms each program has (the compiler drops those a program does not use).
        self._uniforms = {
            name: {member for member in program if isinstance(program[member], moderngl.Uniform)}
            for name, program in self._programs.items()
        }
        for name in ("mesh", "edge"):
            for uniform, value in LIGHTING.items():
                if uniform in self._uniforms[name]:
                    self._programs[name][uniform].value = value
        line["u_reference_height_px"].value = REFERENCE_HEIGHT_PX
        line["u_min_width_scale"].value = MIN_LINE_SCALE
        # The trails are one line set (every view's, the view per vertex) drawn with this one identity instance.
        self._trails.instances.write(instance_rows(np.eye(4)[None], np.ones((1, 4))))
        # Instance data of every body, computed once per snapshot and trail sample (_frame_instances), and which
        # trail vertices the line set holds.
        self._frame: _FrameInstances | None = None
        self._trail_vertices_key: tuple | None = None
        self._trail_vertices = 0
        self._trail_lines_cache: tuple | None = None
        self._views_key: tuple | None = None  # what _set_views last wrote

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
        if not viewports or len(viewports) > MAX_VIEWS or not self.options.show_herpolhode or self.trail.count < 2:
            return
        bodies = [None] * len(viewports) if bodies is None else list(bodies)
        chosen = self._chosen([self._select(selection) for selection in bodies])
        view_projections = [
            camera.view_projection(viewport[2] / viewport[3])
            for camera, viewport in zip(cameras, viewports, strict=True)
        ]
        self._trail_lines(frame, chosen, view_projections, list(viewports))

    def _chosen(self, selected: list[np.ndarray]) -> np.ndarray:
        """(V, N) bool: which bodies each view shows, from each view's body indices."""
        chosen = np.zeros((len(selected), len(self.scene.bodies)), dtype=bool)
        for view, indices in enumerate(selected):
            chosen[view, indices] = True
        return chosen

    @_quiet_numpy
    def push_trail(self, snapshot: Snapshot) -> None:
        """Append this frame's ω of every body to its herpolhode trail."""
        self.trail.push(snapshot.omega_world)

    @_quiet_numpy
    def default_camera(
        self, snapshot: Snapshot, bodies: np.ndarray | None = None, aspect: float = 16 / 9
    ) -> OrbitCamera:
        """A camera that frames ``bodies`` (all by default) with their L arrows and looks at the invariable
        planes obliquely: its azimuth is ``VIEW_FROM_MOMENTUM_DEG`` round from the horizontal part of their L."""
        selected = self._select(bodies)
        camera = OrbitCamera()
        momentum = snapshot.L_world[selected].sum(axis=0)
        if np.hypot(momentum[0], momentum[1]) > 0.1 * np.linalg.norm(momentum):
            camera.azimuth_deg = float(np.degrees(np.arctan2(momentum[1], momentum[0]))) - VIEW_FROM_MOMENTUM_DEG
        center, radius = self.layout.enclosing_sphere(snapshot.position, snapshot.L_world, selected)
        camera.fit_sphere(center, radius, aspect)
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
        if len(viewports) > MAX_VIEWS:
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
        underlay: tuple[Callable[[moderngl.Framebuffer], None] | None, Hashable],
    ) -> bool:
        """:meth:`draw_views` for at most ``MAX_VIEWS`` views; ``selected`` are their bodies' indices. Returns
        whether the backdrop (with the underlay) came from the whole-frame cache."""
        ctx, options = self.ctx, self.options
        if self._floor is None:
            floor_z, scene_radius = self.layout.floor(snapshot.position)
            self._floor = floor_z, 3.0 * max(1.5 * scene_radius, 2.0 * self.layout.size)
        chosen = self._chosen(selected)
        view_projections = [
            camera.view_projection(viewport[2] / viewport[3])
            for camera, viewport in zip(cameras, viewports, strict=True)
        ]
        frame = self._frame_instances(snapshot)
        area = _bounding_viewport(viewports)

        self._set_views(viewports, cameras, view_projections, area)
        shadows = None
        if options.show_floor and frame.shadows is not None:
            shadows = _rows_in_views(frame.shadows, None, chosen)[0]
        framebuffer.use()
        # The whole frame's backdrop from the cache holds the contact shadows too (they move only with the bodies'
        # centres, which in most scenes stay put).
        whole = background is not None and self._draw_whole_backdrop(
            framebuffer, cameras, view_projections, viewports, background, shadows, area, underlay
        )
        if not whole:
            copies = []
            for camera, view_projection, viewport in zip(cameras, view_projections, viewports, strict=True):
                framebuffer.viewport = viewport
                framebuffer.scissor = viewport
                framebuffer.clear(depth=1.0, viewport=viewport)
                if self._draw_backdrop(framebuffer, camera, view_projection, viewport):
                    copies.append(viewport)
            framebuffer.viewport = area
            framebuffer.scissor = area
            self._copy_backdrops(framebuffer, area, copies)
        framebuffer.viewport = area
        framebuffer.scissor = area

        # Per view: the rows of P·V that give an instance's distance along the view (clip w) and pixels per metre
        # at unit distance (row 1 of P·V is the focal factor times the view's unit up row).
        depth_rows = np.array([view_projection[3] for view_projection in view_projections])
        pixels_per_metre = np.array(
            [
                np.linalg.norm(view_projection[1, :3]) * 0.5 * viewport[3]
                for view_projection, viewport in zip(view_projections, viewports, strict=True)
            ]
        )
        projection = depth_rows, pixels_per_metre
        self._clip_to_views(True)
        if shadows is not None and not whole:
            self._draw_shadows(shadows)
        ctx.blend_func = BLEND_OVER
        ctx.enable_only(moderngl.DEPTH_TEST | moderngl.CULL_FACE)
        solids = self._draw_solids(projection, frame, chosen)
        ctx.enable_only(moderngl.DEPTH_TEST | moderngl.BLEND)
        framebuffer.depth_mask = False
        if options.antialias and not framebuffer.samples:
            self._draw_fringes(solids)
        if options.show_invariable_plane:
            self._draw_planes(projection, frame, chosen)
        self._draw_lines(frame, chosen, view_projections, viewports)
        self._clip_to_views(False)
        framebuffer.depth_mask = True
        framebuffer.scissor = None
        ctx.enable_only(moderngl.DEPTH_TEST)
        return whole

    def _clip_to_views(self, on: bool) -> None:
        """Turn the four user clip planes that keep each view in its rectangle (views.glsl) on or off."""
        for plane in range(4):
            (self.ctx.enable_direct if on else self.ctx.disable_direct)(GL_CLIP_DISTANCE0 + plane)

    def _draw_shadows(self, rows: np.ndarray) -> None:
        """The contact shadows ``rows`` (instance rows with their views), blended over what is there, no depth."""
        self.ctx.enable_only(moderngl.BLEND)
        self.ctx.blend_func = BLEND_OVER
        self._draw_discs(self._shadows, 1, rows)

    def _set_views(
        self,
        viewports: list[Viewport],
        cameras: list[OrbitCamera],
        view_projections: list[np.ndarray],
        area: Viewport,
    ) -> None:
        """Every program's per-view uniforms (views.glsl, lighting.glsl) for views in ``viewports`` of the GL
        viewport ``area``; unused entries are zero. Programs keep their uniforms: nothing is written when the views
        are those of the last call (still cameras)."""
        key = (
            tuple(viewports),
            tuple(area),
            b"".join(np.asarray(vp, dtype=float).tobytes() for vp in view_projections),
            b"".join(camera.eye().tobytes() for camera in cameras),
        )
        if key == self._views_key:
            return
        self._views_key = key
        count = len(viewports)
        matrices = np.zeros((MAX_VIEWS, 4, 4), dtype=np.float32)
        matrices[:count] = np.transpose(view_projections, (0, 2, 1))  # column-major, as GLSL reads a mat4
        rects = np.zeros((MAX_VIEWS, 4), dtype=np.float32)
        sizes = np.zeros((MAX_VIEWS, 2), dtype=np.float32)
        eyes, keys, fills = (np.zeros((MAX_VIEWS, 3), dtype=np.float32) for _ in range(3))
        for view, (viewport, camera) in enumerate(zip(viewports, cameras, strict=True)):
            x, y, width, height = viewport
            rects[view] = (
                width / area[2],
                height / area[3],
                (2.0 * (x - area[0]) + width) / area[2] - 1.0,
                (2.0 * (y - area[1]) + height) / area[3] - 1.0,
            )
            sizes[view] = width, height
            eyes[view] = camera.eye()
            camera_to_world = camera.view()[:3, :3].T
            key, fill = camera_to_world @ KEY_DIRECTION_CAMERA, camera_to_world @ FILL_DIRECTION_CAMERA
            keys[view], fills[view] = key / np.linalg.norm(key), fill / np.linalg.norm(fill)
        values = {
            "u_view_projection": matrices,
            "u_view_rect": rects,
            "u_view_size": sizes,
            "u_eye": eyes,
            "u_key_direction": keys,
            "u_fill_direction": fills,
        }
        for name in ("mesh", "edge", "line", "disc"):
            program = self._programs[name]
            for uniform, value in values.items():
                if uniform in self._uniforms[name]:
                    program[uniform].write(value.tobytes())

    def _release_backdrop_cache(self) -> None:
        if self._backdrop_cache is not None:
            self._backdrop_cache.color_attachments[0].release()
            self._backdrop_cache.release()
            self._backdrop_cache = None

    def _select(self, bodies: np.ndarray | None) -> np.ndarray:
        return np.arange(len(self.scene.bodies)) if bodies is None else np.asarray(bodies, dtype=np.intp)

    def _ensure_backdrop_cache(self, size: tuple[int, int]) -> moderngl.Framebuffer:
        """The backdrop cache, (re)made at ``size`` (forgetting what it held) when it is not that size."""
        if self._backdrop_cache is None or tuple(self._backdrop_cache.size) != size:
            self._release_backdrop_cache()
            texture = self.ctx.texture(size, 4)
            texture.filter = moderngl.NEAREST, moderngl.NEAREST
            self._backdrop_cache = self.ctx.framebuffer(color_attachments=[texture])
            self._backdrop_keys = {}
            self._whole_backdrop_key = None
        return self._backdrop_cache

    def _backdrop_key(self, camera: OrbitCamera, view_projection: np.ndarray) -> tuple:
        """Everything the backdrop shader reads that can change: the camera, the floor, whether it is shown."""
        eye, target = np.asarray(camera.eye(), dtype=float), np.asarray(camera.target, dtype=float)
        return view_projection.tobytes(), eye.tobytes(), target.tobytes(), self._floor, self.options.show_floor

    def _draw_whole_backdrop(
        self,
        framebuffer: moderngl.Framebuffer,
        cameras: list[OrbitCamera],
        view_projections: list[np.ndarray],
        viewports: list[Viewport],
        background: tuple[float, float, float],
        shadows: np.ndarray | None,
        area: Viewport,
        underlay: tuple[Callable[[moderngl.Framebuffer], None] | None, Hashable],
    ) -> bool:
        """Fill all of ``framebuffer`` (colour and depth) with the views' backdrops and contact ``shadows``
        (instance rows, or ``None``) and ``background`` elsewhere, by one copy of the cache, when it holds that
        frame: returns False (and draws nothing) the first time a frame is asked for, and on a multisampled
        ``framebuffer``; the second time running it is drawn into the cache, with ``underlay`` = (draw, key) over
        it. The views' uniforms must be set, for ``area`` as the GL viewport (:meth:`_set_views`)."""
        if framebuffer.samples:
            return False
        size = tuple(framebuffer.size)
        cache = self._ensure_backdrop_cache(size)
        keys = [self._backdrop_key(camera, vp) for camera, vp in zip(cameras, view_projections, strict=True)]
        shadow_key = None if shadows is None else shadows.tobytes()
        draw_underlay, underlay_key = underlay
        key = tuple(viewports), tuple(keys), tuple(float(c) for c in background), shadow_key, underlay_key
        requested, self._whole_backdrop_request = self._whole_backdrop_request, key
        if self._whole_backdrop_key != key:
            if requested != key:
                return False  # a camera is moving: each view's backdrop is shaded straight into the target
            self.ctx.enable_only(moderngl.NOTHING)
            cache.scissor = None
            cache.use()
            cache.viewport = (0, 0, *size)
            cache.clear(*background, 1.0)
            for camera, view_projection, viewport in zip(cameras, view_projections, viewports, strict=True):
                cache.viewport = viewport
                self._shade_backdrop(camera, view_projection, viewport)
            if shadows is not None:
                cache.viewport = area
                self._clip_to_views(True)
                self._draw_shadows(shadows)
                self._clip_to_views(False)
                self.ctx.enable_only(moderngl.NOTHING)
            if draw_underlay is not None:
                cache.scissor = None
                draw_underlay(cache)
                self.ctx.enable_only(moderngl.NOTHING)
            # The per-view entries would hold the shadows: none of them is taken from this cache.
            self._backdrop_keys = {}
            self._whole_backdrop_key = key
            framebuffer.use()
        framebuffer.scissor = None
        framebuffer.viewport = (0, 0, *size)
        framebuffer.clear(*background, 1.0, depth=1.0)
        # The whole frame in one memcpy; into the window's framebuffer, where that is a slow blit, only the views'
        # area by a draw (see _copy_backdrops): the rest is the background just cleared.
        copied = area if framebuffer.glo == 0 else (0, 0, *size)
        framebuffer.viewport = copied
        self._copy_backdrops(framebuffer, copied, [copied])
        return True

    def _draw_backdrop(
        self, framebuffer: moderngl.Framebuffer, camera: OrbitCamera, view_projection: np.ndarray, viewport: Viewport
    ) -> bool:
        """The backdrop in ``viewport``: shaded straight into ``framebuffer`` (returns False), or, when the cache
        holds it for the same camera (it is drawn into the cache first when asked for twice running), left to
        :meth:`_copy_backdrops` (returns True). A multisampled ``framebuffer`` gets it shaded (a blit cannot go
        from one sample to several). Leaves ``framebuffer`` bound with ``viewport`` and its scissor, capabilities
        off."""
        self.ctx.enable_only(moderngl.NOTHING)
        if framebuffer.samples:
            self._shade_backdrop(camera, view_projection, viewport)
            return False
        self._ensure_backdrop_cache(tuple(framebuffer.size))
        key = self._backdrop_key(camera, view_projection)
        requested, self._backdrop_requests[viewport] = self._backdrop_requests.get(viewport), key
        if self._backdrop_keys.get(viewport) != key and requested != key:
            # A camera that moved since the last frame will likely move again: shading straight into the target
            # costs what shading into the cache does, and saves the copy and its wait for the shading to finish.
            self._shade_backdrop(camera, view_projection, viewport)
            return False
        if self._backdrop_keys.get(viewport) != key:
            cache = self._backdrop_cache
            cache.scissor = None
            cache.use()
            cache.viewport = viewport
            self._shade_backdrop(camera, view_projection, viewport)
            # Drawing here may have overwritten other viewports' backdrops where they overlap this one.
            self._backdrop_keys = {
                other: other_key for other, other_key in self._backdrop_keys.items() if not _overlap(other, viewport)
            }
            self._backdrop_keys[viewport] = key
            self._whole_backdrop_key = None
            framebuffer.use()
        return True

    def _copy_backdrops(self, framebuffer: moderngl.Framebuffer, area: Viewport, viewports: list[Viewport]) -> None:
        """Copy the cached backdrop of ``viewports`` into ``framebuffer``, whose GL viewport is ``area``: the whole
        framebuffer in one memcpy when that is all, else one draw of a rectangle per viewport."""
        if not viewports:
            return
        self.ctx.enable_only(moderngl.NOTHING)
        whole = len(viewports) == 1 and tuple(viewports[0]) == (0, 0, *framebuffer.size)
        if whole and framebuffer.glo != 0:
            self.ctx.copy_framebuffer(framebuffer, self._backdrop_cache)  # a memcpy on llvmpipe (~0.1 ms)
            return
        # A blit into part of a framebuffer, or into the window's (texture to window system buffer), takes
        # llvmpipe's slow path (~6 ms of CPU for 1280×720) and waits for all queued drawing; a draw that fetches
        # each pixel does neither.
        rects = np.zeros((MAX_VIEWS, 4), dtype=np.float32)
        for index, (x, y, width, height) in enumerate(viewports):
            rects[index] = (
                2.0 * (x - area[0]) / area[2] - 1.0,
                2.0 * (y - area[1]) / area[3] - 1.0,
                2.0 * (x + width - area[0]) / area[2] - 1.0,
                2.0 * (y + height - area[1]) / area[3] - 1.0,
            )
        program = self._programs["copy"]
        program["u_rects"].write(rects.tobytes())
        program["u_source"].value = 0
        self._backdrop_cache.color_attachments[0].use(location=0)
        self._copy.render(moderngl.TRIANGLES, vertices=6 * len(viewports))

    def _shade_backdrop(self, camera: OrbitCamera, view_projection: np.ndarray, viewport: Viewport) -> None:
        floor_z, fade_radius = self._floor
        eye = camera.eye()
        # The eye ray through NDC (x, y) is the far-plane point minus the eye: with the homogeneous inverse
        # M = (VP)⁻¹, far(x, y) = M (x, y, 1, 1) / w, and w is the same for every pixel of a perspective camera's
        # far plane, so the ray is linear in (x, y): x·a + y·b + c.
        inverse = np.linalg.inv(view_projection)
        w = inverse[3] @ [0.0, 0.0, 1.0, 1.0]
        ray_x, ray_y = inverse[:3, 0] / w, inverse[:3, 1] / w
        ray_z = (inverse[:3, 2] + inverse[:3, 3]) / w - eye
        program = self._programs["backdrop"]
        for name, value in (("u_ray_x", ray_x), ("u_ray_y", ray_y), ("u_ray_z", ray_z), ("u_eye", eye)):
            program[name].value = tuple(value)
        program["u_viewport"].value = tuple(float(v) for v in viewport)
        program["u_top_srgb"].value = tuple(BACKGROUND_TOP_SRGB)
        program["u_bottom_srgb"].value = tuple(BACKGROUND_BOTTOM_SRGB)
        program["u_show_floor"].value = self.options.show_floor
        program["u_floor_z"].value = floor_z
        program["u_cell"].value = self.layout.grid_cell
        program["u_major_every"].value = GRID_MAJOR_EVERY
        program["u_fade_center"].value = tuple(np.asarray(camera.target, dtype=float)[:2])
        program["u_fade_radius"].value = fade_radius
        program["u_line_srgb"].value = tuple(GRID_LINE_SRGB)
        program["u_minor_alpha"].value = GRID_MINOR_ALPHA
        program["u_major_alpha"].value = GRID_MAJOR_ALPHA
        self._backdrop.render(moderngl.TRIANGLES, vertices=3)

    def _frame_instances(self, snapshot: Snapshot) -> _FrameInstances:
        """The instance rows of every body of ``snapshot``: computed at the first draw of a snapshot (and trail
        sample, and set of overlays), then only selected from by each view of it."""
        layout, options = self.layout, self.options
        key = (self.trail.version, options.show_omega, options.show_momentum, self._floor)
        frame = self._frame
        if frame is not None and frame.snapshot is snapshot and frame.key == key:
            return frame
        count = len(self.scene.bodies)
        every = np.arange(count)
        models = body_model_matrices(snapshot.q, snapshot.position, layout.com_offset)
        # Per kind: instance rows and the body each belongs to, the parts first, then the arrows.
        batches: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {kind: [] for kind in self._solids}
        for kind, (part_body, part_matrix) in layout.parts.items():
            rows = instance_rows(models[part_body] @ part_matrix, layout.colors_rgba[part_body])
            batches[kind].append((rows, part_body))
        arrows = []
        if options.show_omega:
            arrows.append((snapshot.omega_world * layout.omega_scale, OMEGA_LINEAR, 1.0))
        if options.show_momentum:
            arrows.append((snapshot.L_world * layout.momentum_scale, MOMENTUM_LINEAR, MOMENTUM_THICKNESS))
        shaft_radius, head_length, head_radius = layout.arrow_sizes
        for vectors, color, thickness in arrows:
            sizes = (thickness * shaft_radius, head_length, thickness * head_radius)
            shaft, head = overlays.arrow_matrices(snapshot.position, vectors, sizes)
            rgba = np.tile([*color, 1.0], (count, 1))
            batches["cylinder"].append((instance_rows(shaft, rgba), every))
            batches["cone"].append((instance_rows(head, rgba), every))
        solids = {
            kind: (np.concatenate([rows for rows, _ in batch]), np.concatenate([owner for _, owner in batch]))
            for kind, batch in batches.items()
            if batch
        }
        shadows = None
        if self._floor is not None:
            matrices, alpha = overlays.shadow_matrices(snapshot.position, layout.radius, self._floor[0], SHADOW_ALPHA)
            shadows = instance_rows(matrices, np.column_stack([np.zeros((count, 3)), alpha]))
        axes_matrices = overlays.axes_matrices(snapshot.q, snapshot.position, layout.principal_axes, layout.axes_length)
        axes = instance_rows(axes_matrices, np.tile([1.0, 1.0, 1.0, AXES_ALPHA], (count, 1)))
        self._frame = _FrameInstances(snapshot, key, solids, shadows, axes)
        return self._frame

    def _draw_solids(
        self, projection: tuple[np.ndarray, np.ndarray], frame: _FrameInstances, chosen: np.ndarray
    ) -> dict[str, list[np.ndarray]]:
        """Draw the bodies ``chosen`` (V, N) in each view, and their arrows, each part with the segments its
        projected size needs (``projection``: see :func:`_levels_of_detail`); returns the instance rows drawn, per
        kind and level of detail."""
        drawn = {}
        for kind, (rows, owner) in frame.solids.items():
            rows, _, _ = _rows_in_views(rows, owner, chosen)
            levels = _levels_of_detail(rows, *projection, ROUND_SEGMENTS, round_columns=3 if kind == "sphere" else 2)
            drawn[kind] = [rows[levels == index] for index in range(len(ROUND_SEGMENTS))]
            for draw, rows_at_level in zip(self._solids[kind], drawn[kind], strict=True):
                draw.draw(rows_at_level)
        return drawn

    def _draw_fringes(self, solids: dict[str, list]) -> None:
        """The solids' silhouette fringes (edge.geom.glsl), over the solids: blended, depth-tested, no depth
        writes, no culling (the caller's state)."""
        program = self._programs["edge"]
        program["u_fringe_px"].value = FRINGE_PX
        program["u_edge_alpha"].value = FRINGE_EDGE_ALPHA
        for kind, levels in solids.items():
            for draw, rows in zip(self._edges[kind], levels, strict=True):
                draw.draw(rows)

    def _draw_discs(self, draw: InstancedDraw, mode: int, rows: np.ndarray) -> None:
        self._programs["disc"]["u_mode"].value = mode
        draw.draw(rows)

    def _plane_rows(self, frame: _FrameInstances, stride: int) -> np.ndarray:
        """(N, 21) instance rows of every body's invariable plane, its extent measured on every ``stride``-th
        trail sample (cached in ``frame``)."""
        rows = frame.planes.get(stride)
        if rows is None:
            snapshot = frame.snapshot
            if self.trail.count:
                history, _ = self.trail.omega_world(stride=stride)
            else:
                history = snapshot.omega_world[None]
            matrices = overlays.plane_matrices(
                snapshot.position,
                snapshot.L_world,
                snapshot.energy,
                history,
                self.layout.omega_scale,
                PLANE_MARGIN,
                0.3 * self.layout.radius,
            )
            rgba = np.column_stack([np.tile(PLANE_LINEAR, (len(matrices), 1)), np.full(len(matrices), PLANE_ALPHA)])
            rows = frame.planes[stride] = instance_rows(matrices, rgba)
        return rows

    def _draw_planes(
        self, projection: tuple[np.ndarray, np.ndarray], frame: _FrameInstances, chosen: np.ndarray
    ) -> None:
        """The invariable planes of the torque-free bodies ``chosen`` (V, N) in each view; a finer disc where one
        looks large (``projection``: see :func:`_levels_of_detail`)."""
        chosen = chosen & self.layout.torque_free
        stride = self.trail.stride(int(chosen.any(axis=0).sum()), MAX_PLANE_SAMPLES)
        rows, _, _ = _rows_in_views(self._plane_rows(frame, stride), None, chosen)
        levels = _levels_of_detail(rows, *projection, PLANE_SEGMENTS, round_columns=2)
        for index, draw in enumerate(self._planes):
            self._draw_discs(draw, 0, rows[levels == index])

    def _trail_lines(
        self, frame: _FrameInstances, chosen: np.ndarray, view_projections: list[np.ndarray], viewports: list[Viewport]
    ) -> tuple[tuple, np.ndarray, np.ndarray, np.ndarray]:
        """The herpolhode segments of the bodies ``chosen`` (V, N) in each view: ``(key, ends (S, 3), colours
        (S, 4), views (S,))``, cached per frame, choice and cameras. The samples are thinned in time, a stride that
        keeps them within ``MAX_TRAIL_SEGMENTS``, then on screen: each (view, body) pair keeps those its view's
        ``view_projections`` and ``viewports`` need to look smooth (``TRAIL_SEGMENT_PX``, ``TRAIL_ERROR_PX``)."""
        key = id(frame), chosen.tobytes(), np.asarray(view_projections).tobytes(), tuple(viewports)
        if self._trail_lines_cache is not None and self._trail_lines_cache[0] == key:
            return self._trail_lines_cache
        view, body = np.nonzero(chosen)
        stride = self.trail.stride(len(body), MAX_TRAIL_SEGMENTS)
        history, age = self.trail.omega_world(stride=stride)
        # ω drawn from each body's centre: its tip, per (view, body) pair, (P, T, 3).
        tips = (frame.snapshot.position + self.layout.omega_scale * history).transpose(1, 0, 2)[body]
        pixels, in_front = overlays.trail_tips_px(
            tips, np.asarray(view_projections)[view], np.asarray(viewports, dtype=float)[view, 2:]
        )
        index = self.trail.sample_index(age)
        keep = overlays.trail_keep(
            pixels,
            in_front,
            index,
            stride,
            segment_px=TRAIL_SEGMENT_PX,
            error_px=TRAIL_ERROR_PX,
            max_stride=TRAIL_MAX_STRIDE,
        )
        ends, alpha, pair = overlays.trail_segments(tips, age, self.trail.capacity, keep)
        colors = np.column_stack([np.broadcast_to(TRAIL_LINEAR, (len(ends), 3)), TRAIL_ALPHA * alpha])
        self._trail_lines_cache = key, ends, colors, view[pair]  # self._frame holds frame, so its id is not reused
        return self._trail_lines_cache

    def _upload_trails(
        self, frame: _FrameInstances, chosen: np.ndarray, view_projections: list[np.ndarray], viewports: list[Viewport]
    ) -> int:
        """Put the herpolhode segments (:meth:`_trail_lines`) into the trail line set, once per frame, choice and
        cameras; returns the number of vertices."""
        key, ends, colors, views = self._trail_lines(frame, chosen, view_projections, viewports)
        if self._trail_vertices_key != key:
            self._trail_vertices = self._trails.set_lines(ends, colors, views)
            self._trail_vertices_key = key
        return self._trail_vertices

    def _draw_lines(
        self, frame: _FrameInstances, chosen: np.ndarray, view_projections: list[np.ndarray], viewports: list[Viewport]
    ) -> None:
        """The principal axes and the herpolhode trails of the bodies ``chosen`` (V, N) in each view (its camera's
        ``view_projections`` and its ``viewports``)."""
        options = self.options
        program = self._programs["line"]
        if options.show_axes:
            program["u_width_px"].value = AXES_WIDTH_PX
            self._axes.draw(_rows_in_views(frame.axes, None, chosen)[0])
        if options.show_herpolhode and self.trail.count > 1 and chosen.any():
            program["u_width_px"].value = TRAIL_WIDTH_PX
            self._trails.draw(None, vertices=self._upload_trails(frame, chosen, view_projections, viewports))

    def release(self) -> None:
        """Free the GL objects."""
        draws = (
            *(draw for levels in (*self._solids.values(), *self._edges.values()) for draw in levels),
            *self._planes,
            self._shadows,
        )
        for draw in (*draws, self._axes, self._trails):
            draw.release()
        self._backdrop.release()
        self._copy.release()
        self._release_backdrop_cache()
        for program in self._programs.values():
            program.release()


@dataclass
class _FrameInstances:
    """Instance rows of every body of one ``snapshot`` (see ``Renderer._frame_instances``); ``key`` is what else
    they were computed from. ``solids``: per kind, rows (M, 20) and the body (M,) of each; ``shadows`` (N, 20)
    (``None`` before the floor is known), ``axes`` (N, 20); ``planes``: (N, 20) per trail stride."""

    snapshot: Snapshot
    key: tuple
    solids: dict[str, tuple[np.ndarray, np.ndarray]]
    shadows: np.ndarray | None
    axes: np.ndarray
    planes: dict[int, np.ndarray] = field(default_factory=dict)


def _rows_in_views(
    rows: np.ndarray, owner: np.ndarray | None, chosen: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The instance ``rows`` (M, 21) of bodies ``owner`` (M,) (row i is body i when ``None``) repeated for each view
    whose bodies ``chosen`` (V, N) hold their owner, with the view's index in their view column; returns
    ``(rows (K, 21), view (K,), body (K,))``, view by view."""
    owned = chosen if owner is None else chosen[:, owner]
    view, row = np.nonzero(owned)
    placed = rows[row]
    placed[:, 20] = view
    return placed, view, row if owner is None else owner[row]


def _levels_of_detail(
    rows: np.ndarray,
    depth_rows: np.ndarray,
    pixels_per_metre: np.ndarray,
    segments: tuple[int, ...],
    round_columns: int,
) -> np.ndarray:
    """(K,) int: for each instance row (K, 21) (render/gpu.py), the index into ``segments`` (finest first) of the
    fewest segments whose polygon stays within ``SILHOUETTE_ERROR_PX`` of the circle it stands for. The radius is
    the largest of the first ``round_columns`` columns of the model matrix (the unit mesh's round axes), projected
    at the distance of the instance's origin in its view: ``depth_rows`` (V, 4) the views' row 3 of P·V, and
    ``pixels_per_metre`` (V,) at unit distance."""
    view = rows[:, 20].astype(np.intp)
    radius = np.max(
        [np.linalg.norm(rows[:, 4 * column : 4 * column + 3], axis=1) for column in range(round_columns)], 0
    )
    depth = np.einsum("ki,ki->k", rows[:, 12:15], depth_rows[view, :3]) + depth_rows[view, 3]
    radius_px = np.where(depth > 0.0, radius * pixels_per_metre[view] / np.maximum(depth, 1e-9), 0.0)
    # The largest radius each coarser polygon serves: r (1 − cos(π/N)) = SILHOUETTE_ERROR_PX.
    limits = SILHOUETTE_ERROR_PX / (1.0 - np.cos(np.pi / np.array(segments[1:], dtype=float)))
    return np.sum(radius_px[:, None] <= limits[None, :], axis=1)


def _bounding_viewport(viewports: Sequence[Viewport]) -> Viewport:
    """The smallest viewport that holds all of ``viewports``."""
    x0 = min(x for x, _, _, _ in viewports)
    y0 = min(y for _, y, _, _ in viewports)
    x1 = max(x + width for x, _, width, _ in viewports)
    y1 = max(y + height for _, y, _, height in viewports)
    return x0, y0, x1 - x0, y1 - y0


def _overlap(a: Viewport, b: Viewport) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]
