"""Draw a scene's bodies, their ω and L arrows, principal axes, herpolhodes and invariable planes.

:class:`Renderer` takes a ``moderngl.Context`` and a :class:`SceneSpec`, and draws a :class:`Snapshot` into any
framebuffer (a window's, an offscreen one) inside a viewport rectangle. Per frame it computes every instance's
model matrix from the snapshot in one batch and draws each unit-mesh kind (cylinder, cone, box, sphere, disc,
line set) with one instanced call per level of detail (round meshes have three, chosen by the projected size of
each body, ``LEVELS_OF_DETAIL``); nothing is drawn per body.

Frames: ``q`` is body → world, (w, x, y, z); world z is up; a body is drawn around its centre of mass. Lighting
is linear RGB and every program writes sRGB (render/look.py). The order of a frame: the backdrop (gradient and
floor grid, one full-screen pass), contact shadows, the solids (depth-tested), their anti-aliased silhouette
fringes, then the translucent invariable planes and the lines (depth-tested, no depth writes).

Costs on a CPU rasteriser (llvmpipe): the backdrop shader is the dearest pass (~10 ms at 1280×720), and it only
changes with the camera, so it is drawn into a cache framebuffer once per camera and viewport and copied into
the target afterwards (a blit, ~0.1 ms for a whole frame); a camera that moved since the last frame gets it
shaded straight into the target instead (no copy, no wait for the cache). Multisampling costs 2–3× and its
resolve ~12 ms; the solids' silhouettes are the only hard edges of a frame (lines, disc rims, grid and text
anti-alias themselves), so instead of MSAA each silhouette edge gets a thin fading fringe
(assets/shaders/edge.*.glsl), which shades a few pixels along the outline rather than every pixel again.
"""

from __future__ import annotations

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
from render.shaders import load_program
from render.trail import HerpolhodeTrail
from scene.scene_file import SceneSpec
from scene.simulation import Snapshot

__all__ = ["Renderer", "RenderOptions", "Viewport", "REFERENCE_HEIGHT_PX"]

Viewport = tuple[int, int, int, int]  # x, y, width, height in pixels, GL's convention (origin bottom-left)

TRAIL_CAPACITY = 600  # samples: 10 s at 60 frames/s
# Many bodies: the trails are thinned in time to at most this many segments a frame, and the planes' extents are
# measured on at most this many samples.
MAX_TRAIL_SEGMENTS = 40_000
MAX_PLANE_SAMPLES = 50_000
# Line widths at a 720-pixel-high viewport; they scale with the viewport's height.
REFERENCE_HEIGHT_PX = 720.0
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
LEVELS_OF_DETAIL = ((24.0, meshes.SEGMENTS), (6.0, 12), (0.0, 6))
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


