"""The exact ghost: a translucent copy of each torque-free body turned as its closed form turns it.

The closed form's orientation at each step is measured once, with the rest of the step (scene/model/samples.py's
``Sample.q_exact``); :func:`ghost_orientations` maps the latest step's to the scene's bodies and
:meth:`render.renderer.Renderer.set_ghost` hands it to the renderer. A ghost is drawn at its body's own position
(the centre of mass, world frame, m) with the closed form's orientation ``q`` (body → world, (w, x, y, z)), the
same parts and meshes, in a paler version of the body's colour at :data:`GHOST_ALPHA`.

How it is drawn (render/renderer.py, after the opaque solids, planes and lines): first its depth alone, then its
colour blended over what is there where its depth is the nearest (``<=``). So only the ghost's front surface is
blended, once per pixel (its overlapping parts do not darken each other), and where the opaque body is in front
the body hides it. A ghost within :data:`GHOST_MIN_ANGLE_RAD` of its body is not drawn: it would only z-fight with
the body it covers (the ``exact`` integrator's copy, or any integrator at the start).
"""

from __future__ import annotations

import numpy as np

from spinlab.render.body_layout import BodyLayout
from spinlab.render.instances import body_model_matrices, instance_rows
from spinlab.scene.model.measures import orientation_error

__all__ = ["GHOST_ALPHA", "GHOST_WHITEN", "GHOST_MIN_ANGLE_RAD", "Ghost", "ghost_orientations", "ghost_solids"]

GHOST_ALPHA = 0.35
GHOST_WHITEN = 0.6  # the ghost's colour is the body's mixed this far towards white: it reads as a shade of it
GHOST_MIN_ANGLE_RAD = 2e-3


class Ghost:
    """The closed form's orientations ``q`` (N, 4) of the scene's bodies at time ``t`` s (NaN rows: no ghost)."""

    def __init__(self, t: float, q: np.ndarray) -> None:
        self.t = float(t)
        self.q = np.asarray(q, dtype=float)

    def applies_to(self, t: float) -> bool:
        """Whether this ghost belongs to a snapshot at ``t`` s."""
        return abs(t - self.t) <= 1e-9 * max(1.0, abs(t))


def ghost_orientations(session) -> Ghost:
    """The :class:`Ghost` of ``session``'s (scene/model/run_model.py) latest step: the closed form's orientation of
    every plotted torque-free body that has one; NaN for the others (kinematic bodies, bodies under torque, heavy tops:
    a heavy top turns about its pivot, so its exact motion is not at its body's position)."""
    sample = session.latest.sample
    q = np.full((len(session.scene.bodies), 4), np.nan)
    if sample.q_exact is not None:
        references = session.references
        shown = references.torque_free & references.has_reference
        q[session.plotted[shown]] = np.asarray(sample.q_exact)[-1][shown]
    return Ghost(session.t, q)


def ghost_solids(
    layout: BodyLayout, position: np.ndarray, q_body: np.ndarray, q_ghost: np.ndarray
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per mesh kind, the instance rows (M, 21) of the ghosts' parts and the body (M,) of each: the bodies at
    ``position`` (N, 3) m turned to ``q_body`` (N, 4), with a ghost where ``q_ghost`` (N, 4) is finite and more than
    :data:`GHOST_MIN_ANGLE_RAD` from ``q_body``. Empty when there is none."""
    with np.errstate(invalid="ignore"):
        angle = orientation_error(q_body, q_ghost)
    shown = np.isfinite(q_ghost).all(axis=1) & np.isfinite(position).all(axis=1) & (angle > GHOST_MIN_ANGLE_RAD)
    if not shown.any():
        return {}
    models = np.zeros((len(q_ghost), 4, 4))
    models[shown] = body_model_matrices(q_ghost[shown], position[shown], layout.com_offset[shown])
    rgb = layout.colors_rgba[:, :3] + GHOST_WHITEN * (1.0 - layout.colors_rgba[:, :3])
    rgba = np.column_stack([rgb, np.full(len(rgb), GHOST_ALPHA)])
    solids = {}
    for kind, parts in layout.parts.items():
        keep = shown[parts.owner]
        if keep.any():
            owner = parts.owner[keep]
            solids[kind] = instance_rows(models[owner] @ parts.matrices(keep), rgba[owner]), owner
    return solids
