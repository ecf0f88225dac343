"""Carlson's R_F, R_J, R_C and K from m₁ (sim/carlson.py) against mpmath, and their identities.

The sample is seeded and spans what the closed forms pass (sim/jacobi_elliptic.py's ``(cn², cn² + m₁ sn², 1, p)``
with m₁ down to subnormal) and the near-degenerate corners: an argument zero or subnormal, arguments next to each
other, ``p`` next to one of x, y, z, tiny and huge scales. Measured: every value within 0.5 ulp of mpmath's
(correctly rounded), where scipy.special was up to 3–7 ulps off on the same kind of sample.
"""

import mpmath
import numpy as np
import pytest

from spinlab.sim.carlson import EXTENDED, carlson_rc, carlson_rf, carlson_rj, complete_k_from_complement

# Rounding the wide (64-bit significand) result to float64 adds at most ½ ulp; the duplication's error before it is
# ~1e-3 ulp.
MAX_ULPS = 1.0
MPMATH_DIGITS = 60

RNG_SEED = 22
# Where numpy's longdouble is float64 the closed forms take scipy's integrals (sim/carlson.py's EXTENDED), a few
# ulps off: the bound holds for ours.
NEEDS_EXTENDED = pytest.mark.skipif(not EXTENDED, reason="no extended longdouble here: scipy's integrals are used")


def _log_uniform(rng, low, high, shape):
    return 10.0 ** rng.uniform(low, high, shape)


def _sample(k: int, size: int = 40) -> np.ndarray:
    """(rows, k) arguments: k = 3 for R_F, 4 for R_J (the last one p), 2 for R_C."""
    rng = np.random.default_rng(RNG_SEED + k)
    parts = [_log_uniform(rng, -3, 3, (size, k)), _log_uniform(rng, -150, 150, (size, k))]
    one_zero = _log_uniform(rng, -3, 3, (size, k))
    one_zero[np.arange(size), rng.integers(0, min(k, 3), size)] = 0.0  # x, y or z (R_C: x, its y set again below)
    if k == 2:
        one_zero[:, 1] = _log_uniform(rng, -3, 3, size)
    parts.append(one_zero)
    subnormal = _log_uniform(rng, -2, 2, (size, k))
    subnormal[:, 0] = _log_uniform(rng, -323, -308, size)
    parts.append(subnormal)
    close = _log_uniform(rng, -2, 2, (size, k))
    close[:, 1] = close[:, 0] * (1.0 + rng.uniform(-1e-9, 1e-9, size))
    close[:, -1] = close[:, 0] * (1.0 + rng.uniform(-1e-6, 1e-6, size))  # R_J: p next to x
    parts.append(close)
    if k >= 3:
        # The closed forms' arguments: cn², dn² = cn² + m₁ sn², 1 (and p = 1 − n sn², n < 0).
        cn2 = rng.uniform(0.0, 1.0, size) ** 6
        sn2 = 1.0 - cn2
        m1 = _log_uniform(rng, -320, 0, size)
        columns = [cn2, cn2 + m1 * sn2, np.ones(size)]
        if k == 4:
            columns.append(1.0 + _log_uniform(rng, -6, 6, size) * sn2)
        parts.append(np.stack(columns, axis=-1))
    if k == 4:
        small_p = _log_uniform(rng, -2, 2, (size, 4))
        small_p[:, 3] = _log_uniform(rng, -60, -5, size)
        parts.append(small_p)
    return np.concatenate(parts)


def _ulps(values: np.ndarray, exact: list) -> np.ndarray:
    errors = []
    for value, reference in zip(values, exact, strict=True):
        spacing = np.spacing(abs(float(reference)))
        errors.append(float(abs(mpmath.mpf(float(value)) - reference) / mpmath.mpf(float(spacing))))
    return np.array(errors)


def _reference(function, rows: np.ndarray) -> list:
    """mpmath's value, at twice the digits until two agree: its duplication loses digits to a wide spread of the
    arguments (1e-65 against 1e143: 60 digits give nothing right)."""
    values = []
    for row in rows:
        digits, previous = MPMATH_DIGITS, None
        while True:
            with mpmath.workdps(digits):
                value = +function(*(mpmath.mpf(float(a)) for a in row))
            if previous is not None and abs(value - previous) <= abs(value) * mpmath.mpf(10) ** -30:
                break
            digits, previous = 2 * digits, value
        values.append(value)
    return values


@NEEDS_EXTENDED
@pytest.mark.parametrize(
    ("ours", "theirs", "k"),
    [(carlson_rf, mpmath.elliprf, 3), (carlson_rj, mpmath.elliprj, 4), (carlson_rc, mpmath.elliprc, 2)],
    ids=["R_F", "R_J", "R_C"],
)
def test_carlson_integrals_are_mpmath_s_to_an_ulp(ours, theirs, k):
    rows = _sample(k)
    errors = _ulps(ours(*rows.T), _reference(theirs, rows))
    worst = int(np.argmax(errors))
    assert errors[worst] <= MAX_ULPS, (rows[worst], errors[worst])