class Renderer:
    """Draws :class:`Snapshot` s of ``scene`` (see the module docstring). ``trail_capacity`` is the number of
    :meth:`push_trail` samples each herpolhode keeps."""

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
            kind: [InstancedDraw(ctx, mesh, meshes.unit_mesh(kind, segments)) for _, segments in LEVELS_OF_DETAIL]
            for kind in meshes.UNIT_MESHES
        }
        self._edges = {
            kind: [
                InstancedDraw(ctx, self._programs["edge"], meshes.unit_mesh(kind, segments), edges=True)
                for _, segments in LEVELS_OF_DETAIL
            ]
            for kind in meshes.UNIT_MESHES
        }
        # An invariable plane's rim is a visible circle: a finer polygon for near bodies, a coarser for far ones.
        self._planes = [InstancedDraw(ctx, disc, meshes.disc(segments), with_normals=False) for segments in (96, 24)]
        self._shadows = InstancedDraw(ctx, disc, meshes.disc(SHADOW_SEGMENTS), with_normals=False)
        tint = ("in_model", "in_tint")
        self._axes = InstancedDraw(ctx, line, meshes.axes_lines(), instance_attributes=tint)
        self._trails = InstancedDraw(ctx, line, meshes.axes_lines(), instance_attributes=tint)
        self._backdrop = ctx.vertex_array(self._programs["backdrop"], [])
        self._copy = ctx.vertex_array(self._programs["copy"], [])
        # The backdrop cache: a colour framebuffer of the target's size, and the camera etc. each viewport's
        # region of it was drawn for.
        self._backdrop_cache: moderngl.Framebuffer | None = None
        self._backdrop_keys: dict[Viewport, tuple] = {}
        # The key each viewport's backdrop was last asked for: a camera that moves every frame gets its backdrop
        # shaded straight into the target (see _draw_backdrop).
        self._backdrop_requests: dict[Viewport, tuple] = {}
        for name in ("mesh", "edge"):
            for uniform, value in LIGHTING.items():
                self._programs[name][uniform].value = value
        # The trails are one line set drawn once, with this one identity instance.
        self._trails.instances.write(instance_rows(np.eye(4)[None], np.ones((1, 4))))
        # Instance data of every body, computed once per snapshot and trail sample (_frame_instances), and which
        # trail vertices the line set holds.
        self._frame: _FrameInstances | None = None
        self._trail_vertices_key: tuple | None = None

    def push_trail(self, snapshot: Snapshot) -> None:
        """Append this frame's ω of every body to its herpolhode trail."""
        self.trail.push(snapshot.omega_world)

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
        was there. Leaves the depth test on, blending off, the depth mask on and no scissor."""
        ctx, options = self.ctx, self.options
        selected = self._select(bodies)
        if self._floor is None:
            floor_z, scene_radius = self.layout.floor(snapshot.position)
            self._floor = floor_z, 3.0 * max(1.5 * scene_radius, 2.0 * self.layout.size)
        framebuffer.use()
        framebuffer.viewport = viewport
        framebuffer.scissor = viewport
        framebuffer.clear(depth=1.0, viewport=viewport)
        view_projection = camera.view_projection(viewport[2] / viewport[3])
        line_scale = max(viewport[3] / REFERENCE_HEIGHT_PX, 0.75)

        frame = self._frame_instances(snapshot)
        chosen = np.zeros(len(self.scene.bodies), dtype=bool)
        chosen[selected] = True
        gl_view_projection = _gl_matrix(view_projection)

        self._draw_backdrop(framebuffer, camera, view_projection, viewport)
        ctx.blend_func = moderngl.SRC_ALPHA, moderngl.ONE_MINUS_SRC_ALPHA, moderngl.ONE, moderngl.ONE_MINUS_SRC_ALPHA
        if options.show_floor:
            ctx.enable_only(moderngl.BLEND)
            self._draw_discs(self._shadows, gl_view_projection, 1, frame.shadows[selected])
        ctx.enable_only(moderngl.DEPTH_TEST | moderngl.CULL_FACE)
        level = self._levels_of_detail(view_projection, viewport, snapshot.position)
        solids = self._draw_solids(camera, gl_view_projection, level, frame, chosen)
        ctx.enable_only(moderngl.DEPTH_TEST | moderngl.BLEND)
        framebuffer.depth_mask = False
        if options.antialias and not framebuffer.samples:
            self._draw_fringes(gl_view_projection, viewport, solids)
        if options.show_invariable_plane:
            self._draw_planes(gl_view_projection, level, frame, selected)
        self._draw_lines(gl_view_projection, viewport, line_scale, frame, selected)
        framebuffer.depth_mask = True
        framebuffer.scissor = None
        ctx.enable_only(moderngl.DEPTH_TEST)

    def _release_backdrop_cache(self) -> None:
        if self._backdrop_cache is not None:
            self._backdrop_cache.color_attachments[0].release()
            self._backdrop_cache.release()
            self._backdrop_cache = None

    def _select(self, bodies: np.ndarray | None) -> np.ndarray:
        return np.arange(len(self.scene.bodies)) if bodies is None else np.asarray(bodies, dtype=np.intp)

    def _draw_backdrop(
        self, framebuffer: moderngl.Framebuffer, camera: OrbitCamera, view_projection: np.ndarray, viewport: Viewport
    ) -> None:
        """The backdrop in ``viewport``: copied from the cache when it was drawn there for the same camera, else
        drawn into the cache first. A multisampled ``framebuffer`` gets it drawn directly (a blit cannot go from
        one sample to several). Leaves ``framebuffer`` bound with ``viewport`` and its scissor, capabilities off."""
        self.ctx.enable_only(moderngl.NOTHING)
        if framebuffer.samples:
            self._shade_backdrop(camera, view_projection, viewport)
            return
        size = tuple(framebuffer.size)
        if self._backdrop_cache is None or tuple(self._backdrop_cache.size) != size:
            self._release_backdrop_cache()
            texture = self.ctx.texture(size, 4)
            texture.filter = moderngl.NEAREST, moderngl.NEAREST
            self._backdrop_cache = self.ctx.framebuffer(color_attachments=[texture])
            self._backdrop_keys = {}
        # Everything the backdrop shader reads that can change: the camera, the floor, whether it is shown.
        eye, target = np.asarray(camera.eye(), dtype=float), np.asarray(camera.target, dtype=float)
        key = (view_projection.tobytes(), eye.tobytes(), target.tobytes(), self._floor, self.options.show_floor)
        requested, self._backdrop_requests[viewport] = self._backdrop_requests.get(viewport), key
        if self._backdrop_keys.get(viewport) != key and requested != key:
            # A camera that moved since the last frame will likely move again: shading straight into the target
            # costs what shading into the cache does, and saves the copy and its wait for the shading to finish.
            self._shade_backdrop(camera, view_projection, viewport)
            return
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
            framebuffer.use()
        if tuple(viewport) == (0, 0, *size):
            self.ctx.copy_framebuffer(framebuffer, self._backdrop_cache)  # a memcpy on llvmpipe (~0.1 ms)
        else:
            # A blit into part of a framebuffer takes llvmpipe's slow path and waits for all queued drawing; a
            # draw that fetches each pixel does neither.
            self._backdrop_cache.color_attachments[0].use(location=0)
            self._programs["copy"]["u_source"].value = 0
            self._copy.render(moderngl.TRIANGLES, vertices=3)

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
        self,
        camera: OrbitCamera,
        gl_view_projection: bytes,
        level: np.ndarray,
        frame: _FrameInstances,
        chosen: np.ndarray,
    ) -> dict[str, list[np.ndarray]]:
        """Draw the ``chosen`` (N,) bodies and their arrows; returns the instance rows drawn, per kind and level of
        detail."""
        program = self._programs["mesh"]
        program["u_view_projection"].write(gl_view_projection)
        program["u_eye"].value = tuple(camera.eye())
        camera_to_world = camera.view()[:3, :3].T
        for name, direction in (("u_key_direction", KEY_DIRECTION_CAMERA), ("u_fill_direction", FILL_DIRECTION_CAMERA)):
            world = camera_to_world @ direction
            program[name].value = tuple(world / np.linalg.norm(world))
        drawn = {}
        for kind, (rows, owner) in frame.solids.items():
            shown = chosen[owner]
            rows, levels = rows[shown], level[owner[shown]]
            drawn[kind] = [rows[levels == index] for index in range(len(LEVELS_OF_DETAIL))]
            for draw, rows_at_level in zip(self._solids[kind], drawn[kind], strict=True):
                draw.draw(rows_at_level)
        return drawn

    def _draw_fringes(self, gl_view_projection: bytes, viewport: Viewport, solids: dict[str, list]) -> None:
        """The solids' silhouette fringes (edge.geom.glsl), over the solids: blended, depth-tested, no depth
        writes, no culling (the caller's state)."""
        program = self._programs["edge"]
        mesh_program = self._programs["mesh"]
        for name in ("u_eye", "u_key_direction", "u_fill_direction"):
            program[name].value = mesh_program[name].value
        program["u_view_projection"].write(gl_view_projection)
        program["u_viewport_size"].value = (float(viewport[2]), float(viewport[3]))
        program["u_fringe_px"].value = FRINGE_PX
        program["u_edge_alpha"].value = FRINGE_EDGE_ALPHA
        for kind, levels in solids.items():
            for draw, rows in zip(self._edges[kind], levels, strict=True):
                draw.draw(rows)

    def _levels_of_detail(self, view_projection: np.ndarray, viewport: Viewport, position: np.ndarray) -> np.ndarray:
        """(N,) int: the index into ``LEVELS_OF_DETAIL`` of each body, by its projected bounding radius."""
        # Clip w is the distance along the view; row 1 of P·V is the focal factor times the view's unit up row.
        depth = position @ view_projection[3, :3] + view_projection[3, 3]
        pixels_per_metre = np.linalg.norm(view_projection[1, :3]) * 0.5 * viewport[3] / np.maximum(depth, 1e-9)
        radius_px = np.where(depth > 0.0, self.layout.radius * pixels_per_metre, 0.0)
        thresholds = np.array([pixels for pixels, _ in LEVELS_OF_DETAIL])
        return np.sum(radius_px[:, None] < thresholds[None, :], axis=1)

    def _draw_discs(self, draw: InstancedDraw, gl_view_projection: bytes, mode: int, rows: np.ndarray) -> None:
        program = self._programs["disc"]
        program["u_view_projection"].write(gl_view_projection)
        program["u_mode"].value = mode
        draw.draw(rows)

    def _plane_rows(self, frame: _FrameInstances, stride: int) -> np.ndarray:
        """(N, 20) instance rows of every body's invariable plane, its extent measured on every ``stride``-th
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

    def _draw_planes(self, gl_view_projection: bytes, level: np.ndarray, frame: _FrameInstances, selected) -> None:
        selected = selected[self.layout.torque_free[selected]]
        rows = self._plane_rows(frame, self.trail.stride(len(selected), MAX_PLANE_SAMPLES))[selected]
        near = level[selected] == 0
        for draw, chosen in zip(self._planes, (near, ~near), strict=True):
            self._draw_discs(draw, gl_view_projection, 0, rows[chosen])

    def _upload_trails(self, frame: _FrameInstances, stride: int) -> int:
        """Put every body's herpolhode segments, every ``stride``-th sample, into the trail line set (once per
        frame and stride); returns the number of vertices of each body's, which are contiguous."""
        if self._trail_vertices_key != (id(frame), stride):
            history, age = self.trail.omega_world(stride=stride)
            ends, alpha = overlays.trail_segments(
                frame.snapshot.position, history, age, self.layout.omega_scale, self.trail.capacity
            )
            colors = np.column_stack([np.broadcast_to(TRAIL_LINEAR, (len(ends), 3)), TRAIL_ALPHA * alpha])
            self._trails.set_lines(ends, colors)
            self._trail_vertices_key = id(frame), stride  # self._frame holds frame, so its id is not reused
            self._trail_vertices_per_body = 2 * (len(age) - 1)
        return self._trail_vertices_per_body

    def _draw_lines(
        self, gl_view_projection: bytes, viewport: Viewport, line_scale: float, frame: _FrameInstances, selected
    ) -> None:
        options = self.options
        program = self._programs["line"]
        program["u_view_projection"].write(gl_view_projection)
        program["u_viewport_size"].value = (float(viewport[2]), float(viewport[3]))
        if options.show_axes:
            program["u_width_px"].value = AXES_WIDTH_PX * line_scale
            self._axes.draw(frame.axes[selected])
        if options.show_herpolhode and self.trail.count > 1:
            program["u_width_px"].value = TRAIL_WIDTH_PX * line_scale
            per_body = self._upload_trails(frame, self.trail.stride(len(selected), MAX_TRAIL_SEGMENTS))
            # One draw per run of consecutive bodies.
            breaks = np.flatnonzero(np.diff(selected) != 1) + 1
            for run in np.split(selected, breaks) if len(selected) else ():
                self._trails.draw(None, vertices=per_body * len(run), first=per_body * int(run[0]))

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


def _overlap(a: Viewport, b: Viewport) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def _gl_matrix(matrix: np.ndarray) -> bytes:
    """A column-vector (4, 4) matrix as GLSL reads a mat4 uniform: column-major float32."""
    return np.ascontiguousarray(matrix.T, dtype=np.float32).tobytes()
