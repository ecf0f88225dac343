"""Flip counts: how many times each body has turned over (the T-handle's Dzhanibekov flip), counted per step.

**Definition.** Let Ω₂(t) be the body's angular velocity (rad/s, body frame) along its intermediate principal axis
(scene/model/samples.py's polhode axes: ``polhode[..., 0]``), and ``band = FLIP_BAND · |ω₀|`` with ``|ω₀|`` the body's
initial |ω| (rad/s). The body's *side* is +1 once Ω₂ ≥ +band, −1 once Ω₂ ≤ −band, and keeps its last value while
|Ω₂| < band (hysteresis: noise about zero, or a slow drift across it, does not count twice). A **flip** is a change
of side; the count starts at 0 with the side undecided (the first side reached is not a flip). A step whose Ω₂ is
not finite (a body under torque has no exact polhode; a state that blew up) leaves the side as it was.

Each half turn of the polhode about the axis it circles changes Ω₂'s sign once: for the T-handle spun near its
intermediate axis, one flip is the handle turning over, half a period ``2K(m)/λ`` (Landau & Lifshitz §37).

:class:`FlipCounter` keeps the side and count of K bodies between batches of steps and counts a batch of S steps
with array operations (no loop over steps or bodies).
"""

from __future__ import annotations

import numpy as np

__all__ = ["FLIP_BAND", "FlipCounter", "flip_text"]

# The hysteresis half-width, as a fraction of the body's initial |ω|: well above rounding and integration noise
# near Ω₂ = 0, well below the T-handle's Ω₂ when it turns over (about |ω₀| itself).
FLIP_BAND = 0.05


class FlipCounter:
    """The flips of K bodies (see the module docstring), fed batches of steps in time order with :meth:`update`.
    ``band`` (K,) rad/s is each body's hysteresis half-width."""

    def __init__(self, band: np.ndarray) -> None:
        self.band = np.asarray(band, dtype=float)
        self.side = np.zeros(len(self.band), dtype=np.int8)  # +1, −1, or 0 (not decided yet)
        self.count = np.zeros(len(self.band), dtype=np.int64)

    @classmethod
    def for_speeds(cls, omega0: np.ndarray) -> FlipCounter:
        """A counter for bodies of initial |ω| ``omega0`` (K,) rad/s: ``band = FLIP_BAND · |ω₀|``."""
        return cls(FLIP_BAND * np.abs(np.asarray(omega0, dtype=float)))

    def update(self, omega_mid: np.ndarray) -> np.ndarray:
        """Count the flips of S more steps, ``omega_mid`` (S, K) = Ω₂ rad/s, oldest first; returns the running
        count after each step (S, K) int."""
        values = np.asarray(omega_mid, dtype=float)
        steps = values.shape[0]
        if steps == 0:
            return np.zeros((0, len(self.band)), dtype=np.int64)
        with np.errstate(invalid="ignore"):
            sides = np.where(values >= self.band, 1, np.where(values <= -self.band, -1, 0)).astype(np.int8)
        # Row 0 is the side carried over from the last batch: each step's side is the last decided one up to it.
        sides = np.concatenate([self.side[None], sides])
        decided = np.where(sides != 0, np.arange(steps + 1)[:, None], 0)
        held = np.take_along_axis(sides, np.maximum.accumulate(decided, axis=0), axis=0)
        changes = (held[1:] != held[:-1]) & (held[:-1] != 0)
        counts = self.count + np.cumsum(changes, axis=0)
        self.side, self.count = held[-1].copy(), counts[-1].copy()
        return counts


def flip_text(flips, exact) -> str:
    """A view's flip line: ``"flips 7 (exact 7)"``, or ``"flips 7"`` when ``exact`` is NaN (no closed form); ``""``
    when ``flips`` is NaN (no count for this body). For a view of several bodies, ``flips`` and ``exact`` hold one
    count each, in the view's order: ``"flips 6 · 3 (exact 6 · 9)"`` (no exact part unless every body has one)."""
    counts, exact_counts = np.atleast_1d(np.asarray(flips, dtype=float)), np.atleast_1d(np.asarray(exact, dtype=float))
    if not np.isfinite(counts).all():
        return ""
    text = "flips " + " · ".join(str(int(count)) for count in counts)
    if not np.isfinite(exact_counts).all():
        return text
    return f"{text} (exact {' · '.join(str(int(count)) for count in exact_counts)})"
