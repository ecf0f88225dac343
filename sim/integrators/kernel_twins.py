"""The implicit kernel's arithmetic run by numpy over the batch: the compiled path's bits, without numba.

numba costs a short run more than its steps: importing it (~0.1 s), readying its compiler (~0.2 s) and loading the
kernels from its cache, or compiling them (~10 s) on a cold one. The numpy reference paths need none of it, but
the implicit ones solve the same equations by other formulas (rotation matrices, ``np.linalg.solve``) and part from
the kernels by an ulp or two a step; a trace must have the compiled path's bytes (tests/test_trace_digest.py).

This module runs the kernels' own code instead. :mod:`sim.integrators._kernels` writes a body's vectors and
matrices as tuples of numbers, and its helpers (``add``, ``dot``, ``matvec``, ``solve``, ``quat_exp``, ...) are
straight-line arithmetic on them. Executed as plain Python over tuples of (n,) arrays, each helper performs, for
every body at once, the same IEEE operations in the same order as the kernel performs for one body: the same
bits (numba compiles without fast-math, so nothing is reassociated or fused; ``sqrt`` and the division are
correctly rounded; ``sin`` and ``cos``, numpy's and the C library's that the kernel calls, agree bit for bit, which
tests/sim/test_kernel_twins.py checks). The source is read from ``_kernels.py`` and executed without numba's
decorator, so there is one copy of that arithmetic. The explicit kernels whose loop body does not branch per body
(:data:`ONE_PASS`) run as written, their loop over the bodies turned into one pass with ``n`` the slice of all of
them (``row(A, n)`` is then a tuple of columns). The implicit and splitting twins run the kernel's code on stacked
arrays instead, a vector (3, n), a matrix (3, 3, n), with the small-vector helpers of
:mod:`sim.integrators.stacked` (a few numpy operations a helper, not one a component; per element the same
operations still). Only what branches per body is written again, over masks: here the Rodrigues and
inverse-Jacobian coefficients' Taylor tiers, in :mod:`sim.integrators.stacked_newton` Newton's loop, the
sub-stepping and the splittings' stages.

A handful of bodies is cheaper the other way round: every array operation costs numpy ~0.5-1 µs however few its
elements, so below :data:`SCALAR_BODIES` bodies the kernel itself (its loop over the bodies and all) runs as
written on Python's floats (:func:`_float_kernels`): the same IEEE operations in the same order again, ~7× faster
for one body (34 against 236 µs an implicit midpoint step). Where Python's floats raise instead of following the
kernel's error model (a division by zero gives inf or nan there), that step is taken again on numpy's float64
scalars (:func:`_scalar_kernels`), which follow it. The window's comparisons step one body per integrator.

Used by ``run`` on small worlds (scene/running/runner.py) and by the window until the kernels are loaded, through
``backend="twin"`` (sim/compiled.py's ``TWINS``).
"""

from __future__ import annotations

import ast
import marshal
import os
import sys
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

import spinlab.sim.integrators.stacked_newton as stacked_newton
from spinlab.sim.integrators.checks import STATUS_NON_FINITE, STATUS_OK

__all__ = ["implicit_step", "split_step", "explicit_step", "without_numba", "ONE_PASS", "SCALAR_BODIES"]

SCALAR_BODIES = 9
"""Below this many bodies every twin runs the kernel's own loop over Python's floats (:func:`_on_scalars`,
:func:`_explicit_on_floats`); measured with the implicit midpoint rule at h = 1/240 s, µs a step: 34 / 236 for one body,
123 / 246 for 4, 235 / 250 for 8, 292 / 252 for 10, 560 / 322 for 16 (floats / stacked arrays)."""

ONE_PASS = ("euler_kernel", "euler_body_kernel", "magnus_kernel", "rkmk4_kernel")
"""The kernels run as written, in one pass over all bodies."""


# Beside this file (not found through importlib: the integrators hold _kernels as a lazy module, which any look at
# its spec would import, numba and all).
_KERNELS_SOURCE = str(Path(__file__).with_name("_kernels.py"))


def _executed(path: str, name: str, *, one_pass: bool = True) -> dict[str, Any]:
    """The namespace of the numba module at ``path`` executed as plain Python under ``name`` (``njit`` a no-op);
    ``one_pass``: its :data:`ONE_PASS` kernels run over all the bodies at once (else as written, body by body)."""
    namespace: dict[str, Any] = {"__name__": name, "njit": _no_jit}
    exec(_twin_code(path, one_pass=one_pass), namespace)  # noqa: S102 (our own source, read from the package)
    return namespace


