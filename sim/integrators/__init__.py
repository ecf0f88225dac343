"""The rotational integrators, one per module, and their registry.

Every ``step(state, params, h, **options) -> (BodyState, StepCost)`` advances a batch of N bodies by ``h``
seconds (:mod:`sim.integrators.state`); options are keyword-only. ``INTEGRATORS`` maps the names the command
line, the panel and the tests use to those functions, ``CLAIMS`` to what each module claims of its method
(:class:`sim.integrators.claims.Claims`: order, conservation of ``L``, torque), declared beside its ``step``.

Most integrators hold ``params.torque_world`` constant over a step. Those in ``ORIENTATION_TORQUE`` also take the
keyword ``orientation_torque``, a torque ``τ(q)`` that depends on the orientation (:mod:`sim.integrators.torque`),
and evaluate it where each of their stages needs it: that keeps their order under gravity about a pivot.

``ENGINE_STEPS`` are the game and robotics engines' own rotation steps (Bullet, MuJoCo, PhysX, Jolt, Godot,
Catto 2015), written from their sources (docs/engines.md); a module may hold several of them (its ``VARIANTS``).
"""

from types import ModuleType

from spinlab.sim.jit import lazy_module

# The kernels' module is imported (and numba with it) at its first use, not with the integrators (sim/jit.py).
_kernels = lazy_module("spinlab.sim.integrators._kernels")

from spinlab.sim.integrators import (  # noqa: E402
    axes2,
    axes4,
    axes6,
    axes8,
    bullet,
    catto2015,
    euler,
    euler_body,
    exact,
    godot,
    im4,
    im6,
    implicit_midpoint,
    jolt,
    magnus,
    mujoco,
    object_trapezoidal,
    ot4,
    physx,
    rkmk4,
    split2,
    split4,
    split6,
    trapezoidal,
)
from spinlab.sim.integrators.claims import Claims  # noqa: E402
from spinlab.sim.integrators.engine_steps import EngineStep, float32_twins  # noqa: E402

__all__ = ["INTEGRATORS", "CLAIMS", "ORIENTATION_TORQUE", "ENGINE_STEPS", "AXES", "METHODS", "FAMILIES", "Claims"]

_MODULES: dict[str, ModuleType | EngineStep] = {
    "euler": euler,
    "euler_body": euler_body,
    "magnus": magnus,
    "implicit_midpoint": implicit_midpoint,
    "trapezoidal": trapezoidal,
    "object_trapezoidal": object_trapezoidal,
    "im4": im4,
    "im6": im6,
    "ot4": ot4,
    "rkmk4": rkmk4,
    "exact": exact,
    "split2": split2,
    "split4": split4,
    "split6": split6,
}
# The splitting into rotations about the principal axes (issue 27): a family of its own, not in "all" (below).
_AXES = {"axes2": axes2, "axes4": axes4, "axes6": axes6, "axes8": axes8}
_MODULES.update(_AXES)
# The engines' rotation steps (issue 25): several modes a module, each an object with ``step`` and ``CLAIMS``.
_ENGINES = {**bullet.VARIANTS, **mujoco.VARIANTS, **physx.VARIANTS, **jolt.VARIANTS, **godot.VARIANTS,
            **catto2015.VARIANTS}  # fmt: skip
# The engines built in single precision by default (MuJoCo is double): each step again in float32, NAME_f32.
_SINGLE = {**bullet.VARIANTS, **physx.VARIANTS, **jolt.VARIANTS, **godot.VARIANTS, **catto2015.VARIANTS}
_FLOAT32 = float32_twins(_SINGLE)
_MODULES.update(_ENGINES)
_MODULES.update(_FLOAT32)

INTEGRATORS = {name: module.step for name, module in _MODULES.items()}

CLAIMS: dict[str, Claims] = {name: module.CLAIMS for name, module in _MODULES.items()}
"""Each integrator's claims, as its own module declares them."""

ENGINE_STEPS = frozenset(_ENGINES) | frozenset(_FLOAT32)
"""The names that are an engine's rotation step (docs/engines.md), not a method of the maths reference."""

AXES = tuple(_AXES)
"""The explicit splittings into rotations about the principal axes, orders 2 to 8 (sim/integrators/axes_splitting.py).
A family of their own (``--integrator axes``) rather than part of "all side by side": that grid's 14 methods have
14 colours picked as the set with the largest smallest CIELAB distance (scene/model/palette.py), and 18 cells would
shrink every view by a further quarter."""

METHODS = tuple(name for name in INTEGRATORS if name not in ENGINE_STEPS and name not in AXES)
"""The maths' methods, in the registry's order: what ``--integrator all`` and "all side by side" run."""

FAMILIES = {"all": METHODS, "axes": AXES, "engines": tuple(_ENGINES), "engines_f32": tuple(_FLOAT32)}
"""The integrators a family name stands for on the command line: ``--integrator all`` (the maths' methods),
``axes`` (the splittings into rotations about the principal axes), ``engines`` (the engines' steps in double
precision) or ``engines_f32`` (their float32 twins)."""

ORIENTATION_TORQUE = frozenset(name for name, claims in CLAIMS.items() if claims.orientation_torque)
"""The integrators that take ``orientation_torque=τ(q)`` and evaluate it at their own stages."""
