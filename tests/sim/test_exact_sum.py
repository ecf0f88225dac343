"""sim/exact_sum.py: each row's sum bit for bit math.fsum's, on rows built to make naive sums wrong."""

import math

import numpy as np
import pytest

from spinlab.sim.exact_sum import fsum_rows


def _bits(values) -> np.ndarray:
    return np.asarray(values, dtype=np.float64).view(np.uint64)


def _rows(seed: int, count: int, width: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    rows = rng.normal(size=(count, width)) * 10.0 ** rng.integers(-40, 40, size=(count, width))
    # Cancellations: a row's terms and their negatives, shuffled, plus a small remainder.
    half = width // 2
    rows[: count // 3, half : 2 * half] = -rows[: count // 3, :half]
    rows[: count // 3, -1] = rng.normal(size=count // 3) * 1e-30
    # Ties for round-half-even: 1, 2⁻⁵³ and smaller bits, with both signs.
    if width >= 4:
        ties = rows[count // 3 : count // 3 + 64]
        ties[:] = 0.0
        ties[:, 0] = 1.0
        ties[:, 1] = np.where(np.arange(64) % 2, 2.0**-53, -(2.0**-53))
        ties[:, 2] = np.where(np.arange(64) % 4 < 2, 2.0**-106, -(2.0**-106))
        ties[:, 3] = np.where(np.arange(64) % 8 < 4, 0.0, 2.0**-160)
    rows[-8:] = 0.0  # zeros, and a row of -0.0
    rows[-1] = -0.0
    for row in rows[:: max(count // 50, 1)]:
        np.random.default_rng(seed).shuffle(row)
    return rows


@pytest.mark.parametrize("seed, width", [(0, 32), (1, 7), (2, 1), (3, 64)])
def test_each_row_is_math_fsum_bit_for_bit(seed, width):
    rows = _rows(seed, 3000, width)
    expected = [math.fsum(row) for row in rows.tolist()]
    np.testing.assert_array_equal(_bits(fsum_rows(rows)), _bits(expected))


def test_a_sum_that_overflows_is_not_finite_where_math_fsum_raises():
    rows = np.array([[1.7e308, 1.7e308, -1.0], [1.0, 2.0, 3.0]])
    with pytest.raises(OverflowError):
        math.fsum(rows[0])
    sums = fsum_rows(rows)
    assert not np.isfinite(sums[0]) and sums[1] == 6.0


def test_the_separatrix_gaps_are_the_same_bits_compiled_or_not(monkeypatch):
    from spinlab.sim import exact_batch

    rng = np.random.default_rng(5)
    moments = np.sort(rng.uniform(0.1, 3.0, size=(400, 3)), axis=1)
    omega = rng.normal(scale=5.0, size=(400, 3)) * 10.0 ** rng.integers(-3, 3, size=(400, 1))
    omega[:40, 1] = 0.0
    moments[40:80, 1] = moments[40:80, 0]  # axisymmetric
    monkeypatch.setattr(exact_batch, "COMPILED_SUM_ROWS", 10**9)
    summed_in_python = exact_batch.separatrix_gaps(moments, omega)
    monkeypatch.setattr(exact_batch, "COMPILED_SUM_ROWS", 0)
    monkeypatch.setattr(exact_batch, "NUMBA_SUM_ROWS", 0)
    compiled = exact_batch.separatrix_gaps(moments, omega)
    np.testing.assert_array_equal(_bits(compiled), _bits(summed_in_python))
