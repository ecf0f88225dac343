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

The wheel magnifies each construction about its point of interest, the middle ``m`` of its invariable plane (the foot
of L, round which the herpolhode runs), not about the camera's target: a point ``p`` is drawn at
``a + z (p − m)`` for a magnification ``z`` (:class:`PoinsotCamera`'s ``scale``), with ``a = f + (m − f) / max(z, 1)``
moving from ``m`` towards the middle ``f`` of the construction's framed room as ``z`` grows past 1, so the herpolhode
comes to the middle of its part of the view. ``z`` stops where the herpolhode would leave that room
(:func:`zoom_limit`).
"""

from __future__ import annotations

from dataclasses import dataclass

import moderngl
import numpy as np

from spinlab.render.camera import OrbitCamera, project
from spinlab.render.gpu import InstancedDraw
from spinlab.render.gpu_resources import TINT_ATTRIBUTES, GpuResources
from spinlab.render.instances import frames_along, instance_rows, rigid_matrices, rotation_from_quat_wxyz
from spinlab.render.look import OMEGA_LINEAR, PLANE_LINEAR, TRAIL_LINEAR
from spinlab.render.meshes import Lines
from spinlab.render.poinsot import PoinsotTraces, poinsot_geometry
from spinlab.render.shaders import BLEND_OVER, uniform
from spinlab.render.views import Viewport, ViewSet, clip_to_views, write_view_uniforms

__all__ = [
    "PoinsotView",
    "PoinsotCamera",
    "Construction",
    "constructions",
    "zoom_limit",
    "poinsot_camera",
    "poinsot_centres",
    "poinsot_label",
    "SPACING",
    "MAX_TRACE_POINTS",
]

SPACING = 1.3  # the two centres are ± this far apart along x (m: the largest semi-axis is 1 m)
STACKED_SPACING = 1.45  # ... or along z (up) in a tall viewport: a construction's plane lies below its ellipsoid
STACK_BELOW_ASPECT = 1.0  # a viewport narrower than this for its height stacks the two constructions
REACH = 1.25  # m: a construction (ellipsoid, plane, herpolhode) lies within this of its centre, as the camera fits it
FRAME_DROP = 0.2  # m: the camera frames a sphere of REACH about each centre this far down (the plane is below)
HERPOLHODE_ROOM = 0.85  # the wheel magnifies a herpolhode until it reaches this share of REACH from the room's middle
MIN_SCALE, MAX_SCALE = 0.3, 40.0  # the wheel's magnification, at most and at least
FIRST_SCALE_MAX = 2.0  # the default camera's magnification at most: the ellipsoid's lower half stays in view
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


@dataclass
class PoinsotCamera(OrbitCamera):
    """The Poinsot view's camera: an orbit camera (turned with the grid's) whose wheel magnifies the constructions by
    ``scale`` about their points of interest (the module docstring) rather than moving the eye."""

    scale: float = 1.0

    def zoom(self, steps: float) -> None:
        """Magnify by 1/0.9 per wheel step (as :meth:`OrbitCamera.zoom` comes nearer), within the limits."""
        self.scale = float(np.clip(self.scale / 0.9**steps, MIN_SCALE, MAX_SCALE))


def poinsot_camera(aspect: float, top_clear: float = 0.0, traces: PoinsotTraces | None = None) -> PoinsotCamera:
    """The view's default camera: from the front and a little above, both constructions (:func:`poinsot_centres`)
    as large as the viewport of ``aspect`` holds them below the top ``top_clear`` of its height (its label). With
    ``traces``, magnified half way (in ratio) from the whole ellipsoids to herpolhodes that fill the view
    (:func:`zoom_limit`), at most :data:`FIRST_SCALE_MAX`: a herpolhode runs close round the contact, small beside
    its ellipsoid, and a video has no wheel to bring it closer."""
    camera = PoinsotCamera(azimuth_deg=-90.0, elevation_deg=28.0)
    camera.fit_spheres(poinsot_centres(aspect) - [0.0, 0.0, FRAME_DROP], np.full(2, REACH), aspect, top_clear)
    if traces is not None and traces.latest:
        camera.scale = min(float(np.sqrt(zoom_limit(traces, aspect))), FIRST_SCALE_MAX)
    return camera


@dataclass(frozen=True)
class Construction:
    """One construction as drawn, display space (m): ``ellipsoid`` (4, 4) unit sphere → the ellipsoid, ``contact``
    (3,), the plane's ``middle`` (3,), unit ``normal`` (3,) and disc ``radius``, the ``polhode`` and ``herpolhode``
    (T, 3) (NaN rows: no sample), the body's ``centre`` (3,), and ``reach``, how far from the middle the herpolhode
    runs (as traced, or over the whole motion as the closed form of this E and L says: PoinsotGeometry's
    ``herpolhode_reach``, known from the first step on)."""

    ellipsoid: np.ndarray
    contact: np.ndarray
    middle: np.ndarray
    normal: np.ndarray
    radius: float
    polhode: np.ndarray
    herpolhode: np.ndarray
    centre: np.ndarray
    reach: float


def constructions(traces: PoinsotTraces, aspect: float, scale: float = 1.0) -> dict[str, Construction]:
    """The integrator's and the exact construction of ``traces`` (keys "integrator", "exact"; one left out when not
    finite) in a viewport of ``aspect``, magnified ``scale`` times about their points of interest (module
    docstring)."""
    inertia = traces.inertia_body
    exact = poinsot_geometry(inertia, *traces.latest["exact"])
    display = frames_along(-exact.normal[None])[0].T  # D: the exact L̂ → −z
    unit = 1.0 / max(float(exact.semi_axes.max()), 1e-300)  # m per rad/s
    stride = max(1, -(-min(traces.count, traces.capacity) // MAX_TRACE_POINTS))
    made = {}
    for which, centre in zip(("integrator", "exact"), poinsot_centres(aspect), strict=True):
        geometry = exact if which == "exact" else poinsot_geometry(inertia, *traces.latest[which])
        if not np.all(np.isfinite(geometry.semi_axes)):
            continue
        # x (rad/s, world) is drawn at centre + s D x at scale 1; about the plane's middle m, at a + z (that − m).
        to_display = unit * display
        middle = centre + to_display @ (geometry.distance * geometry.normal)
        room = centre - [0.0, 0.0, FRAME_DROP]
        anchor = room + (middle - room) / max(scale, 1.0)
        centre_drawn = anchor + scale * (centre - middle)
        to_display = scale * to_display
        body_omega, world_omega = traces.history(which, stride)
        rotation_now = rotation_from_quat_wxyz(traces.latest[which][0][None])[0]  # body → world, now
        herpolhode = centre_drawn + (to_display @ world_omega.T).T
        normal = to_display @ geometry.normal
        normal /= np.linalg.norm(normal)
        finite = herpolhode[np.all(np.isfinite(herpolhode), axis=1)] - anchor
        traced = np.linalg.norm(finite - np.outer(finite @ normal, normal), axis=1).max(initial=0.0)
        reach = max(float(traced), scale * unit * geometry.herpolhode_reach())
        made[which] = Construction(
            ellipsoid=rigid_matrices((to_display @ geometry.axes * geometry.semi_axes)[None], centre_drawn[None])[0],
            contact=centre_drawn + to_display @ geometry.contact,
            middle=anchor,
            normal=normal,
            radius=max(PLANE_MARGIN * reach, float(np.abs(to_display @ geometry.axes * geometry.semi_axes).max())),
            polhode=centre_drawn + (to_display @ rotation_now @ body_omega.T).T,
            herpolhode=herpolhode,
            centre=centre_drawn,
            reach=reach,
        )
    return made


def zoom_limit(traces: PoinsotTraces, aspect: float) -> float:
    """The largest magnification at which both herpolhodes of ``traces`` stay within :data:`HERPOLHODE_ROOM` of
    :data:`REACH` of their rooms' middles (the spheres the default camera frames): at ``z``, a herpolhode point
    ``r`` from the plane's middle is at most ``|m − f| / z + z r`` from the room's middle ``f``, a bound that meets
    the room at the larger root of ``r z² − R z + |m − f| = 0``. Never below 1, where the camera framed them."""
    limit = MAX_SCALE
    room = HERPOLHODE_ROOM * REACH
    for construction in constructions(traces, aspect).values():
        reach = construction.reach
        offset = float(np.linalg.norm(construction.middle - construction.centre + [0.0, 0.0, FRAME_DROP]))
        discriminant = room * room - 4.0 * reach * offset
        if reach > 0.0 and discriminant >= 0.0:
            limit = min(limit, (room + np.sqrt(discriminant)) / (2.0 * reach))
        elif reach > 0.0:
            limit = 1.0
    return max(limit, 1.0)


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
        self._pale = self.color + EXACT_WHITEN * (1.0 - self.color)
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
        aspect = viewport[2] / viewport[3]
        scale = 1.0
        if isinstance(camera, PoinsotCamera):  # magnified by the wheel, as far as the herpolhodes stay in view
            scale = camera.scale = min(camera.scale, zoom_limit(traces, aspect))
        uniform(resources.programs["line"], "u_width_px").value = LINE_WIDTH_PX * max(
            viewport[3] / LINE_WIDTH_HEIGHT_PX, 1.0
        )
        uniform(resources.programs["disc"], "u_mode").value = 0
        clip_to_views(ctx, True)
        # Magnified, each construction in its own part of the viewport: the one would grow over the other's plane.
        parts = _halves(viewport, camera) if scale > 1.0 else {}
        for which, made in constructions(traces, aspect, scale).items():
            framebuffer.scissor = parts.get(which)  # type: ignore[assignment]  # None: no scissor test
            self._draw_one(framebuffer, made, self.color if which == "integrator" else self._pale)
        clip_to_views(ctx, False)
        framebuffer.scissor = None  # type: ignore[assignment]
        framebuffer.depth_mask = True
        framebuffer.use()
        ctx.enable_only(moderngl.DEPTH_TEST)

    def _draw_one(self, framebuffer: moderngl.Framebuffer, made: Construction, color: np.ndarray) -> None:
        """One construction, in the body's ``color`` (3,) linear RGB, through the framebuffer's scissor."""
        ctx, sphere = self.ctx, self.resources.solids["sphere"][0]
        ellipsoid = instance_rows(made.ellipsoid[None], np.array([[*color, ELLIPSOID_ALPHA]]))
        dot = instance_rows(
            rigid_matrices((DOT_RADIUS * np.eye(3))[None], made.contact[None]), np.array([[*OMEGA_LINEAR, 1.0]])
        )
        plane = rigid_matrices(frames_along(made.normal[None]) * made.radius, made.middle[None])
        disc = instance_rows(plane, np.array([[*PLANE_LINEAR, PLANE_ALPHA]]))
        lines = [_polyline(made.polhode, POLHODE_LINEAR, 0.95), _polyline(made.herpolhode, TRAIL_LINEAR, 0.95),
                 (np.array([made.centre, made.contact]), np.tile([*OMEGA_LINEAR, 1.0], (2, 1)))]  # fmt: skip
        positions, colors = np.concatenate([ends for ends, _ in lines]), np.concatenate([rgba for _, rgba in lines])
        count = self._lines.set_lines(positions, colors, np.zeros(len(positions)))
        framebuffer.depth_mask = True
        framebuffer.use()  # applies the scissor
        ctx.enable_only(moderngl.DEPTH_TEST | moderngl.CULL_FACE)
        sphere.draw(dot)
        ctx.enable_only(moderngl.DEPTH_TEST | moderngl.BLEND)
        ctx.blend_func = BLEND_OVER  # type: ignore[assignment]  # colour and alpha factors: the stub allows 2 of 4
        framebuffer.depth_mask = False
        framebuffer.use()
        self.resources.planes[0].draw(disc)
        # The traces faintly through everything, then the translucent ellipsoid (its depth, then its colour where
        # nearest), then the traces again in full where in front of it.
        self._draw_lines(count, HIDDEN_LINE_ALPHA, depth_test=False)
        framebuffer.depth_mask = True
        framebuffer.color_mask = False, False, False, False
        framebuffer.use()  # applies the masks
        ctx.enable_only(moderngl.DEPTH_TEST | moderngl.CULL_FACE)
        sphere.draw(ellipsoid)
        framebuffer.color_mask = True, True, True, True
        framebuffer.depth_mask = False
        framebuffer.use()
        ctx.depth_func = "<="
        ctx.enable_only(moderngl.DEPTH_TEST | moderngl.CULL_FACE | moderngl.BLEND)
        sphere.draw(ellipsoid)
        ctx.depth_func = "<"
        self._draw_lines(count, 1.0, depth_test=True)

    def _draw_lines(self, count: int, alpha: float, depth_test: bool) -> None:
        """The line set's ``count`` vertices, blended, at ``alpha`` times their own opacity."""
        if not count:
            return
        self.ctx.enable_only((moderngl.DEPTH_TEST if depth_test else 0) | moderngl.BLEND)
        self._lines.instances.write(instance_rows(np.eye(4)[None], np.array([[1.0, 1.0, 1.0, alpha]])))
        self._lines.draw(None, vertices=count)

    def release(self) -> None:
        """Free the line set, and drop the shared resources (once)."""
        if self._released:
            return
        self._released = True
        self._lines.release()
        self.resources.drop()


def _halves(viewport: Viewport, camera: OrbitCamera) -> dict[str, tuple[int, int, int, int]]:
    """The integrator's and the exact construction's parts of ``viewport`` seen through ``camera``: split half way
    between their rooms' middles as drawn (:func:`poinsot_centres`: above and below in a tall viewport, else left
    and right)."""
    x, y, width, height = viewport
    aspect = width / height
    rooms = project(camera.view_projection(aspect), poinsot_centres(aspect) - [0.0, 0.0, FRAME_DROP], viewport)
    if aspect < STACK_BELOW_ASPECT:
        split = int(np.clip(round(rooms[:, 1].mean()), y + 1, y + height - 1))
        return {"integrator": (x, split, width, y + height - split), "exact": (x, y, width, split - y)}
    split = int(np.clip(round(rooms[:, 0].mean()), x + 1, x + width - 1))
    return {"integrator": (x, y, split - x, height), "exact": (split, y, x + width - split, height)}


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
