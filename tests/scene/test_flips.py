"""Flip counts (scene/model/flips.py) on their own and as the run model measures them per step
(scene/model/samples.py)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from spinlab.scene.files.scene_file import load_scene
from spinlab.scene.model.flips import FLIP_BAND, FlipCounter, flip_text
from spinlab.scene.model.run_model import Session, Setup, view_labels


def _run(integrator: str, seconds: float) -> Session:
    scene = load_scene("t_handle")
    session = Session(Setup(scene, (integrator,), h=scene.h))
    report = session.step(round(seconds / scene.h))
    assert report.error is None
    return session


def test_hysteresis_ignores_noise_about_zero():
    counter = FlipCounter(np.array([0.1]))
    # Up, then jitter across zero inside the band many times, then a real crossing, then back within the band.
    values = np.array([1.0, 0.05, -0.05, 0.05, -0.09, 0.09, -0.5, -0.05, 0.05, 0.09])[:, None]
    counts = counter.update(values)
    assert counts[:, 0].tolist() == [0, 0, 0, 0, 0, 0, 1, 1, 1, 1]


def test_batches_carry_the_side_and_count_over():
    values = np.sin(np.linspace(0.0, 7.0 * np.pi, 700))[:, None] * np.array([1.0, 2.0])
    whole = FlipCounter(np.array([0.1, 0.1])).update(values)
    split = FlipCounter(np.array([0.1, 0.1]))
    parts = [split.update(values[:1]), split.update(values[1:250]), split.update(values[250:])]
    np.testing.assert_array_equal(np.concatenate(parts), whole)
    assert whole[-1].tolist() == [6, 6]  # seven half waves: six sign changes
    assert split.update(np.zeros((0, 2))).shape == (0, 2)


def test_first_side_is_not_a_flip_and_nan_holds_the_side():
    counter = FlipCounter(np.array([0.1]))
    counts = counter.update(np.array([0.0, np.nan, -1.0, np.nan, np.inf, 1.0])[:, None])
    assert counts[:, 0].tolist() == [0, 0, 0, 0, 1, 1]  # +inf is a side (+1); the following +1 is no change


def test_band_is_a_fraction_of_the_initial_speed():
    assert FlipCounter.for_speeds(np.array([5.0, -2.0])).band.tolist() == pytest.approx([5 * FLIP_BAND, 2 * FLIP_BAND])


def test_t_handle_counts_equal_the_exact_count_for_im6():
    sample = _run("im6", 20.0).latest.sample
    flips, exact = sample.flips[:, 0], sample.flips_exact[:, 0]
    assert exact[-1] >= 2  # the handle turns over about every 8 s
    np.testing.assert_array_equal(flips, exact)
    # Counts only grow, one at a time.
    assert set(np.diff(exact).tolist()) <= {0.0, 1.0}


def test_euler_drifts_from_the_exact_count():
    sample = _run("euler", 20.0).latest.sample
    assert sample.flips[-1, 0] != sample.flips_exact[-1, 0]


def test_view_label_shows_both_counts():
    session = _run("im6", 20.0)
    (label,) = view_labels(session, session.groups)
    count = int(session.latest.sample.flips[-1, 0])
    assert label[-1] == f"flips {count} (exact {count})"


def test_no_exact_count_under_torque():
    session = Session(Setup(load_scene("heavy_top"), ("implicit_midpoint",), h=load_scene("heavy_top").h))
    session.step(30)
    sample = session.latest.sample
    assert np.isnan(sample.flips_exact).all()
    assert np.isfinite(sample.flips).all()


def test_flip_text():
    assert flip_text(7.0, 7.0) == "flips 7 (exact 7)"
    assert flip_text(3.0, np.nan) == "flips 3"
    assert flip_text(np.nan, 1.0) == ""
    assert flip_text([6.0, 3.0], [6.0, 9.0]) == "flips 6 · 3 (exact 6 · 9)"
    assert flip_text([6.0, 3.0], [6.0, np.nan]) == "flips 6 · 3"


def test_engine_views_show_their_flips_against_the_exact_count():
    """The engines preset's views hold two bodies each (a T-handle, a racket): each view's label counts both bodies'
    flips against their closed forms' over the same time. Two of its views (four bodies) keep the test short."""
    scene = load_scene("engines")
    kept = ("mujoco_rk4", "physx")  # on its ghost; no gyroscopic term, never flips
    scene = dataclasses.replace(scene, bodies=tuple(body for body in scene.bodies if body.integrator in kept))
    session = Session(Setup(scene, tuple(body.integrator for body in scene.bodies), h=scene.h))
    assert session.step(round(12.0 / scene.h)).error is None
    sample = session.latest.sample
    exact = sample.flips_exact[-1].astype(int).tolist()  # handle, handle, racket, racket
    assert exact[0] == exact[1] >= 1 and exact[2] == exact[3] > exact[0]  # the racket flips faster
    labels = {lines[0]: lines[-1] for lines in view_labels(session, session.groups)}
    handle, racket = exact[0], exact[2]
    assert labels == {
        "mujoco_rk4": f"flips {handle} · {racket} (exact {handle} · {racket})",
        "physx": f"flips 0 · 0 (exact {handle} · {racket})",
    }
