"""The integrators' kernels run plain, on Python's floats: the compiled path's bits without numba (``backend="twin"``).

sim/integrators/_kernels.py's own code (sim/jit.py's ``plain``: numba's decorator left out) called on Python's
floats performs, body by body, the IEEE operations the compiled kernel performs, in the same order (the rules that
keep this true are stated in that module's docstring); a trace stepped so has the compiled path's bytes
(tests/test_trace_digest.py). Arrays are handed to it as nested lists (:class:`_Floats`: numpy's scalars would
make every operation ten times dearer); a step of the implicit midpoint rule costs ~35 µs a body, against ~1 µs
compiled, which pays only for a few bodies (the policy: sim/compiled.py). From ``LOCKSTEP_BODIES`` bodies on, the
implicit kernel runs over all of them at once instead (sim/integrators/kernel_lockstep.py: ~1.3 µs a body and
~0.7 ms a step), and only the bodies out of its usual way body by body.

Where Python's floats raise instead of following the kernel's error model (a division by zero gives an inf or a nan
there), the step is taken again by the same code on numpy's float64 scalars, with numpy's ``sqrt``, ``sin``,
``cos`` and ``isfinite``, which follow it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from spinlab.sim.integrators.kernel_lockstep import LOCKSTEP_BODIES, implicit_rows
from spinlab.sim.jit import plain

__all__ = ["implicit_step", "split_step", "explicit_step"]

# Beside this file (not found through importlib: any look at the compiled module's spec would import it, numba
# and all).
_KERNELS_SOURCE = Path(__file__).with_name("_kernels.py")


class _Floats:
    """An array's elements as Python floats (or ints) for the kernels' indexing, ``A[n, i]`` and ``A.shape``."""

    __slots__ = ("shape", "_values")

    def __init__(self, array: np.ndarray) -> None:
        self.shape = array.shape
        self._values = array.tolist()

    def __getitem__(self, key):
        if not isinstance(key, tuple):
            return self._values[key]
        value = self._values
        for index in key:
            value = value[index]
        return value


def _as_floats(argument):
    """A kernel's argument for the run on floats: arrays as :class:`_Floats`, numpy numbers as Python's."""
    if isinstance(argument, np.ndarray):
        return _Floats(argument)
    if isinstance(argument, np.generic):
        return argument.item()
    return argument


def _run(kernel: str, arguments: tuple, outputs: tuple) -> None:
    """``_kernels.<kernel>(*arguments, *outputs)`` run plain on Python's floats, or where they raise (a division by
    zero, ...) on numpy's scalars, which follow the kernel's error model: ``outputs`` written for every body."""
    try:
        getattr(plain(_KERNELS_SOURCE), kernel)(*map(_as_floats, arguments), *outputs)
    except (ZeroDivisionError, ValueError, OverflowError):
        with np.errstate(all="ignore"):  # what is not finite is reported by body
            getattr(plain(_KERNELS_SOURCE, numpy_math=True), kernel)(*arguments, *outputs)


def _implicit_outputs(n: int) -> tuple:
    """What an implicit kernel writes: q, ω, L, iterations, sub-steps, status and the orientation's low part."""
    return (np.empty((n, 4)), np.empty((n, 3)), np.empty((n, 3)), np.empty(n, dtype=np.int64),
            np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int8), np.empty((n, 4)))  # fmt: skip


def implicit_step(method, q, q_low, omega_world, L_world, inertia_inv, torque_world, h, tolerance, max_iterations,
                  max_depth, max_step_angle_sq, max_pieces):  # fmt: skip
    """``_kernels.implicit_kernel`` over the batch, plain: ``(q, ω, L, iterations, substeps, status, q_low)``, the
    arrays the kernel would write. Arguments as the kernel's, but ``method`` by name (``_kernels.KERNEL_METHODS``)."""
    outputs = _implicit_outputs(len(q))
    code = plain(_KERNELS_SOURCE).KERNEL_METHODS[method]
    arguments = (q, q_low, omega_world, L_world, inertia_inv, torque_world)
    rows = None  # the bodies left to the kernel body by body: all of a small batch
    if len(q) >= LOCKSTEP_BODIES:  # every body at once, but those out of the usual way (kernel_lockstep.py)
        rows = implicit_rows(code, *arguments, float(h), tolerance, max_iterations, max_depth, max_step_angle_sq,
                             outputs)  # fmt: skip
        if not rows.size:
            return outputs
        arguments = tuple(argument[rows] for argument in arguments)
    left = outputs if rows is None else _implicit_outputs(len(rows))
    _run("implicit_kernel", (code, *arguments, np.float64(h), tolerance, max_iterations, max_depth,
                             max_step_angle_sq, max_pieces), left)  # fmt: skip
    if rows is not None:
        for out, part in zip(outputs, left, strict=True):
            out[rows] = part
    return outputs


def split_step(coefficients, kicks, q, q_low, omega_world, L_world, inertia_inv, torque_world, lever_body,
               force_world, h, tolerance, max_iterations, max_depth, max_step_angle_sq, max_pieces):  # fmt: skip
    """``_kernels.split_kernel`` with the gyroscopic term over the batch, plain: ``(q, ω, L, iterations, substeps,
    status, q_low)``. Arguments as the kernel's, less ``inertia`` (with the gyroscopic term the kernel never reads
    it: ``inertia_inv`` stands for it) and ``gyroscopic``."""
    outputs = _implicit_outputs(len(q))
    _run("split_kernel", (np.asarray(coefficients), np.asarray(kicks), q, q_low, omega_world, L_world, inertia_inv,
                          inertia_inv, torque_world, lever_body, force_world, np.float64(h), True, tolerance,
                          max_iterations, max_depth, max_step_angle_sq, max_pieces), outputs)  # fmt: skip
    return outputs


def explicit_step(name, kernel, state, params, h, *options):
    """``_kernels.<kernel>`` (an explicit one) over the batch, plain: the new state and cost, raising as the compiled
    step does (``name``: the integrator's). ``options``: the kernel's after ``gyroscopic``, a name of ``_kernels``
    (a constant such as ``"EXPONENTIAL_EXACT"``) standing for its value."""
    from spinlab.sim.integrators.checks import raise_on_failure
    from spinlab.sim.integrators.explicit import explicit_cost
    from spinlab.sim.integrators.state import BodyState

    n = state.q.shape[0]
    outputs = (np.empty((n, 4)), np.empty((n, 3)), np.empty((n, 3)), np.empty(n, dtype=np.int8))
    kernels = plain(_KERNELS_SOURCE)
    values = [getattr(kernels, option) if isinstance(option, str) else option for option in options]
    _run(kernel, (state.q, state.omega_world, state.L_world, params.inertia_body, params.inertia_body_inv,
                  params.torque_world, np.float64(h), params.gyroscopic, *values), outputs)  # fmt: skip
    raise_on_failure(name, outputs[3], h)
    return BodyState(*outputs[:3]), explicit_cost(n)