def _no_jit(*args, **options):
    """``njit`` as a no-op: ``@njit(...)`` and ``@njit`` leave the function as written."""
    if args and callable(args[0]):
        return args[0]
    return lambda function: function


@cache
def _kernels() -> dict[str, Any]:
    """The namespace of ``_kernels.py`` executed as plain Python (its numba import left out), with the few names
    that take one number replaced by their array versions."""
    namespace = _over_arrays("spinlab.sim.integrators._kernels (as numpy)")
    namespace.update(is_finite_state=_is_finite_state, _write=_write)
    return namespace


@cache
def _stacked_kernels() -> dict[str, Any]:
    """The namespace of :func:`_kernels` again, its small-vector helpers those of
    :mod:`sim.integrators.stacked`: vectors as (3, n) arrays, matrices (3, 3, n), quaternions (4, n), each helper a
    few numpy operations on the whole stack (the implicit and splitting twins; the explicit ones keep the tuples of
    their ``row(A, n)``)."""
    import spinlab.sim.integrators.stacked as stacked

    namespace = _over_arrays("spinlab.sim.integrators._kernels (as numpy, stacked)")
    namespace.update(stacked.overrides(namespace))
    return namespace


def _over_arrays(name: str) -> dict[str, Any]:
    """``_kernels.py`` executed as plain Python under ``name``, with numpy's ``sqrt``, ``sin``, ``cos`` and
    ``isfinite`` and the coefficients' Taylor tiers taken element by element."""
    namespace = _executed(_KERNELS_SOURCE, name)
    namespace.update(
        sqrt=np.sqrt,
        sin=np.sin,
        cos=np.cos,
        isfinite=np.isfinite,
        rodrigues_coefficients=_rodrigues_coefficients(namespace),
        left_jacobian_inv_coefficient=_left_jacobian_inv_coefficient(namespace),
    )
    return namespace


@cache
def _scalar_kernels() -> dict[str, Any]:
    """The namespace of ``_kernels.py`` executed as plain Python on numpy's float64 scalars: the kernels as written,
    with numpy's ``sqrt``, ``sin``, ``cos`` and ``isfinite`` (those of the array twins, which take scalars too)."""
    return without_numba(_KERNELS_SOURCE)


@cache
def without_numba(path: str) -> dict[str, Any]:
    """The namespace of the numba module at ``path`` (one of ours) executed as plain Python, its ``njit`` a no-op and
    its ``sqrt``, ``sin``, ``cos`` and ``isfinite`` numpy's: its kernels called on numpy arrays run their loops in
    Python on numpy's float64 scalars, the compiled code's IEEE operations in the same order (numba compiles
    without fast-math; the functions named are correctly rounded or, for ``sin`` and ``cos``, tested equal), with
    its error model (a division by zero gives inf). Never imports numba."""
    namespace = _executed(path, f"{Path(path).stem} (without numba)")
    namespace.update(sqrt=np.sqrt, sin=np.sin, cos=np.cos, isfinite=np.isfinite)
    return namespace


@cache
def _float_kernels() -> dict[str, Any]:
    """The namespace of ``_kernels.py`` executed as plain Python for Python's floats: the kernels as written, with
    the ``math`` functions their source imports (those numba compiles to) and their Taylor coefficients as tuples
    of floats, so that no numpy scalar enters the arithmetic. Python's float operations are the same IEEE
    operations as numpy's scalars' at a fraction of their cost (~34 against ~63 µs an implicit midpoint step of a
    body); only the error model differs: a division by zero raises, as do ``sqrt`` of a negative and ``sin`` of
    an infinity (:func:`_on_scalars` then steps on numpy's scalars)."""
    namespace = _executed(_KERNELS_SOURCE, "spinlab.sim.integrators._kernels (on floats)", one_pass=False)
    for name in ("_S1", "_S2", "_S3", "_S4"):
        namespace[name] = tuple(namespace[name].tolist())
    return namespace


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
    """A kernel's argument for :func:`_float_kernels`: arrays as :class:`_Floats`, numpy numbers as Python's."""
    if isinstance(argument, np.ndarray):
        return _Floats(argument)
    if isinstance(argument, np.generic):
        return argument.item()
    return argument


