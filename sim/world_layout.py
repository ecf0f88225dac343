"""The world's layout (sim/world.py): what a step needs besides the state, derived from the bytes of the fields in
:data:`sim.world.LAYOUT_FIELDS` alone, kept by the world while they are unchanged: one group of bodies per
integrator in use, and per gyroscopic switch of the bodies' own (``World.set_gyroscopic``), with their slots, their
inertia, the buffers their integrator writes into; and which bodies fall freely, turn about a pivot or are frozen.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from spinlab.sim.integrators import INTEGRATORS, ORIENTATION_TORQUE, PIVOT_AWARE
from spinlab.sim.integrators.state import BodyParams, StepBuffers

__all__ = ["INTEGRATOR_NAMES", "Group", "Layout", "Slots", "build_layout"]

INTEGRATOR_NAMES = tuple(INTEGRATORS)
"""The integrators by code (the world's ``integrator`` field)."""

Slots = slice | np.ndarray
"""Rows of the body arrays: a slice when they are contiguous (a view, no copy), else an index array."""


@dataclass(frozen=True, eq=False)
class Group:
    """The bodies one integrator steps: ``slots``, the same as an index array ``bodies`` (K,) (to name the ones
    that fail), and their parameters under zero torque, without and with the gyroscopic term (indexed by it),
    holding copies of their inertia and its inverse (K, 3, 3). ``orientation_torque``: whether the integrator
    takes the torque as a function of the orientation (:data:`sim.integrators.ORIENTATION_TORQUE`). ``out``: the
    buffers its integrator writes into. ``every_body``: whether ``slots`` are all the world's rows. ``pivoted``:
    for an integrator of :data:`sim.integrators.PIVOT_AWARE`, which of its bodies turn about a pivot, (K,) bool,
    its ``pivoted=`` option; ``None`` for the others."""

    name: str
    slots: Slots
    bodies: np.ndarray
    torque_free_params: tuple[BodyParams, BodyParams]
    orientation_torque: bool
    out: StepBuffers
    every_body: bool
    pivoted: np.ndarray | None = None
    gyroscopic: bool | None = None


@dataclass(frozen=True, eq=False)
class Layout:
    """What a step needs besides the state, derived from ``key`` (the bytes of the layout fields): one group per
    integrator in use (code order), the groups among them that hold the torque constant over a step
    (``held_torque``: a predictor step and a second pass under gravity), and the ``free`` and ``pivoted`` slots
    (``None`` when there are none). Frozen bodies are in none of them: ``frozen`` their slots (``None``: none).
    ``single``: the one group, when it has every body (``None`` otherwise)."""

    key: tuple[bytes, ...]
    groups: tuple[Group, ...]
    held_torque: tuple[Group, ...]
    free: Slots | None
    pivoted: Slots | None
    frozen: np.ndarray | None = None
    single: Group | None = None


def build_layout(key: tuple[bytes, ...], values) -> Layout:
    """The layout of the bodies whose :data:`sim.world.LAYOUT_FIELDS` are ``values(name)`` (with bytes ``key``)."""
    codes, frozen, has_pivot = values("integrator"), values("frozen"), values("has_pivot")
    size = codes.size
    stepped = ~frozen
    groups = []
    # The sorted distinct codes; with return_counts, np.unique sorts instead of hashing, and the hashing path of
    # numpy 2.4 imports numpy.ma (a visible share of a short run) to ask whether the array is masked.
    # One group per integrator and gyroscopic switch of a body's own (0: the world's, +1 on, -1 off).
    kinds = codes.astype(np.int32) * 4 + values("gyroscopic_set").astype(np.int32) + 1
    for kind in np.unique(kinds[stepped], return_counts=True)[0]:
        code, own = divmod(int(kind), 4)
        bodies = np.flatnonzero((kinds == kind) & stepped)
        # Index arrays copy: the layout does not depend on the store's buffers (which an append can replace).
        inertia, inertia_inv = values("inertia_body")[bodies], values("inertia_body_inv")[bodies]
        torque_free = (
            BodyParams(inertia, inertia_inv, np.zeros((bodies.size, 3)), False),
            BodyParams(inertia, inertia_inv, np.zeros((bodies.size, 3)), True),
        )
        name = INTEGRATOR_NAMES[int(code)]
        groups.append(
            Group(
                name,
                _slots(bodies),
                bodies,
                torque_free,
                name in ORIENTATION_TORQUE,
                StepBuffers.empty(bodies.size),
                bodies.size == size,
                has_pivot[bodies] if name in PIVOT_AWARE else None,
                None if own == 1 else own == 2,
            )
        )
    pivoted, pinned = values("has_pivot"), values("pinned")
    free = np.flatnonzero(~(pivoted | pinned) & stepped)
    pivoted = np.flatnonzero(pivoted & stepped)
    frozen = np.flatnonzero(frozen)
    return Layout(
        key,
        tuple(groups),
        tuple(group for group in groups if not group.orientation_torque),
        free if free.size else None,  # an index array: the compiled free fall takes one
        _slots(pivoted) if pivoted.size else None,
        frozen if frozen.size else None,
        groups[0] if len(groups) == 1 and groups[0].every_body else None,
    )


def _slots(bodies: np.ndarray) -> Slots:
    """``bodies`` (K,) ascending, K > 0, as a slice when they are consecutive, else as they are."""
    first, last = int(bodies[0]), int(bodies[-1])
    return slice(first, last + 1) if last - first + 1 == bodies.size else bodies
