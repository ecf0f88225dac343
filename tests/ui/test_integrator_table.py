"""ui/integrator_table.py: the cost table's medians, every integrator's at once, are numpy's of each one's last
calls; the table of a comparison is made without Python work per integrator and call held."""

import sys
import tempfile

import numpy as np
import pytest

from spinlab.ui.controller_state import PanelEdits
from spinlab.ui.integrator_table import WINDOW, _medians
from tests.ui.headless_host import headless_controller


@pytest.mark.parametrize("size", range(0, WINDOW + 1))
def test_each_rows_median_is_numpys_of_the_values_it_holds(size):
    rng = np.random.default_rng(size)
    for _ in range(20):
        recent = rng.lognormal(size=(5, WINDOW, 3)) * 10.0 ** rng.integers(-3, 4, size=(5, 1, 3))
        held = np.array([size, WINDOW, 1, 0, max(size - 1, 0)])
        medians = _medians(recent, held)
        for row, count in enumerate(held):
            expected = np.median(recent[row, :count], axis=0) if count else np.full(3, np.nan)
            np.testing.assert_array_equal(medians[row], expected)


def test_a_nan_makes_its_median_nan():
    recent = np.array([[[1.0, 1.0, 1.0], [np.nan, 2.0, 2.0], [3.0, 3.0, np.nan]]])
    medians = _medians(recent, np.array([3]))
    np.testing.assert_array_equal(np.isnan(medians[0]), [True, False, True])
    assert np.isnan(float(np.median((1.0, float("nan"), 3.0))))  # as numpy's
    np.testing.assert_array_equal(_medians(recent, np.array([1]))[0], [1.0, 1.0, 1.0])  # the NaN is not held


def test_a_comparisons_table_is_made_without_python_work_per_integrator_and_call(monkeypatch):
    """Every frame that stepped remakes the table: its medians were sorted in Python, 15 calls of 3 figures for each
    integrator (~670 Python calls a frame side by side)."""
    with tempfile.TemporaryDirectory() as folder:
        controller, host = headless_controller("t_handle", folder)
        controller.apply(PanelEdits(side_by_side=True))
        table = host.series.integrator_table
        for _ in range(WINDOW + 2):
            controller.step(1)
            table.table()
        count = len(table.rows)
        assert count >= 10
        controller.step(1)
        calls = [0]

        def counted(frame, event, arg):
            if event == "call":
                calls[0] += 1

        sys.setprofile(counted)
        try:
            rows = table.table()
        finally:
            sys.setprofile(None)
        assert len(rows) == count and all(np.isfinite(row.us) for row in rows)
        assert calls[0] < 8 * count, calls[0]
