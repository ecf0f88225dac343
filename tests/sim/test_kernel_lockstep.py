"""sim/integrators/kernel_lockstep.py: the implicit kernel's step over a whole batch at once gives the body-by-body
twin's bits (and so the compiled kernel's: tests/sim/test_kernel_twins.py steps 40 bodies, in lockstep, against
it), and leaves to the twin only the bodies out of the usual way."""

import numpy as np
import pytest

from spinlab.sim.integrators import kernel_twins
from spinlab.sim.integrators.kernel_lockstep import LOCKSTEP_BODIES, implicit_rows
from spinlab.sim.integrators.newton import NEWTON_DEFAULTS
from spinlab.sim.integrators.state import low_part
from tests.sim.test_integrators import _random_bodies

MIDPOINT = 0  # _kernels.KERNEL_METHODS["implicit_midpoint"]


def _arguments(count: int, seed: int, *, torque: bool = True) -> list:
    state, params = _random_bodies(count, seed, torque=torque)
    return [state.q, low_part(state), state.omega_world, state.L_world, params.inertia_body_inv, params.torque_world]


def _odd_bodies(arguments: list) -> list:
    """The bodies with one not finite (3), one spun too fast for Newton on the whole step (5: the kernel cuts it
    into pieces), one at rest (7) and one whose orientation is off unit length (9)."""
    q, q_low, omega, L, inertia_inv, torque = (np.array(a) for a in arguments)
    q[3, 1] = np.nan
    omega[5], L[5] = 1000.0 * omega[5], 1000.0 * L[5]
    omega[7], L[7], torque[7] = 0.0, 0.0, 0.0
    q[9] *= 1.001
    return [q, q_low, omega, L, inertia_inv, torque]


@pytest.mark.parametrize("name", ["implicit_midpoint", "trapezoidal", "object_trapezoidal"])
@pytest.mark.parametrize("h", [1.0 / 240.0, 0.5, 3.0])
def test_lockstep_gives_the_body_by_body_twins_bits(monkeypatch, name, h):
    arguments = _odd_bodies(_arguments(40, 11))
    newton = NEWTON_DEFAULTS._kernel_arguments
    lockstep = kernel_twins.implicit_step(name, *arguments, h, *newton)
    monkeypatch.setattr(kernel_twins, "LOCKSTEP_BODIES", 10**9)
    for ours, theirs in zip(lockstep, kernel_twins.implicit_step(name, *arguments, h, *newton), strict=True):
        np.testing.assert_array_equal(ours, theirs, strict=True)


def test_only_the_bodies_out_of_the_usual_way_are_left_to_the_twin():
    arguments = _odd_bodies(_arguments(LOCKSTEP_BODIES, 5, torque=False))
    outputs = kernel_twins._implicit_outputs(LOCKSTEP_BODIES)
    rows = implicit_rows(MIDPOINT, *arguments, 1.0 / 240.0, *NEWTON_DEFAULTS._kernel_arguments[:4], outputs)
    assert rows.tolist() == [3, 5, 9]  # the body at rest steps in lockstep with the others


def test_a_large_twin_step_calls_the_body_by_body_kernel_for_the_odd_bodies_alone(monkeypatch):
    calls = []
    original = kernel_twins._run
    monkeypatch.setattr(
        kernel_twins, "_run", lambda name, args, out: calls.append(len(args[1])) or original(name, args, out)
    )
    arguments = _odd_bodies(_arguments(100, 2))
    kernel_twins.implicit_step("implicit_midpoint", *arguments, 1.0 / 240.0, *NEWTON_DEFAULTS._kernel_arguments)
    assert calls == [3]  # one call, of the three odd bodies; body by body it was one call of all 100