def _on_scalars(kernel: str, n: int, *arguments) -> tuple:
    """``_kernels.<kernel>`` (an implicit one: it writes q, ω, L, iterations, sub-steps, status and the
    orientation's low part) over ``n`` bodies run on Python's floats, or where they raise (a division by zero, ...)
    on numpy's scalars, which follow the kernel's error model: the arrays it writes."""
    outputs = (np.empty((n, 4)), np.empty((n, 3)), np.empty((n, 3)), np.empty(n, dtype=np.int64),
               np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int8), np.empty((n, 4)))  # fmt: skip
    try:
        _float_kernels()[kernel](*(_as_floats(argument) for argument in arguments), *outputs)
    except (ZeroDivisionError, ValueError, OverflowError):
        with np.errstate(all="ignore"):  # the kernel's error model: what is not finite is reported by body
            _scalar_kernels()[kernel](*arguments, *outputs)
    return outputs


def _twin_code(path: str, *, one_pass: bool = True) -> Any:
    """``_kernels.py`` at ``path`` compiled without its numba import, ``ONE_PASS`` kernels in one pass (unless
    ``one_pass`` is false); kept in the package's ``__pycache__`` as Python keeps bytecode (parsing and compiling it
    cost ~30 ms a process, a tenth of a small ``run``), headed by both source files' modification times and sizes:
    used while they match."""
    stamps = [os.stat(source) for source in (path, __file__)]
    key = ("-".join(f"{stat.st_mtime_ns:x}.{stat.st_size:x}" for stat in stamps) + "\n").encode()
    kind = "twin" if one_pass else "twin-loops"
    cached = Path(path).parent / "__pycache__" / f"{Path(path).stem}.{kind}.{sys.implementation.cache_tag}.marshal"
    try:
        data = cached.read_bytes()
        if data.startswith(key):
            return marshal.loads(data[len(key) :])
    except (OSError, EOFError, ValueError, TypeError):
        pass
    with open(path, encoding="utf-8") as source:
        tree = ast.parse(source.read(), filename=path)
    tree.body = [node for node in tree.body if not (isinstance(node, ast.ImportFrom) and node.module == "numba")]
    for function in tree.body:
        if one_pass and isinstance(function, ast.FunctionDef) and function.name in ONE_PASS:
            function.body = _one_pass(function.body)
    ast.fix_missing_locations(tree)
    code = compile(tree, path, "exec")
    try:  # written whole, then renamed: a reader never finds half a file
        cached.parent.mkdir(exist_ok=True)
        partial = cached.with_name(f"{cached.name}.{os.getpid()}.tmp")
        partial.write_bytes(key + marshal.dumps(code))
        os.replace(partial, cached)
    except OSError:
        pass  # a read-only installation: compiled again next time
    return code


def _one_pass(body: list[ast.stmt]) -> list[ast.stmt]:
    """A kernel's statements with its loop ``for n in range(q.shape[0]): ...`` made ``n = slice(None); ...``."""
    for index, statement in enumerate(body):
        if isinstance(statement, ast.For) and isinstance(statement.target, ast.Name) and statement.target.id == "n":
            loops = (ast.For, ast.While)
            inner = [node for node in ast.walk(statement) if isinstance(node, ast.Break | ast.Continue)]
            if inner or statement.orelse or any(isinstance(node, loops) for node in statement.body):
                raise ValueError("a kernel run in one pass must not branch out of its loop over the bodies")
            everyone = ast.parse("n = slice(None)").body
            return body[:index] + everyone + statement.body + body[index + 1 :]
    raise ValueError("no loop over the bodies (for n in ...) in a kernel named to run in one pass")


def _write(n, q, omega, L, q_out, omega_out, L_out, status_out) -> None:
    """The kernel's ``_write`` for the bodies ``n`` (a slice), each body's status from its own values."""
    for i in range(4):
        q_out[n, i] = q[i]
    for i in range(3):
        omega_out[n, i] = omega[i]
        L_out[n, i] = L[i]
    status_out[n] = np.where(_is_finite_state(q, omega, L), STATUS_OK, STATUS_NON_FINITE)


def _left_jacobian_inv_coefficient(kernels: dict[str, Any]):
    """The kernel's ``left_jacobian_inv_coefficient`` over arrays: each element through the kernel's branch."""
    s4_terms, terms, branch = kernels["_S4"], kernels["_TERMS"], kernels["TAYLOR_BRANCH_ANGLE_SQ"]

    def coefficient(angle_sq, s2, s3) -> np.ndarray:
        angle_sq, s2, s3 = np.broadcast_arrays(*(np.asarray(x, dtype=np.float64) for x in (angle_sq, s2, s3)))
        c = np.empty_like(angle_sq)
        taylor = angle_sq < branch
        rows = np.flatnonzero(taylor)
        x = angle_sq[rows]
        s4 = np.full_like(x, s4_terms[0])
        for k in range(1, terms):
            s4 = s4 * x + s4_terms[k]
        c[rows] = (s3[rows] - 2.0 * s4) / (2.0 * s2[rows])
        rows = np.flatnonzero(~taylor)
        half = 0.5 * np.sqrt(angle_sq[rows])
        c[rows] = (1.0 - half * np.cos(half) / np.sin(half)) / angle_sq[rows]
        return c

    return coefficient


