"""The backdrop behind the bodies (the sky's gradient over the view, then the floor grid over the floor's disc
alone) and its cache.

Costs on a CPU rasteriser (llvmpipe): a pixel's cost is mostly the shader's, whatever it computes, so the sky is a
colour interpolated across one triangle and the grid's arithmetic runs only where the grid can show (the disc it
fades out at, about the camera's target); together a third cheaper than one pass computing both at every pixel.
Still the backdrop is the dearest part of a frame, and it only changes with the camera, so :class:`Backdrop` draws
it into a cache framebuffer once per camera and viewport and copies it into the target afterwards. The cache follows
the size of the framebuffer it is given, every frame.

The protocol, per viewport (or per whole frame): a backdrop asked for with the same camera twice running is shaded
into the cache and copied from then on; a camera that moved since the last frame will likely move again, so it gets
its backdrop shaded straight into the target (no copy, no wait for the cache). When the views fill the whole target
(a ``background`` for the rest), the cache holds the whole frame's backdrop with the contact shadows and the caller's
underlay (the labels' panels), copied in one memcpy (the cache is stored as the target is: render/gpu.py's
:func:`~render.gpu.colour_framebuffer`). A multisampled target always gets it shaded (a blit cannot go from one
sample to several).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from hashlib import sha256
from typing import cast

import moderngl
import numpy as np

from spinlab.render.camera import OrbitCamera
from spinlab.render.gpu import colour_framebuffer, stored_bgra
from spinlab.render.gpu_resources import GpuResources
from spinlab.render.look import BACKGROUND_BOTTOM_SRGB, BACKGROUND_TOP_SRGB, GRID_LINE_SRGB
from spinlab.render.shaders import BLEND_OVER, MAX_VIEWS, uniform
from spinlab.render.views import Viewport, ViewSet, overlap

__all__ = ["Backdrop", "BackdropLook", "Underlay", "Shadows"]

GRID_MAJOR_EVERY = 4.0
GRID_MINOR_ALPHA = 0.1
GRID_MAJOR_ALPHA = 0.24
# The floor's disc, where the grid fades out, as a polygon of this many sides round it: its fan's triangles are
# binned and set up once each (a few hundred pixels of rim beyond the circle, where the grid has faded, cost less).
FLOOR_SIDES = 32
# What the caller draws over the whole frame's cached backdrop (it draws into a framebuffer of the target's size),
# and the key that says when it changed.
Underlay = tuple[Callable[[moderngl.Framebuffer], None] | None, Hashable]
# The contact shadows: their instance rows (with their views) and what draws them, clipped to the views, into the
# bound framebuffer.
Shadows = tuple[np.ndarray, Callable[[np.ndarray], None]]


@dataclass(frozen=True)
class BackdropLook:
    """What the backdrop shows besides the camera: the floor at height ``floor_z`` m (world z), its grid of
    ``grid_cell`` m faded out at ``fade_radius`` m round the camera's target, drawn when ``show_floor``."""

    floor_z: float
    fade_radius: float
    grid_cell: float
    show_floor: bool


