"""The herpolhode trails on screen: one renderer's line set of every view's trail segments.

The samples are a :class:`render.trail.HerpolhodeTrail` (ω, world frame, rad/s, per body); the tip of ω drawn from
a body's centre, ``position + omega_scale · ω`` (m, world frame), traces the herpolhode. The segments are thinned
in time, a stride that keeps them within ``MAX_TRAIL_SEGMENTS``, then on screen: on a CPU rasteriser every segment
costs, and consecutive samples are often less than a pixel apart, so each (view, body) pair keeps the samples that
make segments of at most ``TRAIL_SEGMENT_PX`` pixels of path, with no dropped sample farther than
``TRAIL_ERROR_PX`` from the line drawn, by strides of up to ``TRAIL_MAX_STRIDE`` samples anchored to the samples'
absolute indices (overlays.trail_keep). ``TRAIL_SEGMENT_PX = 0`` keeps every sample.

The line set's vertices are computed and uploaded once per frame, choice of bodies and cameras, and drawn with the
shared line program (render/gpu_resources.py) as one instance, the view of each vertex in its vertex.
"""

from __future__ import annotations

import numpy as np

from spinlab.render import overlays
from spinlab.render.gpu import InstancedDraw
from spinlab.render.gpu_resources import TINT_ATTRIBUTES, GpuResources
from spinlab.render.instances import instance_rows
from spinlab.render.look import TRAIL_LINEAR
from spinlab.render.meshes import Lines
from spinlab.render.shaders import uniform
from spinlab.render.trail import HerpolhodeTrail
from spinlab.render.views import ViewSet

__all__ = [
    "TrailLines",
    "TRAIL_CAPACITY",
    "MAX_TRAIL_SEGMENTS",
    "TRAIL_SEGMENT_PX",
    "TRAIL_ERROR_PX",
    "TRAIL_MAX_STRIDE",
    "TRAIL_WIDTH_PX",
]

TRAIL_CAPACITY = 600  # samples: 10 s at 60 frames/s
MAX_TRAIL_SEGMENTS = 40_000  # many bodies: the trails are thinned in time to at most this many segments a frame
TRAIL_SEGMENT_PX = 4.0
TRAIL_ERROR_PX = 0.5
TRAIL_MAX_STRIDE = 64
TRAIL_WIDTH_PX = 3.0
TRAIL_ALPHA = 0.95


class TrailLines:
    """The trail segments of the views of one renderer: :meth:`segments` computes them (no GL), :meth:`draw` puts
    them into this renderer's line set when they changed and draws it. ``vertices`` is what the line set holds."""

    def __init__(self, resources: GpuResources) -> None:
        self.resources = resources
        # One empty segment to start with: set_lines replaces the vertices before the first draw.
        placeholder = Lines(np.zeros((2, 3), np.float32), np.zeros((2, 4), np.float32))
        self._lines = InstancedDraw(
            resources.ctx,
            resources.programs["line"],
            placeholder,
            instance_attributes=TINT_ATTRIBUTES,
            vertex_views=True,
        )
        self._lines.instances.write(instance_rows(np.eye(4)[None], np.ones((1, 4))))
        self.vertices = 0
        self._vertices_key: tuple | None = None
        self._cache: tuple | None = None

    def segments(
        self, trail: HerpolhodeTrail, frame_key: object, position: np.ndarray, omega_scale: float, views: ViewSet
    ) -> tuple[tuple, np.ndarray, np.ndarray, np.ndarray]:
        """The segments of the bodies ``views.chosen`` (V, N) in each view: ``(key, ends (S, 3) m world frame,
        colours (S, 4) linear RGBA, views (S,))``, cached per ``frame_key`` (what the trail and the bodies'
        ``position`` (N, 3) m came from), choice and cameras; ω is drawn at ``omega_scale`` m per rad/s."""
        key = frame_key, views.chosen.tobytes(), np.asarray(views.view_projections).tobytes(), tuple(views.viewports)
        if self._cache is not None and self._cache[0] == key:
            return self._cache
        view, body = np.nonzero(views.chosen)
        stride = trail.stride(len(body), MAX_TRAIL_SEGMENTS)
        history, age = trail.omega_world(stride=stride)
        # ω drawn from each body's centre: its tip, per (view, body) pair, (P, T, 3).
        tips = (position + omega_scale * history).transpose(1, 0, 2)[body]
        pixels, in_front = overlays.trail_tips_px(
            tips, np.asarray(views.view_projections)[view], np.asarray(views.viewports, dtype=float)[view, 2:]
        )
        keep = overlays.trail_keep(
            pixels,
            in_front,
            trail.sample_index(age),
            stride,
            segment_px=TRAIL_SEGMENT_PX,
            error_px=TRAIL_ERROR_PX,
            max_stride=TRAIL_MAX_STRIDE,
        )
        ends, alpha, pair = overlays.trail_segments(tips, age, trail.capacity, keep)
        colors = np.column_stack([np.broadcast_to(TRAIL_LINEAR, (len(ends), 3)), TRAIL_ALPHA * alpha])
        self._cache = key, ends, colors, view[pair]
        return self._cache

    def draw(
        self, trail: HerpolhodeTrail, frame_key: object, position: np.ndarray, omega_scale: float, views: ViewSet
    ) -> None:
        """Draw the segments (:meth:`segments`) with the line program, whose per-view uniforms hold ``views``."""
        key, ends, colors, vertex_views = self.segments(trail, frame_key, position, omega_scale, views)
        if self._vertices_key != key:
            self.vertices = self._lines.set_lines(ends, colors, vertex_views)
            self._vertices_key = key
        uniform(self.resources.programs["line"], "u_width_px").value = TRAIL_WIDTH_PX
        self._lines.draw(None, vertices=self.vertices)

    def release(self) -> None:
        """Free the line set's buffers."""
        self._lines.release()
