"""The one rule for "diverged" (scene/model/failures.py's ``diverged``): a body whose energy is not finite or has
gained more than the threshold has diverged; one that loses energy, however much, has not (a damping step is
bounded), and its label says so with the sign (``damping_text``)."""

import numpy as np

from spinlab.scene.model.failures import DEFAULT_DIVERGENCE, Watch, damping_text, diverged
from spinlab.scene.model.run_model import Group

E0 = 2.0  # J, a free body's initial (kinetic) energy: its scale |T₀| + |V₀| too
T = np.linspace(0.0, 60.0, 601)  # s


def test_a_damping_series_never_diverges_however_much_it_loses():
    damped = E0 * np.exp(-T / 10.0)  # monotonically lost, bounded, finite: down to 0.25 % of E₀
    assert damped[-1] < 0.01 * E0
    assert not diverged(damped, E0, E0, DEFAULT_DIVERGENCE).any()


def test_a_growing_series_diverges_once_its_gain_passes_the_threshold():
    grown = E0 * 1.05**T  # an explicit step pumping energy in geometrically
    beyond = diverged(grown, E0, E0, DEFAULT_DIVERGENCE)
    first = int(np.argmax(beyond))
    assert beyond[first:].all() and not beyond[:first].any()
    assert grown[first] > 1.5 * E0 >= grown[first - 1]  # exactly where ΔE/E passes +0.5


def test_a_non_finite_energy_diverges_whatever_the_threshold():
    energy = np.array([np.inf, np.nan, -np.inf, E0])
    np.testing.assert_array_equal(diverged(energy, E0, E0, DEFAULT_DIVERGENCE), [True, True, True, False])
    np.testing.assert_array_equal(diverged(energy, E0, E0, np.inf), [True, True, True, False])
    # A body at rest (scale 0) has no relative error: it diverges only when its energy is not finite.
    np.testing.assert_array_equal(diverged(np.array([5.0, np.inf]), 0.0, 0.0, DEFAULT_DIVERGENCE), [False, True])


def test_the_watch_freezes_the_view_that_gains_not_the_one_that_loses():
    groups = (Group("damping", (0,)), Group("explicit", (1,)), Group("exact", (2,)))
    watch = Watch(groups, {0: 0, 1: 1, 2: 2}, 3, DEFAULT_DIVERGENCE)
    energy0 = np.full(3, E0)
    # J: 80 % lost, 60 % gained, none
    assert watch.diverged_groups(np.array([0.2, 1.6, 1.0]) * E0, energy0, energy0) == [1]
    assert watch.diverged_groups(np.array([0.0, 0.5, np.nan]), energy0, energy0) == [2]


def test_damping_text_says_the_loss_with_its_sign():
    assert damping_text(-0.507, DEFAULT_DIVERGENCE) == "ΔE \N{MINUS SIGN}51 % (damping)"
    assert damping_text(-0.3, DEFAULT_DIVERGENCE) == ""  # within the threshold: the error alone says it
    assert damping_text(0.7, DEFAULT_DIVERGENCE) == ""  # a gain past it has diverged: the view is frozen instead
    assert damping_text(np.nan, DEFAULT_DIVERGENCE) == ""
