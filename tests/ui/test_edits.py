"""What a person types: numbers, fractions, time steps and a body's initial state, checked before use."""

import warnings

import numpy as np
import pytest

from spinlab.scene.files.scene_file import load_scene
from spinlab.sim.quaternion import quat_conj, quat_rotate
from spinlab.ui.edits import EditError, body_texts, edited_body, parse_time_step, parse_vector

ATOL = 1e-12


def test_vectors_accept_commas_spaces_brackets_and_fractions():
    assert np.array_equal(parse_vector("[0.05, 5 ,0.05]", 3), [0.05, 5.0, 0.05])
    assert np.array_equal(parse_vector("1/2 1/4", 2), [0.5, 0.25])


@pytest.mark.parametrize("text", ["1, 2", "1, 2, x", "1, 2, nan", "1, 2, 1/0", ""])
def test_bad_vectors_say_why(text):
    with pytest.raises(ValueError, match="number|give 3"):
        parse_vector(text, 3)


def test_time_steps():
    assert parse_time_step("1/120") == 1 / 120
    for text in ("0", "-0.1", "2", "abc"):
        with pytest.raises(ValueError):
            parse_time_step(text)


def test_the_texts_of_a_body_read_back_to_the_same_body():
    body = load_scene("t_handle").bodies[0]
    for field, text in body_texts(body).items():
        edited = edited_body(body, field, text)
        np.testing.assert_allclose(edited.omega_parent, body.omega_parent, atol=ATOL)
        np.testing.assert_allclose(edited.inertia_body, body.inertia_body, atol=ATOL)
        np.testing.assert_allclose(edited.orientation, body.orientation, atol=ATOL)


def test_a_new_orientation_keeps_the_body_frame_spin():
    body = load_scene("t_handle").bodies[0]
    turned = edited_body(body, "orientation", "0, 0, 0, 2")  # normalised to a half turn about z
    assert np.allclose(turned.orientation, [0, 0, 0, 1])
    omega_body = quat_rotate(quat_conj(turned.orientation), turned.omega_parent)
    np.testing.assert_allclose(omega_body, [0.05, 5.0, 0.05], atol=ATOL)


def test_impossible_bodies_are_refused():
    body = load_scene("heavy_top").bodies[0]
    with pytest.raises(ValueError, match="triangle"):
        edited_body(body, "moments", "1, 1, 3")
    with pytest.raises(ValueError, match="zero"):
        edited_body(body, "orientation", "0, 0, 0, 0")
    with pytest.raises(ValueError, match="at most 1e\\+50"):
        edited_body(body, "omega_body", "1e300, 0, 0")
    moved = edited_body(body, "moments", "1, 1, 1.5")
    assert not np.array_equal(moved.inertia_body, moved.inertia_com), "a pivoted body's tensor is about the pivot"


@pytest.mark.parametrize(
    "field, text, why",
    [
        ("omega_body", "1e308, 0, 0", "at most"),
        ("omega_body", "5e-324, 0, 0", "at least"),
        ("omega_body", "nan, 0, 0", "not a finite"),
        ("omega_body", "inf, 0, 0", "not a finite"),
        ("omega_body", "1" + "0" * 400 + "/3, 0, 0", "too large"),
        ("moments", "1e308, 1e308, 1e308", "at most"),
        ("moments", "-0, 1, 1", "inertia"),
        ("moments", "5e-324, 5e-324, 5e-324", "at least"),
        ("orientation", "5e-324, 0, 0, 0", "zero"),
        ("orientation", "-0, 0, 0, 0", "zero"),
    ],
)
def test_extreme_values_are_refused_with_a_reason_and_no_warning(field, text, why):
    body = load_scene("t_handle").bodies[0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(EditError, match=why):
            edited_body(body, field, text)


def test_a_huge_quaternion_is_normalised_without_overflow():
    body = load_scene("t_handle").bodies[0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        edited = edited_body(body, "orientation", "1e308, 1e308, 0, 0")
    np.testing.assert_allclose(edited.orientation, [2**-0.5, 2**-0.5, 0, 0], atol=ATOL)


@pytest.mark.parametrize("text", ["1e-300", "5e-324", "1e308", "-0", "nan", "inf", "1/0"])
def test_time_steps_out_of_range_are_refused(text):
    with pytest.raises(EditError, match="h must be|number"):
        parse_time_step(text)
