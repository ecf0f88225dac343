"""sim/integrators/stacked.py: each helper over stacked arrays gives, bit for bit, what the kernel's own helper gives
over tuples of (n,) arrays (sim/integrators/_kernels.py run as numpy by kernel_twins.py), on values that include
signed zeros, magnitudes from 1e-200 to 1e200 and near-singular Jacobians.

Bits, not a tolerance: the implicit twins run on these helpers and must reproduce the compiled kernels' traces.
"""

import numpy as np
import pytest

from spinlab.sim.integrators import kernel_twins, stacked

N_BODIES = 257
SEED = 20261127


def _values(rng, *shape):
    """Random float64 of ``shape`` (the bodies last): normal values, some scaled far up or down, some ±0."""
    x = rng.normal(size=shape)
    x *= 10.0 ** rng.choice([-200, -8, 0, 0, 0, 0, 3, 150], size=shape)
    zeros = rng.random(shape) < 0.05
    x[zeros] = np.copysign(0.0, rng.normal(size=shape))[zeros]
    return x


def _tuples(x):
    """A stacked array as the kernels' tuples: a vector (3, n) as 3 (n,) rows, a matrix (3, 3, n) as rows of them."""
    if x.ndim == 1:
        return x.copy()
    return tuple(_tuples(part) for part in x)


def _bits(x) -> np.ndarray:
    """The bit patterns of ``x`` (an array, or the kernels' nested tuples, whose numbers stand for every body)."""
    return np.ascontiguousarray(_stacked(x), dtype=np.float64).view(np.uint64)


def _stacked(x):
    """The kernels' nested tuples of (n,) arrays and numbers as one array, bodies last."""
    if isinstance(x, tuple):
        parts = [np.asarray(_stacked(part), dtype=np.float64) for part in x]
        return np.stack(np.broadcast_arrays(*parts))
    return x


def _arguments(rng, kinds):
    values = {
        "s": lambda: _values(rng, N_BODIES),
        "v": lambda: _values(rng, 3, N_BODIES),
        "m": lambda: _values(rng, 3, 3, N_BODIES),
        "q": lambda: _values(rng, 4, N_BODIES),
        # A Newton Jacobian: near the identity, as the kernels solve them.
        "j": lambda: np.eye(3)[..., None] + 1e-3 * rng.normal(size=(3, 3, N_BODIES)),
    }
    return [values[kind]() for kind in kinds]


HELPERS = {
    "add": "vv",
    "sub": "vv",
    "scale": "sv",
    "dot": "vv",
    "cross": "vv",
    "matvec": "mv",
    "matmul": "mm",
    "transpose": "m",
    "subtract": "mm",
    "hat": "v",
    "hat_times": "vm",
    "first_order_map": "vssv",
    "first_order_matrix": "vss",
    "identity_minus": "sm",
    "solve": "jv",
    "to_world": "qv",
    "to_body": "qv",
    "quat_mul": "qq",
    "quat_normalize": "q",
    "newton_curvature": "mvvs",
}


@pytest.mark.parametrize("name", sorted(HELPERS))
def test_a_stacked_helper_gives_the_kernels_bits(name):
    rng = np.random.default_rng([SEED, sorted(HELPERS).index(name)])
    arguments = _arguments(rng, HELPERS[name])
    with np.errstate(all="ignore"):  # the kernel's error model: overflow gives inf in both
        expected = kernel_twins._kernels()[name](*(_tuples(x) for x in arguments))
        got = getattr(stacked, name)(*arguments)
    np.testing.assert_array_equal(_bits(got), _bits(expected), strict=True)


def test_every_helper_is_checked():
    assert set(HELPERS) == set(stacked.__all__) - {"overrides", "is_finite_state", "compensated_step"}


