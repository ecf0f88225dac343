"""The integrators' colours side by side (scene/model/palette.py): one for every integrator, and every pair told apart
(CIELAB ΔE*76 of the worst pair), bright enough for the dark views and plots."""

import itertools

import numpy as np
import pytest

from spinlab.scene.model.palette import (
    ENGINE_SRGB,
    INTEGRATOR_COLORS,
    INTEGRATOR_SRGB,
    cielab,
    hex_srgb,
    integrator_color,
)
from spinlab.sim.integrators import ENGINE_STEPS, FAMILIES, INTEGRATORS

MIN_DELTA_E = 30.0  # a just-noticeable difference is ~2.3; lines 1.5 px wide need far more
LIGHTNESS = (50.0, 90.0)  # L*: readable on the views' and plots' dark backgrounds (L* ~ 8–27)


def test_every_integrator_has_a_colour_of_its_own():
    assert set(INTEGRATOR_SRGB) == set(INTEGRATORS)
    assert all(integrator_color(name, 0) == INTEGRATOR_COLORS[name] for name in INTEGRATORS)


@pytest.mark.parametrize("family", ["methods", "engines", "axes"])
def test_the_worst_pair_of_integrator_colours_is_far_apart_in_cielab(family):
    """Within each family compared side by side (the maths' methods; the engines' steps and the rotations about the
    principal axes, each with the exact solution)."""
    names = set(FAMILIES["all"]) if family == "methods" else set(FAMILIES[family]) | {"exact"}
    lab = {name: cielab(hex_srgb(INTEGRATOR_SRGB[name])) for name in names}
    worst = min(itertools.combinations(lab, 2), key=lambda pair: np.linalg.norm(lab[pair[0]] - lab[pair[1]]))
    distance = float(np.linalg.norm(lab[worst[0]] - lab[worst[1]]))
    assert distance > MIN_DELTA_E, (worst, distance)
    lightness = np.array([value[0] for value in lab.values()])
    assert np.all((lightness >= LIGHTNESS[0]) & (lightness <= LIGHTNESS[1]))
    assert set(ENGINE_SRGB) == set(FAMILIES["engines"])
    assert all(
        INTEGRATOR_SRGB[f"{name}_f32"] == INTEGRATOR_SRGB[name] for name in ENGINE_SRGB if f"{name}_f32" in ENGINE_STEPS
    )


def test_cielab_of_known_colours():
    np.testing.assert_allclose(cielab(np.ones(3)), [100.0, 0.0, 0.0], atol=0.05)
    np.testing.assert_allclose(cielab(np.zeros(3)), [0.0, 0.0, 0.0], atol=1e-9)
    np.testing.assert_allclose(cielab(np.array([1.0, 0.0, 0.0])), [53.24, 80.09, 67.20], atol=0.1)  # sRGB red
