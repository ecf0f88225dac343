"""sim/integrators/kernel_twins.py and sim/compiled.py's lists: the paths without numba give the kernels' bits.

Bit for bit, not to a tolerance: ``run`` steps small worlds on these paths (scene/running/runner.py), and a trace must
be the compiled path's bytes (tests/test_trace_digest.py). Steps from 1/240 s (the Taylor branches, one piece) to
3 s (the closed-form Rodrigues coefficients, sub-stepping, Newton failures), with and without a torque.
"""

import numpy as np
import pytest

from spinlab.sim import compiled, jit
from spinlab.sim.errors import NumericalError
from spinlab.sim.integrators import CLAIMS, INTEGRATORS, kernel_twins
from spinlab.sim.integrators.newton import NewtonOptions
from spinlab.sim.integrators.state import low_part
from spinlab.sim.integrators.torque import LeverTorque
from tests.sim.test_integrators import _random_bodies

STEPS_S = (1.0 / 240.0, 0.05, 0.5, 3.0)
N_STEPS = 6


def _steps(name, state, params, h, backend, **options):
    """``N_STEPS`` steps: the states and costs after each, or the error's message where one is raised."""
    trail = []
    try:
        for _ in range(N_STEPS):
            state, cost = INTEGRATORS[name](state, params, h, backend=backend, **options)
            trail.append((state.q, low_part(state), state.omega_world, state.L_world, cost.newton_iterations,
                          cost.substeps))  # fmt: skip
    except NumericalError as error:
        trail.append(str(error))
    return trail


def _assert_same_bits(a, b) -> None:
    assert len(a) == len(b)
    for left, right in zip(a, b, strict=True):
        if isinstance(left, str) or isinstance(right, str):
            assert left == right
        else:
            for x, y in zip(left, right, strict=True):
                np.testing.assert_array_equal(x, y, strict=True)


def _cases(names):
    return [
        (name, torque, h)
        for name in sorted(names)
        if name in INTEGRATORS
        for torque in (False, True)
        if CLAIMS[name].accepts_torque or not torque
        for h in STEPS_S
    ]


@pytest.mark.parametrize(("name", "torque", "h"), _cases(compiled.TWINS))
def test_a_twin_gives_its_kernels_bits(name, torque, h):
    state, params = _random_bodies(40, 7, torque=torque)
    _assert_same_bits(_steps(name, state, params, h, "twin"), _steps(name, state, params, h, "numba"))


@pytest.mark.parametrize(("name", "torque", "h"), _cases(compiled.KERNEL_BITS_ON_NUMPY))
def test_a_numpy_path_listed_as_the_kernels_bits_gives_them(name, torque, h):
    state, params = _random_bodies(40, 7, torque=torque)
    _assert_same_bits(_steps(name, state, params, h, "numpy"), _steps(name, state, params, h, "numba"))


@pytest.mark.parametrize("name", sorted(name for name in compiled.TWINS if name.startswith("split")))
@pytest.mark.parametrize("h", STEPS_S)
def test_a_split_twin_under_a_lever_torque_gives_its_kernels_bits(name, h):
    # Gravity about a pivot, as the world hands it to the splittings: τ = (O r) × f at every kick.
    state, params = _random_bodies(30, 9)
    rng = np.random.default_rng(9)
    lever = LeverTorque(rng.normal(size=(30, 3)), rng.normal(size=(30, 3)))
    twin = _steps(name, state, params, h, "twin", orientation_torque=lever)
    _assert_same_bits(twin, _steps(name, state, params, h, "numba", orientation_torque=lever))


def test_a_twin_sub_steps_and_fails_as_its_kernel_does():
    # Two Newton iterations at most and a shallow halving: at h = 3 s some bodies need pieces, some fail.
    state, params = _random_bodies(40, 3)
    newton = NewtonOptions(max_iterations=2, max_substep_depth=2)
    twin = _steps("implicit_midpoint", state, params, 3.0, "twin", newton=newton)
    _assert_same_bits(twin, _steps("implicit_midpoint", state, params, 3.0, "numba", newton=newton))
    assert isinstance(twin[-1], str)  # the case is the failing one it is meant to be


