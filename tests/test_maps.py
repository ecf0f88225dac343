"""Tests of benchmarks/maps*.py: seed 003's energy and convergence maps (measures, run, images, tables, note)."""

import json
import math
import sys

import numpy as np
import pytest
from scipy.linalg import expm

from spinlab.benchmarks import maps, maps_images, maps_measures
from spinlab.sim.integrators import INTEGRATORS
from spinlab.sim.integrators.newton import NewtonOptions
from spinlab.sim.integrators.state import BodyParams, BodyState, energy
from spinlab.sim.quaternion import quat_identity

MOMENTS = np.array(maps_measures.MOMENTS)
ATOL_RAD = 1e-10
RTOL_ENERGY = 1e-9
ATOL_ENERGY = 1e-15


def _hat(x):
    return np.array([[0.0, -x[2], x[1]], [x[2], 0.0, -x[0]], [-x[1], x[0], 0.0]])


def test_momentum_grid_pixel_centres_and_layout():
    axis, ell_body = maps_measures.momentum_grid(15.0, 4)
    np.testing.assert_allclose(axis, [-11.25, -3.75, 3.75, 11.25])
    assert ell_body.shape == (16, 3) and not ell_body[:, 2].any()
    image_x, image_y = ell_body[:, 0].reshape(4, 4), ell_body[:, 1].reshape(4, 4)
    np.testing.assert_array_equal(image_x[0], axis)  # ℓ_x across a row
    np.testing.assert_array_equal(image_y[:, 0], axis)  # ℓ_y down the rows


def test_fixed_point_and_newton_agree_where_both_converge():
    _, ell_body = maps_measures.momentum_grid(1.5, 12)
    v_newton, ok_newton, it_newton = maps_measures.newton_iterations(ell_body, tolerance=1e-12)
    v_fixed, ok_fixed, it_fixed = maps_measures.fixed_point_iterations(ell_body, tolerance=1e-12, max_iterations=80)
    both = ok_newton & ok_fixed
    assert both.sum() >= 20 and ok_newton.all()
    np.testing.assert_allclose(v_fixed[both], v_newton[both], rtol=0, atol=ATOL_RAD)
    assert (it_fixed[both] > it_newton[both]).all()  # linear against quadratic convergence
    # The common root solves the midpoint equation v = h I⁻¹ R(−v/2) ℓ, with R from scipy's matrix exponential.
    for index in np.flatnonzero(both)[:: max(1, both.sum() // 5)]:
        v = v_newton[index]
        np.testing.assert_allclose(v, (expm(_hat(-0.5 * v)) @ ell_body[index]) / MOMENTS, rtol=0, atol=ATOL_RAD)


def test_fixed_point_counts_and_failures():
    ell_body = np.array([[0.0, 0.0, 0.0], [0.3, 0.2, 0.0], [12.0, 5.0, 0.0]])
    v, converged, iterations = maps_measures.fixed_point_iterations(ell_body)
    assert converged.tolist() == [True, True, False]
    assert iterations[0] == 0 and 0 < iterations[1] <= maps_measures.MAX_ITERATIONS
    assert iterations[2] == maps_measures.MAX_ITERATIONS
    np.testing.assert_array_equal(v[0], 0.0)


@pytest.mark.parametrize("name", maps_measures.METHODS)
@pytest.mark.parametrize("max_step_angle", [None, 1.0, math.pi])
def test_energy_change_matches_a_single_body_step(name, max_step_angle):
    ell_body = np.array([[3.0, -2.0, 0.0], [-40.0, 25.0, 0.0], [0.5, 49.0, 0.0], [17.0, 0.25, 0.0]])
    change, _, substeps = maps_measures.energy_change(name, ell_body, max_step_angle=max_step_angle)
    inertia = np.diag(MOMENTS)[None]
    params = BodyParams.from_inertia(inertia)
    for index, ell in enumerate(ell_body):
        state = BodyState.from_omega_body(quat_identity((1,)), (ell / MOMENTS)[None], inertia)
        new_state = state
        if max_step_angle is None:
            pieces = math.ceil(np.linalg.norm(ell) / ((math.sqrt(3.0) - 1.0) * 1.3))
            assert substeps[index] >= pieces
            for _ in range(pieces):
                new_state, _ = INTEGRATORS[name](new_state, params, 1.0 / pieces)
        else:
            new_state, _ = INTEGRATORS[name](state, params, 1.0, newton=NewtonOptions(max_step_angle=max_step_angle))
        expected = abs(energy(new_state)[0] / energy(state)[0] - 1.0)
        assert change[index] == pytest.approx(expected, rel=RTOL_ENERGY, abs=ATOL_ENERGY)
    if name != "object_trapezoidal":  # which conserves the energy to rounding
        assert change.min() > 1e-7


def test_kantorovich_disc_by_hand():
    # I_min = 1.3 kg m², so the disc is h |ℓ| ≤ (√3 − 1) · 1.3 = 0.95167 kg m²/s.
    ell_body = np.array([[0.95, 0.0, 0.0], [0.0, 0.96, 0.0], [0.6, 0.7, 0.0], [0.7, 0.7, 0.0], [0.0, 0.0, 0.0]])
    assert maps_measures.kantorovich_disc(ell_body).tolist() == [True, False, True, False, True]
    assert maps_measures.kantorovich_disc(np.array([[1.9, 0.0, 0.0]]), h=0.5).tolist() == [True]
    # 50 / 0.95167 = 52.54 → 53 pieces; 0.95 needs one, 0.96 two.
    ell_body = np.array([[50.0, 0.0, 0.0], [0.95, 0.0, 0.0], [0.96, 0.0, 0.0], [0.0] * 3])
    pieces = maps_measures.kantorovich_pieces(ell_body)
    assert pieces.tolist() == [53, 1, 2, 1]


def test_kantorovich_pointwise_by_hand():
    # ℓ = (1, 0, 0): F(0) = (−0.4, 0, 0), F'(0) = 1 − ½ I⁻¹ [ℓ] leaves x alone, and its yz block
    # [[1, 1/2.8], [−1/2.6, 1]] has an inverse of norm 0.950 < 1, so β = 1, η = 0.4, K = 0.375/1.3 and
    # β K η = 0.115 ≤ ½: inside, though outside the disc (|ℓ| = 1 > 0.952).
    # ℓ = (0, 1, 0): η = 1/1.4, β = 1.0531 (the xz block [[1, −0.2], [1/2.6, 1]]), K = 0.375/1.3: 0.217, inside.
    # ℓ = (0, 2, 0): η = 2/1.4, β ≥ 1, K = 0.75/1.3: at least 0.824, outside; ℓ = (3, 0, 0): at least 1.04, outside.
    ell_body = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 2.0, 0.0], [3.0, 0.0, 0.0]])
    assert maps_measures.kantorovich_pointwise(ell_body).tolist() == [True, True, False, False]
    assert maps_measures.kantorovich_disc(ell_body).tolist() == [False, False, False, False]
    # The theorem's promise: Newton converges from v = 0 wherever the condition holds.
    _, ell_grid = maps_measures.momentum_grid(2.0, 30)
    inside = maps_measures.kantorovich_pointwise(ell_grid)
    assert inside.sum() > maps_measures.kantorovich_disc(ell_grid).sum() > 0
    assert maps_measures.newton_iterations(ell_grid[inside])[1].all()


