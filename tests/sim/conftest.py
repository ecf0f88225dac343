"""Shared inputs for the sim tests: the angle sweep of style.md and random rotation vectors."""

import numpy as np
import pytest
from hypothesis import strategies as st

# style.md rule 9: every SO(3) map is checked at these angles (radians).
ANGLE_SWEEP = np.array(
    [0.0, 1e-9, 1e-7, 1e-5, 1e-3, 1e-1, 0.5 - 1e-12, 0.5, 0.5 + 1e-12, 1.0 - 1e-12, 1.0, 1.0 + 1e-12, 2.0, np.pi - 1e-6]
)


def sweep_vectors(seed: int = 0) -> np.ndarray:
    """Rotation vectors with the angles of ANGLE_SWEEP along random axes: shape (len(ANGLE_SWEEP), 3)."""
    axes = np.random.default_rng(seed).normal(size=(len(ANGLE_SWEEP), 3))
    axes /= np.linalg.norm(axes, axis=-1, keepdims=True)
    return ANGLE_SWEEP[:, None] * axes


@pytest.fixture
def sweep() -> np.ndarray:
    return sweep_vectors()


# Rotation vectors whose angle is drawn log-uniformly from tiny to huge, plus the awkward spots near 0 and π.
angles = st.one_of(
    st.floats(0.0, np.pi),
    st.floats(-30.0, 2.0).map(lambda e: 10.0**e),
    st.floats(-1e-6, 1e-6).map(lambda d: np.pi - abs(d)),
    st.floats(3.0, 1e4),
)
unit_axes = (
    st.tuples(*[st.floats(-1.0, 1.0)] * 3)
    .filter(lambda v: 0.1 < np.linalg.norm(v))
    .map(lambda v: np.array(v) / np.linalg.norm(v))
)
rotation_vectors = st.builds(lambda a, u: a * u, angles, unit_axes)


# ------------------------------------------------------------------ what one ulp of sin or cos does to a coefficient

EPS = np.finfo(float).eps


def coefficient_rtol(angle_sq, coefficient: str, ulps: float = 4.0) -> np.ndarray:
    """A relative tolerance for sim/taylor.py's coefficient ``coefficient`` (``"s1"``, ``"s2"``, ``"s3"`` or
    ``"c"``) at ``a² = angle_sq``, from its error analysis rather than from one machine.

    In the closed-form branch (a² ≥ 1) the C library's sin and cos are within an ulp, and which ulp depends on the
    CPU (glibc's FMA and SSE2 variants differ in ~0.05 % of inputs); a few roundings follow. A subtraction that
    cancels amplifies those errors by its condition number: ``|sin a| / |a − sin a|`` for ``s3 = (a − sin a)/a³``,
    ``|x cot x| / |1 − x cot x|`` (x = a/2) for ``c = (1 − x cot x)/a²``; ``s1`` and ``s2 = 2 sin²(a/2)/a²`` do not
    cancel. Hence ``ulps · eps · (1 + condition)``; the Taylor branch (a² < 1) is a polynomial of positive terms,
    ``ulps · eps``."""
    angle_sq = np.asarray(angle_sq, dtype=float)
    a = np.sqrt(np.maximum(angle_sq, 1.0))  # the condition only matters in the closed-form branch
    if coefficient == "s3":
        condition = np.abs(np.sin(a)) / np.abs(a - np.sin(a))
    elif coefficient == "c":
        x_cot_x = (a / 2) / np.tan(a / 2)
        condition = np.abs(x_cot_x) / np.abs(1.0 - x_cot_x)
    elif coefficient in ("s1", "s2"):
        condition = np.zeros_like(a)
    else:
        raise ValueError(coefficient)
    return ulps * EPS * np.where(angle_sq < 1.0, 1.0, 1.0 + condition)
