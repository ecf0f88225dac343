"""State one test could leave to another (tests/conftest.py restores it): with pytest-xdist a worker runs any test
after any other. These run in file order."""

import mpmath

PRECISION: list[int] = []


def test_a_test_sets_mpmath_s_precision():
    PRECISION.append(mpmath.mp.prec)
    mpmath.mp.dps = 20


def test_the_next_test_has_the_precision_it_had_before():
    assert mpmath.mp.prec == PRECISION[0]