@pytest.fixture(scope="module")
def quick_result(tmp_path_factory):
    return maps.run(True, image_dir=tmp_path_factory.mktemp("maps"))


def test_quick_run_has_what_format_table_reads(quick_result):
    json.dumps(quick_result)  # JSON-serialisable, as the runner writes it
    energy_part, convergence = quick_result["energy"], quick_result["convergence"]
    assert {(r["setting"], r["integrator"]) for r in energy_part["rows"]} == {
        (setting, name) for setting, _ in maps_measures.SETTINGS for name in maps_measures.METHODS
    }
    row_keys = {"setting", "max_step_angle", "integrator", "worst", "worst_at", "median", "newton_iterations_mean",
                "substeps_mean", "substeps_max"}  # fmt: skip
    assert all(set(r) >= row_keys for r in energy_part["rows"])
    for grid in convergence["grids"]:
        for key in ("newton", "fixed_point"):
            assert {"converged_fraction", "converged_within_pi_fraction", "median_iterations", "max_iterations",
                    "converged_in_disc", "converged_in_pointwise"} <= set(grid[key])  # fmt: skip
        assert 0.0 < grid["disc_fraction"] < grid["pointwise_fraction"] < 1.0
        assert grid["newton"]["converged_in_pointwise"]
    table = maps.format_table(quick_result)
    assert "| cap π (default) | implicit_midpoint |" in table and "Kantorovich disc" in table
    # The figures behind the note: the object-space rule conserves energy to rounding, the others do not.
    worst = {(r["setting"], r["integrator"]): r["worst"] for r in energy_part["rows"]}
    assert worst[("cap_pi", "object_trapezoidal")] < 1e-12 < 1e-3 < worst[("cap_pi", "implicit_midpoint")]


def test_quick_run_writes_png_images(quick_result):
    pytest.importorskip("matplotlib", reason="matplotlib (the 'peers' extra) draws the maps")
    images = quick_result["images"]
    assert isinstance(images, list) and len(images) == 2
    for path in images:
        with open(path, "rb") as file:
            assert file.read(8) == b"\x89PNG\r\n\x1a\n"


def test_the_note_is_written_from_a_run(quick_result, tmp_path):
    maps.write_docs(quick_result, tmp_path)
    note = (tmp_path / "docs" / "maps.md").read_text(encoding="utf-8")
    assert note.startswith("# Seed 003's maps, reproduced") and maps.format_table(quick_result) in note
    assert [p.name for p in (tmp_path / "docs").iterdir()] == ["maps.md"]


def test_images_skipped_with_a_note_without_matplotlib(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now raises ImportError
    note = maps_images.write_images({}, {}, [], tmp_path)
    assert note.startswith("skipped: matplotlib is not installed")
    assert list(tmp_path.iterdir()) == []
    assert "Images: skipped" in maps.format_table({**_minimal_result(), "images": note})


def _minimal_result():
    return {"moments": maps_measures.MOMENTS, "h": 1.0, "energy": {"extent": 50.0, "grid": 2, "rows": []},
            "convergence": {"tolerance": 1e-10, "max_iterations": 10, "disc_radius": 0.95, "grids": []}}  # fmt: skip
