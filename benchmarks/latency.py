"""One body's latency: µs per step at N = 1 of each integrator's compiled kernel alone, of its ``step`` and of
``World.step``, so the overhead of the Python around the kernel is seen (a one-body ``World.step`` should cost within a
few µs of its kernel: that overhead, not the arithmetic, is what a small scene pays).

The body is a torque-free T-handle (principal moments (2.5, 1.4, 1.3) kg m², body ω ≈ (0.05, 5, 0.05) rad/s, no
pivot, gravity zero), stepped at h = 1/240 s. The kernel is called with preallocated outputs on the same inputs
each time; ``step`` and ``World.step`` chain the state as the app does. Each figure is the best of ``repeats``
runs of a few thousand calls, with garbage collection off, after a warm-up (which compiles the kernels). The
exact closed form has no compiled kernel: its ``step`` and ``World.step`` are reported, its kernel is not.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from spinlab.benchmarks.timing import best_seconds_per_call
from spinlab.sim.integrators import INTEGRATORS, _kernels
from spinlab.sim.integrators.composition import KAHAN_LI_9, TRIPLE_JUMP
from spinlab.sim.integrators.newton import NEWTON_DEFAULTS
from spinlab.sim.integrators.splitting import STRANG, kick_lengths
from spinlab.sim.integrators.state import BodyParams, BodyState
from spinlab.sim.world import World

__all__ = ["run", "format_table", "measure", "kernel_call"]

H = 1.0 / 240.0
INERTIA = np.diag([2.5, 1.4, 1.3])
OMEGA_BODY = np.array([0.05, 5.0, 0.05])
_CALLS = 4000
_COMPOSED = {"im4": ("implicit_midpoint", TRIPLE_JUMP), "im6": ("implicit_midpoint", KAHAN_LI_9),
             "ot4": ("object_trapezoidal", TRIPLE_JUMP)}  # fmt: skip
_SPLIT = {"split2": STRANG, "split4": TRIPLE_JUMP, "split6": KAHAN_LI_9}
_EXPLICIT = {"euler": "euler_kernel", "euler_body": "euler_body_kernel", "rkmk4": "rkmk4_kernel"}


def kernel_call(name: str, state: BodyState, params: BodyParams, q_out: np.ndarray) -> Callable[[], None] | None:
    """One call of ``name``'s compiled kernel on ``state`` (torque-free, gyroscopic term on, the default options)
    with preallocated outputs, the new orientations in ``q_out`` (``None``: it has no kernel)."""
    omega_out, L_out = np.empty((len(state), 3)), np.empty((len(state), 3))
    n_bodies = len(state)
    iterations, substeps, status = (
        np.empty(n_bodies, np.int64),
        np.empty(n_bodies, np.int64),
        np.empty(n_bodies, np.int8),
    )
    inputs = (state.q, state.omega_world, state.L_world)
    explicit = (*inputs, params.inertia_body, params.inertia_body_inv, params.torque_world, H, True)
    newton = NEWTON_DEFAULTS._kernel_arguments
    # The implicit kernels carry the orientation's low part (BodyState.q_low): in after q, out after status.
    inputs_low = (state.q, np.zeros((n_bodies, 4)), state.omega_world, state.L_world)
    implicit_outputs = (q_out, omega_out, L_out, iterations, substeps, status, np.empty((n_bodies, 4)))
    if name in _EXPLICIT:
        kernel = getattr(_kernels, _EXPLICIT[name])
        return lambda: kernel(*explicit, q_out, omega_out, L_out, status)
    if name == "magnus":
        options = (3, _kernels.EXPONENTIAL_EXACT)
        return lambda: _kernels.magnus_kernel(*explicit, *options, q_out, omega_out, L_out, status)
    if name in _kernels.KERNEL_METHODS:
        method = _kernels.KERNEL_METHODS[name]
        arguments: tuple[Any, ...]  # each kernel's positional arguments: their count differs from kernel to kernel
        arguments = (method, *inputs_low, params.inertia_body_inv, params.torque_world, H, *newton, *implicit_outputs)
        return lambda: _kernels.implicit_kernel(*arguments)
    if name in _COMPOSED:
        base, coefficients = _COMPOSED[name]
        arguments = (_kernels.KERNEL_METHODS[base], np.asarray(coefficients), *inputs_low, params.inertia_body_inv,
                     params.torque_world, H, *newton, *implicit_outputs)  # fmt: skip
        return lambda: _kernels.composed_kernel(*arguments)
    if name in _SPLIT:
        gammas, kicks = np.asarray(_SPLIT[name], dtype=np.float64), kick_lengths(_SPLIT[name])
        zero = np.zeros((n_bodies, 3))
        arguments = (gammas, kicks, *inputs_low, params.inertia_body, params.inertia_body_inv, params.torque_world,
                     zero, zero, H, True, *newton, *implicit_outputs)  # fmt: skip
        return lambda: _kernels.split_kernel(*arguments)
    return None


def _best_us(call: Callable[[], Any], repeats: int, calls: int) -> float:
    """Best µs per call of ``call`` over ``repeats`` runs of ``calls`` calls (after up to 200 warm-up calls)."""
    for _ in range(min(calls, 200)):
        call()
    return best_seconds_per_call(call, repeats, calls) * 1e6


def _one_body(name: str) -> tuple[BodyState, BodyParams, World]:
    q = np.array([[1.0, 0.0, 0.0, 0.0]])
    state = BodyState.from_omega_body(q, OMEGA_BODY[None], INERTIA[None])
    world = World()
    world.add_body(q=q[0], omega_world=state.omega_world[0], inertia_body=INERTIA, integrator=name)
    return state, BodyParams.from_inertia(INERTIA[None]), world


def measure(name: str, repeats: int, calls: int = _CALLS) -> dict[str, Any]:
    """µs per one-body step of ``name``: ``kernel_us`` (``None`` without a kernel), ``step_us``, ``world_us``."""
    start, params, world = _one_body(name)
    kernel = kernel_call(name, start, params, np.empty((1, 4)))
    step = INTEGRATORS[name]
    current = [start]

    def integrator_step() -> None:
        current[0] = step(current[0], params, H)[0]

    if name == "exact":  # a closed-form step costs a hundred kernels' steps: fewer calls
        calls = max(1, calls // 50)
    return {
        "integrator": name,
        "kernel_us": None if kernel is None else _best_us(kernel, repeats, calls),
        "step_us": _best_us(integrator_step, repeats, calls),
        "world_us": _best_us(lambda: world.step(H), repeats, calls),
    }


def run(quick: bool, *, progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Run the benchmark (``quick``: 3 repeats instead of 9). JSON-serialisable result:

    ``{"name", "quick", "h", "repeats", "results": [{"integrator", "kernel_us", "step_us", "world_us"}]}``.
    """
    report = progress if progress is not None else (lambda message: None)
    repeats = 3 if quick else 9
    results = []
    for name in INTEGRATORS:
        report(f"{name} ...")
        results.append(measure(name, repeats))
    return {"name": "latency", "quick": quick, "h": H, "repeats": repeats, "results": results}


def format_table(result: dict[str, Any]) -> str:
    """A text table: µs per one-body step of the kernel, the integrator's ``step`` and ``World.step``."""
    lines = [f"{'integrator':<20}{'kernel (us)':>12}{'step (us)':>12}{'World.step (us)':>17}{'overhead':>10}"]
    for row in result["results"]:
        kernel = row["kernel_us"]
        overhead = "—" if kernel is None else f"{row['world_us'] - kernel:.2f}"
        kernel_text = "—" if kernel is None else f"{kernel:.2f}"
        lines.append(f"{row['integrator']:<20}{kernel_text:>12}{row['step_us']:>12.2f}{row['world_us']:>17.2f}"
                     f"{overhead:>10}")  # fmt: skip
    lines.append(f"\none torque-free T-handle, h = {result['h']:.6g} s, best of {result['repeats']} runs; overhead = "
                 "World.step − kernel")  # fmt: skip
    return "\n".join(lines)


if __name__ == "__main__":
    import sys

    quick_run = "--quick" in sys.argv[1:]
    print(format_table(run(quick_run, progress=lambda message: print(message, file=sys.stderr))))