class Backdrop:
    """One renderer's backdrop cache (see the module docstring) on the shared ``resources``' programs.

    ``whole_key`` is the whole frame the cache holds (``None`` when it holds per-view backdrops or nothing), and
    ``whole_request`` the whole frame last asked for."""

    def __init__(self, resources: GpuResources) -> None:
        self.resources = resources
        self.ctx = resources.ctx
        self.framebuffer: moderngl.Framebuffer | None = None  # a colour framebuffer of the target's size
        self.sky: moderngl.Framebuffer | None = None  # the background and every view's sky, for moving cameras
        self._sky_key: tuple | None = None  # the target's size, the viewports and the background the sky holds
        self._keys: dict[Viewport, tuple] = {}  # the camera etc. each viewport's region of the cache was drawn for
        self._requests: dict[Viewport, tuple] = {}  # the key each viewport's backdrop was last asked for
        self.whole_key: tuple | None = None
        self.whole_request: tuple | None = None

    def forget(self) -> None:
        """Forget the whole frame held and asked for: the next frame is shaded straight into the target."""
        self.whole_key = self.whole_request = None

    def draw(
        self,
        target: moderngl.Framebuffer,
        views: ViewSet,
        look: BackdropLook,
        background: tuple[float, float, float] | None,
        shadows: Shadows | None,
        underlay: Underlay,
    ) -> bool:
        """Clear ``target``'s depth in ``views`` and fill them with their backdrops; with a ``background`` (sRGB)
        all of ``target``: the rest with that colour, and maybe (returns whether it did: the frame came from the
        whole-frame cache) the contact ``shadows`` (rows, draw) and the ``underlay`` too. The views'
        uniforms must be set (render/views.py). Leaves ``target`` bound with the views' area as its viewport and
        scissor."""
        whole = background is not None and self._draw_whole(target, views, look, background, shadows, underlay)
        sky_copied = background is not None and not whole and self._copy_sky(target, views, background)
        if background is not None and not whole and not sky_copied:
            # One clear of the whole target, colour and depth, is llvmpipe's fast clear; a clear of a part of it is
            # a draw over that part.
            target.scissor = None  # type: ignore[assignment]  # None: no scissor test (see below)
            target.viewport = (0, 0, *target.size)
            target.clear(*background, 1.0, depth=1.0)
        if background is None:
            # The colour left as it is (another view may be beside these): a clear of each view's depth within its
            # scissor would be a rectangle shaded on llvmpipe. Nothing drawn before needs its depth.
            _clear_depth(target)
        if not whole:
            copies = []
            for camera, view_projection, viewport in zip(
                views.cameras, views.view_projections, views.viewports, strict=True
            ):
                target.viewport = viewport
                target.scissor = viewport
                if self._draw_view(target, camera, view_projection, viewport, look, sky=not sky_copied):
                    copies.append(viewport)
            target.viewport = views.area
            target.scissor = views.area
            self._copy(target, views.area, copies)
        target.viewport = views.area
        target.scissor = views.area
        return whole

    def release(self) -> None:
        """Free the cache framebuffers."""
        _release(self.framebuffer)
        _release(self.sky)
        self.framebuffer = self.sky = None
        self._sky_key = None

    def _ensure(self, target: moderngl.Framebuffer) -> moderngl.Framebuffer:
        """The cache, (re)made at ``target``'s size and stored as it is (forgetting what it held) when it is not."""
        size = (target.width, target.height)
        framebuffer = self.framebuffer
        if framebuffer is None or tuple(framebuffer.size) != size or stored_bgra(framebuffer) != stored_bgra(target):
            _release(framebuffer)
            framebuffer = self.framebuffer = colour_framebuffer(self.ctx, size, like=target)
            self._keys = {}
            self.whole_key = None
        return framebuffer

    def _copy_sky(self, target: moderngl.Framebuffer, views: ViewSet, background: tuple[float, float, float]) -> bool:
        """Fill all of ``target`` with ``background`` and each view's sky by one copy of the sky frame, and clear its
        depth; returns whether it did. The sky depends on the viewports alone, never on a camera, so a moving
        camera's frames, whose backdrops are shaded afresh, are left only their floors to shade. Only into a
        single-sampled framebuffer object (into the window's own, a copy is slow)."""
        if target.samples or target.glo == 0:
            return False
        size = (target.width, target.height)
        key = size, tuple(views.viewports), tuple(float(c) for c in background)
        sky = self.sky
        if sky is None or tuple(sky.size) != size or stored_bgra(sky) != stored_bgra(target):
            _release(sky)  # the key holds the size, not the storage: a new sky is shaded below
            sky = self.sky = colour_framebuffer(self.ctx, size, like=target)
            self._sky_key = None
        if self._sky_key != key:
            self.ctx.enable_only(moderngl.NOTHING)
            sky.scissor = None  # type: ignore[assignment]  # None (no scissor test) is allowed; the stub omits it
            sky.use()
            sky.viewport = (0, 0, *size)
            sky.clear(*background, 1.0)
            for viewport in views.viewports:
                sky.viewport = viewport
                self._shade_sky()
            self._sky_key = key
            target.use()
        target.scissor = None  # type: ignore[assignment]  # None: no scissor test (see above)
        target.viewport = (0, 0, *size)
        self._copy(target, (0, 0, *size), [(0, 0, *size)], source=sky)
        _clear_depth(target)
        return True

    @staticmethod
    def _key(camera: OrbitCamera, view_projection: np.ndarray, look: BackdropLook) -> tuple:
        """Everything the backdrop's shaders read that can change: the camera and the look."""
        eye, target = np.asarray(camera.eye(), dtype=float), np.asarray(camera.target, dtype=float)
        return view_projection.tobytes(), eye.tobytes(), target.tobytes(), look

    def _draw_whole(
        self,
        target: moderngl.Framebuffer,
        views: ViewSet,
        look: BackdropLook,
        background: tuple[float, float, float],
        shadows: Shadows | None,
        underlay: Underlay,
    ) -> bool:
        """Fill all of ``target`` (colour and depth) with the views' backdrops, ``shadows`` and ``background``
        elsewhere, by one copy of the cache, when it holds that frame: returns False (and draws nothing) the first
        time a frame is asked for, and on a multisampled ``target``; the second time running it is drawn into the
        cache, with the ``underlay`` = (draw, key) over it."""
        if target.samples:
            return False
        size = (target.width, target.height)
        cache = self._ensure(target)
        keys = [self._key(camera, vp, look) for camera, vp in zip(views.cameras, views.view_projections, strict=True)]
        draw_underlay, underlay_key = underlay
        shadow_key = None if shadows is None else _digest(shadows[0])
        key = tuple(views.viewports), tuple(keys), tuple(float(c) for c in background), shadow_key, underlay_key
        requested, self.whole_request = self.whole_request, key
        if self.whole_key != key:
            if requested != key:
                return False  # a camera is moving: each view's backdrop is shaded straight into the target
            self.ctx.enable_only(moderngl.NOTHING)
            cache.scissor = None  # type: ignore[assignment]  # None (no scissor test) is allowed; the stub omits it
            cache.use()
            cache.viewport = (0, 0, *size)
            cache.clear(*background, 1.0)
            for camera, view_projection, viewport in zip(
                views.cameras, views.view_projections, views.viewports, strict=True
            ):
                cache.viewport = viewport
                self._shade(camera, view_projection, viewport, look)
            if shadows is not None:
                cache.viewport = views.area
                shadows[1](shadows[0])
                self.ctx.enable_only(moderngl.NOTHING)
            if draw_underlay is not None:
                cache.scissor = None  # type: ignore[assignment]  # None: no scissor test (see above)
                draw_underlay(cache)
                self.ctx.enable_only(moderngl.NOTHING)
            # The per-view entries would hold the shadows: none of them is taken from this cache.
            self._keys = {}
            self.whole_key = key
            target.use()
        target.scissor = None  # type: ignore[assignment]  # None: no scissor test (see above)
        target.viewport = (0, 0, *size)
        # The whole frame in one copy, then the depth alone cleared: the copy has set every colour.
        self._copy(target, (0, 0, *size), [(0, 0, *size)])
        _clear_depth(target)
        return True

    def _draw_view(
        self,
        target: moderngl.Framebuffer,
        camera: OrbitCamera,
        view_projection: np.ndarray,
        viewport: Viewport,
        look: BackdropLook,
        *,
        sky: bool,
    ) -> bool:
        """The backdrop in ``viewport``: shaded straight into ``target`` (returns False; its ``sky`` too, unless
        already there), or, when the cache holds it for the same camera (it is drawn into the cache first when asked
        for twice running), left to :meth:`_copy` (returns True). Leaves ``target`` bound with ``viewport`` and its
        scissor, capabilities off."""
        self.ctx.enable_only(moderngl.NOTHING)
        if target.samples:
            self._shade(camera, view_projection, viewport, look, sky=sky)
            return False
        cache = self._ensure(target)
        key = self._key(camera, view_projection, look)
        requested, self._requests[viewport] = self._requests.get(viewport), key
        if self._keys.get(viewport) != key and requested != key:
            # A camera that moved since the last frame will likely move again: shading straight into the target
            # costs what shading into the cache does, and saves the copy and its wait for the shading to finish.
            self._shade(camera, view_projection, viewport, look, sky=sky)
            return False
        if self._keys.get(viewport) != key:
            cache.scissor = None  # type: ignore[assignment]  # None: no scissor test (see above)
            cache.use()
            cache.viewport = viewport
            self._shade(camera, view_projection, viewport, look)
            # Drawing here may have overwritten other viewports' backdrops where they overlap this one.
            self._keys = {other: other_key for other, other_key in self._keys.items() if not overlap(other, viewport)}
            self._keys[viewport] = key
            self.whole_key = None
            target.use()
        return True

    def _copy(
        self,
        target: moderngl.Framebuffer,
        area: Viewport,
        viewports: list[Viewport],
        source: moderngl.Framebuffer | None = None,
    ) -> None:
        """Copy ``viewports`` of the cached backdrop (or of ``source``, stored alike) into ``target``, whose GL
        viewport is ``area``: the whole framebuffer by one memcpy when that is all (made at once, on this thread,
        while nothing is queued: a copy waits for what is), else one draw of a rectangle per viewport."""
        if not viewports:
            return
        self.ctx.enable_only(moderngl.NOTHING)
        whole = len(viewports) == 1 and tuple(viewports[0]) == (0, 0, *target.size)
        cache = self.framebuffer if source is None else source
        assert cache is not None, "the cache is made (_ensure) before anything is copied from it"
        if whole:
            self.ctx.copy_framebuffer(target, cache)  # a memcpy on llvmpipe
            return
        # A blit into part of a framebuffer takes llvmpipe's slow path (milliseconds of CPU a frame) and waits for
        # all queued drawing; a draw that fetches each pixel does neither.
        rects = np.zeros((MAX_VIEWS, 4), dtype=np.float32)
        for index, (x, y, width, height) in enumerate(viewports):
            rects[index] = (
                2.0 * (x - area[0]) / area[2] - 1.0,
                2.0 * (y - area[1]) / area[3] - 1.0,
                2.0 * (x + width - area[0]) / area[2] - 1.0,
                2.0 * (y + height - area[1]) / area[3] - 1.0,
            )
        program = self.resources.programs["copy"]
        uniform(program, "u_rects").write(rects.tobytes())
        uniform(program, "u_viewport").value = tuple(float(value) for value in area)
        uniform(program, "u_source_size").value = tuple(float(value) for value in cache.size)
        uniform(program, "u_source").value = 0
        cast(moderngl.Texture, cache.color_attachments[0]).use(location=0)  # the cache's attachment: a texture
        self.resources.copy.render(moderngl.TRIANGLES, vertices=6 * len(viewports))

    def _shade(
        self,
        camera: OrbitCamera,
        view_projection: np.ndarray,
        viewport: Viewport,
        look: BackdropLook,
        *,
        sky: bool = True,
    ) -> None:
        """Draw the backdrop over ``viewport`` of the bound framebuffer (its GL viewport): the ``sky``'s gradient
        over all of it (unless it is there), then the floor's grid, blended, over the floor's disc alone
        (assets/shaders/sky.*, floor.*). Leaves blending off."""
        resources, ctx = self.resources, self.ctx
        if sky:
            self._shade_sky()
        if not look.show_floor:
            return
        floor = resources.programs["floor"]
        uniform(floor, "u_view_projection").write(np.asarray(view_projection, dtype=np.float32).T.tobytes())
        uniform(floor, "u_fade_center").value = tuple(np.asarray(camera.target, dtype=float)[:2])
        uniform(floor, "u_fade_radius").value = look.fade_radius
        uniform(floor, "u_floor_z").value = look.floor_z
        uniform(floor, "u_sides").value = FLOOR_SIDES
        uniform(floor, "u_cell").value = look.grid_cell
        uniform(floor, "u_major_every").value = GRID_MAJOR_EVERY
        uniform(floor, "u_line_srgb").value = tuple(GRID_LINE_SRGB)
        uniform(floor, "u_minor_alpha").value = GRID_MINOR_ALPHA
        uniform(floor, "u_major_alpha").value = GRID_MAJOR_ALPHA
        ctx.enable_only(moderngl.BLEND)
        ctx.blend_func = BLEND_OVER  # type: ignore[assignment]  # colour and alpha factors: the stub allows 2 of 4
        resources.floor.render(moderngl.TRIANGLES, vertices=3 * FLOOR_SIDES)
        ctx.enable_only(moderngl.NOTHING)

    def _shade_sky(self) -> None:
        """Draw the sky's gradient over the bound framebuffer's GL viewport."""
        sky = self.resources.programs["sky"]
        uniform(sky, "u_top_srgb").value = tuple(BACKGROUND_TOP_SRGB)
        uniform(sky, "u_bottom_srgb").value = tuple(BACKGROUND_BOTTOM_SRGB)
        self.ctx.enable_only(moderngl.NOTHING)
        self.resources.sky.render(moderngl.TRIANGLES, vertices=3)


def _clear_depth(target: moderngl.Framebuffer) -> None:
    """Clear all of ``target``'s depth at once (llvmpipe's fast clear: no scissor), its colour kept; leaves it bound
    with its colour mask as it was."""
    target.scissor = None  # type: ignore[assignment]  # None (no scissor test) is allowed; the stub omits it
    color_mask = target.color_mask
    target.color_mask = False, False, False, False
    target.use()  # moderngl applies a framebuffer's masks as it binds it (a setter alone does not, while another is)
    target.clear(depth=1.0)
    target.color_mask = color_mask
    target.use()


def _release(framebuffer: moderngl.Framebuffer | None) -> None:
    """Free ``framebuffer`` (a :func:`colour_framebuffer`) and its texture, if there is one."""
    if framebuffer is not None:
        framebuffer.color_attachments[0].release()
        framebuffer.release()


def _digest(rows: np.ndarray) -> bytes:
    """The SHA-256 digest of ``rows``' bytes: what the cache keys the shadows by. Their bytes themselves, held as the
    key twice (the frame's and the one asked for), grow with the bodies; the digest costs about what copying them
    did, and SHA-256, on the CPU's SHA instructions, is the quickest of hashlib's here."""
    return sha256(np.ascontiguousarray(rows).data).digest()
