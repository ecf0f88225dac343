"""The Poinsot view: render/poinsot.py's construction drawn for one body, the integrator's beside the closed form's.

Two constructions in one viewport, the integrator's beside the exact one's (on the left and right of a wide
viewport, above and below in a tall one: :func:`poinsot_centres`), each centred on its own point of a display
space (not the scene's world: this view has a camera of its own). A construction's world vectors ``x`` (rad/s)
are drawn at ``centre + s · D x``: ``s`` m per rad/s makes the exact ellipsoid's largest semi-axis 1 m, and the
rotation ``D`` turns the exact L to point straight down, so the invariable plane is a floor under the ellipsoid,
which rolls on it. What is drawn for each: the ellipsoid (opaque, the body's colour, pale for the exact one), ω
from the centre to the contact point (a dot there), the invariable plane (translucent disc), the polhode on the
ellipsoid (the body ω history turned with the body as it is now) and the herpolhode on the plane (the world ω
history).
"""

from __future__ import annotations

import moderngl
import numpy as np

from spinlab.render.camera import OrbitCamera
from spinlab.render.gpu import InstancedDraw
from spinlab.render.gpu_resources import TINT_ATTRIBUTES, GpuResources
from spinlab.render.instances import frames_along, instance_rows, rigid_matrices, rotation_from_quat_wxyz
from spinlab.render.look import OMEGA_LINEAR, PLANE_LINEAR, TRAIL_LINEAR
from spinlab.render.meshes import Lines
from spinlab.render.poinsot import PoinsotGeometry, PoinsotTraces, poinsot_geometry
from spinlab.render.shaders import uniform
from spinlab.render.views import Viewport, ViewSet, clip_to_views, write_view_uniforms

__all__ = ["PoinsotView", "poinsot_camera", "poinsot_centres", "poinsot_label", "SPACING", "MAX_TRACE_POINTS"]

BLEND_OVER = moderngl.SRC_ALPHA, moderngl.ONE_MINUS_SRC_ALPHA, moderngl.ONE, moderngl.ONE_MINUS_SRC_ALPHA
SPACING = 1.3  # the two centres are ± this far apart along x (m: the largest semi-axis is 1 m)
STACKED_SPACING = 1.45  # ... or along z (up) in a tall viewport: a construction's plane lies below its ellipsoid
STACK_BELOW_ASPECT = 1.0  # a viewport narrower than this for its height stacks the two constructions
REACH = 1.25  # m: a construction (ellipsoid, plane, herpolhode) lies within this of its centre, as the camera fits it
MAX_TRACE_POINTS = 1500  # per trace: the history is thinned to at most this many points
PLANE_MARGIN = 1.25  # the disc reaches this far beyond the herpolhode (and at least the ellipsoid's reach)
PLANE_ALPHA = 0.22
DOT_RADIUS = 0.045  # m, the contact point's dot
LINE_WIDTH_PX = 3.0  # at a viewport 460 px high (the window's at 1280 × 720); wider in a larger one
LINE_WIDTH_HEIGHT_PX = 460.0
HIDDEN_LINE_ALPHA = 0.35  # the traces behind an ellipsoid show through it this faintly
ELLIPSOID_ALPHA = 0.6
EXACT_WHITEN = 0.6  # the exact ellipsoid is the body's colour this far towards white (as the exact ghost)
POLHODE_LINEAR = np.array([0.2, 0.9, 1.0])  # cyan: the polhode, on the ellipsoid
BACKGROUND_SRGB = (0.09, 0.10, 0.12)


def poinsot_centres(aspect: float) -> np.ndarray:
    """(2, 3) display-space centres of the integrator's and the exact construction in a viewport of ``aspect``
    (width / height): side by side along x when it is wide, stacked along z (up) when it is tall."""
    if aspect < STACK_BELOW_ASPECT:
        return np.array([[0.0, 0.0, STACKED_SPACING], [0.0, 0.0, -STACKED_SPACING]])
    return np.array([[-SPACING, 0.0, 0.0], [SPACING, 0.0, 0.0]])


def poinsot_camera(aspect: float, top_clear: float = 0.0) -> OrbitCamera:
    """The view's default camera: from the front and a little above, both constructions (:func:`poinsot_centres`)
    as large as the viewport of ``aspect`` holds them below the top ``top_clear`` of its height (its label)."""
    camera = OrbitCamera(azimuth_deg=-90.0, elevation_deg=28.0)
    camera.fit_spheres(poinsot_centres(aspect) - [0.0, 0.0, 0.2], np.full(2, REACH), aspect, top_clear)
    return camera