@NEEDS_EXTENDED
def test_complete_k_from_its_complement_is_mpmath_s_to_an_ulp():
    rng = np.random.default_rng(RNG_SEED)
    m1 = np.concatenate([_log_uniform(rng, -323.5, 0, 120), rng.uniform(0, 1, 40), [5e-324, 1.0]])
    errors = _ulps(complete_k_from_complement(m1), _reference(lambda m: mpmath.elliprf(0, m, 1), m1[:, None]))
    assert errors.max() <= MAX_ULPS, m1[np.argmax(errors)]


def test_closed_form_identities():
    x = np.array([1e-300, 0.3, 1.0, 7.0, 1e300])
    # R_F(x, x, x) = x^{-1/2}, R_J(x, x, x, x) = x^{-3/2}, R_C(x, x) = x^{-1/2} (DLMF 19.20.1, 19.20.4).
    np.testing.assert_allclose(carlson_rf(x, x, x), x**-0.5, rtol=2 * np.finfo(float).eps)
    np.testing.assert_allclose(carlson_rc(x, x), x**-0.5, rtol=2 * np.finfo(float).eps)
    np.testing.assert_allclose(carlson_rj(x[1:4], x[1:4], x[1:4], x[1:4]), x[1:4] ** -1.5, rtol=2 * np.finfo(float).eps)
    # R_C(0, y) = π / (2√y), K(m = 0) = π/2, and R_F(x, y, y) = R_C(x, y).
    assert carlson_rc(0.0, 4.0) == np.pi / 4
    assert complete_k_from_complement(1.0) == np.pi / 2
    assert carlson_rf(0.5, 2.0, 2.0) == carlson_rc(0.5, 2.0)


def test_divergent_arguments_give_inf():
    assert complete_k_from_complement(0.0) == np.inf  # K(1) = R_F(0, 0, 1)
    assert carlson_rj(0.0, 0.0, 1.0, 2.0) == np.inf
    assert carlson_rc(1.0, 0.0) == np.inf


def test_shapes_broadcast_and_one_row_is_the_batch_s_row():
    rows = _sample(4, size=5)
    batch = carlson_rj(*rows.T)
    assert batch.shape == (len(rows),)
    # The one-row path (numpy scalars) does the batch's operations: the same bits.
    assert all(carlson_rj(*row) == value for row, value in zip(rows, batch, strict=True))
    assert carlson_rf(np.zeros((2, 1)), np.ones(3), 2.0).shape == (2, 3)


@NEEDS_EXTENDED
def test_many_arguments_are_taken_in_pieces_with_the_same_bits(monkeypatch):
    import spinlab.sim.carlson as carlson

    rng = np.random.default_rng(9)
    shape = (3, 1100)  # broadcast with a (1100,) and a scalar: 3300 elements, pieces of a few hundred
    x, y, p = _log_uniform(rng, -3, 3, shape), _log_uniform(rng, -3, 3, 1100), _log_uniform(rng, -2, 2, shape)
    x[0, :10] = 0.0
    whole = carlson_rj(x, y, 1.0, p), carlson_rf(x, y, 1.0), carlson_rc(x, p)
    monkeypatch.setattr(carlson, "_PIECE", 256)
    pieces = carlson.carlson_rj(x, y, 1.0, p), carlson.carlson_rf(x, y, 1.0), carlson.carlson_rc(x, p)
    for a, b in zip(whole, pieces, strict=True):
        assert a.shape == shape and a.tobytes() == b.tobytes()


@NEEDS_EXTENDED
def test_pieces_run_on_the_pool_s_threads_in_the_caller_s_error_state(monkeypatch):
    import threading
    import warnings

    import spinlab.sim.carlson as carlson
    import spinlab.sim.cores as cores

    monkeypatch.setattr(carlson, "_PIECE", 64)
    monkeypatch.setattr(cores, "WORKERS", 2)
    threads = set()
    original = carlson._lambda

    def traced(*roots):
        threads.add(threading.get_ident())
        return original(*roots)

    monkeypatch.setattr(carlson, "_lambda", traced)
    rng = np.random.default_rng(4)
    x, y, p = (_log_uniform(rng, -3, 3, 1000) for _ in range(3))
    p[::7] = -1.0  # outside the domain: √p is NaN, which numpy warns of unless told not to
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning on any thread would raise there, and again here
        with np.errstate(invalid="ignore"):
            values = carlson.carlson_rj(x, y, 1.0, p)
    assert threading.get_ident() not in threads and threads  # every piece on the pool's threads
    assert np.isnan(values[::7]).all() and np.isfinite(np.delete(values, np.s_[::7])).all()
    with pytest.warns(RuntimeWarning), np.errstate(invalid="warn"):
        carlson.carlson_rj(x, y, 1.0, p)