@pytest.mark.parametrize("name", ["implicit_midpoint", "split2", "magnus", "rkmk4"])
def test_where_pythons_floats_raise_a_twin_gives_its_kernels_bits(name, monkeypatch):
    # A zero quaternion: its normalisation divides 0 by 0, nan in the kernel, ZeroDivisionError on Python's floats;
    # the step is then taken again on numpy's scalars, which follow the kernel's error model.
    state, params = _random_bodies(3, 11, torque=False)
    q = state.q.copy()
    q[1] = 0.0
    state = type(state)(q, state.omega_world, state.L_world)
    fallbacks = []
    original = jit.plain
    monkeypatch.setattr(kernel_twins, "plain", lambda path, **kw: fallbacks.append(kw) or original(path, **kw))
    twin = _steps(name, state, params, 1.0 / 240.0, "twin")
    _assert_same_bits(twin, _steps(name, state, params, 1.0 / 240.0, "numba"))
    assert {"numpy_math": True} in fallbacks and isinstance(twin[-1], str)  # it fell back, and reports the body


@pytest.mark.parametrize("name", ["implicit_midpoint", "im6"])
@pytest.mark.parametrize("h", STEPS_S)
def test_without_the_gyroscopic_term_a_twin_gives_its_kernels_bits(name, h):
    # The implicit methods are then Magnus' first term, on its twin; at h = 0.05 s and this seed Magnus' numpy path
    # parts from the kernel by an ulp, so this tells the two apart.
    state, params = _random_bodies(20, 5)
    params = type(params)(params.inertia_body, params.inertia_body_inv, params.torque_world, False)
    _assert_same_bits(_steps(name, state, params, h, "twin"), _steps(name, state, params, h, "numba"))


def test_stand_ins():
    with compiled.gated():
        assert compiled.stand_in("implicit_midpoint") == "numpy"  # the references, unless twins are asked for
    with compiled.gated(stand_in="twin"):
        assert compiled.stand_in("implicit_midpoint") == "twin"
        assert compiled.stand_in("implicit_midpoint", 10**6) == "twin"  # run's policy chose them, whatever the size
        assert compiled.stand_in("im6") == "twin"
        assert compiled.stand_in("euler") == "numpy"
        assert compiled.stand_in("rkmk4") == "twin"
        assert compiled.stand_in("catto2015") == "numpy"
        assert not compiled.is_ready("implicit_midpoint")
    compiled.start_on_numpy()  # the window's start: plain below PLAIN_BODIES, the references above
    try:
        assert compiled.stand_in("im6", compiled.PLAIN_BODIES - 1) == "twin"
        assert compiled.stand_in("im6", compiled.PLAIN_BODIES) == "numpy"
        assert compiled.off_kernel_bits(["im6"] * compiled.PLAIN_BODIES + ["euler"]) == {"im6"}
    finally:
        compiled._state.update(gated=False, plain_below=0)
    assert compiled.kernel_bits_without_numba(["euler", None, "trapezoidal", "im6"])
    assert not compiled.kernel_bits_without_numba(["euler", "axes4"])  # no twin, and a numpy path of other bits


def test_the_plain_copy_is_plain_python_and_the_module_compiled():
    from pathlib import Path
    from types import FunctionType

    from spinlab.sim.integrators import _kernels

    plain = jit.plain(Path(kernel_twins.__file__).with_name("_kernels.py"))
    assert type(plain.implicit_kernel) is FunctionType and type(plain.rodrigues_coefficients) is FunctionType
    assert type(_kernels.implicit_kernel) is not FunctionType  # numba's dispatcher
    assert plain.implicit_kernel.__module__ != _kernels.implicit_kernel.__module__
