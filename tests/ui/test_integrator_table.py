"""ui/integrator_table.py: the cost table's median, taken without numpy, is numpy's."""

import numpy as np
import pytest

from spinlab.ui.integrator_table import WINDOW, _median


@pytest.mark.parametrize("size", range(1, WINDOW + 1))
def test_the_median_is_numpys(size):
    rng = np.random.default_rng(size)
    for _ in range(50):
        values = tuple(rng.lognormal(size=size) * 10.0 ** rng.integers(-3, 4))
        assert _median(values) == float(np.median(values))


def test_a_nan_makes_the_median_nan():
    assert np.isnan(_median((1.0, float("nan"), 3.0)))
    assert np.isnan(float(np.median((1.0, float("nan"), 3.0))))  # as numpy's
