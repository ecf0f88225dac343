"""Magnus expansion under constant angular acceleration (seed 000, "Numerical Integration for Rotational
Dynamics"; math.md §The integrators).

``α = I_w⁻¹ (τ − g ω × L)`` is taken at the start of the step and held, so ``ω' = ω + α h`` and the orientation
follows ``dO/dt = [ω(t)] O`` with the linear ``ω(t)``, whose Magnus series is

    Ω₁ = ½ (ω + ω') h        Ω₂ = (1/12) ω' × ω h²        Ω₃ = (1/240) α × (α × ω) h⁵
    q' = normalise(exp(½ (Ω₁ + Ω₂ + Ω₃)) ⊗ q)                (world-frame update: left multiplication)

then ``L' = O' I O'ᵀ ω'``. The series converges while the angle per step is below π/√2. The ω update is explicit
Euler's, so with the gyroscopic term the method is first order overall; without it (``α = I_w⁻¹ τ`` over the
step), ω is exact for a constant world torque and a torque-free body turns by the exact rotation ``exp(h ω)``.
"""

from __future__ import annotations

import numpy as np

from spinlab.sim.integrators.checks import check_backend
from spinlab.sim.integrators.claims import Claims
from spinlab.sim.integrators.explicit import finish_explicit, run_explicit_kernel
from spinlab.sim.integrators.record import Integrator
from spinlab.sim.integrators.state import BodyParams, BodyState, StepBuffers, StepCost, angular_acceleration
from spinlab.sim.quaternion import quat_exp, quat_exp_third_order, quat_mul, quat_normalize
from spinlab.sim.vector import cross

__all__ = ["step", "EXPONENTIALS", "INTEGRATOR"]


NAME = "magnus"
EXPONENTIALS = ("exact", "third_order")
_EXPONENTIAL_NAMES = {"exact": "EXPONENTIAL_EXACT", "third_order": "EXPONENTIAL_THIRD_ORDER"}  # kernels' codes


def step(
    state: BodyState,
    params: BodyParams,
    h: float,
    *,
    terms: int = 3,
    exponential: str = "exact",
    backend: str = "numba",
    out: StepBuffers | None = None,
) -> tuple[BodyState, StepCost]:
    """Advance N bodies by ``h`` seconds with the Magnus series.

    ``terms``: 1, 2 or 3 (Ω₁ … Ω₃). ``exponential``: ``"exact"`` (:func:`sim.quaternion.quat_exp`) or
    ``"third_order"`` (seed 000's trig-free normalised form, :func:`sim.quaternion.quat_exp_third_order`).
    ``backend``: ``"numba"``, ``"numpy"`` or ``"twin"`` (the kernel run plain); ``out``: where the kernel
    writes (:class:`StepBuffers`). Raises
    :class:`sim.errors.NumericalError` for a non-finite state.
    """
    if terms not in (1, 2, 3):
        raise ValueError(f"terms must be 1, 2 or 3, got {terms!r}")
    if backend == "numba":
        code = _EXPONENTIAL_NAMES.get(exponential)
        if code is not None:
            import spinlab.sim.integrators._kernels as kernels  # numba at its first call

            code = getattr(kernels, code)
            return run_explicit_kernel(NAME, kernels.magnus_kernel, state, params, h, terms, code, out=out)
    if backend == "twin" and exponential in _EXPONENTIAL_NAMES:  # the kernel's bits (kernel_twins.py)
        from spinlab.sim.integrators.kernel_twins import explicit_step as twin_step

        return twin_step(NAME, "magnus_kernel", state, params, h, terms, _EXPONENTIAL_NAMES[exponential])
    check_backend("numpy" if backend == "twin" else backend)
    if exponential not in EXPONENTIALS:
        raise ValueError(f"exponential must be one of {EXPONENTIALS}, got {exponential!r}")
    omega_world = state.omega_world
    with np.errstate(all="ignore"):  # non-finite results are reported by body in finish_explicit
        alpha = angular_acceleration(state, params)
        omega_new = omega_world + h * alpha
        rotation = 0.5 * h * (omega_world + omega_new)
        if terms >= 2:
            rotation = rotation + h * h / 12.0 * cross(omega_new, omega_world)
        if terms >= 3:
            rotation = rotation + h**5 / 240.0 * cross(alpha, cross(alpha, omega_world))
        exp = quat_exp if exponential == "exact" else quat_exp_third_order
        q_new = quat_normalize(quat_mul(exp(rotation), state.q))
    return finish_explicit(NAME, h, q_new, omega_new, params)


# With the gyroscopic term ω takes explicit Euler's update: first order (measured 0.95), L drifts. Before its kernel
# is loaded it steps on its twin: its numpy path with two or three terms parts from the kernel by an ulp at times.
INTEGRATOR = Integrator(
    NAME,
    step,
    Claims(order=1, conserves_momentum=False, relative_cost=1.7, method="Magnus expansion, constant acceleration"),
    place=3,
    kernel="magnus_kernel",
    fallback="twin",
    colour="#f3c300",
    compile_rank=11,
)