@pytest.mark.parametrize("sides", ["both", "right", "left"])
def test_the_stacked_compensated_step_gives_each_bodys_bits(sides):
    """Per body it branches (a q far off unit length is normalised): checked against the kernel's own function run
    body by body on Python's floats, on unit quaternions with low parts, small turns and a few bodies off unit."""
    rng = np.random.default_rng([SEED, 99, len(sides)])
    high = rng.normal(size=(4, N_BODIES))
    high /= np.sqrt((high * high).sum(axis=0))
    high[:, :5] *= 1.5  # off unit length
    low = 1e-17 * rng.normal(size=(4, N_BODIES))
    low[:, 5:9] = np.copysign(0.0, rng.normal(size=(4, 4)))

    def turn():
        vector = 1e-3 * rng.normal(size=(3, N_BODIES))
        return np.concatenate((-0.5 * (vector * vector).sum(axis=0)[None], vector))

    left = None if sides == "right" else turn()
    right = None if sides == "left" else turn()
    got_high, got_low = stacked.compensated_step(high, low, left, right)
    kernel = kernel_twins._float_kernels()["compensated_step"]
    no_turn = (0.0, 0.0, 0.0, 0.0)
    for n in range(N_BODIES):
        expected_high, expected_low = kernel(
            tuple(high[:, n].tolist()), tuple(low[:, n].tolist()),
            no_turn if left is None else tuple(left[:, n].tolist()),
            no_turn if right is None else tuple(right[:, n].tolist()),
        )  # fmt: skip
        np.testing.assert_array_equal(_bits(got_high[:, n]), _bits(np.array(expected_high)), strict=True)
        np.testing.assert_array_equal(_bits(got_low[:, n]), _bits(np.array(expected_low)), strict=True)


@pytest.mark.parametrize("mixed", [False, True])
@pytest.mark.parametrize("angle_sq", [0.0, 1e-9, 9e-4, 1e-3, 5e-3, 0.05, 0.5, 0.999, 3.0])
def test_the_rodrigues_coefficients_over_arrays_take_each_elements_tier(angle_sq, mixed):
    # One tier for all (the fast path), or mixed with smaller and larger elements and a nan: against the kernel's
    # own code run on each element as a numpy scalar.
    rng = np.random.default_rng([SEED, int(angle_sq * 1e9), mixed])
    x = angle_sq * (1.0 + 1e-3 * rng.random(N_BODIES))
    if mixed:
        x *= rng.choice([1e-4, 0.3, 1.0, 4.0], size=N_BODIES)
        x[7] = np.nan
    per_element = kernel_twins._scalar_kernels()["rodrigues_coefficients"]
    with np.errstate(all="ignore"):
        expected = np.array([per_element(value) for value in x]).T
        got = kernel_twins._stacked_kernels()["rodrigues_coefficients"](x)
    np.testing.assert_array_equal(_bits(np.stack(got)), _bits(expected), strict=True)


@pytest.mark.parametrize("scale", [1e-9, 1e-3, 0.05, 0.4, 3.0])
def test_the_stacked_exponential_gives_the_kernels_bits(scale):
    rng = np.random.default_rng([SEED, int(scale * 1e9)])
    v = scale * rng.normal(size=(3, N_BODIES)) * rng.choice([1.0, 0.1, 0.01], size=N_BODIES)
    per_body = kernel_twins._scalar_kernels()["quat_exp"]
    expected = np.array([per_body(tuple(column)) for column in v.T]).T
    got = kernel_twins._stacked_kernels()["quat_exp"](v)
    np.testing.assert_array_equal(_bits(got), _bits(expected), strict=True)


def test_the_stacked_finiteness_is_the_kernels():
    rng = np.random.default_rng(SEED)
    q, omega, L = (_values(rng, rows, N_BODIES) for rows in (4, 3, 3))
    for x, value in ((q, np.nan), (omega, np.inf), (L, -np.inf)):
        x[rng.integers(x.shape[0], size=9), rng.integers(N_BODIES, size=9)] = value
    expected = kernel_twins._is_finite_state(_tuples(q), _tuples(omega), _tuples(L))
    got = stacked.is_finite_state(q, omega, L)
    np.testing.assert_array_equal(got, expected, strict=True)
    assert 0 < got.sum() < N_BODIES  # some bodies of each kind
