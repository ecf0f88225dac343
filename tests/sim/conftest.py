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