def _rodrigues_coefficients(kernels: dict[str, Any]):
    """The kernel's ``rodrigues_coefficients`` over an array of ``a²``: each element through the branch and the
    Taylor tier the kernel would take for it."""
    s1_terms, s2_terms, s3_terms = kernels["_S1"], kernels["_S2"], kernels["_S3"]
    terms, bounds, tier_terms = kernels["_TERMS"], kernels["_TIER_BOUNDS"], kernels["_TIER_TERMS"]
    branch = kernels["TAYLOR_BRANCH_ANGLE_SQ"]
    series = np.array([s1_terms, s2_terms, s3_terms], dtype=np.float64)  # (3, terms)
    tiers = tuple(zip(bounds, tier_terms, strict=True))
    smallest_first = terms - tier_terms[0]  # the first term below the first bound (the fewest terms)
    assert bounds[0] < branch, "the kernel's tiers lie below its Taylor branch"

    def first_term(angle_sq: float) -> int:
        """The first Taylor term the kernel starts from at ``angle_sq``: its tier's, or -1 for the closed form."""
        if not angle_sq < branch:
            return -1
        for bound, count in tiers:
            if angle_sq < bound:
                return terms - count
        return 0

    def coefficients(angle_sq: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        angle_sq = np.asarray(angle_sq, dtype=np.float64)
        # Most calls find every element in one Taylor tier (a nan's max is nan: not this way): below the first
        # bound, whatever the smallest element; else the smallest's tier must be the largest's.
        first = first_term(angle_sq.max()) if angle_sq.size else -1
        if first == smallest_first or (first >= 0 and first == first_term(angle_sq.min())):
            c = series[:, first : first + 1]
            for k in range(first + 1, terms):
                c = c * angle_sq + series[:, k : k + 1]
            if c.shape == (3, *angle_sq.shape):  # (not the constant of a single term)
                return c[0], c[1], c[2]
        return mixed(angle_sq)

    def mixed(angle_sq: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        angle_sq = np.asarray(angle_sq, dtype=np.float64)
        s1, s2, s3 = np.empty_like(angle_sq), np.empty_like(angle_sq), np.empty_like(angle_sq)
        # The first Taylor term each element starts from: the kernel's tiers, the full polynomial up to the
        # branch, the closed form (-1) above it (and for a nan).
        start = np.where(angle_sq < branch, 0, -1)
        for bound, count in zip(reversed(bounds), reversed(tier_terms), strict=True):
            start = np.where(angle_sq < bound, terms - count, start)
        # Horner's rule over every element at once from the earliest first term: an element joins, restarted at
        # its own first term, when the loop reaches it, so it sees exactly the kernel's operations (no gathering by
        # tier: ~40 µs for 100 bodies in three tiers, against ~160 µs gathered). The closed form's rows (and a
        # nan's), ~never in a step, are taken apart, their Horner values (from x = 0) discarded.
        taylor = start >= 0
        closed = None if taylor.all() else np.flatnonzero(~taylor)
        x = angle_sq if closed is None else np.where(taylor, angle_sq, 0.0)
        # The three series at once, as rows of one array (each element's operations are still its own).
        firsts = [first for first in sorted({0, *(terms - count for count in tier_terms)}) if (start == first).any()]
        if firsts:
            first = firsts[0]
            c = np.repeat(series[:, first : first + 1], x.size, axis=1)
            for k in range(first + 1, terms):
                c = c * x + series[:, k : k + 1]
                if k in firsts:
                    c = np.where(start == k, series[:, k : k + 1], c)
            s1, s2, s3 = c
        if closed is not None:
            x = angle_sq[closed]
            a = np.sqrt(x)
            sin_a, sin_half = np.sin(a), np.sin(0.5 * a)
            s1[closed], s2[closed], s3[closed] = sin_a / a, 2.0 * sin_half * sin_half / x, (a - sin_a) / (x * a)
        return s1, s2, s3

    return coefficients


def _is_finite_state(q, omega, L) -> np.ndarray:
    """(n,) bool: every component of the body's q, ω and L finite (tuples of (n,) arrays)."""
    return np.isfinite(np.stack([*q, *omega, *L])).all(axis=0)


def implicit_step(method, q, q_low, omega_world, L_world, inertia_inv, torque_world, h, tolerance, max_iterations,
                  max_depth, max_step_angle_sq):  # fmt: skip
    """``_kernels.implicit_kernel`` over the batch, as numpy: ``(q, ω, L, iterations, substeps, status, q_low)``,
    the arrays the kernel would write. Arguments as the kernel's, but ``method`` by name
    (``_kernels.KERNEL_METHODS``)."""
    if len(q) < SCALAR_BODIES:
        code = _float_kernels()["KERNEL_METHODS"][method]
        return _on_scalars("implicit_kernel", len(q), code, q, q_low, omega_world, L_world, inertia_inv,
                           torque_world, np.float64(h), tolerance, max_iterations, max_depth,
                           max_step_angle_sq)  # fmt: skip
    k = _stacked_kernels()
    code = k["KERNEL_METHODS"][method]
    return stacked_newton.implicit(k, code, q, q_low, omega_world, L_world, inertia_inv, torque_world, h, tolerance,
                                   max_iterations, max_depth, max_step_angle_sq)  # fmt: skip


def split_step(coefficients, kicks, q, q_low, omega_world, L_world, inertia_inv, torque_world, lever_body,
               force_world, h, tolerance, max_iterations, max_depth, max_step_angle_sq):  # fmt: skip
    """``_kernels.split_kernel`` with the gyroscopic term over the batch, as numpy: ``(q, ω, L, iterations, substeps,
    status, q_low)``. Arguments as the kernel's (less ``inertia`` and ``gyroscopic``, which the free flow does not
    read)."""
    if len(q) < SCALAR_BODIES:  # ``inertia`` stands for itself: with the gyroscopic term the kernel never reads it
        return _on_scalars("split_kernel", len(q), np.asarray(coefficients), np.asarray(kicks), q, q_low,
                           omega_world, L_world, inertia_inv, inertia_inv, torque_world, lever_body, force_world,
                           np.float64(h), True, tolerance, max_iterations, max_depth, max_step_angle_sq)  # fmt: skip
    return stacked_newton.split(_stacked_kernels(), coefficients, kicks, q, q_low, omega_world, L_world, inertia_inv,
                                torque_world, lever_body, force_world, h, tolerance, max_iterations, max_depth,
                                max_step_angle_sq)  # fmt: skip


def explicit_step(name, kernel, state, params, h, *options):
    """``_kernels.<kernel>`` (one of :data:`ONE_PASS`) over the batch, as numpy: the new state and cost, raising as
    the compiled step does (``name``: the integrator's). ``options``: the kernel's after ``gyroscopic``, a name of
    ``_kernels`` (a constant such as ``"EXPONENTIAL_EXACT"``) standing for its value. Below :data:`SCALAR_BODIES`
    bodies the kernel's own loop runs on Python's floats (a step of one body: magnus 130 → 24 µs, rkmk4 311 → 33),
    and where they raise, the one pass over arrays, which follows the kernel's error model."""
    from spinlab.sim.integrators.checks import raise_on_failure
    from spinlab.sim.integrators.explicit import explicit_cost
    from spinlab.sim.integrators.state import BodyState

    n = state.q.shape[0]
    q, omega, L = np.empty((n, 4)), np.empty((n, 3)), np.empty((n, 3))
    status = np.empty(n, dtype=np.int8)
    inputs = (state.q, state.omega_world, state.L_world, params.inertia_body, params.inertia_body_inv,
              params.torque_world, float(h), params.gyroscopic)  # fmt: skip
    outputs = (q, omega, L, status)
    if n >= SCALAR_BODIES or not _explicit_on_floats(kernel, inputs, options, outputs):
        k = _kernels()
        values = [k[option] if isinstance(option, str) else option for option in options]
        with np.errstate(all="ignore"):  # what is not finite is reported by body
            k[kernel](*inputs, *values, *outputs)
    raise_on_failure(name, status, h)
    return BodyState(q, omega, L), explicit_cost(n)


def _explicit_on_floats(kernel: str, inputs: tuple, options: tuple, outputs: tuple) -> bool:
    """``_kernels.<kernel>`` (an explicit one) run body by body on Python's floats, writing ``outputs``; ``False``
    where Python's floats raise (a division by zero, ...), whose error model is not the kernel's."""
    k = _float_kernels()
    values = [k[option] if isinstance(option, str) else option for option in options]
    try:
        k[kernel](*(_as_floats(argument) for argument in inputs), *values, *outputs)
    except (ZeroDivisionError, ValueError, OverflowError):
        return False
    return True