def poinsot_label(integrator: str, aspect: float = 2.0) -> tuple[str, ...]:
    """The view's label lines, for the body's ``integrator``, in a viewport of ``aspect`` (:func:`poinsot_centres`)."""
    places = ("top", "bottom") if aspect < STACK_BELOW_ASPECT else ("left", "right")
    return (
        f"Poinsot: {integrator} ({places[0]}), exact ({places[1]})",
        "ellipsoid x·Ix = 2E rolls on the plane normal to L",
        "polhode (cyan) on it, herpolhode (yellow) on the plane",
    )


class PoinsotView:
    """Draws :class:`PoinsotTraces` (see the module docstring) with the programs and meshes of ``ctx``'s
    :class:`GpuResources`, and a line set of its own. ``color`` (3,) linear RGB is the body's."""

    def __init__(self, ctx: moderngl.Context, color: np.ndarray) -> None:
        self.ctx = ctx
        self.color = np.asarray(color, dtype=float)[:3]
        self.resources = GpuResources.acquire(ctx)
        placeholder = Lines(np.zeros((2, 3), np.float32), np.zeros((2, 4), np.float32))
        self._lines = InstancedDraw(
            ctx, self.resources.programs["line"], placeholder, instance_attributes=TINT_ATTRIBUTES, vertex_views=True
        )
        self._lines.instances.write(instance_rows(np.eye(4)[None], np.ones((1, 4))))
        self._released = False

    def draw(
        self, framebuffer: moderngl.Framebuffer, viewport: Viewport, camera: OrbitCamera, traces: PoinsotTraces
    ) -> None:
        """Clear ``viewport`` of ``framebuffer`` and draw the two constructions of ``traces`` into it. Leaves the
        depth test on, blending off, the depth mask on and no scissor."""
        ctx, resources = self.ctx, self.resources
        framebuffer.use()
        framebuffer.scissor = None  # type: ignore[assignment]  # None (no scissor test) is allowed; the stub omits it
        x, y, width, height = viewport
        framebuffer.clear(*BACKGROUND_SRGB, 1.0, depth=1.0, viewport=(x, y, width, height))
        if not traces.latest:
            return
        views = ViewSet.of([viewport], [camera], [np.zeros(1, dtype=np.intp)], 1)
        write_view_uniforms(resources, views)
        framebuffer.viewport = views.area
        ellipsoids, dots, discs, (positions, colors) = self._frame(traces, poinsot_centres(viewport[2] / viewport[3]))
        sphere = resources.solids["sphere"][0]
        count = self._lines.set_lines(positions, colors, np.zeros(len(positions))) if len(positions) else 0
        uniform(resources.programs["line"], "u_width_px").value = LINE_WIDTH_PX * max(
            viewport[3] / LINE_WIDTH_HEIGHT_PX, 1.0
        )
        clip_to_views(ctx, True)
        ctx.enable_only(moderngl.DEPTH_TEST | moderngl.CULL_FACE)
        sphere.draw(dots)
        ctx.enable_only(moderngl.DEPTH_TEST | moderngl.BLEND)
        ctx.blend_func = BLEND_OVER  # type: ignore[assignment]  # colour and alpha factors: the stub allows 2 of 4
        framebuffer.depth_mask = False
        uniform(resources.programs["disc"], "u_mode").value = 0
        resources.planes[0].draw(discs)
        # The traces faintly through everything, then the translucent ellipsoids (their depth, then their colour
        # where nearest), then the traces again in full where in front of them.
        self._draw_lines(count, HIDDEN_LINE_ALPHA, depth_test=False)
        framebuffer.depth_mask = True
        framebuffer.color_mask = False, False, False, False
        framebuffer.use()  # applies the masks
        ctx.enable_only(moderngl.DEPTH_TEST | moderngl.CULL_FACE)
        sphere.draw(ellipsoids)
        framebuffer.color_mask = True, True, True, True
        framebuffer.depth_mask = False
        framebuffer.use()
        ctx.depth_func = "<="
        ctx.enable_only(moderngl.DEPTH_TEST | moderngl.CULL_FACE | moderngl.BLEND)
        sphere.draw(ellipsoids)
        ctx.depth_func = "<"
        self._draw_lines(count, 1.0, depth_test=True)
        clip_to_views(ctx, False)
        framebuffer.depth_mask = True
        framebuffer.use()
        ctx.enable_only(moderngl.DEPTH_TEST)

    def _draw_lines(self, count: int, alpha: float, depth_test: bool) -> None:
        """The line set's ``count`` vertices, blended, at ``alpha`` times their own opacity."""
        if not count:
            return
        self.ctx.enable_only((moderngl.DEPTH_TEST if depth_test else 0) | moderngl.BLEND)
        self._lines.instances.write(instance_rows(np.eye(4)[None], np.array([[1.0, 1.0, 1.0, alpha]])))
        self._lines.draw(None, vertices=count)

    def _frame(self, traces: PoinsotTraces, centres: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple]:
        """The instance rows of the ellipsoids and the dots (sphere mesh) and of the planes (disc), and the line
        segments ``(positions (V, 3), colours (V, 4))``, of both constructions, centred at ``centres`` (2, 3)."""
        inertia = traces.inertia_body
        exact = poinsot_geometry(inertia, *traces.latest["exact"])
        display = frames_along(-exact.normal[None])[0].T  # D: the exact L̂ → −z
        scale = 1.0 / max(float(exact.semi_axes.max()), 1e-300)
        stride = max(1, -(-min(traces.count, traces.capacity) // MAX_TRACE_POINTS))
        pale = self.color + EXACT_WHITEN * (1.0 - self.color)
        ellipsoids, dots, discs, positions, colors = [], [], [], [], []
        for which, centre, color in (("integrator", centres[0], self.color), ("exact", centres[1], pale)):
            geometry = exact if which == "exact" else poinsot_geometry(inertia, *traces.latest[which])
            if not np.all(np.isfinite(geometry.semi_axes)):
                continue
            to_display = scale * display
            body_omega, world_omega = traces.history(which, stride)
            rotation_now = rotation_from_quat_wxyz(traces.latest[which][0][None])[0]  # body → world, now
            polhode = centre + (to_display @ rotation_now @ body_omega.T).T
            herpolhode = centre + (to_display @ world_omega.T).T
            contact = centre + to_display @ geometry.contact
            ellipsoid = rigid_matrices((to_display @ geometry.axes * geometry.semi_axes)[None], centre[None])
            dot = rigid_matrices((DOT_RADIUS * np.eye(3))[None], contact[None])
            ellipsoids.append(instance_rows(ellipsoid, np.array([[*color, ELLIPSOID_ALPHA]])))
            dots.append(instance_rows(dot, np.array([[*OMEGA_LINEAR, 1.0]])))
            discs.append(self._plane(geometry, to_display, centre, herpolhode))
            for points, rgb, alpha in ((polhode, POLHODE_LINEAR, 0.95), (herpolhode, TRAIL_LINEAR, 0.95)):
                ends, ends_colors = _polyline(points, rgb, alpha)
                positions.append(ends)
                colors.append(ends_colors)
            positions.append(np.array([centre, contact]))
            colors.append(np.tile([*OMEGA_LINEAR, 1.0], (2, 1)))
        if not ellipsoids:
            none = np.zeros((0, 21), np.float32)
            return none, none, none, (np.zeros((0, 3)), np.zeros((0, 4)))
        rows = (np.concatenate(ellipsoids), np.concatenate(dots), np.concatenate(discs))
        return *rows, (np.concatenate(positions), np.concatenate(colors))

    @staticmethod
    def _plane(geometry: PoinsotGeometry, to_display: np.ndarray, centre: np.ndarray, herpolhode: np.ndarray):
        """The instance row of a construction's invariable plane: a disc about the L axis, reaching past the
        herpolhode ``herpolhode`` (T, 3) (display space) and the ellipsoid."""
        normal = to_display @ geometry.normal
        normal /= np.linalg.norm(normal)
        middle = centre + to_display @ (geometry.distance * geometry.normal)
        finite = herpolhode[np.all(np.isfinite(herpolhode), axis=1)]
        across = finite - middle
        reach = np.linalg.norm(across - np.outer(across @ normal, normal), axis=1).max(initial=0.0)
        radius = max(PLANE_MARGIN * reach, float(np.abs(to_display @ geometry.axes * geometry.semi_axes).max()))
        matrix = rigid_matrices(frames_along(normal[None]) * radius, middle[None])
        return instance_rows(matrix, np.array([[*PLANE_LINEAR, PLANE_ALPHA]]))

    def release(self) -> None:
        """Free the line set, and drop the shared resources (once)."""
        if self._released:
            return
        self._released = True
        self._lines.release()
        self.resources.drop()


def _polyline(points: np.ndarray, rgb: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """The segments ``(ends (2M, 3), colours (2M, 4))`` joining consecutive finite ``points`` (T, 3), fading from
    transparent (oldest) to ``alpha``."""
    start, end = points[:-1], points[1:]
    keep = np.all(np.isfinite(start), axis=1) & np.all(np.isfinite(end), axis=1)
    fade = np.linspace(0.15, 1.0, len(points))
    ends = np.stack([start[keep], end[keep]], axis=1).reshape(-1, 3)
    weights = np.stack([fade[:-1][keep], fade[1:][keep]], axis=1).reshape(-1)
    colors = np.column_stack([np.broadcast_to(rgb, (len(ends), 3)), alpha * weights])
    return ends, colors
